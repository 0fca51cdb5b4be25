#!/usr/bin/env python3
"""smd_chain.py - an animated Studiomdl Data (.smd) file for the SMD evaluator
(tests/tools/oracle/smd_pose.py): a square tube along +Z over a three-bone
chain (root, mid, tip), with a reference pose whose mid bone is turned on all
three axes, and four more frames that turn every bone on all three axes and
move the root. Rings between bones are shared by two bones through Source
"links" (bone, weight pairs summing to 1); the others ride their parent bone
alone. The corpus's SMD files are one bone and one frame each, so only a file
like this one checks Assimp's reading of SMD animation. Written for Skinview's
tests.

  smd_chain.py OUT.smd"""
import math, sys

BONES = [(0, 'root', -1), (1, 'mid', 0), (2, 'tip', 1)]
# Per frame, per bone: position (relative to the parent) and rotation (radians, X Y Z).
FRAMES = [
    [(0, 0, 0, 0, 0, 0), (0, 0, 2, 0.1, 0.2, 0.3), (0, 0, 2, 0, 0, 0)],  # the reference pose
    [(0.5, 0, 0, 0.3, -0.2, 0.1), (0, 0, 2, 0.5, 0.4, -0.3), (0, 0, 2, -0.4, 0.6, 0.2)],
    [(1.0, 0.5, 0, -0.2, 0.4, 0.7), (0, 0, 2, -0.6, 0.1, 0.9), (0, 0, 2, 0.8, -0.3, -0.5)],
    [(0.5, 1.0, 0.3, 0.6, 0.9, -0.4), (0, 0, 2, 1.1, -0.7, 0.2), (0, 0, 2, -0.2, -0.9, 1.2)],
    [(0, 0.5, 0.6, -0.9, -0.3, 1.4), (0, 0, 2, 0.2, 1.3, -1.0), (0, 0, 2, 1.5, 0.4, -0.8)],
]


def ring_weights(z):
    """The bones a ring at height z follows, as (parent, links)."""
    if z < 2:
        return 0, []
    if z == 2:
        return 0, [(0, 0.5), (1, 0.5)]
    if z < 4:
        return 1, []
    if z == 4:
        return 1, [(1, 0.25), (2, 0.75)]
    return 2, []


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: smd_chain.py OUT.smd')
    out = ['version 1', 'nodes']
    out += ['%d "%s" %d' % b for b in BONES]
    out += ['end', 'skeleton']
    for t, frame in enumerate(FRAMES):
        out.append('time %d' % t)
        out += ['%d %s' % (b, ' '.join('%.6f' % v for v in pose)) for b, pose in enumerate(frame)]
    out += ['end', 'triangles']
    corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
    rings = [0, 1, 2, 3, 4, 5, 6]

    def vertex(z, c):
        x, y = corners[c]
        parent, links = ring_weights(z)
        n = math.hypot(x, y)
        line = '%d %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f' % (parent, x, y, z, x / n, y / n, 0, c / 4, z / 6)
        if links:
            line += ' %d %s' % (len(links), ' '.join('%d %.6f' % l for l in links))
        return line

    for r in range(len(rings) - 1):
        for c in range(4):
            a, b = (rings[r], c), (rings[r], (c + 1) % 4)
            d, e = (rings[r + 1], c), (rings[r + 1], (c + 1) % 4)
            for tri in ((a, b, e), (a, e, d)):
                out.append('chain.bmp')
                out += [vertex(z, k) for z, k in tri]
    out += ['end', '']
    open(sys.argv[1], 'w').write('\n'.join(out))
    print('smd_chain.py: wrote %s (%d bones, %d frames)' % (sys.argv[1], len(BONES), len(FRAMES)))


if __name__ == '__main__':
    main()
