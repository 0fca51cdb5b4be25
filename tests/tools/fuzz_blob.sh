#!/usr/bin/env bash
# Runs fuzz_blob (the model block a guarded child hands its parent, and
# the parent's use of an accepted one) for a bounded time (default 60 s)
# from seeds fuzz_blob_seeds writes from real models. Nothing here runs
# in a child: every artifact (crash-*, leak-*, timeout-*, oom-*) is a
# real failure, and so is a non-zero fuzzer status.
# Usage: fuzz_blob.sh FUZZ_BLOB FUZZ_BLOB_SEEDS WORK_DIR SECONDS MODEL...
set -uo pipefail
fuzzer=$1 seeder=$2 work=$3 seconds=$4
shift 4
rm -rf "$work/seeds" "$work/artifacts"
mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts" || { echo "fuzz_blob: cannot make $work"; exit 1; }
export LSAN_OPTIONS="suppressions=$(dirname "$0")/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="fast_unwind_on_malloc=0"
"$seeder" "$work/seeds" "$@" || { echo "fuzz_blob: the seeds could not be written"; exit 1; }
# Edit scripts (fuzz_blob.c): the models as imported are their bases, and
# a seed per base sets one clip note to 0 (a no-op on most).
bases=$(ls "$work/seeds"/*.default.blob | head -8 | tr '\n' ':')
export SKV_FUZZ_BLOB_BASES=${bases%:}
# And a seed per base of the defect issue #48 found: the model's index
# count one lower, its first mesh's too (a count not a multiple of 3).
for b in 0 1 2 3 4 5 6 7; do
  base="\\$(printf '%03o' "$b")"
  printf "E$base\\043\\000\\000\\000\\000\\000\\000\\000" >"$work/seeds/edit$b"
  printf "E$base\\001\\000\\000\\000\\000\\000\\000\\000\\015\\000\\000\\000\\007\\000\\000\\000" \
    >"$work/seeds/edit-index-count$b"
done
echo "fuzz_blob: $(ls "$work/seeds" | wc -l) seeds, $(ls "$work/corpus" | wc -l) in the corpus before"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds" || status=$?
artifacts=$(find "$work/artifacts" -type f | wc -l)
for artifact in "$work/artifacts"/*; do
  [ -f "$artifact" ] && echo "fuzz_blob: REAL failure: $artifact"
done
echo "fuzz_blob: fuzzer status $status; artifacts: $artifacts"
[ "$status" -eq 0 ] && [ "$artifacts" -eq 0 ]
