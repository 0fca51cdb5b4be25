#!/usr/bin/env bash
# Golden-independent checks of the inspection views (their goldens are the
# view_* cases): each view, rendered headless, changes the picture the way
# it should, in the colours it draws with.
# Usage: e2e_views.sh SKINVIEW SKV_CHECK OUT_DIR FOX.glb
set -euo pipefail
skinview=$1 check=$2 out=$3 fox=$4
mkdir -p "$out"
shot() { # NAME ARGS...: Fox walking at 0.35 s, 256x256
  local name=$1
  shift
  "$skinview" "$fox" --anim Walk --time 0.35 --size 256x256 --debug "$@" --screenshot "$out/$name.png"
}
failures=0
run() { "$@" || failures=$((failures + 1)); }
not() { if "$@"; then return 1; else return 0; fi; }

shot plain
# Skeleton: bone colour (overlay.h SKV_BONE_COLOR, 255 199 51) appears.
shot skeleton --skeleton
run not "$check" color "$out/plain.png" 255 199 51 20 0.0005
run "$check" color "$out/skeleton.png" 255 199 51 20 0.0005
# Weights: the hip's weights and the tail tip's differ; both differ from the material.
shot weights_hip --weights b_Hip_01
shot weights_tail --weights b_Tail03_014
run "$check" differ "$out/weights_hip.png" "$out/weights_tail.png" 0.01
run "$check" differ "$out/plain.png" "$out/weights_hip.png" 0.02
# Weight 0 is the colour map's dark purple (68 1 84), lit between 22% and 100%.
run "$check" color "$out/weights_tail.png" 50 1 64 20 0.01
# Influence count: Fox vertices have 1 to 4 influences: blue (1) and green (2) show.
shot influences --influence-count
run "$check" color "$out/influences.png" 51 92 194 40 0.005
run "$check" differ "$out/plain.png" "$out/influences.png" 0.02
# Wireframe, normals, grid: each adds to the picture.
shot wireframe --wireframe
shot normals --normals
shot grid --grid --axes
for view in wireframe normals grid; do run "$check" differ "$out/plain.png" "$out/$view.png" 0.005; done
# Bind pose: the copy in its ghost colour (140 158 191, lit) beside the fox.
shot bind --bind-pose
run "$check" color "$out/bind.png" 140 158 191 25 0.001
run not "$check" color "$out/plain.png" 140 158 191 25 0.0002
# Background colour.
shot white --background '#ffffff'
run "$check" color "$out/white.png" 255 255 255 0 0.5
# A bone that does not exist: one line, status 2.
if "$skinview" "$fox" --weights no_such_bone --list >/dev/null 2>"$out/err.txt"; then failures=$((failures + 1)); fi
[ "$(wc -l <"$out/err.txt")" -eq 1 ] || failures=$((failures + 1))
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
