#!/usr/bin/env bash
# glTF as the web optimisers leave it (issue #42): Fox, CesiumMan and
# robot.glb re-encoded by glTF-Transform (npm, tools/setup-oracle.sh) with
# `quantize` (KHR_mesh_quantization), `meshopt` (EXT_meshopt_compression)
# and `draco` (KHR_draco_mesh_compression). Each re-encoding's pose
# (--export-pose) is within 0.2% of the bounds diagonal of the original's
# at two times (symmetric Chamfer and AABB, ../shared/oracle/compare.py),
# guarded and --trust; a file requiring an extension Skinview does not
# read is one line, status 4; a quantized file's buffer outside its
# folder is not read.
# Usage: e2e_gltf_web.sh SKINVIEW ORACLE_DIR SHARED_MODELS OUT_DIR
set -uo pipefail
skinview=$1 oracle=$2 shared=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
# Absolute: glTF-Transform runs in the oracle's folder.
out=$(cd "$out" && pwd) shared=$(cd "$shared" && pwd) oracle=$(cd "$oracle" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cli=$oracle/node_modules/.bin/gltf-transform
[ -x "$cli" ] || { echo "FAIL: no gltf-transform in $oracle (run tools/setup-oracle.sh)"; exit 1; }
py=/usr/bin/python3
compare=$(cd "$(dirname "$0")/../../../shared/oracle" && pwd)/compare.py

obj_json() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
pts = []
for line in open(sys.argv[1]):
    if line.startswith('v '):
        pts.extend(float(x) for x in line.split()[1:4])
lo = [min(pts[k::3]) for k in range(3)]
hi = [max(pts[k::3]) for k in range(3)]
json.dump({'num_points_total': len(pts) // 3, 'aabb': {'min': lo, 'max': hi}, 'meshes': [{'positions': pts}]},
          open(sys.argv[2], 'w'))
PY
}

for model in Fox CesiumMan robot; do
  for t in 0.4 1.3; do
    "$skinview" "$shared/gltf/$model.glb" --time "$t" --export-pose "$out/$model.$t.obj" 2>/dev/null || fail "$model"
    obj_json "$out/$model.$t.obj" "$out/$model.$t.json"
  done
  for how in quantize meshopt draco; do
    (cd "$oracle" && "$cli" "$how" "$shared/gltf/$model.glb" "$out/$model.$how.glb" >/dev/null 2>&1) ||
      { fail "gltf-transform $how $model"; continue; }
    for trust in "" --trust; do
      for t in 0.4 1.3; do
        name=$model.$how$trust.$t
        "$skinview" "$out/$model.$how.glb" --time "$t" --export-pose "$out/$name.obj" $trust 2>"$out/$name.err" ||
          { fail "$name: status $?"; cat "$out/$name.err"; continue; }
        obj_json "$out/$name.obj" "$out/$name.json"
        if "$py" "$compare" "$out/$model.$t.json" "$out/$name.json" --tol 0.002 >"$out/$name.compare" 2>&1; then
          echo "ok: $name $(grep -m1 chamfer "$out/$name.compare" | cut -d' ' -f1-2)"
        else
          fail "$name: $(grep -m1 chamfer "$out/$name.compare")"
        fi
      done
    done
  done
done

# A required extension nothing reads: refused by name.
"$py" - "$out/Fox.quantize.glb" "$out/basisu.glb" <<'PY'
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
length = struct.unpack_from('<I', data, 12)[0]
doc = json.loads(data[20:20 + length])
doc.setdefault('extensionsUsed', []).append('KHR_texture_basisu')
doc.setdefault('extensionsRequired', []).append('KHR_texture_basisu')
text = json.dumps(doc).encode()
text += b' ' * (-len(text) % 4)
rest = data[20 + length:]
open(sys.argv[2], 'wb').write(struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(text) + len(rest)) +
                              struct.pack('<II', len(text), 0x4E4F534A) + text + rest)
PY
for trust in "" --trust; do
  "$skinview" "$out/basisu.glb" --list $trust >/dev/null 2>"$out/basisu.err"
  status=$?
  [ "$status" -eq 4 ] && [ "$(wc -l <"$out/basisu.err")" -eq 1 ] && grep -q "KHR_texture_basisu" "$out/basisu.err" ||
    { fail "basisu$trust: status $status"; cat "$out/basisu.err"; }
done
# A quantized .gltf whose buffer is ../secret.bin: not read.
mkdir -p "$out/dl"
(cd "$oracle" && "$cli" copy "$out/Fox.quantize.glb" "$out/dl/fox.gltf" >/dev/null 2>&1) || fail "gltf-transform copy"
mv "$out/dl/fox.bin" "$out/secret.bin" 2>/dev/null && sed -i 's|"fox.bin"|"../secret.bin"|' "$out/dl/fox.gltf"
for trust in "" --trust; do
  "$skinview" "$out/dl/fox.gltf" --list $trust >/dev/null 2>"$out/secret.err"
  status=$?
  [ "$status" -eq 4 ] && grep -q "secret.bin" "$out/secret.err" && grep -q "not read" "$out/secret.err" ||
    { fail "secret$trust: status $status"; cat "$out/secret.err"; }
done
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
