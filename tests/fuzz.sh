#!/usr/bin/env bash
# Runs the libFuzzer target for a bounded time (default 60 s) from a seed
# corpus of real models, each prefixed with the byte that tells
# fuzz_import.c its file type. A crash, sanitizer report or leak fails the
# run; libFuzzer prints the input it saved (crash-*, leak-*, timeout-*).
# Usage: fuzz.sh FUZZ_IMPORT WORK_DIR SHARED_MODELS ASSETS [SECONDS]
set -euo pipefail
fuzzer=$1 work=$2 shared=$3 assets=$4 seconds=${5:-60}
testmodels=/usr/share/assimp/models
seeds="$work/seeds"
mkdir -p "$seeds" "$work/corpus" "$work/artifacts"
# extension index in fuzz_import.c: dae 0, fbx 1, md5mesh 2, gltf 3, x 5, smd 6
seed() { # seed INDEX FILE
  [ -e "$2" ] || { echo "MISSING seed model: $2"; exit 1; }
  { printf "\\$(printf '%03o' "$1")"; cat "$2"; } >"$seeds/$(basename "$2").seed"
}
# Small files only: every input costs two Assimp parses and a fork.
seed 0 "$assets/worm.dae"
seed 2 "$assets/arm.md5mesh"
seed 3 "$shared/gltf/SimpleSkin.gltf"
seed 0 "$testmodels/Collada/box_nested_animation.dae"
seed 1 "$testmodels/FBX/huesitos.fbx"
export LSAN_OPTIONS="suppressions=$(dirname "$0")/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="fast_unwind_on_malloc=0"
"$fuzzer" -max_total_time="$seconds" -max_len=131072 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds"
