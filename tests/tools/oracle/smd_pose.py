#!/usr/bin/env python3
"""smd_pose.py - Studiomdl Data (.smd) poses read by hand (no code shared with
Assimp), as the skinned-points JSON of ../shared/oracle/compare.py. Written
for Skinview's tests.

  smd_pose.py MODEL.smd OUT_{t}.json --time T[,T..] [--fps 25]

From the format's description (Valve's Studiomdl Data; the Half-Life SDK's
angle convention):
- nodes: ID "name" parent ID (-1: none).
- skeleton: `time N` blocks, one line per bone: ID, position relative to
  the parent, rotation in radians about X (roll), Y (pitch), Z (yaw); the
  bone's local transform is T(position) Rz(z) Ry(y) Rx(x). The first block is
  the reference pose, in which the triangles' vertices are given (model
  space); a bone a block leaves out keeps its last pose.
- triangles: a material line, then three vertex lines: parent bone,
  position, normal, UV, and optionally a link count and (bone, weight)
  pairs. A vertex with links follows them, their weights divided by their
  sum, its parent bone ignored (Source's studiomdl does so); one without
  follows its parent bone. (Assimp gives what links leave of 1 to the parent
  instead: the two agree where the links sum to 1, as in smd_chain.py.)
Time: frame N at N / fps seconds (an SMD stores no rate: a QC's $sequence
gives it, studiomdl's default 30; --fps, 25 by default, is Assimp's choice,
which Skinview shows: this is a convention, not a check);
between frames, positions are lerped and rotations slerped (as quaternions);
after the last frame it holds. Skinned vertex: the sum over its bones of
weight x G_t(bone) x inverse(G_ref(bone)) x position, G the bone's global
transform. Output in the file's space (Z up)."""
import argparse, json, math, re, sys


def die(msg):
    sys.exit('smd_pose: ' + msg)


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def euler_matrix(p, r):
    """T(p) Rz(r[2]) Ry(r[1]) Rx(r[0]) as a 4x4 row-major matrix."""
    cx, sx, cy, sy, cz, sz = math.cos(r[0]), math.sin(r[0]), math.cos(r[1]), math.sin(r[1]), math.cos(r[2]), math.sin(r[2])
    rx = [[1, 0, 0, 0], [0, cx, -sx, 0], [0, sx, cx, 0], [0, 0, 0, 1]]
    ry = [[cy, 0, sy, 0], [0, 1, 0, 0], [-sy, 0, cy, 0], [0, 0, 0, 1]]
    rz = [[cz, -sz, 0, 0], [sz, cz, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    m = mat_mul(rz, mat_mul(ry, rx))
    m[0][3], m[1][3], m[2][3] = p
    return m


def quat_from_matrix(m):
    t = m[0][0] + m[1][1] + m[2][2]
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        return [(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, 0.25 * s]
    i = max(range(3), key=lambda k: m[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = math.sqrt(1.0 + m[i][i] - m[j][j] - m[k][k]) * 2
    q = [0.0] * 4
    q[i] = 0.25 * s
    q[j] = (m[j][i] + m[i][j]) / s
    q[k] = (m[k][i] + m[i][k]) / s
    q[3] = (m[k][j] - m[j][k]) / s
    return q


def quat_matrix(q, p):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), p[0]],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), p[1]],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), p[2]], [0, 0, 0, 1]]


def slerp(a, b, f):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 0.9999995:
        q = [x + f * (y - x) for x, y in zip(a, b)]
    else:
        th = math.acos(min(1.0, d))
        s0, s1 = math.sin((1 - f) * th) / math.sin(th), math.sin(f * th) / math.sin(th)
        q = [s0 * x + s1 * y for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def invert_rigid(m):
    r = [[m[j][i] for j in range(3)] for i in range(3)]
    t = [-sum(r[i][k] * m[k][3] for k in range(3)) for i in range(3)]
    return [r[0] + [t[0]], r[1] + [t[1]], r[2] + [t[2]], [0, 0, 0, 1]]


def read_smd(path):
    lines = [l.strip() for l in open(path, encoding='latin-1')]
    nodes, frames, verts, section, i = {}, [], [], None, 0
    while i < len(lines):
        l = lines[i]
        i += 1
        if not l:
            continue
        if section is None:
            if l in ('nodes', 'skeleton', 'triangles'):
                section = l
            continue
        if l == 'end':
            section = None
            continue
        if section == 'nodes':
            m = re.match(r'(-?\d+)\s+(?:"([^"]*)"|(\S+))\s+(-?\d+)', l)  # a name quoted or bare
            if not m:
                die('%s: a node line reads %r' % (path, l))
            nodes[int(m.group(1))] = (m.group(2) if m.group(2) is not None else m.group(3), int(m.group(4)))
        elif section == 'skeleton':
            if l.startswith('time'):
                frames.append((int(l.split()[1]), dict(frames[-1][1]) if frames else {}))
            else:
                v = l.split()
                frames[-1][1][int(v[0])] = ([float(x) for x in v[1:4]], [float(x) for x in v[4:7]])
        else:  # triangles: a material line, then three vertices
            for _ in range(3):
                while i < len(lines) and not lines[i]:
                    i += 1
                if i >= len(lines):
                    die('%s: a triangle ends early' % path)
                v = lines[i].split()
                i += 1
                parent, pos = int(v[0]), [float(x) for x in v[1:4]]
                links = []
                if len(v) > 9 and int(v[9]) > 0:
                    links = [(int(v[10 + 2 * k]), float(v[11 + 2 * k])) for k in range(int(v[9]))]
                    total = sum(w for _, w in links)
                    if not total > 0:
                        die('%s: a vertex\'s links weigh nothing' % path)
                    links = [(b, w / total) for b, w in links]
                else:
                    links = [(parent, 1.0)]
                verts.append((pos, links))
    if not nodes or not frames or not verts:
        die('%s: nodes, skeleton and triangles expected' % path)
    if set(frames[0][1]) != set(nodes):
        die('%s: the first frame (the reference pose) does not place every node' % path)
    return nodes, frames, verts


def globals_of(nodes, locals_):
    out = {}

    def g(b):
        if b not in out:
            parent = nodes[b][1]
            out[b] = locals_[b] if parent < 0 else mat_mul(g(parent), locals_[b])
        return out[b]
    for b in nodes:
        g(b)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model'); ap.add_argument('out')
    ap.add_argument('--time', default='0'); ap.add_argument('--fps', type=float, default=25.0)
    a = ap.parse_args()
    nodes, frames, verts = read_smd(a.model)
    ref = globals_of(nodes, {b: euler_matrix(*frames[0][1][b]) for b in nodes})
    inv_ref = {b: invert_rigid(m) for b, m in ref.items()}
    for tok in a.time.split(','):
        f = float(tok) * a.fps + frames[0][0]
        k = 0
        while k + 1 < len(frames) and frames[k + 1][0] <= f:
            k += 1
        locals_ = {}
        for b in nodes:
            p0, r0 = frames[k][1][b]
            if k + 1 < len(frames) and f > frames[k][0]:
                p1, r1 = frames[k + 1][1][b]
                u = (f - frames[k][0]) / (frames[k + 1][0] - frames[k][0])
                q = slerp(quat_from_matrix(euler_matrix(p0, r0)), quat_from_matrix(euler_matrix(p1, r1)), u)
                locals_[b] = quat_matrix(q, [x + u * (y - x) for x, y in zip(p0, p1)])
            else:
                locals_[b] = euler_matrix(p0, r0)
        g = globals_of(nodes, locals_)
        skin = {b: mat_mul(g[b], inv_ref[b]) for b in nodes}
        pos = []
        for p, links in verts:
            out = [0.0, 0.0, 0.0]
            for b, w in links:
                m = skin[b]
                for r in range(3):
                    out[r] += w * (m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3])
            pos += out
        lo = [min(pos[c::3]) for c in range(3)]
        hi = [max(pos[c::3]) for c in range(3)]
        fn = a.out.replace('{t}', tok)
        json.dump({'generator': 'smd_pose.py', 'model': a.model, 't': float(tok), 'frame': f,
                   'num_points_total': len(pos) // 3, 'aabb': {'min': lo, 'max': hi},
                   'meshes': [{'positions': pos}]}, open(fn, 'w'))
        print('smd_pose: wrote %s (frame %.4f, %d points)' % (fn, f, len(pos) // 3))


if __name__ == '__main__':
    main()
