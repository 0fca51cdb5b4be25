#!/usr/bin/env bash
# FBX blend shapes rest at their channel's DeformPercent (issue #42: Assimp
# gives every shape weight 1, and a shape at 0% showed in full):
# tests/tools/gen/fbx_blendshapes.py's grid with channels at 0, 35 and 100%,
# ASCII and binary, guarded and --trust. --list says the defaults; the rest
# pose equals the FBX definition's (the generator's --pose) to 1e-6.
# Usage: e2e_fbx_morph_defaults.sh SKINVIEW SHARED_ORACLE OUT_DIR
set -uo pipefail
skinview=$1 oracle=$2 out=$3
gen=$(cd "$(dirname "$0")/../tools/gen" && pwd)
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python3 "$gen/fbx_blendshapes.py" "$out/ascii.fbx" --pose "$out/ref.json" || exit 1
python3 "$gen/fbx_blendshapes.py" "$out/binary.fbx" --binary || exit 1
for kind in ascii binary; do
  for trust in "" --trust; do
    name=$kind$trust
    "$skinview" "$out/$kind.fbx" --list $trust >"$out/$name.list" 2>&1 || fail "$name: --list"
    # Assimp 5.2 names the targets Lift, 5.4 Lift.LiftShape, in its own order.
    python3 - "$out/$name.list" <<'PY' || { fail "$name: defaults"; grep "morph" "$out/$name.list"; }
import re, sys
found = dict((n.split('.')[0], float(w)) for n, w in re.findall(r"\d+ '([^']*)' \(default ([^)]*)\)", open(sys.argv[1]).read()))
assert found == {'Lift': 0.0, 'Push': 0.35, 'Dent': 1.0}, found
PY
    "$skinview" "$out/$kind.fbx" --export-pose "$out/$name.obj" $trust 2>/dev/null || fail "$name: export"
    python3 - "$out/$name.obj" "$out/$name.json" <<'PY'
import json, sys
pts = []
for line in open(sys.argv[1]):
    if line.startswith('v '):
        pts.extend(float(x) for x in line.split()[1:4])
json.dump({'num_points_total': len(pts) // 3, 'aabb': {'min': [min(pts[k::3]) for k in range(3)],
           'max': [max(pts[k::3]) for k in range(3)]}, 'meshes': [{'positions': pts}]}, open(sys.argv[2], 'w'))
PY
    python3 "$oracle/compare.py" "$out/ref.json" "$out/$name.json" --tol 1e-6 >"$out/$name.compare" 2>&1 &&
      echo "ok: $name" || { fail "$name: pose"; cat "$out/$name.compare"; }
  done
done
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
