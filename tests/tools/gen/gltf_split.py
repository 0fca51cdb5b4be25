#!/usr/bin/env python3
"""gltf_split.py OUT_DIR - a character and its clips in separate glTF files,
the way characters and animations are usually shipped:
  character.gltf   a tube (9 rings, y = 0 .. 2) skinned to the joints
                   "Lower" (y = 0) and "Upper" (y = 1); no animation
  clips_bend.gltf  the same joints, no mesh; clip "Bend": "Upper" turns
                   0, 60, 90 degrees about z at 0, 1, 2 s
  clips_sway.gltf  the joints named "mixamorig:Lower", "mixamorig:Upper"
                   (a namespace prefix, as Mixamo writes); clip "Sway":
                   "Lower" turns 0, -30, 0 degrees about x at 0, 0.5, 1 s
  clips_other.gltf joints "Tail1", "Tail2" that the character lacks;
                   clip "Wag"
Buffers are embedded as data URIs."""
import base64, json, os, sys
from tube import IBM, RADIUS, RINGS, SIDES, floats, indices, pack, quat, shorts, skinned_vertices

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, blobs, doc):
    """Packs `blobs` (bytes, one buffer view each) into one buffer."""
    data, views = pack(blobs)
    doc.update({'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_split.py'}, 'bufferViews': views,
                'buffers': [{'byteLength': len(data),
                             'uri': 'data:application/octet-stream;base64,' + base64.b64encode(data).decode()}]})
    with open(os.path.join(out, name), 'w') as f:
        json.dump(doc, f)


def skeleton(prefix, first_index):
    """Nodes: the root, the lower joint, the upper joint (indices from first_index)."""
    return [{'name': 'Rig', 'children': [first_index + 1]},
            {'name': prefix + 'Lower', 'children': [first_index + 2]},
            {'name': prefix + 'Upper', 'translation': [0, 1, 0]}]


# The character.
positions, joints, weights = skinned_vertices()
indices = indices()
n = RINGS * SIDES
nodes = skeleton('', 0) + [{'name': 'Tube', 'mesh': 0, 'skin': 0}]
nodes[0]['children'].append(3)
write('character.gltf',
      [floats(positions), shorts(joints), floats(weights), shorts(indices), floats(IBM)],
      {'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': nodes,
       'meshes': [{'name': 'tube', 'primitives': [{'attributes': {'POSITION': 0, 'JOINTS_0': 1, 'WEIGHTS_0': 2},
                                                   'indices': 3}]}],
       'skins': [{'joints': [1, 2], 'inverseBindMatrices': 4, 'skeleton': 1}],
       'accessors': [{'bufferView': 0, 'componentType': 5126, 'count': n, 'type': 'VEC3',
                      'min': [-RADIUS, 0, -RADIUS], 'max': [RADIUS, 2, RADIUS]},
                     {'bufferView': 1, 'componentType': 5123, 'count': n, 'type': 'VEC4'},
                     {'bufferView': 2, 'componentType': 5126, 'count': n, 'type': 'VEC4'},
                     {'bufferView': 3, 'componentType': 5123, 'count': len(indices), 'type': 'SCALAR'},
                     {'bufferView': 4, 'componentType': 5126, 'count': 2, 'type': 'MAT4'}]})


def clip_file(name, prefix, clip, node, times, rotations, names=None):
    nodes = skeleton(prefix, 0)
    if names:
        for i, new in enumerate(names):
            nodes[1 + i]['name'] = new
    flat = sum(rotations, [])
    write(name, [floats(times), floats(flat)],
          {'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': nodes,
           'accessors': [{'bufferView': 0, 'componentType': 5126, 'count': len(times), 'type': 'SCALAR',
                          'min': [times[0]], 'max': [times[-1]]},
                         {'bufferView': 1, 'componentType': 5126, 'count': len(times), 'type': 'VEC4'}],
           'animations': [{'name': clip, 'samplers': [{'input': 0, 'output': 1, 'interpolation': 'LINEAR'}],
                           'channels': [{'sampler': 0, 'target': {'node': node, 'path': 'rotation'}}]}]})


clip_file('clips_bend.gltf', '', 'Bend', 2, [0.0, 1.0, 2.0], [quat('z', d) for d in (0, 60, 90)])
clip_file('clips_sway.gltf', 'mixamorig:', 'Sway', 1, [0.0, 0.5, 1.0], [quat('x', d) for d in (0, -30, 0)])
clip_file('clips_other.gltf', '', 'Wag', 2, [0.0, 1.0], [quat('z', d) for d in (0, 40)], names=['Tail1', 'Tail2'])
