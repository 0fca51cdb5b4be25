#!/usr/bin/env bash
# Writes a textured quad (two triangles, UVs 0..1) as OBJ, using the .mtl
# of the same name beside it and material MATERIAL: the texture tests'
# model.
# Usage: textured_quad.sh OUT.obj MATERIAL
set -euo pipefail
cat >"$1" <<OBJ
mtllib $(basename "${1%.obj}").mtl
v -1 -1 0
v 1 -1 0
v 1 1 0
v -1 1 0
vt 0 0
vt 1 0
vt 1 1
vt 0 1
usemtl $2
f 1/1 2/2 3/3
f 1/1 3/3 4/4
OBJ
