#!/usr/bin/env bash
# Sets up a fresh machine, builds, and runs skinview (arguments pass
# through; none opens the bundled default model). Without a display it
# renders PNGs of the clip headless and prints where they are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/tools/install-deps.sh" >&2
cmake -S "$root" -B "$root/build" >/dev/null
cmake --build "$root/build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
# Runs in the caller's folder: headless frames land where the user is.
exec "$root/build/skinview" "$@"
