#!/usr/bin/env python3
"""gltf_deep_bones.py OUT.glb [DEPTH [BONES]] - a chain of DEPTH nodes
(default 3,000) with BONES leaf joints (default 3,000; 0.4 MB) hanging from
its deepest node, and a triangle skinned to the first three. The chain's
top node is a joint too (the skin's last), the others are plain nodes.
`--list --json` gives each bone its parent bone, the nearest ancestor
node that is a bone: for every leaf, the top node, DEPTH nodes up. Looking at every
bone for every ancestor of every bone took minutes on files like this
(issue #21). Inverse bind matrices all identity. Written at test time."""
import sys
from glb import Glb

depth = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
bones = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
g = Glb()
pos = g.add('f', [0, 0, 0, 1, 0, 0, 0, 1, 0], 3, 'VEC3', 5126, min=[0, 0, 0], max=[1, 1, 0])
joints = g.add('H', [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0], 3, 'VEC4', 5123)
weights = g.add('f', [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 3, 'VEC4', 5126)
ibm = g.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * (bones + 1), bones + 1, 'MAT4', 5126)
# Node 0: the triangle; 1 .. depth: the chain; then the bones.
chain = [{'name': 'c%d' % i, 'children': [i + 2]} for i in range(depth)]
first_bone = depth + 1
chain[-1]['children'] = list(range(first_bone, first_bone + bones))
g.write(sys.argv[1], {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_deep_bones.py'},
    'scene': 0, 'scenes': [{'nodes': [0, 1]}],
    'nodes': [{'name': 'triangle', 'mesh': 0, 'skin': 0}] + chain + [{'name': 'b%d' % j} for j in range(bones)],
    'meshes': [{'primitives': [{'attributes': {'POSITION': pos, 'JOINTS_0': joints, 'WEIGHTS_0': weights}}]}],
    'skins': [{'joints': list(range(first_bone, first_bone + bones)) + [1], 'inverseBindMatrices': ibm}],
})
