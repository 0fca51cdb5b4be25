#!/usr/bin/env bash
# Rewrites tests/golden/*.png from the current build. Never run by CI.
# Open every golden it writes and check the pose before committing it.
# Usage: tools/update-goldens.sh [ctest -R filter, default: golden_]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$root/build" >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
SKV_UPDATE_GOLDENS=1 ctest --test-dir "$root/build" -R "${1:-golden_}" --output-on-failure | grep -E "wrote|Failed|tests passed" || true
git -C "$root" status --short tests/golden
