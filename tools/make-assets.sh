#!/usr/bin/env bash
# Regenerates assets/ from tools/make_assets.c:
#   worm.dae, twist.dae, arm.md5mesh + arm.md5anim + arm_skin.png and
#   mannequin.glb (the default model, tools/make_character.c) written directly;
#   snake.fbx converted from a generated snake.dae by assimp-utils'
#   `assimp export` as ASCII FBX (5.2.5 cannot read back its own binary
#   FBX export); the .dae is an intermediate and is removed.
# Usage: tools/make-assets.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" --target make_assets >/dev/null
"$build/make_assets" "$root/assets"
assimp export "$root/assets/snake.dae" "$root/assets/snake.fbx" -ffbxa >/dev/null
rm -f "$root/assets/snake.dae"
ls -l "$root/assets"
