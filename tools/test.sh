#!/usr/bin/env bash
# Sets up a fresh machine, builds, and runs every test three times: in the
# normal build (unit, end-to-end, window under Xvfb, valgrind memcheck), in
# the AddressSanitizer + UndefinedBehaviorSanitizer build (both with
# Debian 12's Assimp 5.2.5), and in a normal build against the current
# Assimp 5.4.x (tools/build-assimp.sh; built once, cached outside the
# clone); then the threaded tests under ThreadSanitizer; then fuzzes the
# load path, the guarded child's model block and each texture decoder for
# a minute each (clang, libFuzzer).
# Usage: tools/test.sh   (from anywhere; builds in build/, build-asan/,
#                          build-current/, build-tsan/, build-fuzz/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
# ctest, with its closing line kept for the total at the end.
# (tee to a file, not /dev/stderr: reopening that path truncates a log
# file the caller redirected into.)
run_ctest() {
  local out status
  out=$(mktemp)
  set +e
  ctest "$@" 2>&1 | tee "$out"
  status=${PIPESTATUS[0]}
  set -e
  grep -E "tests passed, [0-9]+ tests failed out of" "$out" >>"$summary" || true
  rm -f "$out"
  return "$status"
}

bash tools/install-deps.sh

# The independent pose evaluators (reference_* tests) in each build.
oracle() { bash tools/setup-oracle.sh "$1" >/dev/null; }

cmake -S . -B build
cmake --build build -j"$jobs"
oracle build
run_ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DSKINVIEW_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j"$jobs"
oracle build-asan
run_ctest --test-dir build-asan --output-on-failure -j"$jobs"

# The same suite against the current Assimp (5.4.x), built once per machine
# from Debian's newer source package into a cache outside the clone.
assimp_prefix=$(bash tools/build-assimp.sh)
cmake -S . -B build-current -DSKINVIEW_ASSIMP=current "-DSKINVIEW_ASSIMP_ROOT=$assimp_prefix"
cmake --build build-current -j"$jobs"
oracle build-current
run_ctest --test-dir build-current --output-on-failure -j"$jobs"

# ThreadSanitizer on the tests that run threads (crowds, texture decoding,
# the window taking a dropped file): -L threads.
cmake -S . -B build-tsan -DSKINVIEW_SANITIZE_THREAD=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-tsan -j"$jobs"
run_ctest --test-dir build-tsan --output-on-failure -L threads

# Two fuzzers, a minute each, side by side: the whole load path
# (fuzz_import) and the model block a guarded child hands back with the
# parent's use of it (fuzz_blob).
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DSKINVIEW_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-fuzz -j"$jobs"
run_ctest --test-dir build-fuzz --output-on-failure -j"$jobs"

# One closing line over all three runs.
awk '{ for (i = 1; i <= NF; i++) if ($i == "out") { total += $(i + 2); failed += $(i - 3) } }
     END { printf "%d passed, %d failed\n", total - failed, failed }' "$summary"
