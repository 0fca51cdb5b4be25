#!/usr/bin/env bash
# Textures that cannot be drawn draw in the material colour, with one
# warning line, and never stop the model from showing:
#  - a texture path naming a FIFO (its open would wait for a writer
#    forever): --list and --screenshot finish within 5 s;
#  - a PNG wider than GL_MAX_TEXTURE_SIZE on llvmpipe (20000 x 1, 82 bytes;
#    its upload was a GL error, status 7);
#  - a 33 KB PNG that decodes to 1 GiB, refused before decoding.
# Each picture equals the one drawn with the texture missing.
# Usage: e2e_texture_limits.sh SKINVIEW SKV_CHECK OUT_DIR
set -uo pipefail
skinview=$1 check=$2 out=$3
gen=$(cd "$(dirname "$0")/../tools/gen" && pwd)
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

bash "$(dirname "$0")/../tools/gen/textured_quad.sh" "$out/quad.obj" skin
texture() { printf 'newmtl skin\nKd 1 0 1\nmap_Kd %s\n' "$1" >"$out/quad.mtl"; }

# The reference: the texture missing, the material's magenta.
texture missing.png
"$skinview" "$out/quad.obj" --size 64x64 --screenshot "$out/missing.png" 2>"$out/missing.err" || fail "missing texture"

# case NAME TEXTURE NEEDLE: --list and --screenshot, each within 5 s, one
# warning line holding NEEDLE, the material colour drawn.
case_() {
  local name=$1 needle=$3
  texture "$2"
  local mode
  for mode in list screenshot; do
    local args=(--list)
    [ "$mode" = screenshot ] && args=(--debug --size 64x64 --screenshot "$out/$name.shot.png")
    timeout -s KILL 5 "$skinview" "$out/quad.obj" "${args[@]}" >/dev/null 2>"$out/$name.$mode.err"
    local status=$?
    if [ "$status" -ne 0 ]; then
      fail "$name --$mode: status $status (137: still running after 5 s)"
      sed 's/^/    /' "$out/$name.$mode.err"
    elif [ "$(wc -l <"$out/$name.$mode.err")" -ne 1 ] || ! grep -qF -- "$needle" "$out/$name.$mode.err"; then
      fail "$name --$mode: want one warning line with '$needle', got:"
      sed 's/^/    /' "$out/$name.$mode.err"
    else
      echo "ok: $name --$mode: $(cat "$out/$name.$mode.err")"
    fi
  done
  [ -e "$out/$name.shot.png" ] && { "$check" same "$out/$name.shot.png" "$out/missing.png" || fail "$name: not the material colour"; }
}

mkfifo "$out/fifo.png"
case_ fifo fifo.png "fifo.png is not a regular file; using the material colour"
python3 "$gen/png_size.py" "$out/wide.png" 20000 1
case_ wide wide.png "20000x1 texels, more than 16384 on a side; using the material colour"
python3 "$gen/png_size.py" "$out/huge.png" 16384 16384
case_ huge huge.png "16384x16384 texels, more than 256 MiB decoded; using the material colour"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
