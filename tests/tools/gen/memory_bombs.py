#!/usr/bin/env python3
"""memory_bombs.py OUT_DIR - small files that make Assimp 5.2 take far more
memory than their size: the guarded import's budget (--import-memory)
must stop each with one line, and keep the run's peak low. Beside
fbx_zlib_bomb.py's FBX, one for each way in:

  ply_count.ply        binary PLY, 302 bytes: "element vertex 80000000"
                       with positions and normals, then three vertices.
                       Assimp allocates (and clears) the arrays the count
                       asks for before it reads a vertex: 1.9 GB.
  ply_count_ascii.ply  the same in ASCII (positions only, 0.96 GB), which
                       then reads past the end for 80 million vertices.
  off_count.off        OFF, 43 bytes: 80 million vertices declared, three
                       given: 0.96 GB of cleared positions.
  blend_gzip.blend     a gzip-compressed .blend (Blender writes them so),
                       0.7 MB: "BLENDER-v279" and 640 MiB of zeros. Assimp
                       inflates the whole file into a growing buffer before
                       it reads a block.
  zip_xml.3mf          a 3MF (a zip), 0.5 MB: the model part is 216 MB of
                       <vertex x="0" y="0" z="0"/>, deflated. Assimp
                       inflates the part, then parses it into an XML tree
                       several times its size.

Written at test time; each takes a second or two."""
import gzip
import os
import struct
import sys
import zipfile

COUNT = 80_000_000


def ply_count(path):
    head = ('ply\nformat binary_little_endian 1.0\nelement vertex %d\n'
            'property float x\nproperty float y\nproperty float z\n'
            'property float nx\nproperty float ny\nproperty float nz\n'
            'element face 1\nproperty list uchar int vertex_indices\nend_header\n' % COUNT)
    with open(path, 'wb') as f:
        f.write(head.encode() + struct.pack('<6f', 0, 0, 0, 0, 0, 1) * 3)


def ply_count_ascii(path):
    head = ('ply\nformat ascii 1.0\nelement vertex %d\n'
            'property float x\nproperty float y\nproperty float z\n'
            'element face 1\nproperty list uchar int vertex_indices\nend_header\n' % COUNT)
    with open(path, 'w') as f:
        f.write(head + '0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n')


def off_count(path):
    with open(path, 'w') as f:
        f.write('OFF\n%d 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n' % COUNT)


def blend_gzip(path):
    zeros = b'\0' * (1 << 20)
    with gzip.open(path, 'wb', compresslevel=9) as f:
        f.write(b'BLENDER-v279')
        for _ in range(640):
            f.write(zeros)


CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                 '<Default Extension="rels" '
                 'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                 '<Default Extension="model" '
                 'ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Target="/3D/3dmodel.model" Id="rel0" '
        'Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>')
MODEL_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<model unit="millimeter" xml:lang="en-US" '
              'xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">'
              '<resources><object id="1" type="model"><mesh><vertices>')
MODEL_TAIL = ('</vertices><triangles><triangle v1="0" v2="1" v3="2"/></triangles></mesh></object>'
              '</resources><build><item objectid="1"/></build></model>')


def zip_xml(path, vertices=8_000_000):
    chunk = b'<vertex x="0" y="0" z="0"/>' * 40000
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr('[Content_Types].xml', CONTENT_TYPES)
        z.writestr('_rels/.rels', RELS)
        with z.open('3D/3dmodel.model', 'w', force_zip64=True) as f:
            f.write(MODEL_HEAD.encode())
            for _ in range(vertices // 40000):
                f.write(chunk)
            f.write(MODEL_TAIL.encode())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, write in (('ply_count.ply', ply_count), ('ply_count_ascii.ply', ply_count_ascii),
                        ('off_count.off', off_count), ('blend_gzip.blend', blend_gzip),
                        ('zip_xml.3mf', zip_xml)):
        path = os.path.join(out, name)
        write(path)
        print('%s: %d bytes' % (path, os.path.getsize(path)))


main()
