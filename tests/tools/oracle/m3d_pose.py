#!/usr/bin/env python3
"""m3d_pose.py - poses of the DirectX 11 book's .m3d models, written from the
format's rules (issue #43) and sharing no code with Skinview's reader (which
rewrites the file as glTF for Assimp): the skinned-points JSON of
../shared/oracle/compare.py.

  m3d_pose.py MODEL.m3d OUT_{t}.json --time T[,T..] [--clip N]

The book's playback, in its own terms (row vectors, left-handed):
- per bone, the clip's keys: before the first key its values, after the
  last the last's; between two keys translation and scale lerped, the
  rotation slerped on the shorter arc;
- toParent = S * R * T; toRoot(i) = toParent(i) * toRoot(parent(i));
  final(i) = offset(i) * toRoot(i);
- a vertex: sum over its four bones of weight * (position * final(bone)),
  the fourth weight 1 - w0 - w1 - w2.
Then z negated into Skinview's right-handed space (what its --export-pose
writes). A bone with no keys in the clip stays in its bind pose (its
toParent from the offsets); the evaluator says so on stderr."""
import argparse, json, math, sys


def tokens(path):
    with open(path) as f:
        for token in f.read().split():
            yield token


class Reader:
    def __init__(self, path):
        self.t = tokens(path)

    def word(self):
        return next(self.t)

    def skip(self, n=1):
        for _ in range(n):
            next(self.t)

    def num(self):
        return float(next(self.t))

    def nums(self, n):
        return [self.num() for _ in range(n)]


def read(path):
    r = Reader(path)
    r.skip()  # banner
    counts = {}
    for key in ('materials', 'vertices', 'triangles', 'bones', 'clips'):
        r.skip()
        counts[key] = int(r.num())
    r.skip()  # Materials banner
    for _ in range(counts['materials']):
        r.skip(1 + 3 + 1 + 3 + 1 + 3 + 1 + 1 + 1 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1)
    r.skip()  # SubsetTable
    r.skip(10 * counts['materials'])
    r.skip()  # Vertices
    verts = []
    for _ in range(counts['vertices']):
        r.skip()
        p = r.nums(3)
        r.skip()
        r.nums(4)
        r.skip()
        r.nums(3)
        r.skip()
        r.nums(2)
        w, b = [1.0, 0.0, 0.0, 0.0], [0, 0, 0, 0]
        if counts['bones']:
            r.skip()
            w = r.nums(4)
            r.skip()
            b = [int(r.num()) for _ in range(4)]
            w[3] = 1.0 - w[0] - w[1] - w[2]
        verts.append((p, w, b))
    r.skip()  # Triangles
    r.skip(3 * counts['triangles'])
    offsets, parents, clips = [], [], []
    if counts['bones']:
        r.skip()
        for _ in range(counts['bones']):
            r.skip()
            v = r.nums(16)
            offsets.append([v[0:4], v[4:8], v[8:12], v[12:16]])
        r.skip()
        for _ in range(counts['bones']):
            r.skip()
            parents.append(int(r.num()))
    if counts['clips']:
        r.skip()
        for _ in range(counts['clips']):
            r.skip()
            name = r.word()
            r.skip()  # {
            bones = []
            for _ in range(counts['bones']):
                r.skip()
                r.skip()
                n = int(r.num())
                r.skip()  # {
                keys = []
                for _ in range(n):
                    r.skip()
                    t = r.num()
                    r.skip()
                    pos = r.nums(3)
                    r.skip()
                    scale = r.nums(3)
                    r.skip()
                    quat = r.nums(4)
                    keys.append((t, pos, scale, quat))
                r.skip()  # }
                bones.append(keys)
            r.skip()  # }
            clips.append((name, bones))
    return verts, offsets, parents, clips


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def inverse(m):
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(4)] for i, row in enumerate(m)]
    for c in range(4):
        p = max(range(c, 4), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        d = a[c][c]
        a[c] = [v / d for v in a[c]]
        for r in range(4):
            if r != c:
                f = a[r][c]
                a[r] = [a[r][k] - f * a[c][k] for k in range(8)]
    return [row[4:] for row in a]


def slerp(a, b, s):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:  # the shorter arc
        b, d = [-x for x in b], -d
    if d > 0.9995:
        q = [x + (y - x) * s for x, y in zip(a, b)]
    else:
        th = math.acos(min(1.0, d))
        k0, k1 = math.sin((1 - s) * th) / math.sin(th), math.sin(s * th) / math.sin(th)
        q = [k0 * x + k1 * y for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def sample(keys, t):
    if t <= keys[0][0]:
        return keys[0][1:]
    if t >= keys[-1][0]:
        return keys[-1][1:]
    for (t0, p0, s0, q0), (t1, p1, s1, q1) in zip(keys, keys[1:]):
        if t0 <= t <= t1:
            f = (t - t0) / (t1 - t0)
            return ([a + (b - a) * f for a, b in zip(p0, p1)], [a + (b - a) * f for a, b in zip(s0, s1)],
                    slerp(q0, q1, f))


def to_parent(pos, scale, quat):
    """S * R * T for row vectors."""
    x, y, z, w = quat
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)],
         [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
         [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]]
    m = [[r[i][j] * scale[i] for j in range(3)] + [0.0] for i in range(3)]
    return m + [[pos[0], pos[1], pos[2], 1.0]]


def pose(verts, offsets, parents, clip, t):
    n = len(offsets)
    bind_root = [inverse(o) for o in offsets]
    roots = []
    for i in range(n):
        keys = clip[1][i] if clip else []
        if keys:
            local = to_parent(*sample(keys, t))
        else:
            if clip:
                print('m3d_pose: bone %d has no keys: its bind pose' % i, file=sys.stderr)
            local = bind_root[i] if parents[i] < 0 else mul(bind_root[i], inverse(bind_root[parents[i]]))
        roots.append(local if parents[i] < 0 else mul(local, roots[parents[i]]))
    final = [mul(offsets[i], roots[i]) for i in range(n)]
    out = []
    for p, w, b in verts:
        v = [p[0], p[1], p[2], 1.0]
        acc = [0.0, 0.0, 0.0]
        if n == 0:
            acc = p[:]
        else:
            for k in range(4):
                if w[k] == 0.0:
                    continue
                m = final[b[k]]
                for j in range(3):
                    acc[j] += w[k] * sum(v[i] * m[i][j] for i in range(4))
        out.extend([acc[0], acc[1], -acc[2]])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('out')
    ap.add_argument('--time', required=True)
    ap.add_argument('--clip', type=int, default=0)
    args = ap.parse_args()
    verts, offsets, parents, clips = read(args.model)
    clip = clips[args.clip] if clips else None
    for t in args.time.split(','):
        pts = pose(verts, offsets, parents, clip, float(t))
        lo = [min(pts[k::3]) for k in range(3)]
        hi = [max(pts[k::3]) for k in range(3)]
        with open(args.out.replace('{t}', t), 'w') as f:
            json.dump({'generator': 'm3d_pose.py', 'num_points_total': len(pts) // 3,
                       'aabb': {'min': lo, 'max': hi}, 'meshes': [{'positions': pts}]}, f)


main()
