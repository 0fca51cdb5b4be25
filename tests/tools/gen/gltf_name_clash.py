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
import base64, json, sys
from tube import IBM, RADIUS, RINGS, SIDES, floats, indices, pack, quat, shorts, skinned_vertices

positions, joints, weights = skinned_vertices()
indices = indices()

times = [0.0, 1.0, 2.0]
rotations = sum((quat('z', d) for d in (0, 60, 90)), [])
translations = [0, 0, 0, 0.5, 0, 0, 0, 0, 0]

data, views = pack([floats(positions), shorts(joints), floats(weights), shorts(indices), floats(IBM),
                    floats(times), floats(rotations), floats(translations)])
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
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_name_clash.py'},
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
