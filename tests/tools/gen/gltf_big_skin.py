#!/usr/bin/env python3
"""gltf_big_skin.py OUT.glb [VERTICES] [lines] [tagged] [late] - a legitimate but big skinned mesh
(default 1,000,000 vertices): a tube of 1000 segments round, as many rings
as the count asks, skinned to a chain of 4 joints along its length (each
vertex blends its two nearest joints), one clip bending the second joint.
Indexed triangles, normals and UVs, as an exporter writes them. Assimp's
post-processing took ~10 minutes on such a file (issue #21). Written at
test time; the arrays are built with the array module to stay in seconds.
With `lines`, the mesh has a second primitive: one line along the tube
(a shape Assimp's steps reshape, which read_scene then reads in two
steps, test_blob --once). With `tagged`, the file names
KHR_mesh_quantization among the extensions it uses (it uses none): Skinview
then rewrites it for Assimp (gltf_prep.c) and reads those bytes in two
steps, the same scene by another road (e2e_bounds)."""
import math, struct, sys
from array import array
from glb import Glb

vertices = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
around = 1000
rings = max(2, vertices // around)
length, radius, joints_n = 2.0, 0.1, 4
seg = length / joints_n

ring_x = [radius * math.cos(2 * math.pi * j / around) for j in range(around)]
ring_z = [radius * math.sin(2 * math.pi * j / around) for j in range(around)]
ring_n = array('f')
for j in range(around):
    ring_n.extend((ring_x[j] / radius, 0.0, ring_z[j] / radius))
pos, nrm, uv = array('f'), array('f'), array('f')
jnt, wgt = array('H'), array('f')
u_row = array('f')
for j in range(around):
    u_row.extend((j / around, 0.0))
for i in range(rings):
    y = length * i / (rings - 1)
    row = array('f', [0.0]) * (3 * around)
    row[0::3] = array('f', ring_x)
    row[1::3] = array('f', [y]) * around
    row[2::3] = array('f', ring_z)
    pos.extend(row)
    nrm.extend(ring_n)
    u_row[1::2] = array('f', [y / length]) * around
    uv.extend(u_row)
    t = min(max(y / seg - 0.5, 0.0), joints_n - 1.0)
    a = min(int(t), joints_n - 2)
    f = t - a
    jnt.extend(array('H', [a, a + 1, 0, 0]) * around)
    wgt.extend(array('f', [1.0 - f, f, 0.0, 0.0]) * around)
idx = array('I')
for i in range(rings - 1):
    r0, r1 = i * around, (i + 1) * around
    quad = array('I')
    for j in range(around):
        k = (j + 1) % around
        quad.extend((r0 + j, r1 + j, r0 + k, r0 + k, r1 + j, r1 + k))
    idx.extend(quad)

count = rings * around
g = Glb()
p = g.add('f', pos, count, 'VEC3', 5126, min=[-radius, 0, -radius], max=[radius, length, radius])
n = g.add('f', nrm, count, 'VEC3', 5126)
t = g.add('f', uv, count, 'VEC2', 5126)
j = g.add('H', jnt, count, 'VEC4', 5123)
w = g.add('f', wgt, count, 'VEC4', 5126)
i = g.add('I', idx, len(idx), 'SCALAR', 5125)
ibm = []
for k in range(joints_n):
    ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -k * seg, 0, 1]
ibm = g.add('f', ibm, joints_n, 'MAT4', 5126)
# `late`: the middle key a float's step past the last (2.0), which Assimp
# takes for the clip's end: Assimp's validation lets that pass, the
# FIX_READ_SCENE row for keys past the end repairs it (test_blob
# --not-once: such a file is not read in one step).
late = 'late' in sys.argv[3:]
times = g.add('f', [0.0, 2.0000002 if late else 1.0, 2.0], 3, 'SCALAR', 5126, min=[0], max=[2.0000002 if late else 2])
h = math.radians(60) / 2
bend = g.add('f', [0, 0, 0, 1, 0, 0, math.sin(h), math.cos(h), 0, 0, 0, 1], 3, 'VEC4', 5126)
primitives = [{'attributes': {'POSITION': p, 'NORMAL': n, 'TEXCOORD_0': t, 'JOINTS_0': j, 'WEIGHTS_0': w},
               'indices': i}]
if 'lines' in sys.argv[3:]:
    line = g.add('I', [0, count - around], 2, 'SCALAR', 5125)
    primitives.append({'attributes': {'POSITION': p, 'JOINTS_0': j, 'WEIGHTS_0': w}, 'indices': line, 'mode': 1})
tags = {'extensionsUsed': ['KHR_mesh_quantization']} if 'tagged' in sys.argv[3:] else {}
g.write(sys.argv[1], {
    **tags,
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_big_skin.py'},
    'scene': 0, 'scenes': [{'nodes': [0, 4]}],
    'nodes': [{'name': 'j0', 'children': [1]},
              {'name': 'j1', 'translation': [0, seg, 0], 'children': [2]},
              {'name': 'j2', 'translation': [0, seg, 0], 'children': [3]},
              {'name': 'j3', 'translation': [0, seg, 0]},
              {'name': 'tube', 'mesh': 0, 'skin': 0}],
    'meshes': [{'primitives': primitives}],
    'skins': [{'joints': [0, 1, 2, 3], 'inverseBindMatrices': ibm}],
    'animations': [{'name': 'bend', 'channels': [{'sampler': 0, 'target': {'node': 1, 'path': 'rotation'}}],
                    'samplers': [{'input': times, 'output': bend}]}],
})
