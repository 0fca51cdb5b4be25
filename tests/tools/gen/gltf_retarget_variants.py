"""gltf_retarget_variants.py - rigs whose pose under a retargeted clip is
known exactly (issue #45): a skinned .glb rewritten three ways, its clips
left out (they come back through --anim-file ORIGINAL --retarget).

  renamed   every node renamed ("n<index>_<reversed name>"), with
            renamed_map.json, the bone map {"new": "original"} that undoes it
  rerested  every joint's rest frame turned by its own rotation D_j (20 to
            70 degrees about a tilted axis) and the skin rebound: a child's
            offset and rotation re-expressed in its turned parent's frame
            (L'_i = D_parent^-1 L_i D_i), each inverse bind matrix
            D_j^-1 IBM_j, so the bind mesh is the same and a pose whose world
            frames are W_j D_j skins to the original's
  scaled    every node offset, vertex position and bind translation x1.5:
            the original rig scaled uniformly (poses come out x1.5)

Usage: gltf_retarget_variants.py MODEL.glb OUT_DIR
Writes OUT_DIR/renamed.glb, renamed_map.json, rerested.glb, scaled.glb."""
import json, math, os, struct, sys

SCALE = 1.5


def read_glb(path):
    data = open(path, 'rb').read()
    magic, version, _ = struct.unpack_from('<III', data, 0)
    assert magic == 0x46546C67 and version == 2, path
    length, kind = struct.unpack_from('<II', data, 12)
    assert kind == 0x4E4F534A
    gltf = json.loads(data[20:20 + length])
    at = 20 + length
    blength, bkind = struct.unpack_from('<II', data, at)
    assert bkind == 0x004E4942
    return gltf, bytearray(data[at + 8:at + 8 + blength])


def write_glb(path, gltf, binary):
    binary = bytes(binary) + b'\0' * (-len(binary) % 4)
    gltf['buffers'] = [{'byteLength': len(binary)}]
    text = json.dumps(gltf, separators=(',', ':')).encode()
    text += b' ' * (-len(text) % 4)
    with open(path, 'wb') as f:
        f.write(struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(binary)))
        f.write(struct.pack('<II', len(text), 0x4E4F534A) + text)
        f.write(struct.pack('<II', len(binary), 0x004E4942) + binary)


WIDTH = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}


def read_floats(gltf, binary, index):
    """An accessor's floats, one tuple per element."""
    acc = gltf['accessors'][index]
    assert acc['componentType'] == 5126 and 'sparse' not in acc, 'only plain float accessors'
    view = gltf['bufferViews'][acc['bufferView']]
    n = WIDTH[acc['type']]
    stride = view.get('byteStride', 4 * n)
    base = view.get('byteOffset', 0) + acc.get('byteOffset', 0)
    return [struct.unpack_from('<%df' % n, binary, base + k * stride) for k in range(acc['count'])]


def replace_floats(gltf, binary, index, values):
    """Points the accessor at a new view holding `values` (the old bytes stay, unused)."""
    acc = gltf['accessors'][index]
    binary += b'\0' * (-len(binary) % 4)
    blob = b''.join(struct.pack('<%df' % len(v), *v) for v in values)
    gltf['bufferViews'].append({'buffer': 0, 'byteOffset': len(binary), 'byteLength': len(blob)})
    binary += blob
    acc['bufferView'] = len(gltf['bufferViews']) - 1
    acc.pop('byteOffset', None)
    if 'min' in acc:
        acc['min'] = [min(v[k] for v in values) for k in range(len(values[0]))]
        acc['max'] = [max(v[k] for v in values) for k in range(len(values[0]))]
    return binary


# --- quaternions (x, y, z, w) and column-major 4x4 matrices ------------------

def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def qconj(q):
    return (-q[0], -q[1], -q[2], q[3])


def qrot(q, v):
    x, y, z, _ = qmul(qmul(q, (v[0], v[1], v[2], 0.0)), qconj(q))
    return (x, y, z)


def qmat(q):
    """Column-major 4x4 of a unit quaternion."""
    x, y, z, w = q
    return [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
            2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
            2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
            0, 0, 0, 1]


def mmul(a, b):
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def turn_of(j):
    """Joint j's rest frame turn: 20..70 degrees about a tilted axis, fixed per joint."""
    angle = math.radians(20 + (j * 37) % 51)
    axis = (math.sin(j * 1.3 + 0.4), math.cos(j * 0.7), math.sin(j * 2.1 + 1.0) * 0.8 + 0.3)
    n = math.sqrt(sum(a * a for a in axis))
    s = math.sin(angle / 2) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2))


def strip(gltf):
    gltf.pop('animations', None)
    return gltf


def renamed(gltf, binary):
    mapping = {}
    for i, node in enumerate(gltf['nodes']):
        if 'name' in node:
            new = 'n%d_%s' % (i, node['name'][::-1])
            mapping[new] = node['name']
            node['name'] = new
    return gltf, binary, mapping


def rerested(gltf, binary):
    joints = sorted({j for skin in gltf.get('skins', []) for j in skin['joints']})
    turn = {j: turn_of(j) for j in joints}
    parent = {}
    for i, node in enumerate(gltf['nodes']):
        for c in node.get('children', []):
            parent[c] = i
    ident = (0.0, 0.0, 0.0, 1.0)
    for i, node in enumerate(gltf['nodes']):
        d_parent, d_self = turn.get(parent.get(i), ident), turn.get(i, ident)
        if d_parent == ident and d_self == ident:
            continue
        assert 'matrix' not in node, 'a joint or a joint\'s child given as a matrix'
        t = node.get('translation', [0.0, 0.0, 0.0])
        q = node.get('rotation', [0.0, 0.0, 0.0, 1.0])
        node['translation'] = list(qrot(qconj(d_parent), t))
        node['rotation'] = list(qmul(qmul(qconj(d_parent), q), d_self))
    for skin in gltf.get('skins', []):
        ibm = read_floats(gltf, binary, skin['inverseBindMatrices'])
        out = [mmul(qmat(qconj(turn[j])), list(m)) for j, m in zip(skin['joints'], ibm)]
        binary = replace_floats(gltf, binary, skin['inverseBindMatrices'], out)
    return gltf, binary


def scaled(gltf, binary):
    for node in gltf['nodes']:
        if 'translation' in node:
            node['translation'] = [v * SCALE for v in node['translation']]
        if 'matrix' in node:
            node['matrix'] = [v * SCALE if k in (12, 13, 14) else v for k, v in enumerate(node['matrix'])]
    done = set()
    for mesh in gltf['meshes']:
        for prim in mesh['primitives']:
            for attrs in [prim['attributes']] + prim.get('targets', []):
                a = attrs.get('POSITION')
                if a is None or a in done:
                    continue
                done.add(a)
                binary = replace_floats(gltf, binary, a, [[v * SCALE for v in p] for p in read_floats(gltf, binary, a)])
    for skin in gltf.get('skins', []):
        a = skin['inverseBindMatrices']
        if a in done:
            continue
        done.add(a)
        binary = replace_floats(gltf, binary, a, [[v * SCALE if k in (12, 13, 14) else v for k, v in enumerate(m)]
                                                  for m in read_floats(gltf, binary, a)])
    return gltf, binary


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    gltf, binary = read_glb(source)
    g, b, mapping = renamed(strip(json.loads(json.dumps(gltf))), bytearray(binary))
    write_glb(os.path.join(out, 'renamed.glb'), g, b)
    with open(os.path.join(out, 'renamed_map.json'), 'w') as f:
        json.dump(mapping, f, indent=1)
    g, b = rerested(strip(json.loads(json.dumps(gltf))), bytearray(binary))
    write_glb(os.path.join(out, 'rerested.glb'), g, b)
    g, b = scaled(strip(json.loads(json.dumps(gltf))), bytearray(binary))
    write_glb(os.path.join(out, 'scaled.glb'), g, b)


if __name__ == '__main__':
    main()
