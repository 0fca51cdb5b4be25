#!/usr/bin/env python3
"""nan_mutations.py OUTDIR [WORM.dae] - small hostile variants of one skinned
model whose numbers are finite in the file but make a naive pose NaN or
infinite (issue #21): scales of 0, +-1e30, 1e-30 and negative on the root
and the joints, inverse bind matrices all zero, singular or huge, keys of
1e38, positions whose product with a scale overflows. With WORM.dae also
Collada copies with <unit meter="0"> and a zero-scale joint matrix.
Writes one file per variant into OUTDIR and prints their names. Written at
test time; each file is a few KB.

The base model: a tube of 5 rings (y = 0 .. 2) under a node "Root", skinned
to joints "Lower" (at the origin) and "Upper" (at y = 1, child of Lower);
one clip "Bend" turns, moves and scales "Upper" over 0 .. 2 s."""
import math, os, re, sys
from glb import Glb

RINGS, SIDES, RADIUS = 5, 6, 0.25
IDENTITY = [1.0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]


def ibm_at(y):
    m = list(IDENTITY)
    m[13] = -y
    return m


def tube(name, root=None, lower=None, upper=None, ibms=None, times=(0.0, 1.0, 2.0),
         rotations=None, translations=None, scales=None, position_scale=1.0, mesh_matrix=None):
    """root/lower/upper: extra glTF node properties (e.g. {'scale': [...]})."""
    positions, normals, joints, weights, indices = [], [], [], [], []
    for r in range(RINGS):
        y = 2.0 * r / (RINGS - 1)
        up = min(1.0, max(0.0, (y - 0.75) / 0.5))
        for s in range(SIDES):
            a = 2 * math.pi * s / SIDES
            positions += [RADIUS * math.cos(a) * position_scale, y * position_scale, RADIUS * math.sin(a) * position_scale]
            normals += [math.cos(a), 0.0, math.sin(a)]
            joints += [0, 1, 0, 0]
            weights += [1.0 - up, up, 0.0, 0.0]
    for r in range(RINGS - 1):
        for s in range(SIDES):
            a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
            indices += [a, a + SIDES, b, b, a + SIDES, b + SIDES]
    n = RINGS * SIDES
    g = Glb()
    pos = g.add('f', positions, n, 'VEC3', 5126, min=[min(positions[k::3]) for k in range(3)],
                max=[max(positions[k::3]) for k in range(3)])
    nrm = g.add('f', normals, n, 'VEC3', 5126)
    jnt = g.add('H', joints, n, 'VEC4', 5123)
    wgt = g.add('f', weights, n, 'VEC4', 5126)
    idx = g.add('H', indices, len(indices), 'SCALAR', 5123)
    ibm = g.add('f', ibms if ibms is not None else ibm_at(0) + ibm_at(1), 2, 'MAT4', 5126)
    tim = g.add('f', list(times), len(times), 'SCALAR', 5126, min=[min(times)], max=[max(times)])
    if rotations is None:
        rotations = []
        for deg in (0, 45, 90):
            h = math.radians(deg) / 2
            rotations += [0.0, 0.0, math.sin(h), math.cos(h)]
    channels, samplers = [], []
    for path, values, kind in (('rotation', rotations, 'VEC4'), ('translation', translations, 'VEC3'),
                               ('scale', scales, 'VEC3')):
        if values is None:
            continue
        out = g.add('f', values, len(times), kind, 5126)
        samplers.append({'input': tim, 'output': out})
        channels.append({'sampler': len(samplers) - 1, 'target': {'node': 2, 'path': path}})
    nodes = [
        dict({'name': 'Root', 'children': [1, 3]}, **(root or {})),
        dict({'name': 'Lower', 'children': [2]}, **(lower or {})),
        dict({'name': 'Upper', 'translation': [0, 1, 0]}, **(upper or {})),
        dict({'name': 'Tube', 'mesh': 0, 'skin': 0}, **({'matrix': mesh_matrix} if mesh_matrix else {})),
    ]
    gltf = {
        'asset': {'version': '2.0', 'generator': 'skinview tests/tools/gen/nan_mutations.py'},
        'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': nodes,
        'meshes': [{'name': 'tube', 'primitives': [{'attributes': {'POSITION': pos, 'NORMAL': nrm, 'JOINTS_0': jnt,
                                                                   'WEIGHTS_0': wgt}, 'indices': idx}]}],
        'skins': [{'joints': [1, 2], 'inverseBindMatrices': ibm, 'skeleton': 1}],
        'animations': [{'name': 'Bend', 'channels': channels, 'samplers': samplers}],
    }
    g.write(os.path.join(OUT, name + '.glb'), gltf)
    print(name + '.glb')


def scaled(s):
    return {'scale': [s, s, s]}


OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
tube('base')
for label, s in (('0', 0.0), ('1e30', 1e30), ('-1e30', -1e30), ('1e-30', 1e-30), ('-1', -1.0)):
    tube('root_scale_' + label, root=scaled(s))
    tube('joint_scale_' + label, lower=scaled(s))
tube('upper_scale_0', upper=dict(scaled(0.0), translation=[0, 1, 0]))
tube('upper_scale_1e30', upper=dict(scaled(1e30), translation=[0, 1, 0]))
tube('ibm_zero', ibms=[0.0] * 32)
flat = list(IDENTITY)
flat[5] = 0.0  # y squashed: singular
tube('ibm_singular', ibms=flat + flat)
huge = [v * 1e30 for v in IDENTITY]
tube('ibm_1e30', ibms=huge + huge)
tube('key_translation_1e38', translations=[0, 1, 0, 1e38, 1e38, 0, 0, 1, 0])
tube('key_scale_1e38', scales=[1, 1, 1, 1e38, 1e38, 1e38, 1, 1, 1])
tube('key_scale_-1e38', scales=[1, 1, 1, -1e38, 1, 1, 1, 1, 1])
tube('key_scale_0', scales=[1, 1, 1, 0, 0, 0, 1, 1, 1])
tube('key_rotation_1e38', rotations=[0, 0, 0, 1, 1e38, 1e38, 1e38, 1e38, 0, 0, 0, 1])
tube('key_times_1e38', times=(0.0, 1.0, 1e38))
# Finite everywhere, infinite as products: 1e30 x 1e30 overflows a float.
tube('overflow_scale_chain', root=scaled(1e30), lower=scaled(1e30), upper=dict(scaled(1e30), translation=[0, 1, 0]))
tube('overflow_positions', root=scaled(1e20), position_scale=1e20)
tube('overflow_key_and_rest', lower=scaled(1e30), scales=[1, 1, 1, 1e30, 1e30, 1e30, 1, 1, 1])
tube('mesh_matrix_zero', mesh_matrix=[0.0] * 16)
tube('mesh_matrix_1e30', mesh_matrix=[v * 1e30 for v in IDENTITY])

if len(sys.argv) > 2:
    with open(sys.argv[2], encoding='utf-8') as f:
        worm = f.read()

    def dae(name, text):
        with open(os.path.join(OUT, name + '.dae'), 'w', encoding='utf-8') as f:
            f.write(text)
        print(name + '.dae')

    dae('collada_unit_0', re.sub(r'meter="[^"]*"', 'meter="0"', worm, count=1))
    dae('collada_unit_1e30', re.sub(r'meter="[^"]*"', 'meter="1e30"', worm, count=1))
    zero = '<matrix sid="transform">0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 1</matrix>'
    dae('collada_bone_scale_0', re.sub(r'(name="bone1"[^>]*>)<matrix sid="transform">[^<]*</matrix>',
                                       lambda m: m.group(1) + zero, worm, count=1))
    dae('collada_root_scale_0', re.sub(r'(name="bone0"[^>]*>)<matrix sid="transform">[^<]*</matrix>',
                                       lambda m: m.group(1) + zero, worm, count=1))
