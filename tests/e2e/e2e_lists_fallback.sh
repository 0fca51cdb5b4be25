#!/usr/bin/env bash
# Influence lists on a driver whose buffer textures cannot hold them
# (tests/tools/gl_limit_shim.c lowers GL_MAX_TEXTURE_BUFFER_SIZE; llvmpipe
# itself takes 2^27 texels):
#  - chosen by default (a vertex with more than 4 influences): one warning
#    line, status 0, and the picture --influences 4 draws, byte for byte
#    (the framing follows the pose drawn);
#  - asked for with --influences all: a one-line refusal, status 7;
#  - under a limit they fit: the lists' own picture, no warning;
#  - the window (under xvfb-run) falls back as the headless path does;
#  - lists a draw of 100 bones cannot hold (split models): the default keeps
#    the 4 largest from the load on, --influences all is refused.
# Usage: e2e_lists_fallback.sh SKINVIEW SHIM.so MODEL OUT_DIR [--no-shim]
# --no-shim (AddressSanitizer builds, whose start-up the shim's dlsym
# cannot serve): the last case only.
set -uo pipefail
skinview=$1 shim=$2 model=$3 out=$4 no_shim=${5:-}
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
shot=(--time 0.4 --size 128x128 --screenshot)
limited() { SKV_SHIM_MAX_TEXTURE_BUFFER=$1 LD_PRELOAD=$shim "${@:2}"; }

if [ "$no_shim" != --no-shim ]; then
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

window=(--time 0.4 --size 128x128 --window-capture)
xvfb-run -a "$skinview" "$model" --influences 4 "${window[@]}" "$out/window.slots.png" 2>/dev/null || fail "window, --influences 4: status $?"
limited 3000 xvfb-run -a "$skinview" "$model" "${window[@]}" "$out/window.fallback.png" 2>"$out/window.err"
status=$?
[ "$status" -eq 0 ] || fail "window, default past the limit: status $status"
grep -q 'influence lists of [0-9]* texels, past this driver.s 3000: 4 largest influences' "$out/window.err" ||
  { fail "window, default past the limit: no warning:"; sed 's/^/    /' "$out/window.err"; }
cmp -s "$out/window.fallback.png" "$out/window.slots.png" || fail "window, default past the limit: not the --influences 4 picture"
fi

# --list --json says whose choice the lists were.
"$skinview" "$model" --list --json | grep -qF '"influence_lists":true,"influence_lists_by_default":true' ||
  fail "--list --json: the default's lists not reported as the default's"
"$skinview" "$model" --influences all --list --json | grep -qF '"influence_lists":true,"influence_lists_by_default":false' ||
  fail "--list --json: asked-for lists reported as the default's"

# A triangle whose lists name 120 bones, past the 100 a draw holds
# (tests/tools/gen/md5_wide_triangle.py): the default keeps the 4 largest
# with a warning, decided at load (so --list says so, and it needs no GPU);
# --influences all is refused.
python3 "$(dirname "$0")/../tools/gen/md5_wide_triangle.py" "$out/wide.md5mesh"
"$skinview" "$out/wide.md5mesh" --size 64x64 --screenshot "$out/wide.png" 2>"$out/wide.err" || fail "wide triangle: status $?"
if [ "$(wc -l <"$out/wide.err")" -ne 1 ] || ! grep -q 'warning: every influence cannot be drawn (mesh 0: .* over the 100 a draw holds); the 4 largest' "$out/wide.err"; then
  fail "wide triangle: not one warning line:"
  sed 's/^/    /' "$out/wide.err"
fi
"$skinview" "$out/wide.md5mesh" --influences 4 --size 64x64 --screenshot "$out/wide.4.png" 2>/dev/null || fail "wide triangle, 4 slots: status $?"
cmp -s "$out/wide.png" "$out/wide.4.png" || fail "wide triangle: not the --influences 4 picture"
"$skinview" "$out/wide.md5mesh" --list --json 2>/dev/null | grep -qF '"influence_lists":false' || fail "wide triangle: --list --json reports lists"
# Into a file: grep -q stops reading at the match, and the bone tree after
# it would end skinview by SIGPIPE (a failed pipeline under pipefail).
"$skinview" "$out/wide.md5mesh" --list >"$out/wide.list" 2>/dev/null || fail "wide triangle: --list exited $?"
grep -q '3 vertices over 4 kept their 4 largest' "$out/wide.list" || fail "wide triangle: --list does not say the 4 largest are kept"
"$skinview" "$out/wide.md5mesh" --influences all --size 64x64 --screenshot "$out/wide.all.png" 2>"$out/wide.all.err"
status=$?
if [ "$status" -eq 0 ] || [ "$(wc -l <"$out/wide.all.err")" -ne 1 ] || ! grep -q 'over the 100 a draw holds' "$out/wide.all.err"; then
  fail "wide triangle, --influences all: status $status, not a one-line refusal:"
  sed 's/^/    /' "$out/wide.all.err"
fi

[ "$failures" -eq 0 ] && [ "$no_shim" = --no-shim ] && echo "lists past a draw's 100 bones: the default keeps the 4 largest, all is refused (no shim here)"
[ "$failures" -eq 0 ] && [ "$no_shim" != --no-shim ] && echo "lists past the driver's limit or a draw's 100 bones: the default falls back to 4 slots with a warning, all is refused"
exit $((failures > 0))
