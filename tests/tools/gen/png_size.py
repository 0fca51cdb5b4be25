#!/usr/bin/env python3
"""png_size.py OUT.png WIDTH HEIGHT - a valid PNG of WIDTH x HEIGHT black
texels at 1 bit of grey each, the smallest a PNG gets: its size says
little of what it decodes to. 20000 x 1 is 82 bytes and wider than
GL_MAX_TEXTURE_SIZE on llvmpipe (16384); 16384 x 16384 is 33 KB and
decodes to 1 GiB of RGBA. The texture tests (tests/e2e/e2e_texture_limits.sh)
give them to skinview as textures. Written at test time."""
import struct, sys, zlib

width, height = int(sys.argv[2]), int(sys.argv[3])


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)


row = b'\0' * (1 + (width + 7) // 8)  # filter byte "none", then the row's bits
packer = zlib.compressobj(9)
pixels = b''.join(packer.compress(row) for _ in range(height)) + packer.flush()
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n')
    f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 1, 0, 0, 0, 0)))  # 1-bit grey
    f.write(chunk(b'IDAT', pixels))
    f.write(chunk(b'IEND', b''))
