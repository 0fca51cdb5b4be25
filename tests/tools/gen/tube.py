"""tube.py - the skinned test tube the glTF generators share, and packing
blobs into one buffer. Imported by gltf_name_clash.py, gltf_split.py and
gltf_morph_skin.py.

The tube: RINGS rings from y = 0 to 2, SIDES sides, radius RADIUS, joint 0
("Lower", at the origin) below y = 1 and joint 1 ("Upper", at y = 1)
above, blending linearly between y = 0.75 and 1.25; triangles wound
outwards. IBM: the two joints' inverse bind matrices (column-major)."""
import math, struct

RINGS, SIDES, RADIUS = 9, 8, 0.25
IBM = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] + [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]


def upper_weight(y):
    """Joint 1's weight at height y: 0 below 0.75, 1 above 1.25."""
    return min(1.0, max(0.0, (y - 0.75) / 0.5))


def rings():
    """(y, cos, sin) for every vertex, ring after ring."""
    for r in range(RINGS):
        y = 2.0 * r / (RINGS - 1)
        for s in range(SIDES):
            a = 2 * math.pi * s / SIDES
            yield y, math.cos(a), math.sin(a)


def skinned_vertices():
    """The tube's positions, joints and weights (4 slots a vertex), flat lists."""
    positions, joints, weights = [], [], []
    for y, c, s in rings():
        positions += [RADIUS * c, y, RADIUS * s]
        joints += [0, 1, 0, 0]
        weights += [1.0 - upper_weight(y), upper_weight(y), 0.0, 0.0]
    return positions, joints, weights


def indices():
    out = []
    for r in range(RINGS - 1):
        for s in range(SIDES):
            a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
            out += [a, a + SIDES, b, b, a + SIDES, b + SIDES]
    return out


def quat(axis, deg):
    """A rotation of `deg` degrees about axis 'x', 'y' or 'z' as x, y, z, w."""
    h = math.radians(deg) / 2
    q = [0.0, 0.0, 0.0, math.cos(h)]
    q['xyz'.index(axis)] = math.sin(h)
    return q


def floats(values):
    return struct.pack('<%df' % len(values), *values)


def shorts(values):
    return struct.pack('<%dH' % len(values), *values)


def pack(blobs):
    """The blobs in one buffer, 4-byte aligned: (bytes, bufferViews)."""
    data, views = b'', []
    for blob in blobs:
        data += b'\0' * (-len(data) % 4)
        views.append({'buffer': 0, 'byteOffset': len(data), 'byteLength': len(blob)})
        data += blob
    return data, views
