#!/usr/bin/env bash
# Linked programs kept across runs (src/gl/program_cache.c): a first run
# in an empty cache folder links its programs and stores them; a second
# loads them and links none (counted by the GL count shim); the pictures
# are byte-identical to a run with the cache off; an entry cut short, one
# whose binary bytes are flipped, one whose key is changed, one that is
# not a file, a FIFO (never waited on), one whose binary format the
# driver does not know (no GL error, even under --debug), one holding
# another program's binary whole (the entry's check ties binary to key),
# and a cache folder that cannot be made each cost a link (built from the
# sources again) and change nothing else: status 0, no line on stderr, the
# same picture, a good entry written back. Every run is --debug: a GL
# error anywhere on the cache's path fails it. A store keeps the folder
# bounded: past 256 entries the least recently stored go, temporary files
# over an hour old go, anything else stays.
#
# Usage: e2e_program_cache.sh SKINVIEW COUNT_SHIM.so SHARED_MODELS OUT_DIR [--no-shim]
# --no-shim (AddressSanitizer builds): the pictures and entries only.
set -uo pipefail
skinview=$1 shim=$2 shared=$3 out=$4 no_shim=${5:-}
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
model=$shared/gltf/Fox.glb
[ -e "$model" ] || { echo "FAIL: MISSING test model $model"; exit 1; }
args=("$model" --size 64x64 --debug)

# run CACHE_HOME NAME: one screenshot with XDG_CACHE_HOME=CACHE_HOME
# (at most 60 s; its status in NAME.status); prints the programs it linked
# (-1 without the shim).
run() {
  local home=$1 name=$2
  if [ "$no_shim" = --no-shim ]; then
    XDG_CACHE_HOME=$home timeout 60 "$skinview" "${args[@]}" --screenshot "$name.png" >/dev/null 2>"$name.err"
    echo $? >"$name.status"
    echo -1
  else
    XDG_CACHE_HOME=$home SKV_SHIM_COUNT_FILE="$out/$name.counts" \
      timeout 60 env LD_PRELOAD="$shim" "$skinview" "${args[@]}" --screenshot "$name.png" >/dev/null 2>"$name.err"
    echo $? >"$name.status"
    awk '/^programs/ {p = $2} END {print p + 0}' "$name.counts" 2>/dev/null || echo 0
  fi
}
# same NAME: NAME's picture is the uncached run's, and it said nothing.
same() {
  [ "$(cat "$1.status")" = 0 ] || fail "$1: exit status $(cat "$1.status") (124: it hung)"
  cmp -s off.png "$1.png" || fail "$1: the picture differs from the run without the cache"
  [ ! -s "$1.err" ] || fail "$1: said: $(head -c 300 "$1.err")"
}

off_links=$(SKINVIEW_PROGRAM_CACHE=off run "$out/off-home" off)
[ -s off.png ] || fail "no picture without the cache"
[ ! -e off-home/skinview/programs ] || fail "SKINVIEW_PROGRAM_CACHE=off made the cache folder"

cold_links=$(run "$out/home" cold)
same cold
entries=(home/skinview/programs/*.bin)
[ -e "${entries[0]}" ] || fail "the first run stored no program (is GL_ARB_get_program_binary there?)"
echo "without the cache: ${off_links} program(s) linked; first run: ${cold_links}, ${#entries[@]} entries stored"
stat -c '%a' home/skinview/programs | grep -qx 700 || fail "the cache folder is not the user's alone (0700)"

warm_links=$(run "$out/home" warm)
same warm
echo "second run: ${warm_links} program(s) linked"
if [ "$no_shim" != --no-shim ]; then
  [ "$off_links" -gt 0 ] || fail "the shim counted no link without the cache"
  [ "$cold_links" -eq "$off_links" ] || fail "the first run linked $cold_links programs, without the cache $off_links"
  [ "$warm_links" -eq 0 ] || fail "the second run linked $warm_links programs: the cache was not used"
fi

# spoil HOW ENTRY: one way an entry can go bad.
spoil() {
  case $1 in
    short) head -c $(($(stat -c %s "$2") / 2)) "$2" >"$2.tmp" && mv "$2.tmp" "$2" ;;
    binary) # the last 64 bytes (inside the binary) inverted
      size=$(stat -c %s "$2")
      python3 -c 'import sys
p, n = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
for i in range(n - 64, n): b[i] ^= 0xff
open(p, "wb").write(b)' "$2" "$size" ;;
    key) # a byte of the key (the driver strings, past the 36-byte header) changed
      python3 -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read()); b[38] ^= 0x20
open(p, "wb").write(b)' "$2" ;;
    swap) # another entry's binary (its format, size and bytes) under this entry's key
      other=$(ls home/skinview/programs/*.bin | grep -vx "$2" | head -1)
      python3 -c 'import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
fa, ka, na, ca = struct.unpack_from("<IQQQ", a, 8)
fb, kb, nb, cb = struct.unpack_from("<IQQQ", b, 8)
out = a[:8] + struct.pack("<IQQQ", fb, ka, nb, ca) + a[36:36 + ka] + b[36 + kb:]
open(sys.argv[1], "wb").write(out)' "$2" "$other" ;;
    folder) rm -f "$2" && mkdir "$2" ;;
    fifo) rm -f "$2" && mkfifo "$2" ;;
    format) # the binary format (header bytes 8..11) one no driver has
      python3 -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read()); b[8:12] = (0x5eadbeef).to_bytes(4, "little")
open(p, "wb").write(b)' "$2" ;;
  esac
}
for how in short binary key folder fifo format swap; do
  for entry in home/skinview/programs/*.bin; do
    good_size=$(stat -c %s "$entry" 2>/dev/null || echo 0)
    [ -f "$entry" ] || continue
    spoil "$how" "$entry"
    links=$(run "$out/home" "spoilt-$how")
    same "spoilt-$how"
    echo "entry $(basename "$entry") spoilt ($how): ${links} program(s) linked"
    if [ "$no_shim" != --no-shim ]; then
      [ "$links" -eq 1 ] || fail "$how: a spoilt entry made $links links, not 1"
    fi
    if [ "$how" = folder ]; then
      [ -d "$entry" ] || fail "$how: the directory in the entry's place was replaced"
      rmdir "$entry"
      run "$out/home" refill >/dev/null # the entry back, for the next way
    elif [ "$how" = fifo ]; then
      [ -f "$entry" ] || fail "$how: the FIFO in the entry's place was not replaced by an entry"
      [ -f "$entry" ] || rm -f "$entry"
    else
      [ "$(stat -c %s "$entry")" -eq "$good_size" ] || fail "$how: the entry was not written back whole"
    fi
    break
  done
done

# The folder's bounds, kept by a store (an entry cut short, stored again):
# 300 old entries of no key and an old temporary file go, the run's own
# entries, a fresh temporary file and a file of another name stay.
dir=home/skinview/programs
own=$(ls "$dir"/*.bin) mine=$(ls "$dir"/*.bin | wc -l)
for i in $(seq 1 300); do printf '%016x' "$i" | xargs -I{} sh -c ': >"$1/{}.bin"' _ "$dir"; done
touch -d '2 days ago' "$dir"/00000000000*.bin
: >"$dir/00000000000000aa.bin.stale1" && touch -d '2 hours ago' "$dir/00000000000000aa.bin.stale1"
: >"$dir/00000000000000bb.bin.fresh1" && : >"$dir/notes.txt"
spoil short "$(echo "$own" | head -1)"
run "$out/home" prune >/dev/null
same prune
left=$(ls "$dir"/*.bin | wc -l)
[ "$left" -le 256 ] || fail "prune: $left entries left, more than 256"
[ "$left" -ge "$mine" ] || fail "prune: $left entries left, fewer than the run's own $mine"
for entry in $own; do [ -s "$entry" ] || fail "prune: the run's own entry $entry went"; done
[ ! -e "$dir/00000000000000aa.bin.stale1" ] || fail "prune: a temporary file two hours old stayed"
[ -e "$dir/00000000000000bb.bin.fresh1" ] || fail "prune: a fresh temporary file went"
[ -e "$dir/notes.txt" ] || fail "prune: a file of another name went"
echo "pruned: $left entries left of $((mine + 300)) (the run's $mine kept)"

# A clock moved back (or a folder from a machine whose clock ran ahead):
# 300 entries dated tomorrow were stored before any entry stored now, so
# they go first; the run's own entries, the one just stored among them,
# stay, and the next run links nothing.
for i in $(seq 1 300); do printf 'f%015x' "$i" | xargs -I{} sh -c ': >"$1/{}.bin"' _ "$dir"; done
touch -d tomorrow "$dir"/f*.bin
spoil short "$(echo "$own" | head -1)"
run "$out/home" future >/dev/null
same future
left=$(ls "$dir"/*.bin | wc -l)
[ "$left" -le 256 ] || fail "future: $left entries left, more than 256"
for entry in $own; do [ -s "$entry" ] || fail "future: the run's own entry $entry went (entries dated tomorrow kept)"; done
links=$(run "$out/home" after-future)
same after-future
[ "$no_shim" = --no-shim ] || [ "$links" -eq 0 ] || fail "after future: $links programs linked, the cache's entries gone"
echo "entries dated tomorrow: $left entries left"

# A cache folder that cannot be made (skinview in XDG_CACHE_HOME is a
# file; Mesa's own cache folder beside it is fine): no cache.
mkdir -p blocked && : >blocked/skinview
links=$(run "$out/blocked" nofolder)
same nofolder
[ "$no_shim" = --no-shim ] || [ "$links" -eq "$off_links" ] || fail "no folder: $links links, not $off_links"

exit $status
