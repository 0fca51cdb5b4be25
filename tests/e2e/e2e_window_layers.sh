#!/usr/bin/env bash
# The window's layer keys (--layer): M mutes the picked layer (the picture
# changes) and unmutes it (the picture is back), J lowers its weight
# (the picture changes), Y picks the next layer; the S key's shots.
# Usage: e2e_window_layers.sh SKINVIEW SKV_CHECK OUT_DIR ROBOT_GLB
set -uo pipefail
skinview=$1 check=$2 out=$3 model=$4
rm -rf "$out"
mkdir -p "$out/shots"
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1024x768x24 -noreset" "$0" "$@"
fi
status=0
fail() { echo "FAIL: $*"; status=1; }
"$skinview" "$model" --size 240x200 --time 0.6 --anim Robot_Walking --layer Robot_Wave:mask=Torso \
  --layer Robot_Yes:additive --screenshot-dir "$out/shots" >"$out/viewer.txt" 2>"$out/viewer.err" &
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
  fail "S did not save shot $shots"
}
xdotool key --window "$wid" space # pause: one instant for every shot
sleep 0.3
snap                                # 1: both layers
xdotool key --window "$wid" m
sleep 0.3
snap                                # 2: the wave muted
xdotool key --window "$wid" m
sleep 0.3
snap                                # 3: back
xdotool key --window "$wid" j j j j j
sleep 0.3
snap                                # 4: the wave at 0.5
xdotool key --window "$wid" y m
sleep 0.3
snap                                # 5: the nod muted as well
xdotool key --window "$wid" q 2>/dev/null || true
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill "$pid" 2>/dev/null && fail "skinview did not quit on q"
wait "$pid" 2>/dev/null
base=$out/shots/$(basename "$model")_skinview
"$check" differ "${base}_1.png" "${base}_2.png" 0.001 || fail "M did not mute the layer"
"$check" differ "${base}_1.png" "${base}_3.png" 0.001 && fail "M again did not bring the layer back"
"$check" differ "${base}_1.png" "${base}_4.png" 0.001 || fail "J did not lower the layer's weight"
"$check" differ "${base}_4.png" "${base}_5.png" 0.001 || fail "Y then M did not mute the second layer"
[ "$status" -eq 0 ] && echo "e2e_window_layers: all checks passed"
exit $status
