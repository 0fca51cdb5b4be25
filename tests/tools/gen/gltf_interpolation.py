#!/usr/bin/env python3
"""gltf_interpolation.py OUT.gltf|OUT.glb - STEP and CUBICSPLINE samplers (issue
#42: both Assimp builds drop a sampler's interpolation, and Skinview played
every channel as LINEAR).

The tube of tube.py (joints "Lower" at the origin and "Upper" at y = 1),
its two morph targets as in gltf_morph_skin.py, and a second, unskinned
node "Marker" (a small box above the tube) that a clip moves by its node
transform. Clip "Curves", keys at uneven times 0, 0.4, 1.1, 1.6, 2.0 s:
  Upper rotation     CUBICSPLINE about z (45 degrees at 1.1 s), tangents
                     that overshoot (the spline leaves the keys' range)
  Upper translation  STEP (the joint jumps along x at each key)
  Upper scale        CUBICSPLINE (swells between keys)
  Lower rotation     STEP about x
  Lower translation  LINEAR (a slide: the one linear sampler)
  Marker translation CUBICSPLINE (an S between keys), rotation STEP
  the tube's weights CUBICSPLINE (bulge_low) and ... one sampler holds all
                     targets: CUBICSPLINE for the whole weights channel
Clip "Steps": the same keys, every sampler STEP (weights too).
Between keys a LINEAR reading is off by up to tenths of the tube. Buffer
embedded as a data URI, or for OUT.glb the BIN chunk of a binary glTF (the
curves are then read from a document whose JSON is its first chunk);
written at test time."""
import base64, json, math, struct, sys
from tube import IBM, RADIUS, RINGS, SIDES, floats, indices, pack, quat, rings, shorts, upper_weight

positions, normals, joints, weights = [], [], [], []
low, high = [], []
for y, c, sn in rings():
    positions += [RADIUS * c, y, RADIUS * sn]
    normals += [c, 0.0, sn]
    joints += [0, 1, 0, 0]
    weights += [1.0 - upper_weight(y), upper_weight(y), 0.0, 0.0]
    g_low = math.exp(-((y - 0.5) / 0.3) ** 2)
    g_high = math.exp(-((y - 1.5) / 0.3) ** 2)
    low += [0.2 * g_low * c, 0.0, 0.2 * g_low * sn]
    high += [0.3 * g_high * c, 0.0, 0.3 * g_high * sn]
tube_indices = indices()
box = [x for v in ((-0.1, -0.1, -0.1), (0.1, -0.1, -0.1), (0.1, 0.1, -0.1), (-0.1, 0.1, -0.1),
                   (-0.1, -0.1, 0.1), (0.1, -0.1, 0.1), (0.1, 0.1, 0.1), (-0.1, 0.1, 0.1)) for x in v]
box_indices = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3,
               1, 2, 6, 1, 6, 5]

times = [0.0, 0.4, 1.1, 1.6, 2.0]


def cubic(values, tangent_in, tangent_out):
    """CUBICSPLINE output: per key in-tangent, value, out-tangent."""
    out = []
    for v, a, b in zip(values, tangent_in, tangent_out):
        out += a + v + b
    return out


# Upper rotation about z: 0, 20, 45, 10, 0 degrees, tangents in quaternion units per second.
upper_rot_values = [quat('z', d) for d in (0, 20, 45, 10, 0)]
upper_rot_in = [[0, 0, 0.3 * k, 0] for k in (0, 1, -2, 1.5, 0.5)]
upper_rot_out = [[0, 0, 0.4 * k, 0] for k in (1, 2, -1, -1, 0)]
upper_trans_step = [[0.0, 1.0, 0.0], [0.15, 1.0, 0.0], [-0.1, 1.0, 0.0], [0.05, 1.0, 0.0], [0.0, 1.0, 0.0]]
upper_scale_values = [[1, 1, 1], [1.2, 1, 1.2], [0.9, 1.1, 0.9], [1.3, 1, 1.3], [1, 1, 1]]
upper_scale_in = [[0.5, 0, 0.5], [1, 0.2, 1], [-1, 0.3, -1], [0.8, 0, 0.8], [0, 0, 0]]
upper_scale_out = [[1, 0, 1], [-0.5, 0.1, -0.5], [1.5, 0, 1.5], [-1, 0, -1], [0, 0, 0]]
lower_rot_step = [quat('x', d) for d in (0, 15, -10, 25, 0)]
lower_trans_linear = [[0, 0, 0], [0.1, 0, 0], [0.3, 0, 0.1], [0.2, 0, -0.1], [0, 0, 0]]
marker_values = [[0, 2.4, 0], [0.3, 2.6, 0], [-0.2, 2.5, 0.2], [0.1, 2.3, -0.1], [0, 2.4, 0]]
marker_in = [[0, 0, 0], [1, -1, 0.5], [0.5, 0.5, -1], [-1, 0, 1], [0, 0, 0]]
marker_out = [[2, 1, 0], [-1.5, 0.5, 0.5], [1, -1, 0], [0.5, 0.5, -0.5], [0, 0, 0]]
marker_rot_step = [quat('y', d) for d in (0, 30, 60, 90, 120)]
# Morph weights: two targets per key.
weight_values = [[0, 0], [0.8, 0.2], [0.3, 0.9], [1.0, 0.4], [0, 0]]
weight_in = [[0, 0], [1, 0.5], [-1, 1], [0.5, -1], [0, 0]]
weight_out = [[2, 0], [-1, 1], [1, -0.5], [-2, -1], [0, 0]]

flat = lambda rows: [x for r in rows for x in r]
blobs = [
    floats(positions), floats(normals), shorts(joints), floats(weights), shorts(tube_indices), floats(IBM),
    floats(low), floats(high), floats(box), shorts(box_indices), floats(times),
    floats(cubic(upper_rot_values, upper_rot_in, upper_rot_out)), floats(flat(upper_trans_step)),
    floats(cubic(upper_scale_values, upper_scale_in, upper_scale_out)), floats(flat(lower_rot_step)),
    floats(flat(lower_trans_linear)), floats(cubic(marker_values, marker_in, marker_out)),
    floats(flat(marker_rot_step)), floats(cubic(weight_values, weight_in, weight_out)),
    floats(flat(upper_rot_values)), floats(flat(upper_scale_values)), floats(flat(marker_values)),
    floats(flat(weight_values)),
]
data, views = pack(blobs)
n = RINGS * SIDES
K = len(times)


def acc(view, count, kind, values=None):
    a = {'bufferView': view, 'componentType': 5126, 'count': count, 'type': kind}
    if values is not None:
        a['min'] = [min(values[k::3]) for k in range(3)]
        a['max'] = [max(values[k::3]) for k in range(3)]
    return a


accessors = [
    acc(0, n, 'VEC3', positions), acc(1, n, 'VEC3'),
    {'bufferView': 2, 'componentType': 5123, 'count': n, 'type': 'VEC4'}, acc(3, n, 'VEC4'),
    {'bufferView': 4, 'componentType': 5123, 'count': len(tube_indices), 'type': 'SCALAR'},
    acc(5, 2, 'MAT4'), acc(6, n, 'VEC3', low), acc(7, n, 'VEC3', high), acc(8, 8, 'VEC3', box),
    {'bufferView': 9, 'componentType': 5123, 'count': len(box_indices), 'type': 'SCALAR'},
    dict(acc(10, K, 'SCALAR'), min=[0.0], max=[2.0]),             # 10 times
    acc(11, 3 * K, 'VEC4'), acc(12, K, 'VEC3'), acc(13, 3 * K, 'VEC3'),  # 11-13
    acc(14, K, 'VEC4'), acc(15, K, 'VEC3'), acc(16, 3 * K, 'VEC3'),      # 14-16
    acc(17, K, 'VEC4'), acc(18, 3 * K * 2, 'SCALAR'),                   # 17-18
    acc(19, K, 'VEC4'), acc(20, K, 'VEC3'), acc(21, K, 'VEC3'), acc(22, K * 2, 'SCALAR'),  # 19-22 (STEP outputs)
]


def sampler(output, how):
    return {'input': 10, 'output': output, 'interpolation': how}


curves = {
    'name': 'Curves',
    'samplers': [sampler(11, 'CUBICSPLINE'), sampler(12, 'STEP'), sampler(13, 'CUBICSPLINE'), sampler(14, 'STEP'),
                 sampler(15, 'LINEAR'), sampler(16, 'CUBICSPLINE'), sampler(17, 'STEP'), sampler(18, 'CUBICSPLINE')],
    'channels': [{'sampler': 0, 'target': {'node': 3, 'path': 'rotation'}},
                 {'sampler': 1, 'target': {'node': 3, 'path': 'translation'}},
                 {'sampler': 2, 'target': {'node': 3, 'path': 'scale'}},
                 {'sampler': 3, 'target': {'node': 2, 'path': 'rotation'}},
                 {'sampler': 4, 'target': {'node': 2, 'path': 'translation'}},
                 {'sampler': 5, 'target': {'node': 4, 'path': 'translation'}},
                 {'sampler': 6, 'target': {'node': 4, 'path': 'rotation'}},
                 {'sampler': 7, 'target': {'node': 1, 'path': 'weights'}}],
}
steps = {
    'name': 'Steps',
    'samplers': [sampler(19, 'STEP'), sampler(12, 'STEP'), sampler(20, 'STEP'), sampler(14, 'STEP'),
                 sampler(15, 'STEP'), sampler(21, 'STEP'), sampler(17, 'STEP'), sampler(22, 'STEP')],
    'channels': curves['channels'],
}
gltf = {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_interpolation.py'},
    'scene': 0, 'scenes': [{'nodes': [0, 4]}],
    'nodes': [{'name': 'Rig', 'children': [1, 2]},
              {'name': 'TubeMesh', 'mesh': 0, 'skin': 0},
              {'name': 'Lower', 'children': [3]},
              {'name': 'Upper', 'translation': [0, 1, 0]},
              {'name': 'Marker', 'mesh': 1, 'translation': [0, 2.4, 0]}],
    'meshes': [{'name': 'tube', 'weights': [0.0, 0.0], 'extras': {'targetNames': ['bulge_low', 'bulge_high']},
                'primitives': [{'attributes': {'POSITION': 0, 'NORMAL': 1, 'JOINTS_0': 2, 'WEIGHTS_0': 3},
                                'indices': 4, 'targets': [{'POSITION': 6}, {'POSITION': 7}]}]},
               {'name': 'box', 'primitives': [{'attributes': {'POSITION': 8}, 'indices': 9}]}],
    'skins': [{'joints': [2, 3], 'inverseBindMatrices': 5, 'skeleton': 2}],
    'animations': [curves, steps],
    'accessors': accessors, 'bufferViews': views,
    'buffers': [{'byteLength': len(data),
                 'uri': 'data:application/octet-stream;base64,' + base64.b64encode(data).decode()}],
}
if sys.argv[1].endswith('.glb'):
    gltf['buffers'] = [{'byteLength': len(data)}]
    text = json.dumps(gltf, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 4)
    blob = bytes(data) + b'\0' * (-len(data) % 4)
    with open(sys.argv[1], 'wb') as f:
        f.write(struct.pack('<4sII', b'glTF', 2, 12 + 8 + len(text) + 8 + len(blob)))
        f.write(struct.pack('<II', len(text), 0x4E4F534A) + text)
        f.write(struct.pack('<II', len(blob), 0x004E4942) + blob)
else:
    with open(sys.argv[1], 'w') as f:
        json.dump(gltf, f)
