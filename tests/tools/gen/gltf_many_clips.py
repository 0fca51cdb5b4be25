#!/usr/bin/env python3
"""gltf_many_clips.py OUT.glb [CLIPS] [NODES] - CLIPS clips (default 3,000)
over NODES nodes (default 3,000) under one root, clip c turning node
c % NODES with one channel. Each clip ends at its own time, so none are
merged (a time line each). Every clip compiled its hierarchy walk at load,
a table per node (~100 B a node), so memory grew as clips x nodes: 810 MB
for this 0.8 MB file (issue #21). All clips share one output of keys. A
triangle skinned to the first node. Written at test time."""
import math, sys
from glb import Glb

clips = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
g = Glb()
pos = g.add('f', [0, 0, 0, 1, 0, 0, 0, 1, 0], 3, 'VEC3', 5126, min=[0, 0, 0], max=[1, 1, 0])
joints = g.add('H', [0] * 12, 3, 'VEC4', 5123)
weights = g.add('f', [1, 0, 0, 0] * 3, 3, 'VEC4', 5126)
ibm = g.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 1, 'MAT4', 5126)
h = math.radians(45) / 2
turns = g.add('f', [0, 0, 0, 1, 0, 0, math.sin(h), math.cos(h)], 2, 'VEC4', 5126)
animations = []
for c in range(clips):
    end = 1.0 + c / 1024.0
    times = g.add('f', [0.0, end], 2, 'SCALAR', 5126, min=[0], max=[end])
    animations.append({'channels': [{'sampler': 0, 'target': {'node': 1 + c % nodes, 'path': 'rotation'}}],
                       'samplers': [{'input': times, 'output': turns}]})
g.write(sys.argv[1], {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_many_clips.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': 'root', 'children': list(range(1, nodes + 2))}] +
             [{'name': 'n%d' % k} for k in range(nodes)] + [{'name': 'triangle', 'mesh': 0, 'skin': 0}],
    'meshes': [{'primitives': [{'attributes': {'POSITION': pos, 'JOINTS_0': joints, 'WEIGHTS_0': weights}}]}],
    'skins': [{'joints': [1], 'inverseBindMatrices': ibm}],
    'animations': animations,
})
