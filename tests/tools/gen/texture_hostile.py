"""texture_hostile.py - glTF files whose textures attack the decoders or
the budget, for e2e_texture_sandbox.sh. Each is a textured quad; only its
images differ.

  texture_hostile.py ppm16 OUT.gltf
      one image, embedded (data URI, declared image/png): a 16-bit binary
      PPM (P6, maxval 65535), the file that made stb_image read past its
      heap block in the parent
  texture_hostile.py jpeg-bombs OUT.gltf [COUNT]
      COUNT (12) images beside it, bomb00.jpg ...: progressive JPEGs of
      8192 x 8192 texels in about a hundred bytes (one empty scan), each
      256 MiB of texels and 128 MiB of coefficients to decode
  texture_hostile.py uris OUT.gltf URI [URI ...]
      one material per URI, each naming that image file as written"""
import base64, json, struct, sys


def quad(images):
    """A glTF of one quad per image (side by side), each with its own
    material whose base colour is that image; `images` are glTF image
    objects."""
    positions, uvs, indices = [], [], []
    for i in range(len(images)):
        x = 2.2 * i
        positions += [x - 1, -1, 0, x + 1, -1, 0, x + 1, 1, 0, x - 1, 1, 0]
        uvs += [0, 1, 1, 1, 1, 0, 0, 0]
        b = 4 * i
        indices += [b, b + 1, b + 2, b, b + 2, b + 3]
    blob = struct.pack('<%df' % len(positions), *positions)
    uv_at = len(blob)
    blob += struct.pack('<%df' % len(uvs), *uvs)
    index_at = len(blob)
    blob += struct.pack('<%dH' % len(indices), *indices)
    blob += b'\0' * (-len(blob) % 4)
    n = 4 * len(images)
    lo = [min(positions[0::3]), -1, 0]
    hi = [max(positions[0::3]), 1, 0]
    gltf = {
        'asset': {'version': '2.0'},
        'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': [{'mesh': 0}],
        'meshes': [{'primitives': [{'attributes': {'POSITION': 0, 'TEXCOORD_0': 1}, 'indices': 2,
                                    'material': 0}]}],
        'materials': [{'pbrMetallicRoughness': {'baseColorTexture': {'index': i}}} for i in range(len(images))],
        'textures': [{'source': i} for i in range(len(images))],
        'images': images,
        'buffers': [{'byteLength': len(blob),
                     'uri': 'data:application/octet-stream;base64,' + base64.b64encode(blob).decode()}],
        'bufferViews': [{'buffer': 0, 'byteOffset': 0, 'byteLength': uv_at},
                        {'buffer': 0, 'byteOffset': uv_at, 'byteLength': index_at - uv_at},
                        {'buffer': 0, 'byteOffset': index_at, 'byteLength': 2 * len(indices)}],
        'accessors': [{'bufferView': 0, 'componentType': 5126, 'count': n, 'type': 'VEC3', 'min': lo, 'max': hi},
                      {'bufferView': 1, 'componentType': 5126, 'count': n, 'type': 'VEC2'},
                      {'bufferView': 2, 'componentType': 5123, 'count': len(indices), 'type': 'SCALAR'}],
    }
    # One primitive per quad, each with its material.
    gltf['meshes'][0]['primitives'] = []
    for i in range(len(images)):
        gltf['accessors'].append({'bufferView': 2, 'byteOffset': 12 * i, 'componentType': 5123, 'count': 6,
                                  'type': 'SCALAR'})
        gltf['meshes'][0]['primitives'].append({'attributes': {'POSITION': 0, 'TEXCOORD_0': 1},
                                                'indices': 3 + i, 'material': i})
    return gltf


def ppm16():
    header = b'P6\n8 8\n65535\n'
    return header + bytes([0xab]) * (8 * 8 * 3 * 2)


def jpeg_bomb():
    """SOI, a quantisation table, SOF2 (progressive) 8192 x 8192 of one
    component, one DC Huffman table of one code, a DC scan with no data,
    EOI."""
    out = b'\xff\xd8'
    out += b'\xff\xdb' + struct.pack('>H', 67) + b'\x00' + b'\x01' * 64
    out += b'\xff\xc2' + struct.pack('>HBHHB', 11, 8, 8192, 8192, 1) + b'\x01\x11\x00'
    out += b'\xff\xc4' + struct.pack('>H', 20) + b'\x00' + b'\x01' + b'\x00' * 15 + b'\x00'
    out += b'\xff\xda' + struct.pack('>HB', 8, 1) + b'\x01\x00' + b'\x00\x00\x00'
    return out + b'\xff\xd9'


def main():
    kind, out = sys.argv[1], sys.argv[2]
    folder = out.rsplit('/', 1)[0] if '/' in out else '.'
    if kind == 'ppm16':
        images = [{'uri': 'data:image/png;base64,' + base64.b64encode(ppm16()).decode()}]
    elif kind == 'jpeg-bombs':
        count = int(sys.argv[3]) if len(sys.argv) > 3 else 12
        images = []
        for i in range(count):
            name = 'bomb%02d.jpg' % i
            with open(folder + '/' + name, 'wb') as f:
                f.write(jpeg_bomb())
            images.append({'uri': name})
    elif kind == 'uris':
        images = [{'uri': u} for u in sys.argv[3:]]
    else:
        sys.exit('texture_hostile.py: unknown kind ' + kind)
    with open(out, 'w') as f:
        json.dump(quad(images), f)


main()
