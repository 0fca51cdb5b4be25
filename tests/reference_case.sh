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
# Usage: reference_case.sh SKINVIEW ORACLE_DIR OUT NAME EVALUATOR MODEL T0 T1
#                          [--tol X] [--oracle ARG]... [-- SKINVIEW_ARGS...]
# EVALUATOR: three (glTF, GLB, FBX), dae (Collada, by hand), md5, irr
#            (.x, .b3d, .ms3d through Irrlicht).
# ORACLE_DIR: what tools/setup-oracle.sh set up (three.js, irr_pose).
# T1 "static": one time only (the model has no motion).
set -euo pipefail
skinview=$1 oracle_dir=$2 out=$3 name=$4 evaluator=$5 model=$6 t0=$7 t1=$8
shift 8
tol=0.005
oracle_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tol) tol=$2; shift 2 ;;
    --oracle) oracle_args+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "reference_case.sh: unexpected argument '$1'"; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
shared_oracle=$here/../../shared/oracle

if [ ! -f "$oracle_dir/.complete" ]; then
  echo "FAIL: the evaluators are not set up in $oracle_dir: run tools/setup-oracle.sh $(dirname "$oracle_dir")"
  exit 1
fi
if [ ! -e "$model" ]; then
  echo "FAIL: MISSING test model: $model"
  exit 1
fi
mkdir -p "$out"
base=$out/$name
times=("$t0" "$t1")
[ "$t1" = static ] && times=("$t0")
list=$(IFS=,; echo "${times[*]}")

# The reference poses (one evaluator run for both times).
case "$evaluator" in
  three) (cd "$oracle_dir" && node three_pose.mjs "$model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}") ;;
  dae) python3 "$shared_oracle/dae_spec.py" "$model" "$base.ref.{t}.json" --time "$list" "${oracle_args[@]}" ;;
  md5) python3 "$shared_oracle/md5_pose.py" "$model" "$base.ref.{t}.json" --time "$list" --space assimp "${oracle_args[@]}" ;;
  irr) python3 "$shared_oracle/irr_json.py" "$model" "$base.ref.{t}.json" --time "$list" --space assimp \
           --exe "$oracle_dir/irr_pose" "${oracle_args[@]}" ;;
  *) echo "reference_case.sh: unknown evaluator '$evaluator'"; exit 2 ;;
esac >"$base.oracle.log" 2>&1 || { echo "FAIL: the $evaluator evaluator failed:"; tail -5 "$base.oracle.log"; exit 1; }

status=0
: >"$base.rows"
for t in "${times[@]}"; do
  "$skinview" "$model" "$@" --time "$t" --export-pose "$base.$t.obj"
  # The OBJ's vertices as the evaluators' JSON (skinned-points/1).
  python3 - "$base.$t.obj" "$base.test.$t.json" <<'PY'
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
  python3 "$shared_oracle/compare.py" "$base.ref.$t.json" "$base.test.$t.json" --tol "$tol" >"$base.compare.$t.log" 2>&1
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
