#!/usr/bin/env python3
"""hl1_blank_body.py - a copy of a Half-Life 1 .mdl whose every body part's
first submodel holds no mesh (its mesh count set to 0): the game's default
body then draws nothing. Skinview shows every other submodel instead of an
empty model (meshes.c, hl1_default_body). Written for Skinview's tests.

  hl1_blank_body.py IN.mdl OUT.mdl

The studio header's body parts (count at byte 204, offset at 208) are 76
bytes each (name[64], submodel count, base, submodel offset); a submodel is
112 bytes, its mesh count at byte 72. Any failure is one line, status 1."""
import struct, sys


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: hl1_blank_body.py IN.mdl OUT.mdl')
    data = bytearray(open(sys.argv[1], 'rb').read())
    if len(data) < 244 or data[:4] != b'IDST':
        sys.exit('hl1_blank_body.py: %s is not a Half-Life 1 studio model' % sys.argv[1])
    i32 = lambda off: struct.unpack_from('<i', data, off)[0]
    parts, part_index = i32(204), i32(208)
    blanked = 0
    for b in range(parts):
        part = part_index + 76 * b
        if part + 76 > len(data) or i32(part + 64) < 1:
            sys.exit('hl1_blank_body.py: body part %d out of the file or without submodels' % b)
        first = i32(part + 72)
        if first + 112 > len(data):
            sys.exit('hl1_blank_body.py: body part %d\'s submodels out of the file' % b)
        struct.pack_into('<i', data, first + 72, 0)
        blanked += 1
    open(sys.argv[2], 'wb').write(data)
    print('hl1_blank_body.py: %s: %d body part(s), each first submodel blank' % (sys.argv[2], blanked))


if __name__ == '__main__':
    main()
