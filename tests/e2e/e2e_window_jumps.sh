#!/usr/bin/env bash
# The window's jumps through the clip: Home and End to its first and last
# frame, comma and period to the previous and next key (wrapping round the
# loop), on the default model's clips (keys 15 a second: walk 16 keys over
# 1 s, wave 31 over 2 s). Each jump says which key it landed on (stdout and
# the HUD); the frame the window shows at a key is the one --screenshot
# renders at that key's time.
# Usage: e2e_window_jumps.sh SKINVIEW SKV_CHECK OUT_DIR MODEL
set -uo pipefail
skinview=$1 check=$2 out=$3 model=$4
rm -rf "$out"
mkdir -p "$out/shots"
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1024x768x24 -noreset" "$0" "$@"
fi
status=0
fail() { echo "FAIL: $*"; status=1; }
"$skinview" "$model" --size 240x200 --screenshot-dir "$out/shots" >"$out/viewer.txt" 2>"$out/viewer.err" &
pid=$!
wid=
for _ in $(seq 1 100); do
  wid=$(xdotool search --name "skinview - " 2>/dev/null | head -n 1 || true)
  [ -n "$wid" ] && break
  sleep 0.1
done
[ -n "$wid" ] || { echo "no skinview window appeared"; kill "$pid" 2>/dev/null; exit 1; }
said=0
expect() { # KEY... LINE: press the keys (each says a line), wait for LINE as the last
  local line=${*: -1}
  xdotool key --window "$wid" "${@:1:$#-1}"
  said=$((said + $# - 1))
  for _ in $(seq 1 50); do
    [ "$(grep -cv '^saved ' "$out/viewer.txt")" -ge "$said" ] && break
    sleep 0.1
  done
  got=$(grep -v '^saved ' "$out/viewer.txt" | sed -n "${said}p")
  [ "$got" = "$line" ] || fail "keys '${*:1:$#-1}': said '$got', not '$line'"
}
shots=0
snap() { # the S key; waits for the file
  xdotool key --window "$wid" s
  shots=$((shots + 1))
  for _ in $(seq 1 50); do [ -e "$out/shots/$(basename "$model")_skinview_$shots.png" ] && return; sleep 0.1; done
  fail "S did not save shot $shots"
}
xdotool key --window "$wid" space
sleep 0.2
expect Home "first frame: key 1/16 at 0.000 s"
snap
expect period "next key: key 2/16 at 0.067 s"
expect period period "next key: key 4/16 at 0.200 s"
snap
expect comma "previous key: key 3/16 at 0.133 s"
expect End "last frame: key 16/16 at 1.000 s"
expect period "next key: key 1/16 at 0.000 s"
expect comma "previous key: key 16/16 at 1.000 s"
# The next clip has keys of its own.
xdotool key --window "$wid" n
sleep 0.3
expect End "last frame: key 31/31 at 2.000 s"
expect comma "previous key: key 30/31 at 1.933 s"
xdotool key --window "$wid" q 2>/dev/null || true
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill "$pid" 2>/dev/null && fail "skinview did not quit on q"
wait "$pid" 2>/dev/null
base=$out/shots/$(basename "$model")_skinview
"$check" differ "${base}_1.png" "${base}_2.png" 0.001 || fail "the frame at key 4 looks like the first"
"$skinview" "$model" --size 240x200 --time 0.2 --screenshot "$out/key4.png" 2>/dev/null
"$check" same "${base}_2.png" "$out/key4.png" || fail "the window at key 4 is not --screenshot at 0.2 s"
cat "$out/viewer.txt"
[ "$status" -eq 0 ] && echo "e2e_window_jumps: all checks passed"
exit $status
