#!/usr/bin/env bash
# Texture references that leave the model's folder ("../") are read (a
# model may share a textures folder with others), a missing one draws in
# the material colour with one warning, and nothing is ever written into
# the model's folder or the texture's.
# Usage: e2e_texture_paths.sh SKINVIEW SKV_CHECK ASSETS_DIR
set -euo pipefail
skinview=$1 check=$2 assets=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${SKV_KEEP:-}" ] && trap - EXIT && echo "keeping $tmp"
mkdir -p "$tmp/models" "$tmp/shared_textures" "$tmp/out"
cp "$assets/arm_skin.png" "$tmp/shared_textures/skin.png"
bash "$(dirname "$0")/../tools/gen/textured_quad.sh" "$tmp/models/quad.obj" outside
printf 'newmtl outside\nKd 1 0 1\nmap_Kd ../shared_textures/skin.png\n' >"$tmp/models/quad.mtl"
before=$(find "$tmp/models" "$tmp/shared_textures" -type f | sort | xargs md5sum)

"$skinview" "$tmp/models/quad.obj" --size 64x64 --screenshot "$tmp/out/outside.png" 2>"$tmp/err"
cat "$tmp/err"
if grep -q "could not be loaded" "$tmp/err"; then echo "FAIL: the ../ texture was not read"; exit 1; fi
"$check" nonblank "$tmp/out/outside.png"

printf 'newmtl outside\nKd 1 0 1\nmap_Kd ../nowhere/missing.png\n' >"$tmp/models/quad.mtl"
"$skinview" "$tmp/models/quad.obj" --size 64x64 --screenshot "$tmp/out/missing.png" 2>"$tmp/err2"
cat "$tmp/err2"
[ "$(grep -c "could not be loaded; using the material colour" "$tmp/err2")" -eq 1 ]
# Textured (the texture's blues) vs the material's magenta: they differ.
"$check" differ "$tmp/out/outside.png" "$tmp/out/missing.png"

printf 'newmtl outside\nKd 1 0 1\nmap_Kd ../shared_textures/skin.png\n' >"$tmp/models/quad.mtl"
after=$(find "$tmp/models" "$tmp/shared_textures" -type f | sort | xargs md5sum)
[ "$before" = "$after" ] || { echo "FAIL: files changed beside the model or texture"; exit 1; }
echo "texture path checks ok"
