#!/usr/bin/env python3
"""gltf_zero_normals.py OUT.glb [SIDE] - a wavy grid of SIDE x SIDE vertices
(default 320: 102,400 vertices, 203,522 triangles, 4.9 MB) whose NORMAL
accessor is all zeros. Zero normals light as black, so the importer
rebuilds each from the faces around its vertex; done vertex by vertex over
every face, that took minutes on files this size (issue #21). No skin, no
clip: only the repair is measured. Written at test time."""
import math, sys
from glb import Glb

side = int(sys.argv[2]) if len(sys.argv) > 2 else 320
positions, indices = [], []
for z in range(side):
    for x in range(side):
        u, v = x / (side - 1), z / (side - 1)
        positions += [u, 0.1 * math.sin(6 * u) * math.cos(6 * v), v]  # wavy: normals differ
for z in range(side - 1):
    for x in range(side - 1):
        a = z * side + x
        b, c, d = a + 1, a + side, a + side + 1
        indices += [a, c, b, b, c, d]  # counter-clockwise seen from +y
n = side * side
g = Glb()
pos = g.add('f', positions, n, 'VEC3', 5126, min=[0, -0.1, 0], max=[1, 0.1, 1])
nrm = g.add('f', [0.0] * (3 * n), n, 'VEC3', 5126)
idx = g.add('I', indices, len(indices), 'SCALAR', 5125)
g.write(sys.argv[1], {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_zero_normals.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': 'grid', 'mesh': 0}],
    'meshes': [{'name': 'grid', 'primitives': [{'attributes': {'POSITION': pos, 'NORMAL': nrm}, 'indices': idx}]}],
})
