#!/bin/sh
# ir_corpus.sh - bench/ir_per_bone.sh over every clip of the corpus's
# animated models (playback), plus seeks on the long-clip files.
#
#   bench/ir_corpus.sh BENCH [MODEL...]
set -u
bench=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
# One model a line (MDL (HL1)'s folder has a space).
nl='
'
models=
for m in "$@"; do models="$models$m$nl"; done
if [ -z "$models" ]; then
    a=/usr/share/assimp/models s=$root/../shared/models
    models="$root/assets/worm.dae
$root/assets/snake.fbx
$root/assets/arm.md5mesh
$root/assets/twist.dae
$a/X/BCN_Epileptic.X
$a/FBX/animation_with_skeleton.fbx
$a/X/Testwuson.X
$a/X/anim_test.x
$a/BVH/Boxing_Toes.bvh
$a/BVH/01_01.bvh
$a/SMD/WusonSMD.smd
$a/SMD/triangle.smd
$a/SMD/holy_grailref.smd
$a/B3D/WusonBlitz.b3d
$a/MDL/MDL (HL1)/man.mdl
$a/MDL/MDL (HL1)/chrome_sphere.mdl
$a/MDL/MDL (HL1)/alpha_test.mdl
$a/glTF2/simple_skin/simple_skin.gltf
$s/gltf/Fox.glb
$s/gltf/CesiumMan.glb
$s/gltf/robot.glb
$s/gltf/RiggedFigure.glb
$s/gltf/SimpleSkin.gltf
$s/collada/seymour_polylist_animation.dae
$s/collada/box_nested_animation.dae
$s/fbx/huesitos.fbx
$s/md5/Bob.md5mesh
$s/ozz/walk.fbx
$s/ozz/run.fbx
$s/ozz/jog.fbx
$s/synthetic/tentacle130_8w.gltf"
fi
IFS=$nl
for m in $models; do
    [ -n "$m" ] || continue
    clips=$("$here/../build/skinview" --list "$m" 2>/dev/null | sed -n 's/^clips: \([0-9]*\).*/\1/p')
    [ -n "$clips" ] || clips=0
    c=0
    while [ "$c" -lt "$clips" ]; do
        "$here/ir_per_bone.sh" "$bench" "$m" "$c"
        c=$((c + 1))
    done
    [ "$clips" -gt 0 ] && "$here/ir_per_bone.sh" "$bench" "$m" 0 --seek
done
