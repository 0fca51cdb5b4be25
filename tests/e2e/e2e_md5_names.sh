#!/usr/bin/env bash
# MD5 animation lookup: Assimp only autoloads "<base>.md5anim" spelt exactly
# as the mesh; skinview also finds it when the names differ in case, and
# shows a mesh whose .md5anim is missing in its rest pose (exit 0).
# Works on copies of assets/arm.* in a temporary folder.
# Usage: e2e_md5_names.sh SKINVIEW SKV_CHECK ASSETS_DIR GOLDEN.png
set -euo pipefail
skinview=$1 check=$2 assets=$3 golden=$4
. "$(dirname "$0")/golden_tolerance.sh"
tmp=$(mktemp -d) far=$(mktemp -d)
trap 'rm -rf "$tmp" "$far"' EXIT

mkdir "$tmp/case" "$tmp/alone"
cp "$assets/arm.md5mesh" "$tmp/case/Arm.md5mesh"
cp "$assets/arm.md5anim" "$tmp/case/ARM.MD5ANIM"
cp "$assets/arm_skin.png" "$tmp/case/"
"$skinview" "$tmp/case/Arm.md5mesh" --list | tee "$tmp/list.txt"
grep -q "^clips: 1" "$tmp/list.txt"
"$skinview" "$tmp/case/Arm.md5mesh" --time 1.0 --size 256x256 --screenshot "$tmp/case.png"
"$check" golden "$tmp/case.png" "$golden" "$tmp/case.diff.png" "$TOLERANCE" "$MAX_FRACTION"

# One clip, guarded and --trust, and the golden picture at t = 1:
# one_clip NAME MODEL [ARGS...] (NAME for its files in $tmp).
one_clip() {
  local name=$1
  shift
  for trust in "" --trust; do
    "$skinview" "$@" --list $trust > "$tmp/$name.txt"
    grep -q "^clips: 1" "$tmp/$name.txt"
  done
  "$skinview" "$@" --time 1.0 --size 256x256 --screenshot "$tmp/$name.png"
  "$check" golden "$tmp/$name.png" "$golden" "$tmp/$name.diff.png" "$TOLERANCE" "$MAX_FRACTION"
}

# An upper-case .MD5MESH: Assimp's MD5 reader reopens it as ARM.md5mesh,
# which is not there (it failed: "Failed to read valid contents out of this
# MD5* file", exit 4); it is read from memory, where the second opening
# reads the same bytes.
mkdir "$tmp/upper"
cp "$assets/arm.md5mesh" "$tmp/upper/ARM.MD5MESH"
cp "$assets/arm.md5anim" "$tmp/upper/ARM.MD5ANIM"
cp "$assets/arm_skin.png" "$tmp/upper/"
one_clip upper "$tmp/upper/ARM.MD5MESH"
# Beside it, a folder named as Assimp reopens it and a broken case
# variant: the file named is the file read (a fallback that opened a case
# variant took whichever the folder listed first).
mkdir "$tmp/upper/ARM.md5mesh"
head -c 2000 "$assets/arm.md5mesh" > "$tmp/upper/ARM.Md5Mesh"
one_clip upper2 "$tmp/upper/ARM.MD5MESH"
# An .md5anim given as --anim-file: Assimp's MD5 reader reopened
# Walk.Md5Anim as Walk.md5anim (exit 4); it is read from memory, the file
# named, though a broken case variant sits beside it.
mkdir "$tmp/anim"
cp "$assets/arm.md5mesh" "$assets/arm_skin.png" "$tmp/anim/"
cp "$assets/arm.md5anim" "$tmp/anim/Walk.Md5Anim"
echo "not an md5anim" > "$tmp/anim/Walk.MD5ANIM"
one_clip anim "$tmp/anim/arm.md5mesh" --anim-file "$tmp/anim/Walk.Md5Anim"
# and the broken one, named, is refused in one line (exit 4)
for trust in "" --trust; do
  status=0
  "$skinview" "$tmp/anim/arm.md5mesh" --anim-file "$tmp/anim/Walk.MD5ANIM" --list $trust > /dev/null 2> "$tmp/anim.err" ||
    status=$?
  cat "$tmp/anim.err"
  [ "$status" -eq 4 ]
  [ "$(wc -l < "$tmp/anim.err")" -eq 1 ]
  grep -q "Walk.MD5ANIM" "$tmp/anim.err"
done

cp "$assets/arm.md5mesh" "$assets/arm_skin.png" "$tmp/alone/"
"$skinview" "$tmp/alone/arm.md5mesh" --list | tee "$tmp/alone.txt"
grep -q "^clips: 0" "$tmp/alone.txt"
grep -q "no animation" "$tmp/alone.txt"
"$skinview" "$tmp/alone/arm.md5mesh" --size 256x256 --screenshot "$tmp/alone.png"
"$check" nonblank "$tmp/alone.png"
# A corrupt .MD5ANIM found by its case-variant name goes through the same
# guarded read as the mesh (issue #21): the mesh in rest pose, one warning
# naming the file, no crash.
mkdir "$tmp/corrupt"
cp "$assets/arm.md5mesh" "$tmp/corrupt/Arm.md5mesh"
{ head -c 3000 "$assets/arm.md5anim"; printf 'numFrames 99999999999\nframe 0 {\n'; } > "$tmp/corrupt/ARM.MD5ANIM"
"$skinview" "$tmp/corrupt/Arm.md5mesh" --list > "$tmp/corrupt.txt" 2> "$tmp/corrupt.err"
cat "$tmp/corrupt.err"
grep -q "^clips: 0" "$tmp/corrupt.txt"
[ "$(grep -c 'ARM.MD5ANIM.*rest pose' "$tmp/corrupt.err")" -eq 1 ]
# The same with the exact name, which Assimp's MD5 reader would read itself
# inside the mesh's import (a broken one failed it: the sound mesh refused,
# exit 4) and an empty one or a FIFO of that name (a FIFO stalled the
# import until the guard's 60 s timeout, with --trust for good): the
# importer reads it, the mesh in rest pose, one warning, quickly.
mkdir "$tmp/exact"
cp "$assets/arm.md5mesh" "$tmp/exact/arm.md5mesh"
for broken in corrupt empty fifo; do
  rm -f "$tmp/exact/arm.md5anim"
  case $broken in
    corrupt) head -c 3000 "$assets/arm.md5anim" > "$tmp/exact/arm.md5anim" ;;
    empty) : > "$tmp/exact/arm.md5anim" ;;
    fifo) mkfifo "$tmp/exact/arm.md5anim" ;;
  esac
  for trust in "" --trust; do
    timeout 20 "$skinview" "$tmp/exact/arm.md5mesh" --list $trust > "$tmp/exact.txt" 2> "$tmp/exact.err"
    cat "$tmp/exact.err"
    grep -q "^clips: 0" "$tmp/exact.txt"
    [ "$(grep -c 'arm.md5anim: cannot import: .*; shown in rest pose' "$tmp/exact.err")" -eq 1 ]
  done
done
# A link to one out of the guarded child's reach (beneath the model's
# folder's parent): it cannot open it, which is not "too large" (a third
# review: that message was given for any regular file not read).
rm -f "$tmp/exact/arm.md5anim"
cp "$assets/arm.md5anim" "$far/arm.md5anim"
ln -s "$far/arm.md5anim" "$tmp/exact/arm.md5anim"
"$skinview" "$tmp/exact/arm.md5mesh" --list > "$tmp/exact.txt" 2> "$tmp/exact.err"
cat "$tmp/exact.err"
grep -q "^clips: 0" "$tmp/exact.txt"
grep -q "arm.md5anim: cannot import: empty, or not a regular file that can be read; shown in rest pose" "$tmp/exact.err"
# A sound one by the exact name: its clip, no warning about it, though an
# empty case variant sits beside it (the exact name is taken first).
cp "$assets/arm.md5anim" "$tmp/exact/arm.md5anim.tmp" && rm -f "$tmp/exact/arm.md5anim" && mv "$tmp/exact/arm.md5anim.tmp" "$tmp/exact/arm.md5anim"
: > "$tmp/exact/ARM.md5anim"
"$skinview" "$tmp/exact/arm.md5mesh" --list > "$tmp/exact.txt" 2> "$tmp/exact.err"
grep -q "^clips: 1" "$tmp/exact.txt"
# (Not `! grep`: set -e does not stop on a negated command.)
if grep -q "md5anim" "$tmp/exact.err"; then exit 1; fi
# An .md5mesh given as --anim-file brings its .md5anim's clip, as the
# model's does (Assimp's own lookup is off: it had given "no clips in it").
"$skinview" "$tmp/exact/arm.md5mesh" --anim-file "$tmp/exact/arm.md5mesh" --list > "$tmp/exact.txt"
grep -q "^clips: 2" "$tmp/exact.txt"
echo "md5 name checks ok"
