#!/usr/bin/env bash
# Materials (issue #19), checked without goldens on the files
# tests/tools/gen/gltf_looks.py writes:
#  1. blend: a quad of alpha 0.5 rendered over black and over white; at
#     its centre the white render is brighter by (1 - 0.5) * 255 in every
#     channel: half the background comes through (blending happens on the
#     stored sRGB values, so the amount is exactly linear in alpha there);
#     order: two overlapping blended quads, the far red one listed after
#     the near blue one: drawn far to near, blue is on top where they
#     overlap (in the file's order red would be);
#  2. mask: the quad's texture has alpha 0 on its left half: there the
#     background shows untouched, on the right half the quad is drawn;
#  3. sRGB: an emissive texture of sRGB grey 128 on a black, non-reflecting
#     quad reads back as 128 (sampled as linear 0.216 through
#     GL_SRGB8_ALPHA8 and encoded on output; a linear texture would give
#     188, a missing encode 55);
#  4. MSAA: the same flat quad has only background and quad pixels with
#     --msaa 1, and edge pixels in between with the default (4 samples);
#  5. texture transform: KHR_texture_transform's map, probed cell by cell;
#  6. normal map: the skinned tube with and without its normal map has the
#     same silhouette, pixel for pixel, while much of its inside is shaded
#     differently.
# Usage: e2e_looks.sh SKINVIEW SKV_CHECK GENERATED_DIR OUT_DIR
set -euo pipefail
skinview=$1 check=$2 gen=$3 out=$4
mkdir -p "$out"
shot() { "$skinview" "$@" --debug --size 128x128; }

shot "$gen/looks_blend.glb" --background 0,0,0 --screenshot "$out/blend_black.png"
shot "$gen/looks_blend.glb" --background 1,1,1 --screenshot "$out/blend_white.png"
"$check" through "$out/blend_black.png" "$out/blend_white.png" 64 64 127.5 1.5
shot "$gen/looks_order.glb" --background 0,0,0 --screenshot "$out/order.png"
"$check" channels "$out/order.png" 64 64 2 0 30   # the overlap: blue over red

shot "$gen/looks_mask.glb" --background 0,0,0 --screenshot "$out/mask.png"
"$check" probe "$out/mask.png" 44 64 0 0 0 0     # left half: background, untouched
"$check" probe "$out/mask.png" 84 64 0 0 0 0 && { echo "mask: the right half was not drawn"; exit 1; }

shot "$gen/looks_srgb.glb" --background 0,0,0 --screenshot "$out/srgb.png"
"$check" probe "$out/srgb.png" 64 64 128 128 128 1

# Texture transform (KHR_texture_transform, #42): the uvmap quad seen
# straight on; at the centre of each of 4 x 4 screen cells the emitted
# colour is the block the extension's map sends that cell's UV to:
# uv' = T * R * S * uv with R = [c s; -s c] (three.js r187, the sample
# model), UVs and blocks from the image's top left; the cells are placed
# on the quad as drawn (skv_check extent), not on today's framing.
shot "$gen/looks_uvmap.glb" --background 0,0,0 --camera-azimuth 0 --camera-elevation 0 --msaa 1 \
  --screenshot "$out/uvmap.png"
quad=$("$check" extent "$out/uvmap.png" 30)
python3 - "$(dirname "$0")/../tools/gen" $quad <<'PY' >"$out/uvmap_probes.txt"
import math, sys
sys.path.insert(0, sys.argv[1])
x0, y0, x1, y1 = map(int, sys.argv[2:6])
cell_w, cell_h = (x1 + 1 - x0) / 4, (y1 + 1 - y0) / 4
from gltf_looks import UVMAP_COLOURS, UVMAP_TRANSFORM as t
c, s = math.cos(t['rotation']), math.sin(t['rotation'])
(sx, sy), (ox, oy) = t['scale'], t['offset']
for row in range(4):
    for column in range(4):
        u, v = (column + 0.5) / 4, (row + 0.5) / 4
        u2 = sx * c * u + sy * s * v + ox
        v2 = -sx * s * u + sy * c * v + oy
        block = int(math.floor((v2 % 1.0) * 4)) * 4 + int(math.floor((u2 % 1.0) * 4))
        print(int(x0 + cell_w * (column + 0.5)), int(y0 + cell_h * (row + 0.5)), *UVMAP_COLOURS[block])
PY
while read -r x y r g b; do "$check" probe "$out/uvmap.png" "$x" "$y" "$r" "$g" "$b" 2; done <"$out/uvmap_probes.txt"

shot "$gen/looks_srgb.glb" --background 0,0,0 --msaa 1 --screenshot "$out/msaa1.png"
"$check" intermediate "$out/msaa1.png" 0 0
"$check" intermediate "$out/srgb.png" 100 100000

shot "$gen/looks_normal.glb" --time 1 --msaa 1 --background 1,1,1 --screenshot "$out/normal_map.png"
shot "$gen/looks_flat.glb" --time 1 --msaa 1 --background 1,1,1 --screenshot "$out/normal_none.png"
"$check" silhouette "$out/normal_map.png" "$out/normal_none.png" 0.3
# The importer's reading, through --list --json: alpha modes and cutoff,
# factors, and each texture slot found.
materials() { "$skinview" "$1" --list --json | python3 -c '
import json, sys
m = json.load(sys.stdin)["materials"][0]
print(m["model"], m["alpha_mode"], m["alpha_cutoff"], round(m["base_color"][3], 3), m["metallic"], m["roughness"],
      m["emissive"], "double" if m["double_sided"] else "single",
      " ".join("%s:%s" % (k, v["state"]) for k, v in sorted(m["textures"].items())))'; }
expect() { # FILE WANT
  got=$(materials "$1")
  [ "$got" = "$2" ] || { echo "$(basename "$1") materials: got '$got', want '$2'"; exit 1; }
  echo "$(basename "$1"): $got"
}
expect "$gen/looks_blend.glb" "pbr blend 0.5 0.5 0 1 [0, 0, 0] double "
expect "$gen/looks_mask.glb" "pbr mask 0.5 1 0 1 [0, 0, 0] double base_color:found"
expect "$gen/looks_srgb.glb" "pbr opaque 0.5 1 1 1 [1, 1, 1] double emissive:found"
expect "$gen/looks_maps.glb" "pbr opaque 0.5 1 1 1 [0, 0, 0] double metallic_roughness:found occlusion:found"
# The maps change the quad's two halves differently: rough unoccluded
# white (bright) on the left, smooth occluded metal on the right.
shot "$gen/looks_maps.glb" --background 0,0,0 --screenshot "$out/maps.png"
"$check" apart "$out/maps.png" 44 64 84 64 40
expect "$gen/looks_normal.glb" "pbr opaque 0.5 1 0 0.45 [0, 0, 0] single normal:found"
expect "$gen/looks_flat.glb" "pbr opaque 0.5 1 0 0.45 [0, 0, 0] single "

# --msaa outside 1..64 or not whole: a bad command line (2); more samples
# than the driver takes (llvmpipe: 4): one line, status 7.
for bad in 0 65 2.5 x; do
  status=0
  "$skinview" "$gen/looks_srgb.glb" --msaa "$bad" --screenshot "$out/bad.png" 2>"$out/bad.txt" || status=$?
  [ "$status" = 2 ] || { echo "--msaa $bad: status $status, want 2"; exit 1; }
done
max=$(env -u DISPLAY "$skinview" "$gen/looks_srgb.glb" --msaa 64 --screenshot "$out/bad.png" 2>&1 >/dev/null || true)
case "$max" in
  *"takes at most"*) [ "$(printf '%s\n' "$max" | wc -l)" = 1 ] || { echo "--msaa 64: not one line: $max"; exit 1; } ;;
  "") echo "--msaa 64: accepted (a driver with 64 samples?)" ;;
  *) echo "--msaa 64: unexpected: $max"; exit 1 ;;
esac
# --influences all reads its lists from texture units of its own: on the
# normal-mapped tube (at most 4 influences a vertex, so the lists and the
# slots blend alike) it must draw the very pixels of the default. With the
# lists on the units of the material maps the normal map was read from the
# wrong texture: a different picture and no GL error.
"$skinview" "$gen/looks_normal.glb" --time 0.5 --size 200x200 --screenshot "$out/slots.png" >/dev/null
"$skinview" "$gen/looks_normal.glb" --time 0.5 --size 200x200 --influences all --screenshot "$out/lists.png" >/dev/null
cmp -s "$out/slots.png" "$out/lists.png" || { echo "--influences all draws the normal-mapped tube differently"; exit 1; }
echo "--influences all on the normal-mapped tube: the same pixels as 4 slots"
echo "e2e_looks: all checks hold"
