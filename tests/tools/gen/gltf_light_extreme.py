#!/usr/bin/env python3
"""gltf_light_extreme.py OUT.glb - a skinned sheet whose framing is set by
one vertex that a second joint weighs lightly: a 97 x 97 grid of vertices
(u and w in -1..1) on joint "base", which stays, except the grid's middle
vertex (at the origin), weighted 0.97 base and 0.03 "far". The sheet is
turned 30 degrees about y and tilted (y = 0.2 u + 0.1 w), so that no two
vertices tie at an extreme. The one clip carries "far" 60 units along
(1, 0.75, 1.25) and back, so that the middle vertex alone leaves the sheet
for (1.8, 1.35, 2.25) halfway: it is the extreme of the framing in x, y
and z (the sheet reaches 1.37, 0.3 and 1.37).
A framing that passes over vertices by a bound of where their clusters can
reach must keep it (tests/unit/test_framing.c)."""
import math, sys
from array import array
from glb import Glb

n = 97
pos, jnt, wgt, idx = array('f'), array('H'), array('f'), array('I')
middle = (n // 2) * n + n // 2
c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
for i in range(n):
    for j in range(n):
        u, w = -1.0 + 2.0 * j / (n - 1), -1.0 + 2.0 * i / (n - 1)
        pos.extend((c * u - s * w, 0.2 * u + 0.1 * w, s * u + c * w))
        v = i * n + j
        jnt.extend((0, 1, 0, 0))
        wgt.extend((0.97, 0.03, 0.0, 0.0) if v == middle else (1.0, 0.0, 0.0, 0.0))
for i in range(n - 1):
    for j in range(n - 1):
        a, b = i * n + j, (i + 1) * n + j
        idx.extend((a, b, a + 1, a + 1, b, b + 1))

count = n * n
g = Glb()
p = g.add('f', pos, count, 'VEC3', 5126, min=[min(pos[a::3]) for a in range(3)],
          max=[max(pos[a::3]) for a in range(3)])
j = g.add('H', jnt, count, 'VEC4', 5123)
w = g.add('f', wgt, count, 'VEC4', 5126)
i = g.add('I', idx, len(idx), 'SCALAR', 5125)
ibm = g.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * 2, 2, 'MAT4', 5126)
times = g.add('f', [0.0, 1.0, 2.0], 3, 'SCALAR', 5126, min=[0], max=[2])
far = g.add('f', [0, 0, 0, 60, 45, 75, 0, 0, 0], 3, 'VEC3', 5126)
g.write(sys.argv[1], {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_light_extreme.py'},
    'scene': 0, 'scenes': [{'nodes': [0, 2]}],
    'nodes': [{'name': 'base', 'children': [1]},
              {'name': 'far'},
              {'name': 'sheet', 'mesh': 0, 'skin': 0}],
    'meshes': [{'primitives': [{'attributes': {'POSITION': p, 'JOINTS_0': j, 'WEIGHTS_0': w}, 'indices': i}]}],
    'skins': [{'joints': [0, 1], 'inverseBindMatrices': ibm}],
    'animations': [{'name': 'reach', 'channels': [{'sampler': 0, 'target': {'node': 1, 'path': 'translation'}}],
                    'samplers': [{'input': times, 'output': far}]}],
})
