#!/usr/bin/env python3
"""gltf_morph_skin.py OUT.gltf - a skinned tube with two morph targets, for
morph targets and skinning together (issue #18): the morph is added to the
rest shape first, then the bones move the result.

A tube of 9 rings (y = 0 .. 2, 8 sides, radius 0.25, radial normals) is
weighted to joint "Lower" below y = 1 and to "Upper" above, blending over
the middle ring. Target 0 ("bulge_low") pushes the rings around y = 0.5
out by up to 0.2, target 1 ("bulge_high") those around y = 1.5 by up to
0.3 and gives them tilted normals; the mesh's default weights are 0.25 and
0. The clip "BendBulge" turns "Upper" by 0, 60, 90 degrees about z at 0, 1,
2 s and keys the weights (0, 0), (1, 0), (0.5, 1) at the same times, so
a bulge that ignored the bones would stay upright. Buffer embedded as a
data URI; written by this script at test time."""
import base64, json, math, sys
from tube import IBM, RADIUS, RINGS, SIDES, floats, indices, pack, quat, rings, shorts, upper_weight

positions, normals, joints, weights = [], [], [], []
low, high, high_n = [], [], []
for y, c, sn in rings():
    positions += [RADIUS * c, y, RADIUS * sn]
    normals += [c, 0.0, sn]
    joints += [0, 1, 0, 0]
    weights += [1.0 - upper_weight(y), upper_weight(y), 0.0, 0.0]
    g_low = math.exp(-((y - 0.5) / 0.3) ** 2)
    g_high = math.exp(-((y - 1.5) / 0.3) ** 2)
    low += [0.2 * g_low * c, 0.0, 0.2 * g_low * sn]
    high += [0.3 * g_high * c, 0.0, 0.3 * g_high * sn]
    high_n += [0.0, 0.5 * g_high, 0.0]
indices = indices()

times = [0.0, 1.0, 2.0]
rotations = sum((quat('z', d) for d in (0, 60, 90)), [])
morph_weights = [0.0, 0.0, 1.0, 0.0, 0.5, 1.0]

data, views = pack([floats(positions), floats(normals), shorts(joints), floats(weights), shorts(indices), floats(IBM),
                    floats(times), floats(rotations), floats(morph_weights), floats(low), floats(high),
                    floats(high_n)])
n = RINGS * SIDES

def vec3_accessor(view, values):
    return {'bufferView': view, 'componentType': 5126, 'count': n, 'type': 'VEC3',
            'min': [min(values[k::3]) for k in range(3)], 'max': [max(values[k::3]) for k in range(3)]}

accessors = [
    vec3_accessor(0, positions),
    {'bufferView': 1, 'componentType': 5126, 'count': n, 'type': 'VEC3'},
    {'bufferView': 2, 'componentType': 5123, 'count': n, 'type': 'VEC4'},
    {'bufferView': 3, 'componentType': 5126, 'count': n, 'type': 'VEC4'},
    {'bufferView': 4, 'componentType': 5123, 'count': len(indices), 'type': 'SCALAR'},
    {'bufferView': 5, 'componentType': 5126, 'count': 2, 'type': 'MAT4'},
    {'bufferView': 6, 'componentType': 5126, 'count': 3, 'type': 'SCALAR', 'min': [0], 'max': [2]},
    {'bufferView': 7, 'componentType': 5126, 'count': 3, 'type': 'VEC4'},
    {'bufferView': 8, 'componentType': 5126, 'count': 6, 'type': 'SCALAR'},
    vec3_accessor(9, low),
    vec3_accessor(10, high),
    {'bufferView': 11, 'componentType': 5126, 'count': n, 'type': 'VEC3'},
]
gltf = {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_morph_skin.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': 'Rig', 'children': [1, 2]},
              {'name': 'TubeMesh', 'mesh': 0, 'skin': 0},
              {'name': 'Lower', 'children': [3]},
              {'name': 'Upper', 'translation': [0, 1, 0]}],
    'meshes': [{'name': 'tube', 'weights': [0.25, 0.0],
                'extras': {'targetNames': ['bulge_low', 'bulge_high']},
                'primitives': [{'attributes': {'POSITION': 0, 'NORMAL': 1, 'JOINTS_0': 2, 'WEIGHTS_0': 3},
                                'indices': 4,
                                'targets': [{'POSITION': 9}, {'POSITION': 10, 'NORMAL': 11}]}]}],
    'skins': [{'joints': [2, 3], 'inverseBindMatrices': 5, 'skeleton': 2}],
    'animations': [{'name': 'BendBulge',
                    'samplers': [{'input': 6, 'output': 7, 'interpolation': 'LINEAR'},
                                 {'input': 6, 'output': 8, 'interpolation': 'LINEAR'}],
                    'channels': [{'sampler': 0, 'target': {'node': 3, 'path': 'rotation'}},
                                 {'sampler': 1, 'target': {'node': 1, 'path': 'weights'}}]}],
    'accessors': accessors, 'bufferViews': views,
    'buffers': [{'byteLength': len(data),
                 'uri': 'data:application/octet-stream;base64,' + base64.b64encode(data).decode()}],
}
with open(sys.argv[1], 'w') as f:
    json.dump(gltf, f)
