#!/usr/bin/env bash
# Renders the README's pictures with skinview itself into assets/screenshots/.
# Usage: tools/readme-pictures.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
skinview=$build/skinview
fox=$root/../shared/models/gltf/Fox.glb
out=$root/assets/screenshots
mkdir -p "$out"
shot() { # NAME MODEL ARGS...
  local name=$1 model=$2
  shift 2
  "$skinview" "$model" --size 320x240 "$@" --screenshot "$out/$name.png"
  echo "wrote $out/$name.png"
}
# The four at the top of the README: the default model first.
shot mannequin "$root/assets/mannequin.glb" --time 0.3 --size 320x320
shot mannequin-wave "$root/assets/mannequin.glb" --anim wave --time 0.5 --size 320x320
shot worm "$root/assets/worm.dae" --time 0.4 --size 320x320
shot arm "$root/assets/arm.md5mesh" --time 0.9 --size 320x320
shot snake "$root/assets/snake.fbx" --time 0.9 --size 320x320
shot view-skeleton "$fox" --anim Walk --time 0.35 --skeleton
shot view-bind-pose "$fox" --anim Walk --time 0.35 --bind-pose
shot view-weights "$fox" --anim Walk --time 0.35 --weights b_Tail01_012
shot view-influences "$fox" --anim Walk --time 0.35 --influence-count
shot view-wireframe "$fox" --anim Walk --time 0.35 --wireframe
shot view-normals "$fox" --anim Walk --time 0.35 --normals
shot view-grid-axes "$fox" --anim Walk --time 0.35 --grid --axes --background '#3a4250'
shot twist-linear "$root/assets/twist.dae" --time 2
shot twist-dq "$root/assets/twist.dae" --time 2 --skinning dq
shot crowd "$fox" --instances 16 --mixed-clips --time 0.5
shot blend "$fox" --blend Walk,Run,0.5 --time 0.3
shot layers "$root/../shared/models/gltf/robot.glb" --anim Robot_Walking --layer Robot_Wave:mask=Torso --time 0.7 \
  --size 256x256
ozz=$root/../shared/models/ozz
shot anim-only "$ozz/walk.fbx" --time 0.9
shot anim-file "$ozz/arnaud.fbx" --anim-file "$ozz/walk.fbx" --time 0.9
morph_dir=$(mktemp -d)
python3 "$root/tests/tools/gen/gltf_morph_skin.py" "$morph_dir/morph_skin.gltf"
shot morph "$morph_dir/morph_skin.gltf" --time 1.5
python3 "$root/tests/tools/gen/gltf_looks.py" spheres "$morph_dir/looks_spheres.glb"
python3 "$root/tests/tools/gen/gltf_looks.py" normal "$morph_dir/looks_normal.glb"
shot looks-spheres "$morph_dir/looks_spheres.glb" --camera-azimuth 0 --camera-elevation 5
shot looks-normal-map "$morph_dir/looks_normal.glb" --time 0.6
rm -rf "$morph_dir"
bvh=/usr/share/assimp/models/BVH/01_01.bvh
shot motion-framed "$bvh" --time 20
shot motion-follow "$bvh" --time 20 --follow --grid
# CMU's mocap retargeted onto CesiumMan (issue #45), and the take itself.
shot retarget-cmu-source "$bvh" --time 4 --frame pose --grid --size 256x256
shot retarget-cmu "$root/../shared/models/gltf/CesiumMan.glb" --anim-file "$bvh" \
  --bone-map "$root/tests/data/retarget/cesiumman_cmu.json" --anim Motion --time 4 --frame pose --grid --size 256x256
"$skinview" "$root/assets/worm.dae" --gif "$out/worm.gif" --size 200x200
"$skinview" "$root/assets/mannequin.glb" --gif "$out/mannequin.gif" --size 200x200
