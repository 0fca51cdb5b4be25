#!/usr/bin/env bash
# --background transparent (or none), issue #46: PNGs with alpha 0 where
# nothing is drawn, straight (not premultiplied) alpha, the model's own
# alpha kept. Checked by pixel (skv_check):
#  - laid over a colour the way a viewer does (c a + bg (1 - a)), the
#    transparent render is the opaque render on that colour, every pixel
#    within 2/255, the anti-aliased edges included (a premultiplied image
#    comes out dark there, an alpha of 1 on edges shows the wrong colour);
#  - the corners are alpha 0, the model's inside 255;
#  - a quad of material alpha 0.5 (alphaMode BLEND) is alpha 128 over
#    nothing, and again the opaque render when laid over a colour;
#  - frame sequences and --frames from --time keep alpha; a GIF (no alpha
#    channel) with it is refused (status 2).
# Usage: e2e_alpha.sh SKINVIEW SKV_CHECK MODEL BLEND_MODEL OUT_DIR
# MODEL: an opaque animated model (Fox.glb); BLEND_MODEL: looks_blend.glb
# (tests/tools/gen/gltf_looks.py).
set -uo pipefail
skinview=$1 check=$2 model=$3 blend=$4 out=$5
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$skinview" "$@" --debug >/dev/null || fail "skinview $* exited $?"; }

for background in transparent none; do
  run "$model" --size 200x150 --time 1 --background "$background" --screenshot "$out/fox_$background.png"
done
"$check" same "$out/fox_transparent.png" "$out/fox_none.png" || fail "none is not transparent"
run "$model" --size 200x150 --time 1 --background '#102030' --screenshot "$out/fox_opaque.png"
"$check" over "$out/fox_transparent.png" "$out/fox_opaque.png" 16 32 48 2 || fail "Fox over #102030 is not the opaque render"
"$check" alpha "$out/fox_transparent.png" 0 0 0 0 || fail "Fox's corner is not transparent"
"$check" alpha "$out/fox_transparent.png" 199 149 0 0 || fail "Fox's far corner is not transparent"
# The body at the image's centre (the framed model).
"$check" alpha "$out/fox_transparent.png" 100 75 255 255 || fail "Fox's body is not opaque"
# The views too: the skeleton drawn over the mesh, a grid.
run "$model" --size 200x150 --time 1 --skeleton --grid --background none --screenshot "$out/views_none.png"
run "$model" --size 200x150 --time 1 --skeleton --grid --background '#102030' --screenshot "$out/views_opaque.png"
"$check" over "$out/views_none.png" "$out/views_opaque.png" 16 32 48 2 || fail "the views over #102030 are not the opaque render"

# The model's own alpha: a quad of alpha 0.5 blends into nothing.
run "$blend" --size 128x128 --background none --screenshot "$out/blend_none.png"
run "$blend" --size 128x128 --background 1,1,1 --screenshot "$out/blend_white.png"
run "$blend" --size 128x128 --background '#102030' --screenshot "$out/blend_opaque.png"
"$check" alpha "$out/blend_none.png" 64 64 124 132 || fail "the half-transparent quad does not keep its alpha"
"$check" over "$out/blend_none.png" "$out/blend_opaque.png" 16 32 48 2 || fail "the quad over #102030 is not the opaque render"
"$check" over "$out/blend_none.png" "$out/blend_white.png" 255 255 255 2 || fail "the quad over white is not the opaque render"

# Frame sequences from --time keep it.
run "$model" --size 96x72 --frames 2 --time 0.5 --background none --screenshot "$out/seq_%d.png"
"$check" alpha "$out/seq_1.png" 0 0 0 0 || fail "a sequence's frame is not transparent"
"$check" alpha "$out/seq_1.png" 48 36 255 255 || fail "a sequence's frame lost the body"

# Not for a GIF.
"$skinview" "$model" --gif "$out/x.gif" --background transparent >/dev/null 2>"$out/err"
code=$?
[ "$code" -eq 2 ] && [ "$(wc -l <"$out/err")" -eq 1 ] && grep -q "a GIF has no alpha channel" "$out/err" ||
  fail "--gif with a transparent background: status $code: $(cat "$out/err")"
[ -e "$out/x.gif" ] && fail "the refused GIF was written"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
