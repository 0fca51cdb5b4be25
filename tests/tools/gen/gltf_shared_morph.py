#!/usr/bin/env python3
"""gltf_shared_morph.py OUT.gltf - two meshes that name a morph target
alike, as an avatar split into head and teeth both name "mouthOpen"
(issue #42: --morph moved only the first). Mesh "Head" is a unit quad at
z = 0 whose "mouthOpen" moves every vertex +1 in y and whose "blink"
+5 in z; mesh "Teeth" a quad at x = 3 whose "mouthOpen" moves every
vertex +2 in x. Default weights 0. No skin, no clip: the exact positions
under --morph are known by hand. Buffer embedded as a data URI."""
import base64, json, struct, sys

quad = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]
teeth = [3 + (v if i % 3 == 0 else 0) if i % 3 == 0 else v for i, v in enumerate(quad)]
blobs = [struct.pack('<12f', *quad), struct.pack('<12f', *[1 if i % 3 == 1 else 0 for i in range(12)]),
         struct.pack('<12f', *[5 if i % 3 == 2 else 0 for i in range(12)]), struct.pack('<12f', *teeth),
         struct.pack('<12f', *[2 if i % 3 == 0 else 0 for i in range(12)]), struct.pack('<6H', 0, 1, 2, 0, 2, 3) + b'\0\0']
data, views = b'', []
for b in blobs:
    views.append({'buffer': 0, 'byteOffset': len(data), 'byteLength': len(b)})
    data += b
def acc(view, kind='VEC3', comp=5126, count=4, values=None):
    a = {'bufferView': view, 'componentType': comp, 'count': count, 'type': kind}
    if values:
        a['min'] = [min(values[k::3]) for k in range(3)]
        a['max'] = [max(values[k::3]) for k in range(3)]
    return a
gltf = {
    'asset': {'version': '2.0'}, 'scene': 0, 'scenes': [{'nodes': [0, 1]}],
    'nodes': [{'name': 'HeadNode', 'mesh': 0}, {'name': 'TeethNode', 'mesh': 1}],
    'meshes': [
        {'name': 'Head', 'weights': [0, 0], 'extras': {'targetNames': ['mouthOpen', 'blink']},
         'primitives': [{'attributes': {'POSITION': 0}, 'indices': 5, 'targets': [{'POSITION': 1}, {'POSITION': 2}]}]},
        {'name': 'Teeth', 'weights': [0], 'extras': {'targetNames': ['mouthOpen']},
         'primitives': [{'attributes': {'POSITION': 3}, 'indices': 5, 'targets': [{'POSITION': 4}]}]}],
    'accessors': [acc(0, values=quad), acc(1, values=[0, 1, 0] * 4), acc(2, values=[0, 0, 5] * 4), acc(3, values=teeth),
                  acc(4, values=[2, 0, 0] * 4), acc(5, 'SCALAR', 5123, 6)],
    'bufferViews': views,
    'buffers': [{'byteLength': len(data), 'uri': 'data:application/octet-stream;base64,' + base64.b64encode(data).decode()}],
}
json.dump(gltf, open(sys.argv[1], 'w'))
