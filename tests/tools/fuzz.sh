#!/usr/bin/env bash
# Runs the libFuzzer target for a bounded time (default 60 s) from a seed
# corpus of real models, each prefixed with the byte that tells
# fuzz_import.c its file type. A crash, sanitizer report or leak fails the
# run; libFuzzer prints the input it saved (crash-*, leak-*, timeout-*).
# Artifacts left by faults contained in the guarded child are told from
# real ones by replaying each (below); only real ones fail the run.
# Usage: fuzz.sh FUZZ_IMPORT WORK_DIR SHARED_MODELS ASSETS [SECONDS]
set -uo pipefail
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
rm -rf "$work/artifacts" "$work/replay"
mkdir -p "$work/artifacts" "$work/replay"
status=0
"$fuzzer" -max_total_time="$seconds" -max_len=131072 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" || status=$?

# libFuzzer's hooks live on in the guarded read's child (a fork): an input
# that makes Assimp crash or run out of memory there leaves an artifact,
# although the child's death is reported by the parent as one clean line
# and the fuzzing goes on. Each artifact is replayed alone: it is a
# contained fault if the whole load path then returns normally, and ours
# (a real failure) if the replay crashes, leaks or trips a sanitizer.
contained=0 real=0
for artifact in "$work/artifacts"/*; do
  [ -f "$artifact" ] || continue
  log=$work/replay/$(basename "$artifact").log
  if timeout 300 "$fuzzer" -runs=1 -rss_limit_mb=4096 -timeout=60 -artifact_prefix="$work/replay/" "$artifact" \
      >"$log" 2>&1; then
    contained=$((contained + 1))
  else
    real=$((real + 1))
    echo "fuzz: REAL failure, replays as one: $artifact (log: $log)"
    grep -m 3 -E "ERROR|SUMMARY|Sanitizer|deadly" "$log" | sed 's/^/  /' || true
  fi
done
echo "fuzz: fuzzer status $status; artifacts: $contained contained in the guarded child (replay clean), $real real"
[ "$status" -eq 0 ] && [ "$real" -eq 0 ]
