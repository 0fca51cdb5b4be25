#!/usr/bin/env bash
# Several models in one run share one GL context and one set of programs
# (issue #47), and draw exactly what each draws alone:
#  - every PNG of a several-model run is byte for byte the PNG of that
#    model's own run: materials blended, textured, morphed, normal-mapped
#    and split, in both orders, with the views, transparency, dual
#    quaternions and a debug context, a crowd; a broken model among them
#    changes nothing for the others (state left by one model in the shared
#    context would show in the next one's pixels);
#  - the run creates one context, and two copies of a model link no more
#    programs than one copy (tests/tools/gl_count_shim.c counts them);
#    a run without overlay lines links fewer than one with the skeleton;
#    a run of different models links fewer than their own runs together;
#  - the window too (under xvfb-run): one window for several models, one
#    headless context beside it, each --window-capture and --screenshot
#    what the model's own run writes.
# Usage: e2e_glshare.sh SKINVIEW COUNT_SHIM.so SHARED_MODELS GEN_DIR OUT_DIR [--no-shim]
# GEN_DIR: tests/tools/gen/generate.sh's models. --no-shim (AddressSanitizer
# builds, whose start-up the shim's dlsym cannot serve): the pixels only.
set -uo pipefail
skinview=$1 shim=$2 shared=$3 gen=$4 out=$5 no_shim=${6:-}
if [ -z "${DISPLAY:-}" ]; then # the window's case: a virtual X server (as e2e_window.sh)
  exec xvfb-run -a -s "-screen 0 1024x768x24 -noreset" "$0" "$@"
fi
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
printf 'not a model\n' >broken.glb
models=("$gen/looks_blend.glb" "$shared/gltf/Fox.glb" broken.glb "$gen/morph_skin.gltf" "$gen/looks_normal.glb"
        "$shared/md5/Bob.md5mesh" "$shared/synthetic/tentacle130_8w.gltf")
stem() { local b=${1##*/}; echo "${b%.*}"; }

# together CASE STATUS OPTIONS... -- MODELS...: one run of all the models,
# then each alone; every image the same, the status the first failure's.
together() {
  local case=$1 want=$2 options=() list=()
  shift 2
  while [ "$1" != -- ]; do options+=("$1"); shift; done
  shift
  list=("$@")
  "$skinview" "${list[@]}" "${options[@]}" --screenshot "${case}_{model}.png" >"$case.out" 2>"$case.err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "$case: status $got, want $want: $(head -c 600 "$case.err")"
  for model in "${list[@]}"; do
    local name
    name=$(stem "$model")
    [ "$model" = broken.glb ] && continue
    "$skinview" "$model" "${options[@]}" --screenshot "${case}_alone_$name.png" >/dev/null 2>&1 ||
      fail "$case: $name alone: status $?"
    if [ ! -s "${case}_$name.png" ]; then
      fail "$case: $name not written among several"
    elif ! cmp -s "${case}_$name.png" "${case}_alone_$name.png"; then
      fail "$case: $name among several is not $name alone"
    else
      echo "ok: $case: $name"
    fi
  done
}

together plain 4 --size 96x96 --time 0.5 -- "${models[@]}"
reversed=()
for ((i = ${#models[@]} - 1; i >= 0; i--)); do reversed+=("${models[i]}"); done
together views 4 --size 80x64 --time 0.3 --background transparent --wireframe --skeleton --axes --skinning dq --debug \
  -- "${reversed[@]}"
together crowd 0 --size 96x64 --time 0.2 --instances 3 --msaa 1 -- "$gen/looks_blend.glb" "$shared/gltf/Fox.glb"

# The window and the headless context in turn, model after model. (No
# leak checks there: glfwTerminate unloads the GLX driver, see e2e_window.)
window=("$shared/gltf/Fox.glb" "$gen/looks_blend.glb" "$shared/md5/Bob.md5mesh")
win_options=(--size 96x80 --time 0.4 --debug)
ASAN_OPTIONS=detect_leaks=0 "$skinview" "${window[@]}" "${win_options[@]}" --screenshot 'win_{model}.png' \
  --window-capture 'cap_{model}.png' >/dev/null 2>win.err || fail "window: status $?: $(head -c 600 win.err)"
for model in "${window[@]}"; do
  name=$(stem "$model")
  ASAN_OPTIONS=detect_leaks=0 "$skinview" "$model" "${win_options[@]}" --screenshot "win_alone_$name.png" \
    --window-capture "cap_alone_$name.png" >/dev/null 2>&1 || fail "window: $name alone: status $?"
  for kind in win cap; do
    if cmp -s "${kind}_$name.png" "${kind}_alone_$name.png"; then echo "ok: window: $kind $name"
    else fail "window: $kind of $name among several is not $name alone"; fi
  done
done

if [ "$no_shim" != --no-shim ]; then
  # counted OPTIONS...: what the run creates, as "CONTEXTS PROGRAMS".
  counted() {
    # (the program cache off: a warm one loads programs instead of linking them)
    SKINVIEW_PROGRAM_CACHE=off SKV_SHIM_COUNT_FILE="$out/counts" LD_PRELOAD=$shim "$skinview" "$@" >/dev/null 2>&1
    awk '/^contexts/ {c = $2} /^programs/ {p = $2} END {print c + 0, p + 0}' "$out/counts"
  }
  cp "$shared/gltf/Fox.glb" Fox_copy.glb
  read -r one_contexts one_programs < <(counted "$shared/gltf/Fox.glb" --size 32x32 --screenshot one.png)
  read -r two_contexts two_programs < <(counted "$shared/gltf/Fox.glb" Fox_copy.glb --size 32x32 \
                                         --screenshot 'two_{model}.png')
  echo "one Fox: $one_contexts context(s), $one_programs program(s); two: $two_contexts, $two_programs"
  [ "$one_contexts" -eq 1 ] && [ "$one_programs" -gt 0 ] || fail "the shim counted nothing for one model"
  [ "$two_contexts" -eq 1 ] || fail "two models created $two_contexts contexts"
  [ "$two_programs" -eq "$one_programs" ] || fail "two copies of Fox linked $two_programs programs, one $one_programs"
  # Only what the run draws: the overlay lines' program when a view has lines.
  read -r _ skeleton_programs < <(counted "$shared/gltf/Fox.glb" --size 32x32 --skeleton --screenshot skeleton.png)
  echo "one Fox with --skeleton: $skeleton_programs program(s)"
  [ "$skeleton_programs" -gt "$one_programs" ] || fail "--skeleton linked $skeleton_programs programs, the plain run \
$one_programs: a run without lines links their program"
  good=("${models[@]:0:2}" "${models[@]:3}")
  read -r all_contexts all_programs < <(counted "${good[@]}" --size 32x32 --screenshot 'all_{model}.png')
  alone=0
  for model in "${good[@]}"; do
    read -r _ programs < <(counted "$model" --size 32x32 --screenshot alone.png)
    alone=$((alone + programs))
  done
  echo "${#good[@]} models: $all_contexts context(s), $all_programs program(s); alone $alone"
  [ "$all_contexts" -eq 1 ] || fail "${#good[@]} models created $all_contexts contexts"
  [ "$all_programs" -lt "$alone" ] || fail "${#good[@]} models linked $all_programs programs, alone $alone"
  read -r win_contexts _ < <(counted "${window[@]}" "${win_options[@]}" --screenshot 'win_{model}.png' \
                               --window-capture 'cap_{model}.png')
  echo "window: ${#window[@]} models: $win_contexts context(s)"
  [ "$win_contexts" -eq 2 ] || fail "the window's ${#window[@]} models created $win_contexts contexts (one EGL, one GLX)"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "e2e_glshare: all passed"
