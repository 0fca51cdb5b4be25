"""gltf_mixamo_rig.py - a humanoid with Mixamo's bone names (mixamorig:Hips,
mixamorig:LeftUpLeg, ...) and Mixamo's conventions, for clips of other
rigs retargeted onto it (issue #45): 1.66 m tall, facing +Z, left arm on
+X, in a T-pose (arms level), every joint's local Y along its bone (the
X-along-bone and world-aligned rigs it is fed from differ), proportions
of its own (hips at 0.85 m, long arms). Its mesh is a box around each
bone, weighed wholly to that bone's joint; no clips. With --turn DEG the
whole rig, joints, frames and mesh, is turned DEG about the vertical
(facing elsewhere): the same rig, so a clip retargeted onto it poses it
as the unturned one, turned.

Usage: gltf_mixamo_rig.py OUT.glb [--turn DEG]"""
import math, sys
from glb import Glb

# name, parent, rest position in metres (world)
JOINTS = [
    ('Hips', None, (0.0, 0.85, 0.0)),
    ('Spine', 'Hips', (0.0, 0.95, 0.0)),
    ('Spine1', 'Spine', (0.0, 1.07, 0.0)),
    ('Spine2', 'Spine1', (0.0, 1.20, 0.0)),
    ('Neck', 'Spine2', (0.0, 1.38, 0.0)),
    ('Head', 'Neck', (0.0, 1.46, 0.0)),
    ('HeadTop_End', 'Head', (0.0, 1.66, 0.0)),
]
for side, x in (('Left', 1.0), ('Right', -1.0)):
    JOINTS += [
        (side + 'Shoulder', 'Spine2', (0.05 * x, 1.33, 0.0)),
        (side + 'Arm', side + 'Shoulder', (0.17 * x, 1.33, 0.0)),
        (side + 'ForeArm', side + 'Arm', (0.45 * x, 1.33, 0.0)),
        (side + 'Hand', side + 'ForeArm', (0.72 * x, 1.33, 0.0)),
        (side + 'HandMiddle4', side + 'Hand', (0.84 * x, 1.33, 0.0)),
        (side + 'UpLeg', 'Hips', (0.10 * x, 0.82, 0.0)),
        (side + 'Leg', side + 'UpLeg', (0.10 * x, 0.46, 0.0)),
        (side + 'Foot', side + 'Leg', (0.10 * x, 0.08, 0.0)),
        (side + 'ToeBase', side + 'Foot', (0.10 * x, 0.02, 0.12)),
        (side + 'Toe_End', side + 'ToeBase', (0.10 * x, 0.02, 0.20)),
    ]
INDEX = {name: i for i, (name, _, _) in enumerate(JOINTS)}


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def norm(v):
    n = math.sqrt(sum(x * x for x in v))
    return tuple(x / n for x in v)


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def child_of(i):
    for k, (_, parent, _) in enumerate(JOINTS):
        if parent == JOINTS[i][0]:
            return k
    return None


def frame(i):
    """World rest rotation of joint i as 3 columns: Y along the bone (to its
    first child; an end joint takes its parent's), X normal to it."""
    c = child_of(i)
    if c is None:
        return frame(INDEX[JOINTS[i][1]])
    y = norm(sub(JOINTS[c][2], JOINTS[i][2]))
    helper = (0.0, 0.0, 1.0) if abs(y[2]) < 0.9 else (1.0, 0.0, 0.0)
    x = norm(cross(y, helper))
    z = cross(x, y)
    return (x, y, z)


def quat_of(cols):
    """Unit quaternion (x, y, z, w) of a rotation given by its columns."""
    (m00, m10, m20), (m01, m11, m21), (m02, m12, m22) = cols
    t = m00 + m11 + m22
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        return ((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s)
    if m00 > m11 and m00 > m22:
        s = math.sqrt(1.0 + m00 - m11 - m22) * 2
        return (0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s)
    if m11 > m22:
        s = math.sqrt(1.0 + m11 - m00 - m22) * 2
        return ((m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s)
    s = math.sqrt(1.0 + m22 - m00 - m11) * 2
    return ((m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s)


def transpose_apply(cols, v):
    """R^T v for R given by its columns."""
    return tuple(sum(c[k] * v[k] for k in range(3)) for c in cols)


def mat_mul_t(a, b):
    """A^T B, both given by columns: the columns of the result."""
    return tuple(transpose_apply(a, col) for col in b)


def turned(v, degrees):
    """v turned about +Y."""
    a = math.radians(degrees)
    return (math.cos(a) * v[0] + math.sin(a) * v[2], v[1], -math.sin(a) * v[0] + math.cos(a) * v[2])


def main():
    out = sys.argv[1]
    turn = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == '--turn' else 0.0
    frames = [tuple(turned(c, turn) for c in frame(i)) for i in range(len(JOINTS))]
    for i, (name, parent, pos) in enumerate(JOINTS):
        JOINTS[i] = (name, parent, turned(pos, turn))
    nodes = []
    for i, (name, parent, pos) in enumerate(JOINTS):
        if parent is None:
            local_t, local_r = pos, frames[i]
        else:
            p = INDEX[parent]
            local_t = transpose_apply(frames[p], sub(pos, JOINTS[p][2]))
            local_r = mat_mul_t(frames[p], frames[i])
        node = {'name': 'mixamorig:' + name, 'translation': list(local_t), 'rotation': list(quat_of(local_r))}
        kids = [k for k, (_, pa, _) in enumerate(JOINTS) if pa == name]
        if kids:
            node['children'] = kids
        nodes.append(node)
    # A box around each bone (joint -> its child), half-width w, skinned to the joint.
    positions, joints, weights, indices = [], [], [], []
    for i, (name, parent, pos) in enumerate(JOINTS):
        c = child_of(i)
        if c is None:
            continue
        a, b = pos, JOINTS[c][2]
        x, y, z = frames[i]
        w = 0.06 if name in ('Hips', 'Spine', 'Spine1', 'Spine2', 'Head') else 0.035
        base = len(positions)
        for end in (a, b):
            for sx, sz in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                positions.append(tuple(end[k] + w * (sx * x[k] + sz * z[k]) for k in range(3)))
                joints.append((i, 0, 0, 0))
                weights.append((1.0, 0.0, 0.0, 0.0))
        quads = [(0, 1, 2, 3), (7, 6, 5, 4), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0)]
        for q in quads:
            indices += [base + q[0], base + q[1], base + q[2], base + q[0], base + q[2], base + q[3]]
    ibm = []
    for i in range(len(JOINTS)):
        cols = frames[i]
        t = JOINTS[i][2]
        inv_t = tuple(-v for v in transpose_apply(cols, t))
        # inverse of [R | t] = [R^T | -R^T t], column-major
        rt = [tuple(cols[r][c] for r in range(3)) for c in range(3)]
        ibm += [rt[0][0], rt[0][1], rt[0][2], 0, rt[1][0], rt[1][1], rt[1][2], 0,
                rt[2][0], rt[2][1], rt[2][2], 0, inv_t[0], inv_t[1], inv_t[2], 1]
    g = Glb()
    flat = [v for p in positions for v in p]
    pos_acc = g.add('f', flat, len(positions), 'VEC3', 5126,
                    min=[min(p[k] for p in positions) for k in range(3)],
                    max=[max(p[k] for p in positions) for k in range(3)])
    joint_acc = g.add('H', [v for j in joints for v in j], len(joints), 'VEC4', 5123)
    weight_acc = g.add('f', [v for w in weights for v in w], len(weights), 'VEC4', 5126)
    index_acc = g.add('I', indices, len(indices), 'SCALAR', 5125)
    ibm_acc = g.add('f', ibm, len(JOINTS), 'MAT4', 5126)
    nodes.append({'name': 'Body', 'mesh': 0, 'skin': 0})
    g.write(out, {
        'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_mixamo_rig.py'},
        'scene': 0, 'scenes': [{'nodes': [0, len(nodes) - 1]}], 'nodes': nodes,
        'meshes': [{'name': 'Body', 'primitives': [{'attributes': {'POSITION': pos_acc, 'JOINTS_0': joint_acc,
                                                                   'WEIGHTS_0': weight_acc}, 'indices': index_acc}]}],
        'skins': [{'joints': list(range(len(JOINTS))), 'inverseBindMatrices': ibm_acc, 'skeleton': 0}],
    })


if __name__ == '__main__':
    main()
