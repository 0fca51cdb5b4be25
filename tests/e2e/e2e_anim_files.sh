#!/usr/bin/env bash
# Clips from other files (--anim-file) and files of clips without a mesh.
# Usage: e2e_anim_files.sh SKINVIEW SPLIT_DIR OZZ_DIR OUT_DIR
#   SPLIT_DIR: tests/tools/gen/gltf_split.py's files; OZZ_DIR: ../shared/models/ozz
set -uo pipefail
skinview=$1 split=$2 ozz=$3 out=$4
generated=$(dirname "$split") # the generated models (tests/tools/gen/generate.sh)
mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

# Two clip files, one with a namespace prefix: both clips, with sources.
"$skinview" "$split/character.gltf" --anim-file "$split/clips_bend.gltf" --anim-file "$split/clips_sway.gltf" \
  --list >"$out/list.txt" 2>"$out/list.err" || fail "--list with two --anim-file exited $?"
grep -q "^  0 'Bend'.*from $split/clips_bend.gltf (1 of its 1 channels matched a node)" "$out/list.txt" || fail "clip Bend not listed with its source"
grep -q "^  1 'Sway'.*from $split/clips_sway.gltf (1 of its 1 channels matched a node)" "$out/list.txt" || fail "clip Sway (mixamorig: prefix) not bound"
"$skinview" "$split/character.gltf" --anim-file "$split/clips_bend.gltf" --anim-file "$split/clips_sway.gltf" \
  --list --json | python3 -c '
import json, sys
clips = json.load(sys.stdin)["clips"]
assert [c["name"] for c in clips] == ["Bend", "Sway"], clips
assert all(c["source"].endswith(".gltf") and c["channels"] == c["file_channels"] == 1 for c in clips), clips
' || fail "--list --json: clips, sources, channel counts"
# --anim picks a clip of an --anim-file by name; the poses differ over time.
for t in 0 0.5; do
  "$skinview" "$split/character.gltf" --anim-file "$split/clips_sway.gltf" --anim Sway --time $t \
    --export-pose "$out/sway_$t.obj" || fail "--anim Sway --time $t"
done
cmp -s "$out/sway_0.obj" "$out/sway_0.5.obj" && fail "clip Sway does not move the character"

# A clip file for another skeleton: refused, one line, exit 6.
"$skinview" "$split/character.gltf" --anim-file "$split/clips_other.gltf" --list >/dev/null 2>"$out/other.err"
code=$?
[ "$code" -eq 6 ] || fail "a clip file that matches nothing exited $code, not 6"
[ "$(wc -l <"$out/other.err")" -eq 1 ] || fail "a clip file that matches nothing printed $(wc -l <"$out/other.err") lines"
grep -q "clips_other.gltf: none of its 1 clip(s) moves a node of the model" "$out/other.err" || fail "refusal reason"
# A missing one: exit 3, one line.
"$skinview" "$split/character.gltf" --anim-file "$split/missing.gltf" --list >/dev/null 2>"$out/missing.err"
code=$?
[ "$code" -eq 3 ] && [ "$(wc -l <"$out/missing.err")" -eq 1 ] || fail "a missing --anim-file: exit $code, $(wc -l <"$out/missing.err") lines"

# A file of clips without a mesh: listed, drawn, its skeleton exported
# as points and lines (with one line saying so). Its joints are three.js's
# 67 bones in each of ozz's clip files: the end joints run.fbx and jog.fbx
# do not key are joints too (they had 55), the keyed FBX Null "Bip01
# Footsteps" is none (walk.fbx had 68).
for clip in walk run jog; do
  "$skinview" "$ozz/$clip.fbx" --list >"$out/$clip.txt" 2>"$out/$clip.err" || fail "$clip.fbx --list exited $?"
  grep -q "no mesh in the file: its skeleton (67 joints) is shown as a stick figure" "$out/$clip.err" ||
    fail "$clip.fbx: no stick-figure warning of 67 joints"
done
"$skinview" "$ozz/walk.fbx" --time 0.5 --export-pose "$out/walk.obj" 2>"$out/walk_export.err" || fail "walk.fbx --export-pose exited $?"
grep -q "holds its 67 joints as points and its bones as lines" "$out/walk_export.err" || fail "walk.fbx --export-pose did not say what it wrote"
[ "$(grep -c '^v ' "$out/walk.obj")" -eq 67 ] || fail "walk.obj: $(grep -c '^v ' "$out/walk.obj") joints, not 67"
[ "$(grep -c '^l ' "$out/walk.obj")" -eq 66 ] || fail "walk.obj: $(grep -c '^l ' "$out/walk.obj") bones, not 66"
grep -q '^f ' "$out/walk.obj" && fail "walk.obj holds faces"
# Which nodes are joints (tests/tools/gen/fbx_rigs.py says why each count).
for rig in limbs:4 nulls:4 holder:4; do
  file=$generated/rigs/${rig%%:*}.fbx want=${rig##*:}
  "$skinview" "$file" --list >/dev/null 2>"$out/rig.err" || fail "${rig%%:*}.fbx --list exited $?"
  grep -q "its skeleton ($want joints)" "$out/rig.err" || fail "${rig%%:*}.fbx: $(cat "$out/rig.err"), want $want joints"
done
[ "$status" -eq 0 ] && echo "e2e_anim_files: all checks passed"
exit $status
