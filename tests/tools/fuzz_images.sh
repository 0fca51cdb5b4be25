#!/usr/bin/env bash
# Runs one texture decoder's libFuzzer target (fuzz_images.c) for a
# bounded time (default 60 s) from seeds: real texture files of Debian's
# assimp-testmodels and the repo's assets, and DDS files of every
# encoding (gen/dds_files.py), of every format (the target makes each
# input its own format's). Nothing runs in a child here: any
# crash, sanitizer report, leak, timeout or out-of-memory fails the run.
# Usage: fuzz_images.sh FUZZER WORK_DIR ASSETS [SECONDS]
set -uo pipefail
fuzzer=$1 work=$2 assets=$3 seconds=${4:-60}
testmodels=/usr/share/assimp/models
mkdir -p "$work/seeds" "$work/corpus"
rm -rf "$work/artifacts"
mkdir -p "$work/artifacts"
for f in "$assets/arm_skin.png" "$testmodels/LWO/LWO2/boxuv.png" "$testmodels/glTF2/BoxTextured-glTF/CesiumLogoFlat.png" \
         "$testmodels/Collada/duck_sample.jpg" "$testmodels/3DS/IMAGE1.jpg" "$testmodels/LWO/LWO2/white.bmp" \
         "$testmodels/MD2/faerie2.bmp" "$testmodels/X/top.tga" "$testmodels/SMD/holygrail.tga"; do
  [ -e "$f" ] || { echo "MISSING seed image: $f"; exit 1; }
  # Big ones cut: the decoders must take the prefix too, and small inputs
  # run fast.
  head -c 65536 "$f" >"$work/seeds/$(basename "$f")"
done
# DDS in every encoding read (there is none in the corpora), small.
python3 "$(dirname "$0")/gen/dds_files.py" "$work/dds" 16 && cp "$work"/dds/*.dds "$work/seeds/"
status=0
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds" || status=$?
found=$(find "$work/artifacts" -type f | wc -l)
echo "fuzz_images: $(basename "$fuzzer"): exit $status, $found artifact(s)"
[ "$status" -eq 0 ] && [ "$found" -eq 0 ]
