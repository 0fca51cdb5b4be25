#!/usr/bin/env bash
# Outputs replace their target whole or not at all. Under a file-size limit
# (ulimit -f 1: writes past 1 KiB fail with EFBIG, as on a full disk)
# --screenshot, --export-pose, --gif, --video and a --frames sequence must end with
# status 8 and one line, leave the good file that was there byte for byte,
# and leave no temporary in the folder: both where the shell ignores
# SIGXFSZ and where it leaves it at its default, which kills (skinview
# ignores it itself). The model is read under the same limit: its block
# comes through the pipe instead of the memfd. Without
# the limit they replace it; through a symbolic link the link stays; a
# pipe is written as it is.
# A full disk: in a private mount namespace (unshare; as root, else in a
# user namespace) a 1 MiB tmpfs holds the good files and is then filled;
# each output over them must end with status 8 and one "No space left on
# device" line, the good files byte for byte as they were, no temporary
# left. Where no namespace can be made the test says so and fails, unless
# SKV_ALLOW_NO_TMPFS=1. And a device that is always full (/dev/full)
# written directly: status 8, one line.
# Usage: e2e_outputs.sh SKINVIEW MODEL
set -uo pipefail
skinview=$1 model=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
mkdir "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Good files first (each well over 1 KiB).
"$skinview" "$model" --size 128x128 --screenshot "$out/shot.png" &&
  "$skinview" "$model" --export-pose "$out/pose.obj" &&
  "$skinview" "$model" --gif "$out/clip.gif" --frames 4 --size 128x128 >/dev/null &&
  "$skinview" "$model" --video "$out/clip.mp4" --frames 4 --size 128x128 >/dev/null &&
  "$skinview" "$model" --frames 2 --size 128x128 --screenshot "$out/f_%d.png" >/dev/null ||
  { echo "FAIL: cannot write the good files"; exit 1; }
(cd "$out" && md5sum -- * >"$tmp/sums" && ls -A >"$tmp/listing")

limited() { # SIGNAL_MODE COMMAND...: under a 1 KiB file-size limit, SIGXFSZ ignored or at its default
  local mode=$1
  shift
  # env, not trap: a shell cannot reset a signal it was started with ignored.
  (ulimit -f 1; exec env "--$mode-signal=XFSZ" "$@")
}
for signal_mode in ignore default; do
  for args in "--time 0.5 --size 128x128 --screenshot $out/shot.png" "--time 0.5 --export-pose $out/pose.obj" \
    "--time 0.5 --gif $out/clip.gif --frames 4 --size 128x128" \
    "--time 0.5 --video $out/clip.mp4 --frames 4 --size 128x128" \
    "--time 0.5 --frames 2 --size 128x128 --screenshot $out/f_%d.png"; do
    # shellcheck disable=SC2086 # the paths have no spaces
    limited "$signal_mode" "$skinview" "$model" $args >/dev/null 2>"$tmp/err"
    got=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$got" -ne 8 ] || [ "$lines" -ne 1 ] || ! grep -q '^skinview: .*cannot write .*File too large$' "$tmp/err"; then
      fail "$args under ulimit -f 1 (SIGXFSZ: $signal_mode): status $got (want 8), $lines line(s): $(head -c 300 "$tmp/err")"
    else
      echo "ok (SIGXFSZ: $signal_mode): status 8: $(cat "$tmp/err")"
    fi
    (cd "$out" && md5sum --quiet -c "$tmp/sums") || fail "$args (SIGXFSZ: $signal_mode) changed the old file"
    (cd "$out" && ls -A) | cmp -s - "$tmp/listing" ||
      fail "$args (SIGXFSZ: $signal_mode) left files behind: $(cd "$out" && ls -A | tr '\n' ' ')"
  done
done
# The model alone under the limit (nothing written): it loads.
limited default "$skinview" "$model" --list >/dev/null 2>"$tmp/err" ||
  fail "--list under ulimit -f 1 (SIGXFSZ: default): status $?: $(head -c 300 "$tmp/err")"

# Without the limit the file is replaced, keeps its mode, and nothing else stays.
chmod 640 "$out/pose.obj"
"$skinview" "$model" --time 0.5 --export-pose "$out/pose.obj" || fail "--export-pose over a good file"
(cd "$out" && md5sum --quiet -c "$tmp/sums" >/dev/null 2>&1) && fail "--export-pose did not replace pose.obj"
[ "$(stat -c %a "$out/pose.obj")" = 640 ] || fail "pose.obj lost its mode: $(stat -c %a "$out/pose.obj")"
(cd "$out" && ls -A) | cmp -s - "$tmp/listing" || fail "left files behind: $(cd "$out" && ls -A | tr '\n' ' ')"

# Through a symbolic link: the file it names is replaced, the link stays.
mkdir "$tmp/real"
cp "$out/shot.png" "$tmp/real/shot.png"
ln -s ../real/shot.png "$out/link.png"
"$skinview" "$model" --time 0.5 --size 64x64 --screenshot "$out/link.png" || fail "--screenshot through a link"
[ -L "$out/link.png" ] || fail "the link was replaced by a file"
cmp -s "$out/shot.png" "$tmp/real/shot.png" && fail "the file the link names was not rewritten"

# A pipe (as /dev/stdout can be): written as it is, not replaced. A pipe
# of our own, not /dev/null: the test may run as root.
mkfifo "$out/pipe.obj"
timeout 30 cat "$out/pipe.obj" >"$tmp/piped.obj" &
reader=$!
"$skinview" "$model" --export-pose "$out/pipe.obj" || fail "--export-pose into a pipe"
wait "$reader"
[ -p "$out/pipe.obj" ] || fail "the pipe was replaced by a file"
grep -q '^v ' "$tmp/piped.obj" || fail "nothing came through the pipe"

# A full disk, for real: a small tmpfs in a mount namespace of our own.
full_disk() { # runs inside the namespace: DIR SKINVIEW MODEL SUMS LISTING GOOD_DIR
  local dir=$1 skinview=$2 model=$3 sums=$4 listing=$5 good=$6 fails=0 args got lines
  mount -t tmpfs -o size=1m tmpfs "$dir" || { echo "FAIL: cannot mount a tmpfs"; return 1; }
  cp "$good"/* "$dir"/
  # Fill it: whatever is left, to the last block.
  dd if=/dev/zero of="$dir/filler" bs=4k 2>/dev/null
  dd if=/dev/zero of="$dir/filler2" bs=512 2>/dev/null
  echo "tmpfs: $(df -k "$dir" | awk 'NR == 2 { print $3 " KB used of " $2 }')"
  for args in "--time 0.5 --size 128x128 --screenshot $dir/shot.png" "--time 0.5 --export-pose $dir/pose.obj" \
    "--time 0.5 --gif $dir/clip.gif --frames 4 --size 128x128" \
    "--time 0.5 --video $dir/clip.mp4 --frames 4 --size 128x128" \
    "--time 0.5 --frames 2 --size 128x128 --screenshot $dir/f_%d.png"; do
    # shellcheck disable=SC2086 # the paths have no spaces
    "$skinview" "$model" $args >/dev/null 2>"$dir.err"
    got=$?
    lines=$(wc -l <"$dir.err")
    if [ "$got" -ne 8 ] || [ "$lines" -ne 1 ] || ! grep -q '^skinview: .*No space left on device$' "$dir.err"; then
      echo "FAIL: $args on a full disk: status $got (want 8), $lines line(s): $(head -c 300 "$dir.err")"
      fails=$((fails + 1))
    else
      echo "ok: full disk: status 8: $(cat "$dir.err")"
    fi
    (cd "$dir" && md5sum --quiet -c "$sums") || { echo "FAIL: $args changed a good file on a full disk"; fails=$((fails + 1)); }
    (cd "$dir" && ls -A | grep -v '^filler') | cmp -s - "$listing" ||
      { echo "FAIL: $args left files behind: $(cd "$dir" && ls -A | tr '\n' ' ')"; fails=$((fails + 1)); }
  done
  umount "$dir"
  return "$fails"
}
export -f full_disk
mkdir "$tmp/full" "$tmp/good"
cp "$tmp/real/shot.png" "$tmp/good/shot.png" # the good files, as they were first written
(cd "$out" && cp pose.obj clip.gif clip.mp4 f_0.png f_1.png "$tmp/good/" 2>/dev/null)
(cd "$tmp/good" && md5sum -- * >"$tmp/full_sums" && ls -A >"$tmp/full_listing")
if [ "$(id -u)" -eq 0 ]; then namespace=(unshare -m); else namespace=(unshare -rm); fi
if "${namespace[@]}" true 2>/dev/null; then
  "${namespace[@]}" bash -c 'full_disk "$@"' _ "$tmp/full" "$skinview" "$model" "$tmp/full_sums" \
    "$tmp/full_listing" "$tmp/good"
  full_fails=$?
  failures=$((failures + full_fails))
elif [ "${SKV_ALLOW_NO_TMPFS:-}" = 1 ]; then
  echo "no mount namespace here: the full-disk tmpfs case is skipped (SKV_ALLOW_NO_TMPFS=1)"
else
  fail "no mount namespace here (unshare): cannot test a full disk (SKV_ALLOW_NO_TMPFS=1 skips it)"
fi

# A device that is always full, written directly (not a regular file: no
# temporary, no rename).
if [ -w /dev/full ]; then
  "$skinview" "$model" --export-pose /dev/full >/dev/null 2>"$tmp/err"
  got=$?
  if [ "$got" -ne 8 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q 'No space left on device$' "$tmp/err"; then
    fail "--export-pose /dev/full: status $got (want 8): $(head -c 300 "$tmp/err")"
  else
    echo "ok: /dev/full: status 8: $(cat "$tmp/err")"
  fi
fi
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
