#!/usr/bin/env python3
"""b3d_keys_past_end.py OUT.b3d - writes a small skinned, animated Blitz3D file
whose keys run one frame past the clip's frame count.

The model: an upright open tube (radius 0.3, 3 units tall along +y, 7 rings of
8 vertices) skinned to a two-bone chain. 'lower' sits at the origin, 'upper'
1.5 above it. Rings at y <= 0.5 follow 'lower' only, rings at y >= 2.5 'upper'
only; the rings at y = 1, 1.5, 2 give 'upper' 0.25, 0.5, 0.75 and 'lower' the
rest, so every vertex has one or two weights summing to 1. At rest both bones
are unrotated: the tube stands upright. Over the clip 'lower' slides along x
and leans about z by up to 40 degrees, 'upper' bends about x by up to 50
degrees (an x bend shows a missed handedness mirror; a z lean would not).
Consecutive rotation keys are equal or at least 40 degrees apart: Irrlicht
(the reference) interpolates keys less than about 36 degrees apart with an
unnormalised lerp (quaternion::slerp's threshold), which is not a rotation;
with 10-20 degree steps the reference drifted by 2e-3 of its diagonal.

Chunk layout (every chunk: 4-byte tag, int32 byte length, payload; all
little-endian; strings NUL-terminated):
  BB3D  version=1
    NODE "root"  pos 0,0,0  scale 1,1,1  rot (w,x,y,z)=1,0,0,0
      MESH brush=-1
        VRTS flags=1 (normals) tc_sets=0 tc_size=0; per vertex xyz + normal
        TRIS brush=-1; vertex index triples
      NODE "lower"  pos 0,0,0
        BONE  (vertex index, weight) pairs
        KEYS flags=7: per key frame, position, scale, rotation (w,x,y,z)
        NODE "upper"  pos 0,1.5,0 (relative to 'lower')
          BONE, KEYS as above
      ANIM flags=0 frames=20 fps=10

Why a key lies past the end: some Blitz3D exporters (the one that wrote
Minetest's character.b3d, for one) number keys from frame 1 but count ANIM
frames from 0, so a 20-frame clip has keys at frames 1..21. Assimp keeps key
frames as ticks and takes ANIM frames as mDuration, so the key at frame 21 lies
past the 20-tick duration (ValidateDataStructure: "mPositionKeys[..].mTime (21)
is larger than aiAnimation::mDuration"); Irrlicht ignores ANIM's frame count
(its clip ends at the last key) and shifts every key by -1 frame. The last key
(frame 21) differs from the one at frame 20, so a viewer that cuts the clip at
20 ticks, or clamps there, poses it visibly wrong.
At fps 10, file frame f is Assimp time f/10 s and Irrlicht frame f-1.
"""
import math
import struct
import sys

RINGS, SEGMENTS, RADIUS, RING_STEP = 7, 8, 0.3, 0.5
UPPER_Y = 1.5
ANIM_FRAMES, FPS = 20, 10.0
# (file frame, 'lower' x offset, 'lower' lean about z, 'upper' bend about x; degrees)
KEYS = [(1, 0.0, 0, 0), (11, 0.3, 0, 45), (20, 0.3, 40, 5), (21, 0.6, 40, 50)]


def chunk(tag, payload):
    return tag.encode('ascii') + struct.pack('<i', len(payload)) + payload


def floats(*values):
    return struct.pack('<%df' % len(values), *values)


def ints(*values):
    return struct.pack('<%di' % len(values), *values)


def quat(axis, degrees):
    """B3D rotation, stored as w, x, y, z."""
    h = math.radians(degrees) / 2
    s = math.sin(h)
    return (math.cos(h),) + tuple(s * a for a in axis)


def node_header(name, pos):
    return name.encode('ascii') + b'\0' + floats(*pos) + floats(1, 1, 1) + floats(1, 0, 0, 0)


def upper_weight(y):
    """The share of a vertex at height y that follows 'upper' (the rest follows 'lower')."""
    return {1.0: 0.25, 1.5: 0.5, 2.0: 0.75}.get(y, 0.0 if y < UPPER_Y else 1.0)


def mesh():
    verts, tris = b'', b''
    for r in range(RINGS):
        y = r * RING_STEP
        for s in range(SEGMENTS):
            a = 2 * math.pi * s / SEGMENTS
            c, d = math.cos(a), math.sin(a)
            verts += floats(RADIUS * c, y, RADIUS * d, c, 0.0, d)
    for r in range(RINGS - 1):
        for s in range(SEGMENTS):
            a, b = r * SEGMENTS + s, r * SEGMENTS + (s + 1) % SEGMENTS
            c, d = a + SEGMENTS, b + SEGMENTS
            # cross(v1 - v0, v2 - v0) points out of the tube (Assimp flips
            # both z and the winding, so this stays the front face).
            tris += ints(a, c, b) + ints(b, c, d)
    vrts = chunk('VRTS', ints(1, 0, 0) + verts)
    return chunk('MESH', ints(-1) + vrts + chunk('TRIS', ints(-1) + tris))


def bone(upper):
    data = b''
    for r in range(RINGS):
        w = upper_weight(r * RING_STEP)
        w = w if upper else 1.0 - w
        if w > 0.0:
            for s in range(SEGMENTS):
                data += ints(r * SEGMENTS + s) + floats(w)
    return chunk('BONE', data)


def keys(position, axis, angle):
    """One KEYS chunk: position(key) and angle(key) give each key's values."""
    data = ints(7)  # 1 position + 2 scale + 4 rotation
    for key in KEYS:
        data += ints(key[0]) + floats(*position(key)) + floats(1, 1, 1) + floats(*quat(axis, angle(key)))
    return chunk('KEYS', data)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: b3d_keys_past_end.py OUT.b3d')
    upper = chunk('NODE', node_header('upper', (0, UPPER_Y, 0)) + bone(True)
                  + keys(lambda k: (0, UPPER_Y, 0), (1, 0, 0), lambda k: k[3]))
    lower = chunk('NODE', node_header('lower', (0, 0, 0)) + bone(False)
                  + keys(lambda k: (k[1], 0, 0), (0, 0, 1), lambda k: k[2]) + upper)
    anim = chunk('ANIM', ints(0, ANIM_FRAMES) + floats(FPS))
    root = chunk('NODE', node_header('root', (0, 0, 0)) + mesh() + lower + anim)
    with open(sys.argv[1], 'wb') as f:
        f.write(chunk('BB3D', ints(1) + root))


if __name__ == '__main__':
    main()
