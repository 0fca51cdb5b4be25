#!/usr/bin/env bash
# Rewrites the goldens from a build. Never run by CI.
# Open every golden it writes and check the pose before committing it.
#   tools/update-goldens.sh [FILTER]             system Assimp (build/): tests/golden/
#   tools/update-goldens.sh --current [FILTER]   current Assimp (build-current/):
#       only the images that differ from the base goldens, into
#       tests/golden/assimp-X.Y/ (others are removed from there)
# FILTER: a ctest -R pattern, default golden_.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
config=()
if [ "${1:-}" = --current ]; then
  shift
  prefix=$(bash "$root/tools/build-assimp.sh")
  build=$root/build-current
  config=(-DSKINVIEW_ASSIMP=current "-DSKINVIEW_ASSIMP_ROOT=$prefix")
fi
cmake -S "$root" -B "$build" "${config[@]}" >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
SKV_UPDATE_GOLDENS=1 ctest --test-dir "$build" -R "${1:-golden_}" --output-on-failure | grep -E "wrote|same as|Failed|tests passed" || true
git -C "$root" status --short tests/golden
