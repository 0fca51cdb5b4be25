#!/usr/bin/env python3
"""hostile_names.py OUT.gltf [NAMES.json] - a small skinned, animated glTF
whose names attack where they are printed or written: terminal escape
sequences (clear the screen, set the title, colours), BEL, CR/LF, bytes
that are not UTF-8, quotes and backslashes.

  clip      CLIP      clears the terminal and homes the cursor
  mesh      MESH      new lines that would add "v"/"f" lines to an OBJ
  nodes     ROOT, JOINTS[0], JOINTS[1]: OSC title, BEL, CR, bad UTF-8
  material  MATERIAL  colours, newline; its texture TEXTURE is missing,
                      so the warning carries both

A strip of 4 quads (y = 0 .. 2) weighted to joint 0 below y = 1 and joint
1 above; the clip turns joint 1 about z. Buffer embedded as a data URI.
NAMES.json (optional) gets every name as the list of its byte values, for
the test to compare with. Written by this script at test time."""
import base64, json, math, struct, sys

CLIP = b'clip\x1b[2J\x1b[H\x07 "quoted" back\\slash'
MESH = b'mesh\nv 1 2 3\nf 1 1 1'
ROOT = b'root\x1b]0;owned\x07\r'
JOINTS = [b'hip\xff\xfe bad \xc3\x28 utf8', b'knee\x1b[31m red \xe2\x82 cut']
MATERIAL = b'mat\x1b[5m blink\nwarning: fake'
TEXTURE = b'missing\x1b[2J\x07.png'

positions, joints, weights, indices = [], [], [], []
for r in range(5):
    y = 0.5 * r
    upper = 1.0 if y > 1.0 else (0.5 if y == 1.0 else 0.0)
    for x in (-0.25, 0.25):
        positions += [x, y, 0.0]
        joints += [0, 1, 0, 0]
        weights += [1.0 - upper, upper, 0.0, 0.0]
for r in range(4):
    a = 2 * r
    indices += [a, a + 1, a + 2, a + 1, a + 3, a + 2]
uvs = [0.0] * (len(positions) // 3 * 2)

def quat_z(deg):
    h = math.radians(deg) / 2
    return [0.0, 0.0, math.sin(h), math.cos(h)]

times = [0.0, 1.0]
rotations = quat_z(0) + quat_z(45)
ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]
blobs = [struct.pack('<%df' % len(positions), *positions), struct.pack('<%dH' % len(joints), *joints),
         struct.pack('<%df' % len(weights), *weights), struct.pack('<%dH' % len(indices), *indices),
         struct.pack('<%df' % len(ibm), *ibm), struct.pack('<2f', *times),
         struct.pack('<%df' % len(rotations), *rotations), struct.pack('<%df' % len(uvs), *uvs)]
data, views = b'', []
for blob in blobs:
    data += b'\0' * (-len(data) % 4)
    views.append({'buffer': 0, 'byteOffset': len(data), 'byteLength': len(blob)})
    data += blob
n = len(positions) // 3
accessors = [
    {'bufferView': 0, 'componentType': 5126, 'count': n, 'type': 'VEC3', 'min': [-0.25, 0, 0], 'max': [0.25, 2, 0]},
    {'bufferView': 1, 'componentType': 5123, 'count': n, 'type': 'VEC4'},
    {'bufferView': 2, 'componentType': 5126, 'count': n, 'type': 'VEC4'},
    {'bufferView': 3, 'componentType': 5123, 'count': len(indices), 'type': 'SCALAR'},
    {'bufferView': 4, 'componentType': 5126, 'count': 2, 'type': 'MAT4'},
    {'bufferView': 5, 'componentType': 5126, 'count': 2, 'type': 'SCALAR', 'min': [0], 'max': [1]},
    {'bufferView': 6, 'componentType': 5126, 'count': 2, 'type': 'VEC4'},
    {'bufferView': 7, 'componentType': 5126, 'count': n, 'type': 'VEC2'},
]

# JSON cannot spell bytes that are not UTF-8: each name goes in as a
# placeholder, replaced by its raw bytes in the written file (the glTF
# loader takes strings as bytes).
raw = {}
def name(value):
    key = '@@name%d@@' % len(raw)
    raw[key] = value
    return key

gltf = {
    'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/hostile_names.py'},
    'scene': 0, 'scenes': [{'nodes': [0]}],
    'nodes': [{'name': name(ROOT), 'children': [1], 'mesh': 0, 'skin': 0},
              {'name': name(JOINTS[0]), 'children': [2]},
              {'name': name(JOINTS[1]), 'translation': [0, 1, 0]}],
    'meshes': [{'name': name(MESH), 'primitives': [{
        'attributes': {'POSITION': 0, 'JOINTS_0': 1, 'WEIGHTS_0': 2, 'TEXCOORD_0': 7},
        'indices': 3, 'material': 0}]}],
    'materials': [{'name': name(MATERIAL), 'pbrMetallicRoughness': {'baseColorTexture': {'index': 0}}}],
    'textures': [{'source': 0}],
    'images': [{'uri': name(TEXTURE)}],
    'skins': [{'joints': [1, 2], 'inverseBindMatrices': 4}],
    'animations': [{'name': name(CLIP),
                    'samplers': [{'input': 5, 'output': 6, 'interpolation': 'LINEAR'}],
                    'channels': [{'sampler': 0, 'target': {'node': 2, 'path': 'rotation'}}]}],
    'accessors': accessors, 'bufferViews': views,
    'buffers': [{'byteLength': len(data),
                 'uri': 'data:application/octet-stream;base64,' + base64.b64encode(data).decode()}],
}
text = json.dumps(gltf).encode()
for key, value in raw.items():
    # Inside a JSON string: quotes, backslashes and control bytes escaped,
    # every other byte (the bad UTF-8 too) as it is.
    escaped = b''.join(b'\\' + bytes([c]) if c in b'"\\' else
                       b'\\u%04x' % c if c < 0x20 else bytes([c]) for c in value)
    text = text.replace(key.encode(), escaped)
with open(sys.argv[1], 'wb') as f:
    f.write(text)
if len(sys.argv) > 2:
    with open(sys.argv[2], 'w') as f:
        json.dump({'clip': list(CLIP), 'mesh': list(MESH), 'root': list(ROOT), 'joints': [list(j) for j in JOINTS],
                   'material': list(MATERIAL), 'texture': list(TEXTURE), 'vertices': n}, f)
