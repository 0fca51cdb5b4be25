#!/usr/bin/env python3
"""md5_many_weights.py - a Doom 3 style MD5 whose vertices have 4 to 8
weights each, most 5 to 7 (issue #20: "soft skinning", --influences all).

Usage: md5_many_weights.py OUT.md5mesh   (writes OUT.md5anim beside it)

A chain of JOINTS joints up MD5's +Z axis, one unit apart, bind pose
unrotated; a tube of radius RADIUS around it. Each vertex takes a Gaussian
weight from every joint (sigma SIGMA joint lengths) and keeps those of at
least KEEP of the vertex's total, normalised: 4 to 8 per vertex (350 of the
370 have more than 4). Keeping only the 4 largest moves the bent tube by
8e-3 of its diagonal (Chamfer), which the MD5 evaluator
(../shared/oracle/md5_pose.py, every weight) shows.

The clip (2 s, 24 frames/s, 49 frames): every joint but the root bends
about X and about Y in a wave travelling up the chain."""
import math, sys

JOINTS, RADIUS, SIGMA, KEEP = 10, 0.4, 1.6, 0.02
RINGS, SIDES = 37, 10  # rings every 0.25 from z = 0 to 9
FRAMES, FRAME_RATE = 49, 24


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def axis_quat(axis, radians):
    q = [0.0, 0.0, 0.0, math.cos(radians / 2)]
    q['xyz'.index(axis)] = math.sin(radians / 2)
    return tuple(q)


def md5_quat(q):
    """MD5 keeps x, y, z with w = -sqrt(1 - x^2 - y^2 - z^2): the sign of q with w <= 0."""
    s = -1.0 if q[3] > 0 else 1.0
    return s * q[0], s * q[1], s * q[2]


def bend(joint, seconds):
    """Joint's local rotation at `seconds` (the root never bends)."""
    if joint == 0:
        return (0.0, 0.0, 0.0, 1.0)
    phase = 2 * math.pi * seconds / 2.0 - 0.6 * joint
    return qmul(axis_quat('x', math.radians(22) * math.sin(phase)), axis_quat('y', math.radians(12) * math.cos(phase)))


def vertices():
    """(x, y, z, [(joint, bias), ...]) per vertex, ring after ring."""
    out = []
    for r in range(RINGS):
        z = 9.0 * r / (RINGS - 1)
        raw = [math.exp(-((z - j) ** 2) / (2 * SIGMA * SIGMA)) for j in range(JOINTS)]
        total = sum(raw)
        kept = [(j, w) for j, w in enumerate(raw) if w >= KEEP * total]
        norm = sum(w for _, w in kept)
        weights = [(j, w / norm) for j, w in kept]
        for s in range(SIDES):
            a = 2 * math.pi * s / SIDES
            out.append((RADIUS * math.cos(a), RADIUS * math.sin(a), z, weights))
    return out


def main():
    mesh_path = sys.argv[1]
    anim_path = mesh_path[:-len('.md5mesh')] + '.md5anim'
    verts = vertices()
    with open(mesh_path, 'w') as f:
        f.write('MD5Version 10\ncommandline "skinview tests/tools/gen/md5_many_weights.py"\n\n')
        f.write('numJoints %d\nnumMeshes 1\n\njoints {\n' % JOINTS)
        for j in range(JOINTS):
            f.write('\t"joint%d"\t%d ( 0 0 %d ) ( 0 0 0 )\n' % (j, j - 1, j))
        f.write('}\n\nmesh {\n\tshader ""\n\n\tnumverts %d\n' % len(verts))
        first = 0
        for i, (_, _, z, weights) in enumerate(verts):
            f.write('\tvert %d ( %.6f %.6f ) %d %d\n' % (i, (i % SIDES) / SIDES, z / 9.0, first, len(weights)))
            first += len(weights)
        tris = []
        for r in range(RINGS - 1):
            for s in range(SIDES):
                a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
                # Clockwise seen from outside: MD5's winding (Assimp turns it round).
                tris += [(a, a + SIDES, b), (b, a + SIDES, b + SIDES)]
        f.write('\n\tnumtris %d\n' % len(tris))
        for i, t in enumerate(tris):
            f.write('\ttri %d %d %d %d\n' % (i, *t))
        f.write('\n\tnumweights %d\n' % first)
        n = 0
        for x, y, z, weights in verts:
            for j, w in weights:  # positions in the joint's frame: bind joints are unrotated, at z = j
                f.write('\tweight %d %d %.9f ( %.6f %.6f %.6f )\n' % (n, j, w, x, y, z - j))
                n += 1
        f.write('}\n')
    with open(anim_path, 'w') as f:
        f.write('MD5Version 10\ncommandline "skinview tests/tools/gen/md5_many_weights.py"\n\n')
        f.write('numFrames %d\nnumJoints %d\nframeRate %d\nnumAnimatedComponents %d\n\nhierarchy {\n'
                % (FRAMES, JOINTS, FRAME_RATE, JOINTS * 6))
        for j in range(JOINTS):
            f.write('\t"joint%d"\t%d 63 %d\n' % (j, j - 1, j * 6))
        f.write('}\n\nbounds {\n')
        for _ in range(FRAMES):
            f.write('\t( -10 -10 -1 ) ( 10 10 10 )\n')
        f.write('}\n\nbaseframe {\n')
        for j in range(JOINTS):
            f.write('\t( 0 0 %d ) ( 0 0 0 )\n' % (0 if j == 0 else 1))
        f.write('}\n')
        for i in range(FRAMES):
            seconds = i / FRAME_RATE
            f.write('\nframe %d {\n' % i)
            for j in range(JOINTS):
                qx, qy, qz = md5_quat(bend(j, seconds))
                f.write('\t0 0 %d %.9f %.9f %.9f\n' % (0 if j == 0 else 1, qx, qy, qz))
            f.write('}\n')


if __name__ == '__main__':
    main()
