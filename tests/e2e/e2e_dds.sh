#!/usr/bin/env bash
# DDS textures (issue #43): one texture written as a PNG and as DDS in
# every encoding Skinview reads (tests/tools/gen/dds_files.py: BC1 legacy
# and DX10, BC2, BC3, BC7, BGRA, BGR; BC4 against the luminance one, BC5
# loads) on a textured quad. Each render matches the PNG's within the
# golden metric (24 levels, 0.25% of pixels); a DDS cut short or lying in
# its header draws the material colour with one warning, like any bad
# texture; guarded and --trust alike.
# Usage: e2e_dds.sh SKINVIEW SKV_CHECK OUT_DIR
set -uo pipefail
skinview=$1 check=$2 out=$3
gen=$(cd "$(dirname "$0")/../tools/gen" && pwd)
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python3 "$gen/dds_files.py" "$out" 64 || { echo "FAIL: dds_files.py"; exit 1; }

# shot NAME TEXTURE [ARGS]: a 128 x 128 render of the quad with TEXTURE.
shot() {
  local name=$1 texture=$2
  shift 2
  bash "$gen/textured_quad.sh" "$out/$name.obj" m
  printf 'newmtl m\nKd 1 0 1\nmap_Kd %s\n' "$texture" >"$out/$name.mtl"
  "$skinview" "$out/$name.obj" --size 128x128 --screenshot "$out/$name.png" "$@" 2>"$out/$name.err"
}

for trust in "" --trust; do
  t=${trust:+.trust}
  shot "png$t" tex.png $trust || fail "png$t"
  for dds in bc1 bc1_dx10 bc2 bc3 bc7 bgra bgr; do
    shot "$dds$t" "tex_$dds.dds" $trust || fail "$dds$t: status $?"
    [ -s "$out/$dds$t.err" ] && { fail "$dds$t: warned"; cat "$out/$dds$t.err"; }
    "$check" golden "$out/$dds$t.png" "$out/png$t.png" "$out/$dds$t.diff.png" 24 0.0025 || fail "$dds$t vs the PNG"
  done
  shot "lum$t" tex_lum.dds $trust || fail "lum$t"
  shot "bc4$t" tex_bc4.dds $trust || fail "bc4$t"
  "$check" golden "$out/bc4$t.png" "$out/lum$t.png" "$out/bc4$t.diff.png" 24 0.0025 || fail "bc4$t vs luminance"
  shot "bc5$t" tex_bc5.dds $trust || fail "bc5$t"
  [ -s "$out/bc5$t.err" ] && fail "bc5$t: warned"
  "$check" differ "$out/bc5$t.png" "$out/png$t.png" >/dev/null || fail "bc5$t: drawn as the PNG"
done

# The book's layout: Models/ and Textures/ side by side, the material
# naming the bare file. Found in ../Textures (read by skinview, decoded in
# a second sandboxed child, as any image beside the model's folder).
mkdir -p "$out/book/Models" "$out/book/Textures"
cp "$out/tex_bc7.dds" "$out/book/Textures/"
bash "$gen/textured_quad.sh" "$out/book/Models/quad.obj" m
printf 'newmtl m\nKd 1 0 1\nmap_Kd tex_bc7.dds\n' >"$out/book/Models/quad.mtl"
for trust in "" --trust; do
  "$skinview" "$out/book/Models/quad.obj" --size 128x128 --screenshot "$out/book$trust.png" $trust 2>"$out/book.err" ||
    fail "book$trust"
  [ -s "$out/book.err" ] && { fail "book$trust: warned"; cat "$out/book.err"; }
  "$check" golden "$out/book$trust.png" "$out/bc7.png" "$out/book.diff.png" 24 0.0025 || fail "book$trust vs bc7"
done

# Cut short, and a header claiming more texels than the file holds: the
# material's magenta and one warning that says so.
shot missing none.dds || fail "missing"
head -c 1000 "$out/tex_bc3.dds" >"$out/cut.dds"
python3 - "$out/tex_bc1.dds" "$out/lying.dds" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<II', data, 12, 4096, 4096)  # height, width
open(sys.argv[2], 'wb').write(data)
PY
for bad in cut lying; do
  for trust in "" --trust; do
    shot "$bad$trust" "$bad.dds" $trust || fail "$bad$trust: status $?"
    [ "$(wc -l <"$out/$bad$trust.err")" -eq 1 ] && grep -q "DDS cut short" "$out/$bad$trust.err" ||
      { fail "$bad$trust: want one 'DDS cut short' warning"; cat "$out/$bad$trust.err"; }
    "$check" same "$out/$bad$trust.png" "$out/missing.png" >/dev/null || fail "$bad$trust: not the material colour"
  done
done
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
