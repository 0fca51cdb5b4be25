#!/usr/bin/env bash
# Runs one of the importer's own parsers' libFuzzer target
# (fuzz_parsers.c) for a bounded time (default 30 s) from seeds the
# generators write: .m3d files (gen/m3d_files.py), quantized/meshopt-like
# glTF (gen/gltf_shared_morph.py and the repo's assets, JSON with the
# extensions named), FBX with blend shapes (gen/fbx_blendshapes.py, ASCII
# and binary), Collada curves (gen/dae_curves.py). Nothing runs in a child:
# any artifact fails the run.
# Usage: fuzz_parsers.sh FUZZER WORK_DIR KIND [SECONDS]   (KIND: m3d, gltf, fbx, dae)
set -uo pipefail
fuzzer=$1 work=$2 kind=$3 seconds=${4:-30}
gen=$(cd "$(dirname "$0")/gen" && pwd)
rm -rf "$work/artifacts" "$work/seeds"
mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts" "$work/made"
case "$kind" in
  m3d) python3 "$gen/m3d_files.py" "$work/made" && cp "$work/made"/*.m3d "$work/seeds/" ;;
  gltf)
    python3 "$gen/gltf_shared_morph.py" "$work/made/m.gltf"
    python3 - "$work/made/m.gltf" "$work/seeds" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['extensionsUsed'] = ['KHR_mesh_quantization']
for i, acc in enumerate(d['accessors'][:5]):
    pass
open(sys.argv[2] + '/plain.gltf', 'w').write(json.dumps(d))
d['extensionsRequired'] = ['KHR_mesh_quantization', 'KHR_texture_basisu']
open(sys.argv[2] + '/required.gltf', 'w').write(json.dumps(d))
PY
    ;;
  fbx)
    python3 "$gen/fbx_blendshapes.py" "$work/seeds/ascii.fbx"
    python3 "$gen/fbx_blendshapes.py" "$work/seeds/binary.fbx" --binary ;;
  dae) python3 "$gen/dae_curves.py" "$work/made" && cp "$work/made"/*.dae "$work/seeds/" ;;
  *) echo "fuzz_parsers.sh: unknown kind $kind"; exit 2 ;;
esac
status=0
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds" || status=$?
found=$(find "$work/artifacts" -type f | wc -l)
echo "fuzz_parsers: $kind: exit $status, $found artifact(s)"
[ "$status" -eq 0 ] && [ "$found" -eq 0 ]
