#!/usr/bin/env python3
"""gltf_one_channel_clips.py OUT.glb [CLIPS] - CLIPS clips (default 80,000;
8.2 MB) of one channel each, all on one time line (0 to 1 s), turning node
"a" and node "b" by turns, as Collada exporters write one clip per node.
The importer merges one-channel clips of a time line that animate
different nodes: here clip 2k takes clip 2k + 1, leaving CLIPS / 2 clips
of two channels. Matching every clip against every other took minutes on
files like this (issue #21). Every clip shares one sampler's keys, so the
file stays small. A triangle skinned to "a" and "b". Written at test time."""
import math, sys
from glb import Glb

clips = int(sys.argv[2]) if len(sys.argv) > 2 else 80000
g = Glb()
pos = g.add('f', [0, 0, 0, 1, 0, 0, 0, 1, 0], 3, 'VEC3', 5126, min=[0, 0, 0], max=[1, 1, 0])
joints = g.add('H', [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 3, 'VEC4', 5123)
weights = g.add('f', [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 3, 'VEC4', 5126)
ibm = g.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * 2, 2, 'MAT4', 5126)
times = g.add('f', [0.0, 1.0], 2, 'SCALAR', 5126, min=[0], max=[1])
h = math.radians(45) / 2
turns = g.add('f', [0, 0, 0, 1, 0, 0, math.sin(h), math.cos(h)], 2, 'VEC4', 5126)
sampler = [{'input': times, 'output': turns}]
animations = [{'channels': [{'sampler': 0, 'target': {'node': 1 + c % 2, 'path': 'rotation'}}], 'samplers': sampler}
              for c in range(clips)]
g.write(sys.argv[1], {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_one_channel_clips.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': 'root', 'children': [1, 2, 3]}, {'name': 'a'}, {'name': 'b'},
              {'name': 'triangle', 'mesh': 0, 'skin': 0}],
    'meshes': [{'primitives': [{'attributes': {'POSITION': pos, 'JOINTS_0': joints, 'WEIGHTS_0': weights}}]}],
    'skins': [{'joints': [1, 2], 'inverseBindMatrices': ibm}],
    'animations': animations,
})
