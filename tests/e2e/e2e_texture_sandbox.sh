#!/usr/bin/env bash
# Textures from a downloaded file are decoded inside the sandbox, within
# one budget, and only images are read from outside the model's folder
# (issue #48). Each run guarded and with --trust (the same rules):
#  - a 16-bit binary PPM embedded in a glTF (it crashed Skinview itself
#    when the parent decoded it with stb_image): status 0, one warning
#    naming the format, a picture;
#  - twelve 118-byte progressive JPEGs of 8192 x 8192 texels: within the
#    texels' share of the budget, the rest refused from their headers; --list
#    and --screenshot each within 10 s and, in the normal build
#    (SKV_RESOURCE_CAP_KB set), under 1 GB of peak RSS (the largest one
#    process of skinview and its children reaches);
#  - images named outside the model's folder: beneath its parent one that
#    is an image is drawn (a game pack's ../Textures), one that is not
#    (raw bytes) is refused as such; one beyond the parent, or a link
#    inside the folder pointing there, is refused by its path, and its
#    bytes never reach a decoder.
# Usage: e2e_texture_sandbox.sh SKINVIEW SKV_CHECK ASSETS OUT_DIR
set -uo pipefail
skinview=$1 check=$2 assets=$3 out=$4
gen=$(cd "$(dirname "$0")/../tools/gen" && pwd)
rm -rf "$out"
mkdir -p "$out/pack/models" "$out/pack/textures" "$out/far"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cap_kb=${SKV_RESOURCE_CAP_KB:-}

# run NAME EXPECTED_WARNINGS NEEDLE ARGS...: status 0 within 10 s, exactly
# EXPECTED_WARNINGS stderr lines, each holding NEEDLE; peak RSS checked.
run() {
  local name=$1 lines=$2 needle=$3
  shift 3
  /usr/bin/time -f "%e %M" -o "$out/$name.time" timeout -s KILL 10 "$skinview" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local status=$?
  local seconds kb
  # time(1) writes "Command terminated by signal 9" first when killed.
  read -r seconds kb < <(grep -v "^Command" "$out/$name.time" 2>/dev/null) || { seconds=?; kb=0; }
  case "$kb" in '' | *[!0-9]*) kb=0 ;; esac
  grep -v "^Command" "$out/$name.err" >"$out/$name.err.lines"
  if [ "$status" -ne 0 ]; then
    fail "$name: status $status (137: still running after 10 s)"
    sed 's/^/    /' "$out/$name.err"
  elif [ "$(wc -l <"$out/$name.err.lines")" -ne "$lines" ] ||
       { [ "$lines" -gt 0 ] && [ "$(grep -cF -- "$needle" "$out/$name.err.lines")" -ne "$lines" ]; }; then
    fail "$name: want $lines line(s) with '$needle':"
    sed 's/^/    /' "$out/$name.err.lines"
  else
    echo "ok: $name (${seconds} s, $((kb / 1024)) MiB)"
  fi
  if [ -n "$cap_kb" ] && [ "$kb" -gt 1048576 ]; then fail "$name: peak RSS $((kb / 1024)) MiB, over 1 GiB"; fi
}

python3 "$gen/texture_hostile.py" ppm16 "$out/ppm16.gltf"
python3 "$gen/texture_hostile.py" jpeg-bombs "$out/bombs.gltf" 12
for trust in "" --trust; do
  t=${trust:+.trust}
  run "ppm16.list$t" 1 "Netpbm (PNM) image" "$out/ppm16.gltf" --list $trust
  run "ppm16.shot$t" 1 "Netpbm (PNM) image" "$out/ppm16.gltf" --size 64x64 --screenshot "$out/ppm16$t.png" $trust
  "$check" nonblank "$out/ppm16$t.png" >/dev/null || fail "ppm16$t: no picture"
  # Each bomb takes 384 MiB to decode. The default budget's texel share
  # holds none of them; 2 GiB's holds one: the others are refused by the
  # budget, from their headers.
  for mode in list shot; do
    args=(--list)
    [ "$mode" = shot ] && args=(--size 64x64 --screenshot "$out/bombs$t.png")
    run "bombs.$mode$t" 12 "(a quarter of --import-memory)" "$out/bombs.gltf" "${args[@]}" $trust
    run "bombs.2048.$mode$t" 11 "(a quarter of --import-memory)" "$out/bombs.gltf" "${args[@]}" $trust \
      --import-memory 2048
  done
done

# Outside the folder.
cp "$assets/arm_skin.png" "$out/pack/textures/skin.png"
head -c 4096 /dev/urandom >"$out/pack/textures/raw.png"
cp "$assets/arm_skin.png" "$out/far/far.png"
ln -s ../../far/far.png "$out/pack/models/link.png"
python3 "$gen/texture_hostile.py" uris "$out/pack/models/pack.gltf" ../textures/skin.png ../textures/raw.png \
  ../../far/far.png link.png
for trust in "" --trust; do
  t=${trust:+.trust}
  run "outside$t" 3 "texture" "$out/pack/models/pack.gltf" --list --json $trust
  python3 - "$out/outside$t.out" "$out/outside$t.err.lines" <<'PY' || fail "outside$t: states"
import json, sys
states = [m['textures']['base_color']['state'] for m in json.load(open(sys.argv[1]))['materials'][:4]]
errors = open(sys.argv[2]).read()
assert states == ['found', 'missing', 'missing', 'missing'], states
assert "raw.png" in errors and "not" in errors, errors
assert errors.count("outside the model's folder and its parent's") == 2, errors
PY
  run "outside.shot$t" 3 "texture" "$out/pack/models/pack.gltf" --size 128x64 --screenshot "$out/outside$t.png" $trust
done
# Guarded, the child's sandbox reaches the model's folder only: the image
# beside it is opened by skinview itself (bytes read, not decoded: a second
# sandboxed child decodes them), the child never opens it, and the file
# beyond the parent is opened by no process at all.
# (LeakSanitizer cannot run under ptrace: off for this run in the ASan build.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  strace -f -qq -e trace=open,openat -o "$out/opens.log" "$skinview" "$out/pack/models/pack.gltf" --list >/dev/null 2>&1 ||
  fail "outside under strace"
main_pid=$(awk 'NR == 1 { print $1 }' "$out/opens.log")
skin_pids=$(grep 'skin.png", O_RDONLY' "$out/opens.log" | grep -v ENOENT | grep -v EACCES | awk '{ print $1 }' | sort -u)
[ "$skin_pids" = "$main_pid" ] || fail "outside: skin.png opened by '$skin_pids', want skinview ($main_pid) alone"
grep 'far.png", O_RDONLY' "$out/opens.log" | grep -v "EACCES\|ENOENT" && fail "outside: far.png opened"

# Drawn: the skin's blues on the first quad, where none of the four is
# drawn in the material colour; the same picture both ways.
python3 "$gen/texture_hostile.py" uris "$out/pack/models/none.gltf" none1.png none2.png none3.png none4.png
"$skinview" "$out/pack/models/none.gltf" --size 128x64 --screenshot "$out/none.png" 2>/dev/null || fail "none"
"$check" differ "$out/outside.png" "$out/none.png" >/dev/null || fail "outside: the image beside the folder not drawn"
cmp -s "$out/outside.png" "$out/outside.trust.png" || fail "outside: guarded and --trust differ"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
