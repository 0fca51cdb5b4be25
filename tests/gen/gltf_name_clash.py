#!/usr/bin/env python3
"""gltf_name_clash.py OUT.gltf - a skinned, animated glTF whose mesh node and
one of its joints share a name, as in robot.glb (names in glTF are labels;
nodes are identified by index).

Nodes, in the order a parent-first walk meets them:
  0 "Rig"    root, children 1 and 2
  1 "Upper"  the mesh node (mesh 0, skin 0), identity transform
  2 "Lower"  joint at the origin, child 3
  3 "Upper"  joint 1 above "Lower": the one the skin and the clip name
A tube of 9 rings (y = 0 .. 2, 8 sides) is weighted to "Lower" below y = 1
and to "Upper" above, blending over the middle ring. The clip "Bend" turns
joint 3 by 0, 60, 90 degrees about z at 0, 1, 2 s and moves joint 2 by x
0, 0.5, 0. Bound by name, the upper half would follow the still mesh node
and the tube would not bend. Buffer embedded as a data URI; written by
this script at test time."""
import base64, json, math, struct, sys

RINGS, SIDES, RADIUS = 9, 8, 0.25
positions, joints, weights, indices = [], [], [], []
for r in range(RINGS):
    y = 2.0 * r / (RINGS - 1)
    upper = min(1.0, max(0.0, (y - 0.75) / 0.5))  # 0 below 0.75, 1 above 1.25
    for s in range(SIDES):
        a = 2 * math.pi * s / SIDES
        positions += [RADIUS * math.cos(a), y, RADIUS * math.sin(a)]
        joints += [0, 1, 0, 0]
        weights += [1.0 - upper, upper, 0.0, 0.0]
for r in range(RINGS - 1):
    for s in range(SIDES):
        a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
        c, d = a + SIDES, b + SIDES
        indices += [a, c, b, b, c, d]

def quat_z(deg):
    h = math.radians(deg) / 2
    return [0.0, 0.0, math.sin(h), math.cos(h)]

times = [0.0, 1.0, 2.0]
rotations = sum((quat_z(d) for d in (0, 60, 90)), [])
translations = [0, 0, 0, 0.5, 0, 0, 0, 0, 0]
# Inverse bind matrices (column-major): joint 2 at the origin, joint 3 at y = 1.
ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]

blobs = [struct.pack('<%df' % len(positions), *positions), struct.pack('<%dH' % len(joints), *joints),
         struct.pack('<%df' % len(weights), *weights), struct.pack('<%dH' % len(indices), *indices),
         struct.pack('<%df' % len(ibm), *ibm), struct.pack('<3f', *times),
         struct.pack('<%df' % len(rotations), *rotations), struct.pack('<%df' % len(translations), *translations)]
data, views = b'', []
for blob in blobs:
    data += b'\0' * (-len(data) % 4)
    views.append({'buffer': 0, 'byteOffset': len(data), 'byteLength': len(blob)})
    data += blob
n = RINGS * SIDES
accessors = [
    {'bufferView': 0, 'componentType': 5126, 'count': n, 'type': 'VEC3',
     'min': [-RADIUS, 0, -RADIUS], 'max': [RADIUS, 2, RADIUS]},
    {'bufferView': 1, 'componentType': 5123, 'count': n, 'type': 'VEC4'},
    {'bufferView': 2, 'componentType': 5126, 'count': n, 'type': 'VEC4'},
    {'bufferView': 3, 'componentType': 5123, 'count': len(indices), 'type': 'SCALAR'},
    {'bufferView': 4, 'componentType': 5126, 'count': 2, 'type': 'MAT4'},
    {'bufferView': 5, 'componentType': 5126, 'count': 3, 'type': 'SCALAR', 'min': [0], 'max': [2]},
    {'bufferView': 6, 'componentType': 5126, 'count': 3, 'type': 'VEC4'},
    {'bufferView': 7, 'componentType': 5126, 'count': 3, 'type': 'VEC3'},
]
gltf = {
    'asset': {'version': '2.0', 'generator': 'skinview tests/gen/gltf_name_clash.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': 'Rig', 'children': [1, 2]},
              {'name': 'Upper', 'mesh': 0, 'skin': 0},
              {'name': 'Lower', 'children': [3]},
              {'name': 'Upper', 'translation': [0, 1, 0]}],
    'meshes': [{'name': 'tube', 'primitives': [{'attributes': {'POSITION': 0, 'JOINTS_0': 1, 'WEIGHTS_0': 2},
                                                'indices': 3}]}],
    'skins': [{'joints': [2, 3], 'inverseBindMatrices': 4, 'skeleton': 2}],
    'animations': [{'name': 'Bend',
                    'samplers': [{'input': 5, 'output': 6, 'interpolation': 'LINEAR'},
                                 {'input': 5, 'output': 7, 'interpolation': 'LINEAR'}],
                    'channels': [{'sampler': 0, 'target': {'node': 3, 'path': 'rotation'}},
                                 {'sampler': 1, 'target': {'node': 2, 'path': 'translation'}}]}],
    'accessors': accessors, 'bufferViews': views,
    'buffers': [{'byteLength': len(data),
                 'uri': 'data:application/octet-stream;base64,' + base64.b64encode(data).decode()}],
}
with open(sys.argv[1], 'w') as f:
    json.dump(gltf, f)
