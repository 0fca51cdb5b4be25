#!/usr/bin/env bash
# Clips retargeted from one skeleton onto another (--anim-file FILE
# --retarget, --bone-map; issue #45).
# Usage: e2e_retarget.sh SKINVIEW SHARED_MODELS BVH_DIR SOURCE_DIR OUT_DIR
#   SHARED_MODELS: ../shared/models; BVH_DIR: assimp-testmodels' BVH folder;
#   SOURCE_DIR: the repository (tests/tools/gen, tests/data/retarget).
# 1. Rigs whose answer is known (tests/tools/gen/gltf_retarget_variants.py:
#    renamed with a map, re-rested with the skin rebound, scaled x1.5) of
#    Fox, CesiumMan and RiggedFigure: each original clip retargeted onto
#    each variant poses the variant as the clip poses the original (x1.5),
#    every vertex within 1e-4 of the diagonal, at three times per clip.
# 2. CMU's 01_01.bvh onto CesiumMan (tests/data/retarget/cesiumman_cmu.json)
#    and ozz's walk.fbx onto a Mixamo-named rig (gltf_mixamo_rig.py): exit
#    0, finite, the skinned height within 15% of the bind height, the feet
#    moving against the body; the Mixamo rig turned 90 and 150 degrees
#    about the vertical gets the same walk, turned.
# 3. Bad bone maps: missing (3), not JSON, not an object, names either
#    side lacks (2); one line each.
set -uo pipefail
skinview=$1 shared=$2 bvh=$3 src=$4 out=$5
gen=$src/tests/tools/gen
mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

# OBJ B against OBJ A scaled by S (and turned TURN degrees about +Y): the
# largest vertex distance over A's diagonal (times S); exit 1 past TOL or
# where the vertex counts differ.
compare() { # A B S TOL LABEL [TURN]
  python3 - "$@" <<'EOF'
import math, sys
a_path, b_path, s, tol, label = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
turn = math.radians(float(sys.argv[6])) if len(sys.argv) > 6 else 0.0
def load(p):
    return [tuple(map(float, l.split()[1:4])) for l in open(p) if l.startswith('v ')]
a, b = load(a_path), load(b_path)
if len(a) != len(b) or not a:
    print('%s: %d vertices against %d' % (label, len(b), len(a))); sys.exit(1)
lo = [min(v[k] for v in a) for k in range(3)]; hi = [max(v[k] for v in a) for k in range(3)]
diag = math.dist(lo, hi) * s
c, n = math.cos(turn), math.sin(turn)
a = [(c * p[0] + n * p[2], p[1], -n * p[0] + c * p[2]) for p in a]
err = max(math.dist([x * s for x in p], q) for p, q in zip(a, b))
print('%s: %.3g of the diagonal' % (label, err / diag))
sys.exit(0 if err <= tol * diag else 1)
EOF
}

# 1. Known answers.
for model in Fox CesiumMan RiggedFigure; do
  orig=$shared/gltf/$model.glb dir=$out/$model
  python3 "$gen/gltf_retarget_variants.py" "$orig" "$dir" || { fail "$model: variants not written"; continue; }
  clips=$("$skinview" "$orig" --list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["clips"]))')
  [ "${clips:-0}" -ge 1 ] || { fail "$model: no clips listed"; continue; }
  for ((c = 0; c < clips; c++)); do
    for t in 0.25 0.9 1.7; do
      "$skinview" "$orig" --anim $c --time $t --export-pose "$dir/orig_${c}_$t.obj" 2>/dev/null ||
        { fail "$model clip $c at $t s: the original's pose"; continue; }
      for variant in renamed rerested scaled; do
        map=() scale=1
        [ $variant = renamed ] && map=(--bone-map "$dir/renamed_map.json")
        [ $variant = scaled ] && scale=1.5
        obj=$dir/${variant}_${c}_$t.obj
        # The variants have no clips of their own: the retargeted ones come first.
        "$skinview" "$dir/$variant.glb" --anim-file "$orig" --retarget "${map[@]}" --anim $c --time $t \
          --export-pose "$obj" 2>"$dir/$variant.err" || { fail "$model $variant clip $c at $t s exited $?: $(cat "$dir/$variant.err")"; continue; }
        compare "$dir/orig_${c}_$t.obj" "$obj" $scale 1e-4 "$model $variant clip $c at $t s" ||
          fail "$model $variant clip $c at $t s: not the original's pose"
      done
    done
  done
done
# --list says which joints follow which.
"$skinview" "$out/CesiumMan/renamed.glb" --anim-file "$shared/gltf/CesiumMan.glb" --bone-map "$out/CesiumMan/renamed_map.json" \
  --list >"$out/renamed_list.txt" 2>&1 || fail "--list of a retargeted clip exited $?"
grep -q "retargeted from $shared/gltf/CesiumMan.glb (22 of the model's 22 nodes follow the file's)" "$out/renamed_list.txt" ||
  fail "--list: no retargeted clip with its source and match count"
grep -q "^      joint 'n3_1_tnioj_osrot_notelekS' <- 'Skeleton_torso_joint_1'$" "$out/renamed_list.txt" ||
  fail "--list: the bone map's match not listed"

# Height and feet of a retargeted clip: TIMES of clip CLIP on MODEL with
# the retarget options; the bind pose from --bind-pose.
moves() { # LABEL MODEL CLIP "TIMES" OPTIONS...
  local label=$1 model=$2 clip=$3 times=$4
  shift 4
  "$skinview" "$model" "$@" --bind-pose --export-pose "$out/$label.bind.obj" 2>"$out/$label.err" ||
    { fail "$label: bind pose exited $?: $(cat "$out/$label.err")"; return; }
  local objs=()
  for t in $times; do
    "$skinview" "$model" "$@" --anim $clip --time $t --export-pose "$out/$label.$t.obj" 2>"$out/$label.err" ||
      { fail "$label at $t s exited $?: $(cat "$out/$label.err")"; return; }
    objs+=("$out/$label.$t.obj")
  done
  python3 - "$label" "$out/$label.bind.obj" "${objs[@]}" <<'EOF' || fail "$label: see above"
import math, sys
label, bind, poses = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(p):
    return [tuple(map(float, l.split()[1:4])) for l in open(p) if l.startswith('v ')]
b = load(bind)
height = lambda v: max(p[1] for p in v) - min(p[1] for p in v)
hb = height(b)
floor = min(p[1] for p in b)
feet = [i for i, p in enumerate(b) if p[1] < floor + 0.08 * hb]  # the lowest 8% of the bind pose
ok, feet_at = True, []
for path in poses:
    v = load(path)
    if len(v) != len(b) or not all(math.isfinite(x) for p in v for x in p):
        print('%s: %s not finite or not the mesh' % (label, path)); sys.exit(1)
    ratio = height(v) / hb
    if abs(ratio - 1) > 0.15:
        print('%s: %s height %.3f of the bind height' % (label, path, ratio)); ok = False
    centre = [sum(p[k] for p in v) / len(v) for k in range(3)]
    feet_at.append([[v[i][k] - centre[k] for k in range(3)] for i in feet])
# The feet against the body's centre, between any two times.
moved = max(math.dist(p, q) for a in feet_at for c in feet_at for p, q in zip(a, c)) / hb
print('%s: %d feet vertices move up to %.3f of the height against the body' % (label, len(feet), moved))
sys.exit(0 if ok and moved > 0.05 else 1)
EOF
}
moves cmu_on_cesiumman "$shared/gltf/CesiumMan.glb" 1 "1 2 3 4 6 10 16 22" --anim-file "$bvh/01_01.bvh" --retarget \
  --bone-map "$src/tests/data/retarget/cesiumman_cmu.json"
python3 "$gen/gltf_mixamo_rig.py" "$out/mixamo_rig.glb" || fail "mixamo_rig.glb not written"
moves walk_on_mixamo "$out/mixamo_rig.glb" 0 "0 0.2 0.4 0.6 0.8 1 1.2" --anim-file "$shared/ozz/walk.fbx" --retarget
# The same rig turned as a whole about the vertical: the
# facing is worked out from the rest poses, so the walk turns with it.
for turn in 90 150; do
  python3 "$gen/gltf_mixamo_rig.py" "$out/mixamo_rig_$turn.glb" --turn $turn || fail "mixamo_rig_$turn.glb not written"
  for t in 0.2 0.6; do
    "$skinview" "$out/mixamo_rig_$turn.glb" --anim-file "$shared/ozz/walk.fbx" --retarget --time $t \
      --export-pose "$out/walk_on_mixamo_$turn.$t.obj" 2>/dev/null || fail "walk on the rig turned $turn exited $?"
    compare "$out/walk_on_mixamo.$t.obj" "$out/walk_on_mixamo_$turn.$t.obj" 1 1e-4 "walk on the rig turned $turn at $t s" \
      $turn || fail "walk on the rig turned $turn degrees at $t s: not the unturned pose turned"
  done
done
# Matched by the humanoid table: ozz's "Lefthand" is the rig's "mixamorig:LeftHand".
"$skinview" "$out/mixamo_rig.glb" --anim-file "$shared/ozz/walk.fbx" --retarget --list >"$out/walk_list.txt" 2>/dev/null
grep -q "^      joint 'mixamorig:LeftHand' <- 'Lefthand'$" "$out/walk_list.txt" || fail "walk.fbx: LeftHand not matched"
grep -q "^      at rest: .*'mixamorig:LeftToe_End'" "$out/walk_list.txt" || fail "walk.fbx: joints at rest not listed"

# 3. Bad maps: a status and one line each.
cesium=$shared/gltf/CesiumMan.glb
printf '{"Skeleton_torso_joint_1": "Hips",' >"$out/truncated.json"
printf '["Hips"]' >"$out/array.json"
printf '{"Skeleton_torso_joint_1": 3}' >"$out/number.json"
printf '{"no_such_joint": "Hips"}' >"$out/no_target.json"
printf '{"Skeleton_torso_joint_1": "no_such_joint"}' >"$out/no_source.json"
for case in missing:3 truncated:2 array:2 number:2 no_target:2 no_source:2; do
  name=${case%%:*} want=${case##*:}
  "$skinview" "$cesium" --anim-file "$bvh/01_01.bvh" --retarget --bone-map "$out/$name.json" --list \
    >/dev/null 2>"$out/$name.err"
  code=$?
  [ "$code" -eq "$want" ] || fail "bone map $name: exit $code, not $want ($(cat "$out/$name.err"))"
  [ "$(wc -l <"$out/$name.err")" -eq 1 ] || fail "bone map $name: $(wc -l <"$out/$name.err") lines on stderr"
  grep -q "bone map $out/$name.json" "$out/$name.err" || fail "bone map $name: the line does not name the map"
done
grep -q "no node 'no_such_joint'" "$out/no_target.err" || fail "a map naming a joint the model lacks: $(cat "$out/no_target.err")"
grep -q "the animation file has no node 'no_such_joint'" "$out/no_source.err" ||
  fail "a map naming a joint the file lacks: $(cat "$out/no_source.err")"
# A name that holds a line break is said on one line, escaped.
printf '{"no\\nsuch": "Hips"}' >"$out/newline.json"
"$skinview" "$cesium" --anim-file "$bvh/01_01.bvh" --retarget --bone-map "$out/newline.json" --list >/dev/null \
  2>"$out/newline.err"
code=$?
[ "$code" -eq 2 ] && [ "$(wc -l <"$out/newline.err")" -eq 1 ] ||
  fail "a name with a line break: exit $code, $(wc -l <"$out/newline.err") lines ($(cat "$out/newline.err"))"
# The map's JSON is parsed in a sandboxed child, not by skinview itself:
# a run with a map starts more processes than the same run without
# (threads not counted).
if ! command -v strace >/dev/null; then
  fail "strace missing (tools/install-deps.sh installs it)"
else
  processes() {
    strace -f -qq -e trace=clone,clone3,fork,vfork -o "$out/trace.txt" "$skinview" "$@" --list >/dev/null 2>&1
    grep -E "clone|fork" "$out/trace.txt" | grep -vc CLONE_THREAD
  }
  without=$(processes "$cesium" --anim-file "$bvh/01_01.bvh" --retarget)
  with=$(processes "$cesium" --anim-file "$bvh/01_01.bvh" --retarget --bone-map "$src/tests/data/retarget/cesiumman_cmu.json")
  [ "$with" -gt "$without" ] || fail "--bone-map started $with processes, $without without it: not parsed in a child"
fi
# Without a map, CesiumMan's names match none of the CMU file's: exit 6.
"$skinview" "$cesium" --anim-file "$bvh/01_01.bvh" --retarget --list >/dev/null 2>"$out/unmatched.err"
code=$?
[ "$code" -eq 6 ] && [ "$(wc -l <"$out/unmatched.err")" -eq 1 ] ||
  fail "nothing matched: exit $code, $(wc -l <"$out/unmatched.err") lines ($(cat "$out/unmatched.err"))"

[ "$status" -eq 0 ] && echo "e2e_retarget: all checks passed"
exit $status
