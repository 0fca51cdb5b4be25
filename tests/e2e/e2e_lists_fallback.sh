#!/usr/bin/env bash
# Influence lists on a driver whose buffer textures cannot hold them
# (tests/tools/gl_limit_shim.c lowers GL_MAX_TEXTURE_BUFFER_SIZE; llvmpipe
# itself takes 2^27 texels):
#  - chosen by default (a vertex with more than 4 influences): one warning
#    line, status 0, and the picture --influences 4 draws, byte for byte
#    (the framing follows the pose drawn);
#  - asked for with --influences all: a one-line refusal, status 7;
#  - under a limit they fit: the lists' own picture, no warning.
# Usage: e2e_lists_fallback.sh SKINVIEW SHIM.so MODEL OUT_DIR
set -uo pipefail
skinview=$1 shim=$2 model=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# ASan builds: the shim comes before the sanitizer's runtime in the
# preload list, which ASan otherwise refuses.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
shot=(--time 0.4 --size 128x128 --screenshot)
limited() { SKV_SHIM_MAX_TEXTURE_BUFFER=$1 LD_PRELOAD=$shim "${@:2}"; }

"$skinview" "$model" --influences 4 "${shot[@]}" "$out/slots.png" 2>"$out/slots.err" || fail "--influences 4: status $?"
"$skinview" "$model" "${shot[@]}" "$out/lists.png" 2>"$out/lists.err" || fail "default: status $?"
cmp -s "$out/slots.png" "$out/lists.png" && fail "the default drew the 4 slots' picture: the model has no vertex over 4?"

limited 3000 "$skinview" "$model" "${shot[@]}" "$out/fallback.png" 2>"$out/fallback.err"
status=$?
[ "$status" -eq 0 ] || fail "default past the limit: status $status"
if [ "$(wc -l <"$out/fallback.err")" -ne 1 ] || ! grep -q 'warning: the influence lists take [0-9]* texels, past this driver.s 3000' "$out/fallback.err"; then
  fail "default past the limit: not one warning line:"
  sed 's/^/    /' "$out/fallback.err"
fi
cmp -s "$out/fallback.png" "$out/slots.png" || fail "default past the limit: not the --influences 4 picture"

limited 3000 "$skinview" "$model" --influences all "${shot[@]}" "$out/refused.png" 2>"$out/refused.err"
status=$?
[ "$status" -eq 7 ] || fail "--influences all past the limit: status $status, not 7"
if [ "$(wc -l <"$out/refused.err")" -ne 1 ] || ! grep -q -- '--influences all: [0-9]* texels of influence lists, the GPU takes 3000' "$out/refused.err"; then
  fail "--influences all past the limit: not one refusal line:"
  sed 's/^/    /' "$out/refused.err"
fi

limited 100000 "$skinview" "$model" "${shot[@]}" "$out/fits.png" 2>"$out/fits.err" || fail "under a limit they fit: status $?"
[ -s "$out/fits.err" ] && { fail "under a limit they fit: it said something:"; sed 's/^/    /' "$out/fits.err"; }
cmp -s "$out/fits.png" "$out/lists.png" || fail "under a limit they fit: not the lists' picture"

[ "$failures" -eq 0 ] && echo "lists past the driver's limit: the default falls back to 4 slots with a warning, all is refused"
exit $((failures > 0))
