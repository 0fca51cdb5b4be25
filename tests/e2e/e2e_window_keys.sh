#!/usr/bin/env bash
# The window's S key with --screenshot-dir, and the motion keys: T (follow)
# and I (in place) each change what the window draws of a walk (BVH).
# Usage: e2e_window_keys.sh SKINVIEW SKV_CHECK OUT_DIR MODEL
set -uo pipefail
skinview=$1 check=$2 out=$3 model=$4
rm -rf "$out"
mkdir -p "$out/shots"
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1024x768x24 -noreset" "$0" "$@"
fi
status=0
fail() { echo "FAIL: $*"; status=1; }
"$skinview" "$model" --size 240x200 --time 20 --screenshot-dir "$out/shots" >"$out/viewer.txt" 2>"$out/viewer.err" &
pid=$!
wid=
for _ in $(seq 1 100); do
  wid=$(xdotool search --name "skinview - " 2>/dev/null | head -n 1 || true)
  [ -n "$wid" ] && break
  sleep 0.1
done
[ -n "$wid" ] || { echo "no skinview window appeared"; kill "$pid" 2>/dev/null; exit 1; }
shots=0
snap() { # the S key; waits for the file
  xdotool key --window "$wid" s
  shots=$((shots + 1))
  for _ in $(seq 1 50); do [ -e "$out/shots/$(basename "$model")_skinview_$shots.png" ] && return; sleep 0.1; done
  fail "S did not save shot $shots into --screenshot-dir"
}
xdotool key --window "$wid" space # pause: the same instant for every shot
sleep 0.3
snap
xdotool key --window "$wid" t
sleep 0.3
snap
xdotool key --window "$wid" t i
sleep 0.3
snap
xdotool key --window "$wid" q 2>/dev/null || true
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill "$pid" 2>/dev/null && fail "skinview did not quit on q"
wait "$pid" 2>/dev/null
base=$out/shots/$(basename "$model")_skinview
"$check" differ "${base}_1.png" "${base}_2.png" 0.001 || fail "T (follow) did not change the picture"
"$check" differ "${base}_1.png" "${base}_3.png" 0.001 || fail "I (in place) did not change the picture"
[ "$(ls "$out/shots" | wc -l)" -eq 3 ] || fail "expected 3 files in --screenshot-dir, found $(ls "$out/shots" | wc -l)"
ls "$(dirname "$model")"/*_skinview_* >/dev/null 2>&1 && fail "a screenshot was written beside the model"
"$skinview" "$model" --screenshot-dir "$out/none" --list >/dev/null 2>"$out/bad.err"
[ $? -eq 2 ] && [ "$(wc -l <"$out/bad.err")" -eq 1 ] || fail "--screenshot-dir to a missing folder is not one usage line"
cat "$out/viewer.txt"
[ "$status" -eq 0 ] && echo "e2e_window_keys: all checks passed"
exit $status
