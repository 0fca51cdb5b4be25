#!/usr/bin/env bash
# A model reads beneath its own folder only (issue #48): a glTF whose
# buffer is "../secret" (a file beside the model's folder, as a download
# in ~/Downloads would name ../.ssh/id_rsa), or a link in the folder that
# points out of it, must not turn the secret's bytes into vertices, guarded
# or with --trust (which skips the sandbox, not the rule); the run fails
# with one line naming the refused path (an OBJ's .mtl out there: one
# warning, the model without it). A model opened through a
# symbolic link from another folder is read beside its real file (its
# .bin there), and lines name the path the user gave.
# Usage: e2e_model_folder.sh SKINVIEW
set -uo pipefail
skinview=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${SKV_KEEP:-}" ] && trap - EXIT && echo "keeping $tmp"
cd "$tmp" || exit 1
mkdir -p dir elsewhere/deeper out
python3 - <<'PY'
import json, struct
# The secret: three vertices no model here has (4242.5, 4243.5, 4244.5).
open('secret', 'wb').write(struct.pack('<9f', 4242.5, 1, 2, 4243.5, 1, 2, 4244.5, 3, 2))
# A model's own triangle, in its own .bin beside it.
open('dir/inside.bin', 'wb').write(struct.pack('<9f', 0, 0, 0, 1, 0, 0, 0, 1, 0))

def gltf(name, uri, lo, hi):
    g = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
         "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
         "buffers": [{"uri": uri, "byteLength": 36}],
         "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}],
         "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": lo, "max": hi}]}
    json.dump(g, open(name, 'w'))

gltf('dir/outside.gltf', '../secret', [4242.5, 1, 2], [4244.5, 3, 2])
gltf('dir/alias.gltf', 'alias.bin', [4242.5, 1, 2], [4244.5, 3, 2])
gltf('dir/inside.gltf', 'inside.bin', [0, 0, 0], [1, 1, 0])
open('dir/broken.gltf', 'w').write('{"asset": ')
PY
# An OBJ whose material file is beside its folder: Assimp goes on
# without it, and a warning names it.
printf 'mtllib ../stolen.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl stolen\nf 1 2 3\n' >dir/quad.obj
printf 'newmtl stolen\nKd 1 0 1\n' >stolen.mtl
ln -s ../secret dir/alias.bin                          # in the folder, pointing out of it
ln -s "$tmp/dir/inside.gltf" elsewhere/deeper/link.gltf # the model through a link from elsewhere
ln -s ../../dir/broken.gltf elsewhere/deeper/broken_link.gltf
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

for mode in guarded --trust; do
  extra=()
  [ "$mode" = --trust ] && extra=(--trust)
  # Refused: the buffer outside the folder, and the link in it that
  # points outside.
  for model in outside alias; do
    rm -f out/$model.obj
    "$skinview" dir/$model.gltf --export-pose out/$model.obj "${extra[@]}" >out/$model.out 2>out/$model.err
    got=$?
    echo "$mode $model.gltf: status $got: $(head -c 300 out/$model.err)"
    if grep -qs '424[234]\.5' out/$model.obj out/$model.out; then
      fail "$mode $model.gltf: the secret's bytes were exported"
    fi
    [ "$got" -eq 4 ] || fail "$mode $model.gltf: status $got (want 4: the model's only buffer was refused)"
    [ "$(wc -l <out/$model.err)" -eq 1 ] || fail "$mode $model.gltf: $(wc -l <out/$model.err) lines on stderr (want 1)"
    # The line names the refused path as Assimp asked for it, and why.
    want=secret
    [ "$model" = alias ] && want=alias.bin
    grep -q "^skinview: dir/$model.gltf: .*$want.*outside the model's folder" out/$model.err ||
      fail "$mode $model.gltf: the line does not name $want as outside the model's folder"
  done

  # The same rule for an --anim-file, beneath its own folder.
  "$skinview" dir/inside.gltf --anim-file dir/outside.gltf --list "${extra[@]}" >/dev/null 2>out/anim.err
  got=$?
  [ "$got" -eq 4 ] && [ "$(wc -l <out/anim.err)" -eq 1 ] &&
    grep -q "^skinview: dir/inside.gltf: animation file dir/outside.gltf: .*secret.*outside the animation file's folder" out/anim.err ||
    fail "$mode --anim-file dir/outside.gltf: status $got, $(head -c 300 out/anim.err)"

  # A refused file Assimp can do without: a warning naming it.
  "$skinview" dir/quad.obj --list "${extra[@]}" >out/quad.out 2>out/quad.err
  got=$?
  echo "$mode quad.obj: status $got: $(head -c 300 out/quad.err)"
  [ "$got" -eq 0 ] || fail "$mode quad.obj: status $got (want 0)"
  grep -q "^skinview: dir/quad.obj: warning: .*stolen.mtl was not read: it is outside the model's folder" out/quad.err ||
    fail "$mode quad.obj: no warning names stolen.mtl"
  # (its material, named in the OBJ, keeps Assimp's default grey, not the file's magenta)
  ! grep -q "'stolen'.*base colour 1 0 1 " out/quad.out || fail "$mode quad.obj: the material file outside the folder was read"

  # Through a link from another folder: read beside the real file.
  "$skinview" elsewhere/deeper/link.gltf --export-pose out/link.obj --list "${extra[@]}" >out/link.out 2>out/link.err
  got=$?
  echo "$mode link.gltf: status $got $(head -c 300 out/link.err)"
  [ "$got" -eq 0 ] || fail "$mode elsewhere/deeper/link.gltf: status $got (want 0)"
  [ "$(grep -c '^v ' out/link.obj 2>/dev/null)" -eq 3 ] || fail "$mode link.gltf: no triangle exported"
  grep -q '^file: elsewhere/deeper/link.gltf$' out/link.out || fail "$mode link.gltf: --list does not name the path given"
  [ ! -s out/link.err ] || fail "$mode link.gltf: stderr not empty"

  # An error through a link names the link, as the user gave it.
  "$skinview" elsewhere/deeper/broken_link.gltf --list "${extra[@]}" >/dev/null 2>out/broken.err
  got=$?
  [ "$got" -eq 4 ] && grep -q '^skinview: elsewhere/deeper/broken_link.gltf: cannot import' out/broken.err ||
    fail "$mode broken_link.gltf: status $got, $(head -c 300 out/broken.err)"
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "model folder checks ok"
