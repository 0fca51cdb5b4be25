"""m3d_files.py - .m3d files of the DirectX 11 book's format (issue #43),
for the .m3d tests: Skinview's reader against tests/tools/oracle/m3d_pose.py.

  m3d_files.py OUT_DIR

writes, in the format as the book's M3DLoader reads it (every value after
a label token; left-handed, y up; row-vector matrices):
  strip.m3d        a square tube of 9 rings up +y, two subsets (two
                   materials naming strip_diff.dds and strip_norm.dds), 3
                   bones in a chain with a bind pose that turns (offsets
                   with rotation and translation), every vertex weighed
                   across up to three bones (the fourth weight implied),
                   clip 'Bend' with uneven key times, rotations about
                   several axes (one past a half turn between two keys),
                   translation and non-uniform scale keys; bone 2 starts
                   later than the others (held before its first key)
  strip_wave.m3d   the same skeleton and mesh with another clip, 'Wave'
                   (for --anim-file)
  static.m3d       no bones: a box in two subsets
and the broken ones, each one line and exit 4 for Skinview:
  lying_count.m3d  #Vertices says more than the section holds
  bone_index.m3d   a blend index past the bone count
  parent_after.m3d a bone whose parent comes after it
  nan.m3d          a position that is not a number
  cut.m3d          the file cut in its triangles
  no_header.m3d    a text file named .m3d without the header"""
import math, os, sys

BANNER = {s: '*' * 15 + s + '*' * (30 - len(s)) for s in
          ('m3d-File-Header', 'Materials', 'SubsetTable', 'Vertices', 'Triangles', 'BoneOffsets', 'BoneHierarchy',
           'AnimationClips')}


def quat_axis(axis, angle):
    n = math.sqrt(sum(a * a for a in axis))
    s = math.sin(angle / 2) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2))


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def row_matrix(t, q, s):
    """S * R * T for row vectors (the book's toParent), as 4 rows."""
    x, y, z, w = q
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)],
         [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
         [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)]]
    m = [[r[i][j] * s[i] for j in range(3)] + [0.0] for i in range(3)]
    return m + [[t[0], t[1], t[2], 1.0]]


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def inverse(m):
    # Gauss-Jordan on a 4 x 4.
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


def fmt(v):
    return '%.7g' % v


# The skeleton's bind pose: bone i's local (translation, rotation).
BIND = [((0.0, 0.0, 0.0), quat_axis((0, 0, 1), 0.1)),
        ((0.0, 1.0, 0.05), quat_axis((1, 0, 0), -0.15)),
        ((0.02, 1.0, 0.0), quat_axis((0, 1, 1), 0.2))]
PARENTS = [-1, 0, 1]
RINGS = 9


def tube():
    """Vertices (position, normal, tangent, uv, weights, bones) and
    triangles of a square tube from y = 0 to y = 3, placed in the bind pose
    by hand: each ring's position is the rest position (the bind pose maps
    the tube's own straight frame; offsets undo it)."""
    verts, tris = [], []
    corners = [(-0.25, -0.25), (0.25, -0.25), (0.25, 0.25), (-0.25, 0.25)]
    for r in range(RINGS):
        y = 3.0 * r / (RINGS - 1)
        for c, (x, z) in enumerate(corners):
            n = (x * 4, 0.0, z * 4)
            seg = y  # 0..3: blend between bones
            w = [0.0, 0.0, 0.0]
            w[0] = max(0.0, 1.0 - seg)
            w[1] = max(0.0, 1.0 - abs(seg - 1.0))
            w[2] = min(1.0, max(0.0, seg - 1.0))
            total = sum(w)
            w = [v / total for v in w]
            verts.append(((x, y, z), n, (1.0, 0.0, 0.0, 1.0), (c / 3.0, y / 3.0), w, (0, 1, 2, 0)))
    for r in range(RINGS - 1):
        for c in range(4):
            a, b = r * 4 + c, r * 4 + (c + 1) % 4
            tris.append((a, b + 4, b))
            tris.append((a, a + 4, b + 4))
    return verts, tris


def bind_globals():
    g = []
    for i, (t, q) in enumerate(BIND):
        local = row_matrix(t, q, (1, 1, 1))
        g.append(local if PARENTS[i] < 0 else mul(local, g[PARENTS[i]]))
    return g


def clip_keys(kind):
    """Per bone: a list of (time, pos, scale, quat)."""
    keys = []
    for b, (t, q) in enumerate(BIND):
        times = [0.0, 0.35, 1.0, 1.2, 2.0] if kind == 'Bend' else [0.0, 0.5, 1.5]
        if kind == 'Bend' and b == 2:
            times = [0.5, 1.1, 1.9]  # held before 0.5
        bone = []
        for k, time in enumerate(times):
            if kind == 'Bend':
                turn = quat_axis((0, 0, 1), 0.6 * math.sin(time * 2.0 + b))
                if b == 1 and k == 3:
                    turn = quat_axis((1, 0.3, 0), 3.5)  # past a half turn from the key before
                rot = qmul(q, qmul(turn, quat_axis((1, 0, 0), 0.3 * k)))
                pos = (t[0] + 0.05 * k, t[1] * (1.0 + 0.05 * k), t[2])
                scale = (1.0 + 0.1 * k, 1.0, 1.0 - 0.05 * k)
            else:
                rot = qmul(q, quat_axis((0, 1, 0.5), 0.8 * math.cos(time * 3.0 + b)))
                pos = t
                scale = (1.0, 1.0 + 0.2 * k, 1.0)
            bone.append((time, pos, scale, rot))
        keys.append(bone)
    return keys


def write_m3d(path, verts, tris, subsets, materials, bones, clips, header_counts=None):
    """`bones`: (offset rows, parent) or []; `clips`: [(name, per-bone keys)]."""
    counts = header_counts or (len(materials), len(verts), len(tris), len(bones), len(clips))
    out = [BANNER['m3d-File-Header'], '#Materials %d' % counts[0], '#Vertices %d' % counts[1],
           '#Triangles %d' % counts[2], '#Bones %d' % counts[3], '#AnimationClips %d' % counts[4], '',
           BANNER['Materials']]
    for diffuse, power, diffuse_map, normal_map in materials:
        out += ['Ambient: 1 1 1', 'Diffuse: %s %s %s' % tuple(fmt(c) for c in diffuse), 'Specular: 0.8 0.8 0.8',
                'SpecPower: %s' % fmt(power), 'Reflectivity: 0 0 0', 'AlphaClip: 0', 'Effect: Normal',
                'DiffuseMap: %s' % diffuse_map, 'NormalMap: %s' % normal_map, '']
    out.append(BANNER['SubsetTable'])
    for i, (vs, vc, fs, fc) in enumerate(subsets):
        out.append('SubsetID: %d VertexStart: %d VertexCount: %d FaceStart: %d FaceCount: %d' % (i, vs, vc, fs, fc))
    out += ['', BANNER['Vertices']]
    for p, n, t, uv, w, b in verts:
        out += ['Position: %s %s %s' % tuple(fmt(v) for v in p), 'Tangent: %s %s %s %s' % tuple(fmt(v) for v in t),
                'Normal: %s %s %s' % tuple(fmt(v) for v in n), 'Tex-Coords: %s %s' % tuple(fmt(v) for v in uv)]
        if bones:
            out += ['BlendWeights: %s %s %s %s' % tuple(fmt(v) for v in (w + [0.0])[:4]),
                    'BlendIndices: %d %d %d %d' % tuple(b)]
        out.append('')
    out.append(BANNER['Triangles'])
    out += ['%d %d %d' % t for t in tris]
    out.append('')
    if bones:
        out.append(BANNER['BoneOffsets'])
        for i, (rows, _) in enumerate(bones):
            out.append('BoneOffset%d %s' % (i, ' '.join(fmt(v) for row in rows for v in row)))
        out += ['', BANNER['BoneHierarchy']]
        for i, (_, parent) in enumerate(bones):
            out.append('ParentIndexOfBone%d: %d' % (i, parent))
        out.append('')
    if clips:
        out.append(BANNER['AnimationClips'])
        for name, per_bone in clips:
            out += ['AnimationClip %s' % name, '{']
            for i, keys in enumerate(per_bone):
                out += ['\tBone%d #Keyframes: %d' % (i, len(keys)), '\t{']
                for time, pos, scale, quat in keys:
                    out.append('\t\tTime: %s Pos: %s Scale: %s Quat: %s' % (
                        fmt(time), ' '.join(fmt(v) for v in pos), ' '.join(fmt(v) for v in scale),
                        ' '.join(fmt(v) for v in quat)))
                out.append('\t}')
            out += ['}', '']
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    verts, tris = tube()
    half = len(tris) // 2
    subsets = [(0, len(verts), 0, half), (0, len(verts), half, len(tris) - half)]
    materials = [((0.8, 0.6, 0.5), 32, 'strip_diff.dds', 'strip_norm.dds'),
                 ((0.4, 0.7, 0.9), 8, 'strip_diff.dds', 'strip_norm.dds')]
    bones = [(inverse(g), PARENTS[i]) for i, g in enumerate(bind_globals())]
    write_m3d(os.path.join(out, 'strip.m3d'), verts, tris, subsets, materials, bones, [('Bend', clip_keys('Bend'))])
    write_m3d(os.path.join(out, 'strip_wave.m3d'), verts, tris, subsets, materials, bones,
              [('Wave', clip_keys('Wave'))])
    box = [((x, y, z), (x, y, z), (1, 0, 0, 1), (0.5 + x / 2, 0.5 + y / 2), [], (0, 0, 0, 0))
           for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    box_tris = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
                (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    write_m3d(os.path.join(out, 'static.m3d'), box, box_tris, [(0, 8, 0, 6), (0, 8, 6, 6)],
              [((0.9, 0.2, 0.2), 16, 'box.dds', 'box_norm.dds'), ((0.2, 0.9, 0.2), 16, 'box.dds', 'box_norm.dds')],
              [], [])
    # Broken ones.
    write_m3d(os.path.join(out, 'lying_count.m3d'), verts, tris, subsets, materials, bones, [],
              header_counts=(2, len(verts) + 5, len(tris), 3, 0))
    bad = list(verts)
    p, n, t, uv, w, b = bad[5]
    bad[5] = (p, n, t, uv, w, (0, 1, 7, 0))
    write_m3d(os.path.join(out, 'bone_index.m3d'), bad, tris, subsets, materials, bones, [])
    write_m3d(os.path.join(out, 'parent_after.m3d'), verts, tris, subsets, materials,
              [(bones[0][0], -1), (bones[1][0], 2), (bones[2][0], 0)], [])
    path = os.path.join(out, 'nan.m3d')
    write_m3d(path, verts, tris, subsets, materials, bones, [])
    text = open(path).read().replace('Position: 0.25 0 -0.25', 'Position: 0.25 nan -0.25', 1)
    open(path, 'w').write(text)
    whole = open(os.path.join(out, 'strip.m3d')).read()
    cut = whole.index(BANNER['Triangles']) + len(BANNER['Triangles']) + 60
    open(os.path.join(out, 'cut.m3d'), 'w').write(whole[:cut])
    open(os.path.join(out, 'no_header.m3d'), 'w').write('0\nSECTION\n2\nENTITIES\n0\nENDSEC\n0\nEOF\n'
                                                         'just some text, not a model\n')


main()
