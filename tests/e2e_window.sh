#!/usr/bin/env bash
# The real window, under Xvfb:
#  1. --window-capture: what the window shows equals --screenshot's PNG,
#     bit for bit (one renderer, one offscreen target for both paths);
#  2. the interactive viewer starts, takes keys (xdotool), and quits
#     cleanly with status 0 on its quit key.
#  3. and it matches the golden of the same case (the suite's tolerance).
# Usage: e2e_window.sh SKINVIEW SKV_CHECK OUT_DIR MODEL GOLDEN.png TIME
set -euo pipefail
skinview=$1 check=$2 out=$3 model=$4 golden=$5 time=$6
. "$(dirname "$0")/golden_tolerance.sh"
mkdir -p "$out"
if [ -z "${DISPLAY:-}" ]; then
  # Re-run this script inside a fresh virtual X server.
  # -noreset: an X server resets when its last client leaves, and a client
  # that connects during the reset (slow under load) is refused.
  exec xvfb-run -a -s "-screen 0 1024x768x24 -noreset" "$0" "$@"
fi

"$skinview" "$model" --debug --time "$time" --size 256x256 --window-capture "$out/window.png"
env -u DISPLAY "$skinview" "$model" --debug --time "$time" --size 256x256 --screenshot "$out/headless.png"
"$check" same "$out/window.png" "$out/headless.png"
"$check" golden "$out/window.png" "$golden" "$out/window.diff.png" "$TOLERANCE" "$MAX_FRACTION"

"$skinview" "$model" --size 320x240 &
pid=$!
for _ in $(seq 1 100); do
  wid=$(xdotool search --name "skinview - " 2>/dev/null | head -n 1 || true)
  [ -n "$wid" ] && break
  sleep 0.1
done
if [ -z "$wid" ]; then
  echo "no skinview window appeared"
  kill "$pid" 2>/dev/null || true
  exit 1
fi
echo "window $wid: $(xdotool getwindowname "$wid")"
# Pause, step, speed up, next clip (a cross-fade), dual quaternions on and
# off, then quit.
for key in space Right plus n d d; do
  xdotool key --window "$wid" "$key"
  sleep 0.2
done
# The window closes on the key press, so the key release xdotool sends
# after it may find no window: its status says nothing about skinview.
xdotool key --window "$wid" q 2>/dev/null || true
status=0
for _ in $(seq 1 50); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  echo "skinview did not quit on 'q'"
  kill "$pid"
  exit 1
fi
wait "$pid" || status=$?
echo "skinview exited with status $status"
[ "$status" -eq 0 ]
