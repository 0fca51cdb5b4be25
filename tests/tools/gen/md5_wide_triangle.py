#!/usr/bin/env python3
"""md5_wide_triangle.py - one triangle whose vertices name more bones than a
draw holds: a chain of 120 joints, each vertex weighted by 40 of them (its
own 40, equally). Past 100 bones Skinview splits a model into draws of at
most 100; a triangle's lists (every influence) name 120 here, its 4 largest
12. The default (every influence past 4) cannot draw the lists and falls
back to the 4 largest with a warning; --influences all is refused.

Usage: md5_wide_triangle.py OUT.md5mesh"""
import sys

JOINTS, PER_VERTEX = 120, 40
CORNERS = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]

lines = ['MD5Version 10', 'commandline ""', '', 'numJoints %d' % JOINTS, 'numMeshes 1', '', 'joints {']
# Joint j at (0, 0, j), its parent the one below, unrotated.
lines += ['\t"joint%d"\t%d ( 0 0 %d ) ( 0 0 0 )' % (j, j - 1, j) for j in range(JOINTS)]
lines += ['}', '', 'mesh {', '\tshader ""', '', '\tnumverts %d' % len(CORNERS)]
lines += ['\tvert %d ( 0 0 ) %d %d' % (v, PER_VERTEX * v, PER_VERTEX) for v in range(len(CORNERS))]
lines += ['', '\tnumtris 1', '\ttri 0 0 2 1', '', '\tnumweights %d' % (PER_VERTEX * len(CORNERS))]
for v, (x, y, z) in enumerate(CORNERS):
    for k in range(PER_VERTEX):
        j = PER_VERTEX * v + k  # each weight's position is the corner in joint j's frame
        lines.append('\tweight %d %d %.9f ( %g %g %g )' % (j, j, 1.0 / PER_VERTEX, x, y, z - j))
lines.append('}')
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
