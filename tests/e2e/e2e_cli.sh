#!/usr/bin/env bash
# The command line of issue #46, as a pipeline or a new user meets it:
#  - several models per run, each with the same options, output names
#    taking {model}; a broken one reported in its one line, the others
#    written, a closing count and the first failure's status;
#  - "-" writes --screenshot, --export-pose and --gif to stdout, byte for
#    byte the file, nothing else on stdout;
#  - every output flag refuses an extension it does not write, naming the
#    flag that does; a misspelt option gets "did you mean"; a bad value
#    says what is expected; an unknown --anim names the clips (up to 10);
#  - --screenshot and --export-pose say "wrote ..."; plain --list prints
#    the bone tree; --help is grouped and lists every option;
#  - --version names the Assimp package, as dpkg knows it;
#  - --thumbnail SIZE: a square, transparent frame of a telling pose,
#    within a second a model.
# Usage: e2e_cli.sh SKINVIEW SKV_CHECK SHARED_MODELS GEN_DIR OUT_DIR
set -uo pipefail
skinview=$1 check=$2 shared=$3 gen=$4 out=$5
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
fox=$shared/gltf/Fox.glb bob=$shared/md5/Bob.md5mesh

# expect STATUS NEEDLE ARGS...: that status, one stderr line holding NEEDLE.
expect() {
  local want=$1 needle=$2
  shift 2
  "$skinview" "$@" >stdout 2>stderr
  local got=$?
  if [ "$got" -ne "$want" ] || [ "$(wc -l <stderr)" -ne 1 ] || ! grep -qF -- "$needle" stderr; then
    fail "skinview $*: status $got (want $want): $(head -c 400 stderr)"
  else
    echo "ok: status $got: $(cat stderr)"
  fi
}

# --- several models -------------------------------------------------------
printf 'not a model\n' >broken.glb
"$skinview" "$fox" broken.glb "$bob" --size 64x64 --time 0.5 --screenshot 'shot_{model}.png' \
  --export-pose 'pose_{model}.obj' >stdout 2>stderr
code=$?
[ "$code" -eq 4 ] || fail "several models, one broken: status $code, want 4 (the broken one's)"
printf 'wrote pose_Fox.obj\nwrote shot_Fox.png\nwrote pose_Bob.obj\nwrote shot_Bob.png\n' | cmp -s - stdout ||
  fail "several models: stdout is $(cat stdout)"
[ "$(wc -l <stderr)" -eq 2 ] && grep -q "^skinview: broken.glb: " stderr &&
  tail -n 1 stderr | grep -qx "skinview: 1 of 3 models failed (the exit status is the first one's)" ||
  fail "several models: stderr is $(cat stderr)"
for f in shot_Fox.png shot_Bob.png pose_Fox.obj pose_Bob.obj; do [ -s "$f" ] || fail "$f not written"; done
ls shot_broken* pose_broken* >/dev/null 2>&1 && fail "the broken model left a file"
# Each is what a run of its own writes.
"$skinview" "$bob" --size 64x64 --time 0.5 --screenshot alone_bob.png >/dev/null
"$check" same shot_Bob.png alone_bob.png || fail "Bob among several is not Bob alone"
# All well: status 0, no count line.
"$skinview" "$fox" "$bob" --size 32x32 --screenshot 'ok_{model}.png' >/dev/null 2>stderr ||
  fail "two good models: status $?"
[ -s stderr ] && fail "two good models printed: $(cat stderr)"
# A model failing later (no bone of that name) does not stop the next.
"$skinview" "$fox" "$bob" --weights b_Head_05 --size 32x32 --screenshot 'w_{model}.png' >/dev/null 2>stderr
code=$?
[ "$code" -eq 2 ] && [ -s w_Fox.png ] && [ ! -e w_Bob.png ] && grep -q "Bob.md5mesh: no bone 'b_Head_05'" stderr ||
  fail "--weights for one of two: status $code: $(cat stderr)"
# The names must tell the models apart; - takes one model.
expect 2 "--screenshot same.png: with 2 models each needs its own file: put {model} in the name" \
  "$fox" "$bob" --screenshot same.png
expect 2 "--export-pose -: standard output takes one model's output, not 2" "$fox" "$bob" --export-pose -
# A % in a model's name stays a character in a frame pattern.
cp "$shared/gltf/SimpleSkin.gltf" 'odd%dname.gltf'
"$skinview" 'odd%dname.gltf' --size 32x32 --frames 2 --screenshot 'seq_{model}_%d.png' >/dev/null ||
  fail "a %d in the model's name broke the frame pattern"
[ -s 'seq_odd%dname_0.png' ] && [ -s 'seq_odd%dname_1.png' ] || fail "frames of odd%dname: $(ls seq_* 2>&1)"

# --- standard output ------------------------------------------------------
for case in "--screenshot shot.png --size 64x48" "--export-pose pose.obj" "--gif clip.gif --size 64x48 --frames 3"; do
  read -r flag file rest <<<"$case"
  # shellcheck disable=SC2086 # $rest: options without spaces
  "$skinview" "$fox" --time 0.2 "$flag" "$file" $rest >/dev/null || fail "$flag $file: status $?"
  # shellcheck disable=SC2086
  "$skinview" "$fox" --time 0.2 "$flag" - $rest >piped 2>stderr
  code=$?
  if [ "$code" -ne 0 ] || ! cmp -s piped "$file" || [ -s stderr ] || [ -e ./- ]; then
    fail "$flag -: status $code, $(cmp piped "$file" 2>&1), stderr: $(head -c 200 stderr)"
  else
    echo "ok: $flag - is $file byte for byte ($(stat -c %s piped) bytes), stderr empty"
  fi
done
# With another output beside it, that one's line goes to stderr.
"$skinview" "$fox" --time 0.2 --screenshot - --size 64x48 --export-pose side.obj >piped 2>stderr
cmp -s piped shot.png && grep -qx "wrote side.obj" stderr || fail "- beside a file: $(head -c 200 stderr)"
expect 2 "only one output can go to standard output (-)" "$fox" --screenshot - --export-pose -
expect 2 "--list prints on standard output: no output to - with it" "$fox" --list --gif -
# A closed pipe or full device: status 8.
"$skinview" "$fox" --size 64x48 --screenshot - >/dev/full 2>stderr
code=$?
[ "$code" -eq 8 ] && [ "$(wc -l <stderr)" -eq 1 ] && grep -q "cannot write to standard output: No space left on device" stderr ||
  fail "--screenshot - into /dev/full: status $code: $(cat stderr)"

# --- extensions -----------------------------------------------------------
expect 2 "bad value for --screenshot: 'out.mp4' (expected a file name ending .png, or - for standard output; --video writes that)" \
  "$fox" --screenshot out.mp4
expect 2 "bad value for --gif: 'a.webp' (expected a file name ending .gif, or - for standard output)" "$fox" --gif a.webp
expect 2 "bad value for --export-pose: 'pose.png' (expected a file name ending .obj, or - for standard output; --screenshot writes that)" \
  "$fox" --export-pose pose.png
expect 2 "bad value for --video: 'v.gif' (expected a file name ending .mp4, .webm or .mkv; --gif writes that)" "$fox" --video v.gif
expect 2 "bad value for --ref: 'ref.jpg' (expected a file name ending .png)" "$fox" --screenshot a.png --ref ref.jpg
expect 2 "bad value for --window-capture: 'w.obj' (expected a file name ending .png; --export-pose writes that)" \
  "$fox" --window-capture w.obj
expect 2 "bad value for --screenshot: 'noext' (expected" "$fox" --screenshot noext
expect 2 "bad value for --screenshot: 'dir.png/x' (expected" "$fox" --screenshot dir.png/x
ls out.mp4 a.webp pose.png v.gif noext >/dev/null 2>&1 && fail "a refused name was written"
# Any case; a device is written as it is.
"$skinview" "$fox" --size 32x32 --screenshot UPPER.PNG >/dev/null || fail "--screenshot UPPER.PNG: status $?"
"$skinview" "$fox" --export-pose /dev/null >/dev/null || fail "--export-pose /dev/null: status $?"

# --- did you mean, expected values ------------------------------------------
expect 2 "unknown option --screnshot; did you mean --screenshot? (see --help)" "$fox" --screnshot a.png
expect 2 "unknown option --backgroud; did you mean --background?" "$fox" --backgroud none
expect 2 "unknown option -time; did you mean --time?" "$fox" -time 1
expect 2 "unknown option --Size; did you mean --size?" "$fox" --Size 10x10
expect 2 "unknown option --camera; did you mean --camera-azimuth, --camera-elevation or --camera-zoom?" "$fox" --camera 3
expect 2 "unknown option --xyzzy (see --help)" "$fox" --xyzzy
expect 2 "unknown option --thumb; did you mean --thumbnail?" "$fox" --thumb=3
expect 2 "bad value for --size: '800' (expected WxH, width and height in 1..16384, e.g. 800x600)" "$fox" --size 800
expect 2 "bad value for --fps: '0' (expected a number over 0, up to 1000)" "$fox" --fps 0
expect 2 "bad value for --frame: 'poze' (expected one of clip, pose)" "$fox" --frame poze
expect 2 "bad value for --frames: '2.5' (expected a whole number in 1..100000)" "$fox" --frames 2.5
expect 2 "bad value for --background: 'blue' (expected #rrggbb, r,g,b with each in 0..1, or transparent (none))" \
  "$fox" --background blue
expect 2 "--time needs a value (a number in -1e+06..1e+06)" "$fox" --time

# --- clips and bones --------------------------------------------------------
expect 6 "no clip 'Trot' (it has 3: 0 'Survey', 1 'Walk', 2 'Run'); see --list" "$fox" --anim Trot --list
expect 6 "no clip 'Trot' (it has 3: 0 'Survey', 1 'Walk', 2 'Run')" "$fox" --blend Walk,Trot,0.5 --list
python3 "$gen/gltf_many_clips.py" many_clips.glb 12 4 || fail "cannot generate many_clips.glb"
expect 6 "(it has 12: 0 'clip 0', 1 'clip 1', 2 'clip 2', 3 'clip 3', 4 'clip 4', 5 'clip 5', 6 'clip 6', 7 'clip 7', 8 'clip 8', 9 'clip 9' and 2 more)" \
  many_clips.glb --anim 12 --list
"$skinview" "$fox" --list >list.txt || fail "--list: status $?"
# The tree: each bone under its parent, two spaces deeper; the head six levels down.
sed -n '/^bones: /,/^influence/p' list.txt >tree.txt
grep -qx "  0 '_rootJoint'" tree.txt && grep -qx "    1 'b_Root_00'" tree.txt &&
  grep -qx "              6 'b_Head_05'" tree.txt && grep -qx "        13 'b_Tail01_012'" tree.txt ||
  fail "--list's bone tree: $(cat tree.txt)"
[ "$(grep -c "^ *[0-9]* 'b_" tree.txt)" -eq 23 ] || fail "--list's tree does not hold Fox's 23 b_ bones"
awk 'NR > 1 && !/^influence/ { print $1 }' tree.txt | sort -n | uniq | wc -l | grep -qx 24 ||
  fail "--list's tree does not name each of the 24 bones once"

# --- what was written, --help, --version ----------------------------------------
"$skinview" "$fox" --size 32x32 --screenshot said.png --export-pose said.obj >stdout 2>stderr
printf 'wrote said.obj\nwrote said.png\n' | cmp -s - stdout || fail "--screenshot/--export-pose said: $(cat stdout)"
"$skinview" --help >help.txt || fail "--help: status $?"
for group in input "time and clips" views outputs camera "import safety"; do
  grep -qx "$group:" help.txt || fail "--help has no '$group:' group"
done
for option in --video --thumbnail --ref-create --background --anim --screenshot --import-memory --trust; do
  grep -q -- "^  $option\b" help.txt || fail "--help lacks $option"
done
"$skinview" --version >version.txt || fail "--version: status $?"
assimp_line=$(grep '^assimp ' version.txt)
echo "$assimp_line"
case "$assimp_line" in
  *"from Debian package "*)
    package=${assimp_line##*from Debian package }
    read -r name version <<<"$package"
    [ "$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null)" = "$version" ] ||
      fail "--version names $name $version; dpkg says $(dpkg-query -W -f='${Version}' "$name" 2>&1)" ;;
  *"built by tools/build-assimp.sh"*) ;;
  *) fail "--version does not say where Assimp came from: $assimp_line" ;;
esac
grep -q '^video: libavcodec ' version.txt || fail "--version does not name FFmpeg's libraries: $(cat version.txt)"

# --- thumbnails -------------------------------------------------------------
# Within a second each (10 under the sanitizers), the size asked, square,
# transparent around the model, the model drawn. The time is wall-clock
# time, which other processes on the machine lengthen (ctest runs this
# alone, RUN_SERIAL): the best of up to three runs.
limit=1
[ "${SKV_SANITIZER_BUILD:-0}" = 1 ] && limit=10
for model in "$fox" "$bob" "$shared/gltf/CesiumMan.glb" "$shared/fbx/huesitos.fbx" "$shared/ozz/arnaud.fbx" \
  "$shared/collada/seymour_polylist_animation.dae"; do
  name=$(basename "$model")
  took= code=0
  for attempt in 1 2 3; do
    start=$(date +%s%N)
    "$skinview" --thumbnail 128 --screenshot "thumb_$name.png" "$model" >/dev/null 2>stderr
    code=$?
    this=$((($(date +%s%N) - start) / 1000000))
    [ -z "$took" ] || [ "$this" -lt "$took" ] && took=$this
    [ "$code" -ne 0 ] || [ "$took" -le $((limit * 1000)) ] && break
  done
  [ "$code" -eq 0 ] || { fail "--thumbnail $name: status $code: $(cat stderr)"; continue; }
  [ "$took" -le $((limit * 1000)) ] || fail "--thumbnail $name took $took ms (more than $limit s)"
  [ "$(od -An -tu1 -j16 -N8 "thumb_$name.png" | tr -s ' ')" = " 0 0 0 128 0 0 0 128" ] || fail "thumb_$name.png is not 128x128"
  "$check" alpha "thumb_$name.png" 0 0 0 0 >/dev/null || fail "thumb_$name.png's corner is not transparent"
  "$check" alpha "thumb_$name.png" 64 64 1 255 >/dev/null && "$check" nonblank "thumb_$name.png" >/dev/null ||
    fail "thumb_$name.png shows no model at its centre"
  echo "ok: --thumbnail 128 $name: $took ms"
done
# Halfway through the clip by default (Fox's first clip: its length from
# --list --json); --time says otherwise.
half=$("$skinview" "$fox" --list --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["clips"][0]["seconds"] / 2)')
"$skinview" "$fox" --thumbnail 64 --screenshot half.png >/dev/null
"$skinview" "$fox" --size 64x64 --background none --frame pose --time "$half" --screenshot at_half.png >/dev/null
"$check" golden half.png at_half.png half.diff.png 8 0.001 || fail "--thumbnail is not the pose halfway ($half s) through Fox's clip"
"$skinview" "$fox" --thumbnail 64 --time 0.3 --screenshot early.png >/dev/null
"$check" differ half.png early.png || fail "--thumbnail --time 0.3 is the halfway pose"
expect 2 "--thumbnail writes one --screenshot FILE.png (or -)" "$fox" --thumbnail 64
expect 2 "--thumbnail SIZE sets the size: no --size with it" "$fox" --thumbnail 64 --size 10x10 --screenshot x.png
expect 2 "bad value for --thumbnail: '0' (expected a whole number in 1..4096)" "$fox" --thumbnail 0 --screenshot x.png

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
