#!/usr/bin/env python3
"""fbx_zlib_bomb.py OUT.fbx [INDICES_MILLIONS] [VERTICES_MILLIONS] - a
binary FBX 7.4 file, a few hundred KB, whose one mesh's arrays are
deflate-compressed (array encoding 1) and inflate to hundreds of MB: a
memory bomb for the guarded import's budget (--import-memory).

The mesh: Vertices, a 'd' array of VERTICES_MILLIONS (default 16) million
points, all zero; PolygonVertexIndex, an 'i' array of INDICES_MILLIONS
(default 48) million indices, triangles 0, 1, -3 over and over. Each
array inflates to exactly the size its header declares (a sound file, as
far as the format goes): 384 MB and 192 MB by default, from ~560 KB.
Assimp 5.2 holds the inflated bytes, then its own copies (points, faces,
one output vertex per index, the index mappings): ~1.6 GB by default
before it converts a thing.

The layout (FBX binary, version 7400, 32-bit offsets): the 27-byte
header ("Kaydara FBX Binary  \\0", 0x1a 0x00, the version); node records
of (end offset, property count, property bytes, name length, name,
properties, child records, a 13-byte zero record closing the children);
a zero record ending the top level. Properties: 'I' int32, 'L' int64,
'S' string (length + bytes), arrays 'd'/'f'/'i' (count, encoding,
stored bytes, then the bytes: raw for encoding 0, zlib for 1).
Written at test time."""
import struct
import sys
import zlib

SENTINEL = b'\0' * 13


def prop(kind, value):
    if kind == 'I':
        return b'I' + struct.pack('<i', value)
    if kind == 'L':
        return b'L' + struct.pack('<q', value)
    if kind == 'S':
        data = value.encode('utf-8') if isinstance(value, str) else value
        return b'S' + struct.pack('<I', len(data)) + data
    raise ValueError(kind)


def array(kind, count, deflated):
    """An array property of `count` values stored deflated (encoding 1)."""
    return kind.encode() + struct.pack('<III', count, 1, len(deflated)) + deflated


def deflate_repeated(pattern, total_bytes):
    """zlib of `pattern` repeated to `total_bytes`, streamed (never held whole)."""
    z = zlib.compressobj(9)
    chunk = pattern * ((1 << 20) // len(pattern))
    out, left = [], total_bytes
    while left > 0:
        piece = chunk[:min(left, len(chunk))]
        out.append(z.compress(piece))
        left -= len(piece)
    out.append(z.flush())
    return b''.join(out)


class Node:
    def __init__(self, name, props=(), children=()):
        self.name, self.props, self.children = name, list(props), list(children)

    def encode(self, offset):
        """The record as it sits at file offset `offset`."""
        props = b''.join(self.props)
        head_len = 4 + 4 + 4 + 1 + len(self.name)
        body, at = b'', offset + head_len + len(props)
        for child in self.children:
            data = child.encode(at)
            body += data
            at += len(data)
        if self.children:
            body += SENTINEL
            at += len(SENTINEL)
        head = struct.pack('<IIIB', at, len(self.props), len(props), len(self.name)) + self.name.encode()
        return head + props + body


def main():
    out = sys.argv[1]
    indices = int(float(sys.argv[2]) * 1e6) if len(sys.argv) > 2 else 48_000_000
    vertices = int(float(sys.argv[3]) * 1e6) if len(sys.argv) > 3 else 16_000_000
    indices -= indices % 3
    points = deflate_repeated(struct.pack('<d', 0.0) * 3, vertices * 24)
    faces = deflate_repeated(struct.pack('<3i', 0, 1, -3), indices * 4)
    geometry_id, model_id = 1000, 2000
    nodes = [
        Node('FBXHeaderExtension', children=[
            Node('FBXHeaderVersion', [prop('I', 1003)]),
            Node('FBXVersion', [prop('I', 7400)]),
            Node('Creator', [prop('S', 'skinview tests/tools/gen/fbx_zlib_bomb.py')]),
        ]),
        Node('Objects', children=[
            Node('Geometry', [prop('L', geometry_id), prop('S', b'bomb\0\1Geometry'), prop('S', 'Mesh')], [
                Node('Vertices', [array('d', vertices * 3, points)]),
                Node('PolygonVertexIndex', [array('i', indices, faces)]),
            ]),
            Node('Model', [prop('L', model_id), prop('S', b'bomb\0\1Model'), prop('S', 'Mesh')], [
                Node('Version', [prop('I', 232)]),
            ]),
        ]),
        Node('Connections', children=[
            Node('C', [prop('S', 'OO'), prop('L', geometry_id), prop('L', model_id)]),
            Node('C', [prop('S', 'OO'), prop('L', model_id), prop('L', 0)]),
        ]),
    ]
    data = b'Kaydara FBX Binary  \0\x1a\0' + struct.pack('<I', 7400)
    for node in nodes:
        data += node.encode(len(data))
    data += SENTINEL
    with open(out, 'wb') as f:
        f.write(data)
    print('%s: %d bytes; Vertices %d MB, PolygonVertexIndex %d MB inflated' %
          (out, len(data), vertices * 24 >> 20, indices * 4 >> 20))


main()
