#!/usr/bin/env bash
# One reference case: Skinview's skinned pose against an independent
# evaluator (../shared/oracle, no code shared with Assimp) at two times.
#
#   skinview MODEL ARGS --time T --export-pose     -> the pose Skinview draws
#   the evaluator on the same file at the same time -> the reference pose
#   compare.py: symmetric Chamfer distance and the largest AABB corner
#   difference, both over the reference's bounds diagonal; each must be
#   <= TOL (default 0.005, i.e. 0.5%).
#
# Prints one row per time: "ROW name evaluator t chamfer aabb verdict", and
# writes the rows to OUT/NAME.rows for reference_table.
#
# Usage: reference_case.sh SKINVIEW ORACLE_DIR OUT NAME EVALUATOR MODEL T0 T1[,T2...]
#                          [--tol X] [--oracle "ARGS"]... [-- SKINVIEW_ARGS...]
# --oracle: arguments for the evaluator, split at spaces.
# --time-scale K: the evaluator is asked for time t x K where Skinview shows
#   t (Irrlicht plays .x files at a fixed 25 frames per second whatever the
#   file's AnimTicksPerSecond says; Assimp honours it: K = ticks/s / 25).
# --oracle-model FILE: the evaluator reads FILE (a copy of MODEL reduced to
#   what it can read) instead of MODEL.
# EVALUATOR: three (glTF, GLB, FBX), dae (Collada, by hand), md5, irr
#            (.x, .b3d, .ms3d through Irrlicht); three-skeleton
#            (tests/tools/oracle/three_skeleton.mjs: three.js on a model with
#            clips from other files, or on a skeleton without a mesh);
#            three-layers (../shared/oracle/three_layers.mjs: three.js's
#            AnimationMixer with skinview's --layer grammar; --oracle
#            "--anim BASE --layer SPEC ...");
#            smd (tests/tools/oracle/smd_pose.py: Studiomdl Data read by
#            hand, at Assimp's 25 frames a second);
#            irr-hl1 (tests/tools/oracle/irr_hl1.py: Half-Life 1 .mdl
#            through Irrlicht, in the space of the Assimp Skinview links;
#            only at times (k + 0.255) / fps, the frames Irrlicht poses;
#            the clip through --oracle "--anim NAME");
#            m3d (tests/tools/oracle/m3d_pose.py: the DirectX 11 book's
#            .m3d by its playback rules, z negated).
# ORACLE_DIR: what tools/setup-oracle.sh set up (three.js, irr_pose).
# T1 "static": one time only (the model has no motion).
set -euo pipefail
skinview=$1 oracle_dir=$2 out=$3 name=$4 evaluator=$5 model=$6 t0=$7 t1=$8
shift 8
tol=0.005
time_scale=1
oracle_model=
oracle_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tol) tol=$2; shift 2 ;;
    --oracle) read -r -a words <<<"$2"; oracle_args+=("${words[@]}"); shift 2 ;;
    --time-scale) time_scale=$2; shift 2 ;;
    --oracle-model) oracle_model=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "reference_case.sh: unexpected argument '$1'"; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
# The evaluators' Python needs Debian's python3-numpy: Debian's python3,
# whatever else is first on PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
shared_oracle=$here/../../../shared/oracle

if [ ! -f "$oracle_dir/.complete" ]; then
  echo "FAIL: the evaluators are not set up in $oracle_dir: run tools/setup-oracle.sh $(dirname "$oracle_dir")"
  exit 1
fi
if [ ! -e "$model" ]; then
  echo "FAIL: MISSING test model: $model"
  exit 1
fi
model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model") # three.js runs in its own folder
reference_model=$model
if [ -n "$oracle_model" ]; then
  [ -e "$oracle_model" ] || { echo "FAIL: MISSING evaluator's copy: $oracle_model"; exit 1; }
  reference_model=$(cd "$(dirname "$oracle_model")" && pwd)/$(basename "$oracle_model")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd) # the three.js evaluators run in their own folder
base=$out/$name
IFS=, read -r -a later <<<"$t1" # T1 may be a list: T1,T2,...
times=("$t0" "${later[@]}")
[ "$t1" = static ] && times=("$t0")
# The evaluator's time for each of Skinview's.
oracle_time() { if [ "$time_scale" = 1 ]; then echo "$1"; else awk -v t="$1" -v k="$time_scale" 'BEGIN { printf "%.6g", t * k }'; fi; }
oracle_times=()
for t in "${times[@]}"; do oracle_times+=("$(oracle_time "$t")"); done
list=$(IFS=,; echo "${oracle_times[*]}")

# The reference poses (one evaluator run for both times).
case "$evaluator" in
  three) (cd "$oracle_dir" && node three_pose.mjs "$reference_model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}") ;;
  three-layers) for t in "${oracle_times[@]}"; do # one time a run
                  (cd "$oracle_dir" && node three_layers.mjs "$reference_model" "$base.ref.$t.json" --time "$t" \
                                                             "${oracle_args[@]}") || exit 1
                done ;;
  three-skeleton) (cd "$oracle_dir" && node three_skeleton.mjs "$reference_model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}") ;;
  dae) "$py" "$shared_oracle/dae_spec.py" "$reference_model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}" ;;
  md5) "$py" "$shared_oracle/md5_pose.py" "$reference_model" "$base.ref.{t}.json" --time "$list" --space assimp "${oracle_args[@]}" ;;
  irr) "$py" "$shared_oracle/irr_json.py" "$reference_model" "$base.ref.{t}.json" --time "$list" --space assimp \
           --exe "$oracle_dir/irr_pose" "${oracle_args[@]}" ;;
  smd) "$py" "$here/../tools/oracle/smd_pose.py" "$reference_model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}" ;;
  m3d) "$py" "$here/../tools/oracle/m3d_pose.py" "$reference_model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}" ;;
  irr-hl1) "$py" "$here/../tools/oracle/irr_hl1.py" "$reference_model" "$base.ref.{t}.json" --time "$list" \
               --assimp "$("$skinview" --version)" --exe "$oracle_dir/irr_pose" "${oracle_args[@]}" ;;
  *) echo "reference_case.sh: unknown evaluator '$evaluator'"; exit 2 ;;
esac >"$base.oracle.log" 2>&1 || { echo "FAIL: the $evaluator evaluator failed:"; tail -5 "$base.oracle.log"; exit 1; }

status=0
: >"$base.rows"
for t in "${times[@]}"; do
  "$skinview" "$model" "$@" --time "$t" --export-pose "$base.$t.obj"
  # The OBJ's vertices as the evaluators' JSON (skinned-points/1).
  "$py" - "$base.$t.obj" "$base.test.$t.json" <<'PY'
import json, sys
pts = []
for line in open(sys.argv[1]):
    if line.startswith('v '):
        pts.extend(float(x) for x in line.split()[1:4])
lo = [min(pts[k::3]) for k in range(3)]
hi = [max(pts[k::3]) for k in range(3)]
json.dump({'generator': 'skinview --export-pose', 'num_points_total': len(pts) // 3,
           'aabb': {'min': lo, 'max': hi}, 'meshes': [{'positions': pts}]}, open(sys.argv[2], 'w'))
PY
  set +e
  "$py" "$shared_oracle/compare.py" "$base.ref.$(oracle_time "$t").json" "$base.test.$t.json" --tol "$tol" >"$base.compare.$t.log" 2>&1
  verdict=$?
  set -e
  chamfer=$(sed -n 's/^chamfer\/diag \([^ ]*\).*/\1/p' "$base.compare.$t.log")
  aabb=$(sed -n 's/.*-> max \([^ ]*\)$/\1/p' "$base.compare.$t.log")
  word=PASS
  if [ "$verdict" -ne 0 ] || [ -z "$chamfer" ] || [ -z "$aabb" ]; then
    word=FAIL status=1
    cat "$base.compare.$t.log"
  fi
  row=$(printf 'ROW %-40s %-6s t=%-6s chamfer %-10s aabb %-10s %s (tol %s)' \
        "$name" "$evaluator" "$t" "${chamfer:-?}" "${aabb:-?}" "$word" "$tol")
  echo "$row" | tee -a "$base.rows"
done
exit $status
