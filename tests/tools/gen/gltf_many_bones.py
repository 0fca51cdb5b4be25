#!/usr/bin/env python3
"""gltf_many_bones.py OUT.glb [BONES] - a triangle whose skin lists BONES
joints (default 70,000; 6.5 MB), all children of one root, the first three
weighted (Assimp gives each of the others one weight of 0). Skinview's
palette indices are 16-bit: more than 65,535 bones is one line and exit 5,
which the importer found only after packing every bone's influences
(issue #21). Inverse bind matrices all identity (Assimp 5.2 needs them).
Written at test time."""
import sys
from glb import Glb

bones = int(sys.argv[2]) if len(sys.argv) > 2 else 70000
g = Glb()
pos = g.add('f', [0, 0, 0, 1, 0, 0, 0, 1, 0], 3, 'VEC3', 5126, min=[0, 0, 0], max=[1, 1, 0])
joints = g.add('H', [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0], 3, 'VEC4', 5123)
weights = g.add('f', [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 3, 'VEC4', 5126)
ibm = g.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * bones, bones, 'MAT4', 5126)
g.write(sys.argv[1], {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_many_bones.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': 'root', 'children': list(range(1, bones + 2))},
              {'name': 'triangle', 'mesh': 0, 'skin': 0}] + [{'name': 'j%d' % j} for j in range(bones)],
    'meshes': [{'primitives': [{'attributes': {'POSITION': pos, 'JOINTS_0': joints, 'WEIGHTS_0': weights}}]}],
    'skins': [{'joints': list(range(2, bones + 2)), 'inverseBindMatrices': ibm}],
})
