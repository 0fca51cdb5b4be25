#!/usr/bin/env bash
# Writes the generated test models into OUT_DIR (each generator's top
# comment says what its file holds and why).
# Usage: tests/tools/gen/generate.sh OUT_DIR SHARED_MODELS_DIR [TEST_MODELS_DIR]
set -euo pipefail
gen=$(cd "$(dirname "$0")" && pwd)
out=$1 shared=$2 testmodels=${3:-/usr/share/assimp/models}
mkdir -p "$out"
python3 "$gen/gltf_name_clash.py" "$out/name_clash.gltf"
python3 "$gen/b3d_keys_past_end.py" "$out/keys_past_end.b3d"
python3 "$gen/fbx_pivots.py" "$out/fbx_prerotation.fbx" --variant prerotation
python3 "$gen/fbx_pivots.py" "$out/fbx_pivots.fbx" --variant pivots
python3 "$gen/fbx_pivots.py" "$out/fbx_mixamo_offsets.fbx" --variant prerotation --transform-mesh
# library_animation_clips.dae's clip "bend" alone, for the Collada evaluator.
python3 "$gen/collada_clip.py" "$shared/collada/library_animation_clips.dae" "$out/library_animation_clips_bend.dae" bend
# Testwuson.X's AnimationSets one at a time, for Irrlicht (it reads all
# of a file's sets onto one time line).
if [ -f "$testmodels/X/Testwuson.X" ]; then
  for set in Wuson_Run Wuson_Walk Wuson_Bind; do
    python3 "$gen/x_clip.py" "$testmodels/X/Testwuson.X" "$out/Testwuson_$set.X" "$set"
  done
else # the reference_x_testwuson* cases then fail for want of their copies
  echo "generate.sh: $testmodels/X/Testwuson.X not found (assimp-testmodels): its clip copies not written" >&2
fi
# An animated three-bone SMD, for the SMD evaluator (the corpus's are one bone, one frame).
python3 "$gen/smd_chain.py" "$out/smd_chain.smd"
# A Half-Life model whose default body draws nothing (e2e_hl1_clips).
hl1="$testmodels/MDL/MDL (HL1)/duplicate_submodels.mdl"
if [ -f "$hl1" ]; then
  python3 "$gen/hl1_blank_body.py" "$hl1" "$out/hl1_blank_body.mdl"
else # e2e_hl1_clips then fails for want of it
  echo "generate.sh: $hl1 not found (assimp-testmodels): hl1_blank_body.mdl not written" >&2
fi
python3 "$gen/gltf_morph_skin.py" "$out/morph_skin.gltf"
# A big skinned mesh, indexed already, read in one step (test_blob --once,
# issue #47); beside a line, or with a key past its clip's end that a
# FIX_READ_SCENE row repairs, in two.
python3 "$gen/gltf_big_skin.py" "$out/big_skin_120k.glb" 120000
python3 "$gen/gltf_big_skin.py" "$out/big_skin_120k_lines.glb" 120000 lines
python3 "$gen/gltf_big_skin.py" "$out/big_skin_120k_late.glb" 120000 late
# Framing: one lightly weighted vertex sets it; a tube big enough that
# the framing's clusters pay (unit_framing).
python3 "$gen/gltf_light_extreme.py" "$out/light_extreme.glb"
python3 "$gen/gltf_big_skin.py" "$out/big_skin_100k.glb" 100000
# worm.dae with its numbers pushed to the edges (0, 1e30, NaN-making), for
# the framing's bounds where poses overflow (unit_framing).
python3 "$gen/nan_mutations.py" "$out/edges" "$gen/../../../assets/worm.dae" >/dev/null
# STEP and CUBICSPLINE samplers on joints, a node and morph weights (#42).
python3 "$gen/gltf_interpolation.py" "$out/interpolation.gltf"
python3 "$gen/gltf_interpolation.py" "$out/interpolation.glb"
# Collada STEP, BEZIER and HERMITE curves on a skinned chain (#42).
python3 "$gen/dae_curves.py" "$out/dae_curves"
# The DirectX 11 book's .m3d (issue #43): a skinned tube, its second clip,
# a static box, broken ones.
python3 "$gen/m3d_files.py" "$out/m3d"
# Clips without a mesh: which nodes the stick figure makes joints.
python3 "$gen/fbx_rigs.py" "$out/rigs"
python3 "$gen/md5_many_weights.py" "$out/md5_many_weights.md5mesh"
python3 "$gen/gltf_split.py" "$out/split"
# Materials (issue #19): transparency, sRGB, normal maps, metal and roughness,
# texture transforms (#42).
for kind in blend order mask srgb maps normal flat uvmap spheres; do
  python3 "$gen/gltf_looks.py" "$kind" "$out/looks_$kind.glb"
done
echo "generate.sh: wrote $(ls "$out" | wc -l) models into $out"
