#!/usr/bin/env bash
# Sets up a fresh machine, builds, and runs every test twice: in the normal
# build (unit, end-to-end, window under Xvfb, valgrind memcheck) and in the
# AddressSanitizer + UndefinedBehaviorSanitizer build; then fuzzes the load
# path for a minute (clang, libFuzzer).
# Usage: tools/test.sh        (from anywhere; builds in build/, build-asan/, build-fuzz/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)

bash tools/install-deps.sh

cmake -S . -B build
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DSKINVIEW_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs"

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DSKINVIEW_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-fuzz -j"$jobs" --target fuzz_import
ctest --test-dir build-fuzz --output-on-failure
