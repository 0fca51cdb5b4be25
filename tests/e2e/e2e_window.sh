#!/usr/bin/env bash
# The real window, under Xvfb:
#  1. --window-capture: what the window shows equals --screenshot's PNG,
#     bit for bit (one renderer, one offscreen target for both paths);
#  2. the interactive viewer starts, takes keys (xdotool): its own
#     screenshot key (S) saves what it draws, and the skeleton key, the
#     weight key and a click on the timeline each change that picture;
#     it quits cleanly with status 0 on its quit key. Screenshots are new
#     files with the next free number: a file already there (_1) and a
#     symbolic link (_2) are neither overwritten nor written through.
#  3. and it matches the golden of the same case (the suite's tolerance).
#  4. a file dropped on the window (XDND, tests/tools/xdnd_drop.c) opens (a
#     file of clips without a mesh adds its clips instead): the
#     viewer says so and the title names the new file.
#  5. a drop whose source window is gone before the viewer answers (its
#     answers draw BadWindow errors, which Xlib's default handler makes
#     fatal): the viewer says so once, takes the next drop and quits
#     cleanly.
# Usage: e2e_window.sh SKINVIEW SKV_CHECK OUT_DIR MODEL GOLDEN.png TIME XDND_DROP DROP_MODEL
set -euo pipefail
skinview=$1 check=$2 out=$3 model=$4 golden=$5 time=$6 xdnd_drop=$7 drop_model=$8
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

# The viewer's own screenshot key (S) saves next to the model: work on a
# copy so nothing is written beside the source.
mkdir -p "$out/model"
cp "$model" "$out/model/"
model="$out/model/$(basename "$model")"
rm -f "$model"_skinview_*.png "$out/model/target.txt"
printf 'earlier' >"${model}_skinview_1.png"
printf 'target' >"$out/model/target.txt"
ln -s "$out/model/target.txt" "${model}_skinview_2.png"
"$skinview" "$model" --size 320x240 >"$out/viewer.txt" &
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
# off.
for key in space Right plus n d d; do
  xdotool key --window "$wid" "$key"
  sleep 0.2
done
# Keys change what is drawn: a screenshot (S) after each of plain, the
# skeleton (K), the weight view (W), and a click on the timeline bar.
shots=2 # _1 and _2 are taken
snap() {
  sleep 0.3
  xdotool key --window "$wid" s
  shots=$((shots + 1))
  for _ in $(seq 1 30); do [ -e "${model}_skinview_$shots.png" ] && break; sleep 0.1; done
}
snap
xdotool key --window "$wid" k
snap
xdotool key --window "$wid" w
snap
eval "$(xdotool getwindowgeometry --shell "$wid")"
xdotool mousemove --window "$wid" $((WIDTH * 4 / 5)) $((HEIGHT - 8)) click 1
snap
status=0
for i in 3 4 5; do
  "$check" differ "${model}_skinview_$i.png" "${model}_skinview_$((i + 1)).png" 0.001 || status=1
done
# Two drops from a window destroyed before the viewer answers: each
# answer is a BadWindow error. The viewer lives on (the next drop must
# finish) and says so once.
"$xdnd_drop" --gone "$wid" "$drop_model" || status=1
"$xdnd_drop" --gone "$wid" "$drop_model" || status=1
# Drop a broken file on the window: it stays on its model and says why.
printf 'not a model' >"$out/broken.fbx"
"$xdnd_drop" "$wid" "$out/broken.fbx" || status=1
for _ in $(seq 1 50); do
  grep -q "^cannot open " "$out/viewer.txt" && break
  sleep 0.1
done
[ "$(xdotool getwindowname "$wid")" = "skinview - $(basename "$model")" ] || status=1
kill -0 "$pid" 2>/dev/null || { echo "skinview died after a drop from a window that is gone"; exit 1; }
# Drop another model on the window.
"$xdnd_drop" "$wid" "$drop_model" || status=1
for _ in $(seq 1 50); do
  grep -q "^opened " "$out/viewer.txt" && break
  sleep 0.1
done
title=$(xdotool getwindowname "$wid")
echo "after the drop the title is: $title"
[ "$title" = "skinview - $(basename "$drop_model")" ] || status=1
# Drop a file of clips without a mesh (the model's .md5anim): its clip is
# added to the open model, which stays.
drop_clips=${drop_model%.*}.md5anim
"$xdnd_drop" "$wid" "$drop_clips" || status=1
for _ in $(seq 1 50); do
  grep -q "^added " "$out/viewer.txt" && break
  sleep 0.1
done
[ "$(xdotool getwindowname "$wid")" = "skinview - $(basename "$drop_model")" ] || status=1
# Each drop ran a guarded child; one that handed over a whole model is
# killed and reaped at once (guard.c): none may stay a zombie while the
# viewer runs on.
zombies=1
for _ in $(seq 1 30); do
  zombies=$(ps --ppid "$pid" -o stat= | grep -c '^Z' || true)
  [ "$zombies" = 0 ] && break
  sleep 0.1
done
echo "zombie children of the viewer after the drops: $zombies"
[ "$zombies" = 0 ] || status=1
# The window closes on the key press, so the key release xdotool sends
# after it may find no window: its status says nothing about skinview.
xdotool key --window "$wid" q 2>/dev/null || true
for _ in $(seq 1 50); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  echo "skinview did not quit on 'q'"
  kill "$pid"
  exit 1
fi
exit_status=0
wait "$pid" || exit_status=$?
echo "skinview exited with status $exit_status"
cat "$out/viewer.txt"
[ "$(grep -c '^saved ' "$out/viewer.txt")" -eq 4 ] || status=1
grep -qx "saved ${model}_skinview_3.png" "$out/viewer.txt" || { echo "the first screenshot is not _3"; status=1; }
printf earlier | cmp -s - "${model}_skinview_1.png" || { echo "_1 was overwritten"; status=1; }
[ -L "${model}_skinview_2.png" ] && printf target | cmp -s - "$out/model/target.txt" ||
  { echo "_2 (a link) was replaced or written through"; status=1; }
grep -q "^opened $drop_model\$" "$out/viewer.txt" || status=1
grep -q "^added 1 clip(s) from $drop_clips: " "$out/viewer.txt" || status=1
grep -q "^cannot open $out/broken.fbx: " "$out/viewer.txt" || status=1
[ "$(grep -c '^X error ignored: BadWindow ' "$out/viewer.txt")" -eq 1 ] ||
  { echo "want one 'X error ignored: BadWindow' line"; status=1; }
[ "$exit_status" -eq 0 ] && [ "$status" -eq 0 ]
