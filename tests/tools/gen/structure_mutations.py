#!/usr/bin/env python3
"""structure_mutations.py OUTDIR WORM.dae SEYMOUR.dae SIMPLESKIN.gltf TENTACLE.gltf SNAKE.fbx ARM.md5mesh WUSON.smd

Hostile files that know the formats, for tests/e2e/bad_input.sh (issue #17):
 - the fields a reader trusts, edited: Collada count/stride/offset
   attributes, <vcount> and <v>/<p> indices; glTF counts, byte lengths and
   offsets, accessor/node/skin references; ASCII FBX array counts (*N),
   polygon and weight indices, connections; MD5 joint/mesh/vertex/weight/
   frame counts, parent and weight indices;
 - numbers in each file replaced by nan, inf, 1e38, -1e38, 1e-45, 0, -1 or
   2^31 (one at a time and ten at a time);
 - node trees: cyclic (glTF children, Collada instance_node of itself, MD5
   and FBX parents), 100,000 deep (glTF, Collada, MD5);
 - 300 influences on one vertex (glTF, Collada, MD5) and a clip of a
   million keys (glTF);
 - splices: the head of one file on the tail of another (same and other
   formats);
 - long messages: files whose parse error quotes megabytes (SMD, OBJ,
   Collada, glTF, MD5).
Deterministic (fixed seeds). Writes the files into OUTDIR (companion files
.bin/.md5anim beside them) and prints one case per line: the file to
open. Written at test time; nothing is committed."""
import json, os, random, re, shutil, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from glb import Glb

out = sys.argv[1]
worm, seymour, simple, tentacle, snake, arm, wuson = sys.argv[2:9]
os.makedirs(out, exist_ok=True)
cases = []

NUMBER = re.compile(rb'(?<![\w.#"])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])')
HOSTILE_NUMBERS = [b'nan', b'NaN', b'inf', b'-inf', b'1e38', b'-1e38', b'3.4e39', b'1e-45', b'0', b'-1',
                   b'2147483648', b'4294967295']
HOSTILE_COUNTS = [b'0', b'1', b'-1', b'2147483647', b'4294967295', b'99999999999', b'65536', b'300']


def write(name, data, companions=()):
    path = os.path.join(out, name)
    with open(path, 'wb') as f:
        f.write(data)
    for src, dst in companions:
        if isinstance(src, bytes):
            with open(os.path.join(out, dst), 'wb') as f:
                f.write(src)
        else:
            shutil.copyfile(src, os.path.join(out, dst))
    cases.append(path)


def replace_at(data, match, value):
    return data[:match.start()] + value + data[match.end():]


def number_mutants(tag, ext, data, single, multi, seed, companions=lambda n: ()):
    """Numbers replaced: `single` files with one, `multi` with ten."""
    rng = random.Random(seed)
    spots = list(NUMBER.finditer(data))
    for i in range(single):
        m = rng.choice(spots)
        name = f'{tag}.num{i}{ext}'
        write(name, replace_at(data, m, rng.choice(HOSTILE_NUMBERS)), companions(name))
    for i in range(multi):
        picked = sorted(rng.sample(spots, min(10, len(spots))), key=lambda m: m.start(), reverse=True)
        mutated = data
        for m in picked:
            mutated = replace_at(mutated, m, rng.choice(HOSTILE_NUMBERS))
        name = f'{tag}.nums{i}{ext}'
        write(name, mutated, companions(name))


def field_mutants(tag, ext, data, pattern, per_field, seed, values=HOSTILE_COUNTS, companions=lambda n: ()):
    """Every match of `pattern` (group 1: the value) set to hostile values;
    at most `per_field` files per match, in all at most 30 per pattern."""
    rng = random.Random(seed)
    matches = list(re.finditer(pattern, data))
    rng.shuffle(matches)
    made = 0
    for m in matches:
        for value in rng.sample(values, min(per_field, len(values))):
            if made >= 30:
                return
            name = f'{tag}.field{seed}_{made}{ext}'
            write(name, data[:m.start(1)] + value + data[m.end(1):], companions(name))
            made += 1


def read(path):
    with open(path, 'rb') as f:
        return f.read()


# --- Collada ------------------------------------------------------------------
worm_data, seymour_data = read(worm), read(seymour)
for seed, (tag, data) in enumerate((('worm', worm_data), ('seymour', seymour_data))):
    number_mutants(tag, '.dae', data, 40 if tag == 'worm' else 20, 10 if tag == 'worm' else 5, seed=seed + 1)
    field_mutants(tag, '.dae', data, rb'count="(\d+)"', 3, 11)
    field_mutants(tag, '.dae', data, rb'(?:stride|offset|set)="(\d+)"', 2, 12)
    # Lists: one entry of <vcount>, <v> or <p> set to a huge or negative index.
    for element in (rb'vcount', rb'v', rb'p'):
        m = re.search(rb'<' + element + rb'>([^<]*)</' + element + rb'>', data)
        if not m:
            continue
        items = m.group(1).split()
        rng = random.Random(len(items))
        for i, value in enumerate((b'300', b'-1', b'4294967295', b'99999999', b'0')):
            changed = list(items)
            changed[rng.randrange(len(changed))] = value
            body = b' '.join(changed)
            write(f'{tag}.{element.decode()}{i}.dae', data[:m.start(1)] + body + data[m.end(1):])

# Cyclic: a node that instances itself; 100,000 nested nodes.
scene = re.search(rb'<visual_scene[^>]*>', worm_data)
cyclic = worm_data[:scene.end()] + b'<node id="loop" name="loop"><instance_node url="#loop"/></node>' + \
    worm_data[scene.end():]
write('worm.cyclic.dae', cyclic)
deep = b''.join(b'<node id="d%d" name="d%d">' % (i, i) for i in range(100000)) + b'</node>' * 100000
write('worm.deep100k.dae', worm_data[:scene.end()] + deep + worm_data[scene.end():])
# 300 influences on vertex 0: its <vcount> entry 300, its pairs repeated.
vw = re.search(rb'<vertex_weights count="\d+">.*?<vcount>([^<]*)</vcount>\s*<v>([^<]*)</v>', worm_data, re.S)
if vw:
    counts = vw.group(1).split()
    pairs = vw.group(2).split()
    first = int(counts[0])
    counts[0] = b'300'
    head = pairs[:2 * first]
    extra = (head * (300 // max(1, first) + 1))[:600]
    body = worm_data[:vw.start(1)] + b' '.join(counts) + worm_data[vw.end(1):vw.start(2)] + \
        b' '.join(extra + pairs[2 * first:]) + worm_data[vw.end(2):]
    write('worm.influences300.dae', body)

# --- glTF (text, and .glb built here) ------------------------------------------
simple_data = read(simple)
tentacle_data = read(tentacle)
tentacle_bin = os.path.join(os.path.dirname(tentacle), 'tentacle130_8w.bin')
with_bin = lambda name: ((tentacle_bin, 'tentacle130_8w.bin'),)
number_mutants('simpleskin', '.gltf', simple_data, 40, 10, seed=3)
number_mutants('tentacle', '.gltf', tentacle_data, 15, 5, seed=4, companions=with_bin)
for tag, data, comp in (('simpleskin', simple_data, lambda n: ()), ('tentacle', tentacle_data, with_bin)):
    field_mutants(tag, '.gltf', data, rb'"count":\s*(\d+)', 3, 21, companions=comp)
    field_mutants(tag, '.gltf', data, rb'"byte(?:Length|Offset|Stride)":\s*(\d+)', 2, 22, companions=comp)
    field_mutants(tag, '.gltf', data,
                  rb'"(?:bufferView|indices|POSITION|NORMAL|JOINTS_0|WEIGHTS_0|input|output|node|skin|mesh|'
                  rb'inverseBindMatrices|sampler)":\s*(\d+)', 2, 23, companions=comp)
    field_mutants(tag, '.gltf', data, rb'"(?:children|joints)":\s*\[(\d+)', 2, 24, companions=comp)

# Cyclic children, a node its own child, a 100,000-deep chain.
gltf = json.loads(simple_data)
looped = json.loads(simple_data)
looped['nodes'][2]['children'] = [1]
write('simpleskin.cycle.gltf', json.dumps(looped).encode())
self_child = json.loads(simple_data)
self_child['nodes'][1]['children'] = [1, 2]
write('simpleskin.selfchild.gltf', json.dumps(self_child).encode())
deep = json.loads(simple_data)
first = len(deep['nodes'])
deep['nodes'][2]['children'] = [first]
deep['nodes'] += [{'children': [first + i + 1]} for i in range(99999)] + [{}]
write('simpleskin.deep100k.gltf', json.dumps(deep, separators=(',', ':')).encode())


def skinned_quad(glb, influences):
    """A quad whose every vertex has `influences` joints, all different
    (JOINTS_n/WEIGHTS_n sets of four), over as many joints."""
    positions = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]
    attributes = {'POSITION': glb.add('f', positions, 4, 'VEC3', 5126, min=[0, 0, 0], max=[1, 1, 0])}
    for s in range(influences // 4):
        attributes[f'JOINTS_{s}'] = glb.add('H', [4 * s, 4 * s + 1, 4 * s + 2, 4 * s + 3] * 4, 4, 'VEC4', 5123)
        attributes[f'WEIGHTS_{s}'] = glb.add('f', [1.0 / influences] * 16, 4, 'VEC4', 5126)
    indices = glb.add('I', [0, 1, 2, 0, 2, 3], 6, 'SCALAR', 5125)
    ibm = glb.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] * influences, influences, 'MAT4', 5126)
    return attributes, indices, ibm


def skinned_gltf(glb, influences, **extra):
    """The quad's scene: its node, then `influences` joints in a chain."""
    attributes, indices, ibm = skinned_quad(glb, influences)
    joints = [{'name': f'j{j}', 'translation': [0, 0.01, 0], 'children': [j + 2] if j + 1 < influences else []}
              for j in range(influences)]
    for j in joints:
        if not j['children']:
            del j['children']
    return dict({'asset': {'version': '2.0'}, 'scene': 0, 'scenes': [{'nodes': [0, 1]}],
                 'nodes': [{'mesh': 0, 'skin': 0}] + joints,
                 'meshes': [{'primitives': [{'attributes': attributes, 'indices': indices}]}],
                 'skins': [{'joints': list(range(1, influences + 1)), 'inverseBindMatrices': ibm}]}, **extra)


glb = Glb()
glb.write(os.path.join(out, 'influences300.glb'), skinned_gltf(glb, 300))
cases.append(os.path.join(out, 'influences300.glb'))

glb = Glb()
keys = 1000000
times = glb.add('f', [i / 1000.0 for i in range(keys)], keys, 'SCALAR', 5126, min=[0.0], max=[(keys - 1) / 1000.0])
moves = glb.add('f', [((i % 100) / 100.0) if c == 1 else 0.0 for i in range(keys) for c in range(3)], keys, 'VEC3',
                5126)
glb.write(os.path.join(out, 'million_keys.glb'), skinned_gltf(glb, 4, animations=[
    {'name': 'million', 'samplers': [{'input': times, 'output': moves}],
     'channels': [{'sampler': 0, 'target': {'node': 2, 'path': 'translation'}}]}]))
cases.append(os.path.join(out, 'million_keys.glb'))

# --- ASCII FBX ------------------------------------------------------------------
snake_data = read(snake)
number_mutants('snake', '.fbx', snake_data, 40, 10, seed=5)
field_mutants('snake', '.fbx', snake_data, rb':\s*\*(\d+)', 3, 31)
for field in (rb'PolygonVertexIndex', rb'Indexes'):
    m = re.search(field + rb': \*\d+ \{\s*a: ([-\d,\s]+)', snake_data)
    if m:
        items = m.group(1).split(b',')
        for i, value in enumerate((b'99999999', b'-99999999', b'2147483647', b'-2147483648')):
            changed = list(items)
            changed[len(changed) // 3] = value
            write(f'snake.{field.decode()}{i}.fbx', snake_data[:m.start(1)] + b','.join(changed) + snake_data[m.end(1):])
connections = [m for m in re.finditer(rb'C: "OO",(\d+),(\d+)', snake_data)]
if connections:
    a, b = connections[0].group(1), connections[0].group(2)
    extra = b'\n\tC: "OO",%s,%s\n\tC: "OO",%s,%s\n' % (b, a, a, a)
    end = connections[-1].end()
    write('snake.cyclic.fbx', snake_data[:end] + extra + snake_data[end:])
    rng = random.Random(6)
    for i in range(10):
        m = rng.choice(connections)
        write(f'snake.conn{i}.fbx', replace_at(snake_data, m, b'C: "OO",%s,%s' % (m.group(2), m.group(1))))

# --- MD5 ------------------------------------------------------------------------
arm_data = read(arm)
anim_path = os.path.splitext(arm)[0] + '.md5anim'
anim_data = read(anim_path)
with_anim = lambda name: ((anim_path, os.path.splitext(name)[0] + '.md5anim'),)
number_mutants('arm', '.md5mesh', arm_data, 40, 10, seed=7, companions=with_anim)
field_mutants('arm', '.md5mesh', arm_data, rb'num(?:Joints|Meshes|verts|tris|weights) (\d+)', 4, 41,
              companions=with_anim)
field_mutants('arm', '.md5mesh', arm_data, rb'"joint\d"\t(-?\d+)', 4, 42, values=[b'0', b'1', b'2', b'3', b'-2',
              b'99', b'2147483647'], companions=with_anim)
field_mutants('arm', '.md5mesh', arm_data, rb'vert \d+ \( [^)]* \) \d+ (\d+)', 2, 43, companions=with_anim)
field_mutants('arm', '.md5mesh', arm_data, rb'weight \d+ (\d+)', 2, 44, companions=with_anim)
# The clip: counts, flags, parents, numbers (the mesh beside it unchanged).
for i, (pattern, values) in enumerate(((rb'num(?:Frames|Joints|AnimatedComponents) (\d+)', HOSTILE_COUNTS),
                                       (rb'frameRate (\d+)', [b'0', b'-1', b'2147483647']),
                                       (rb'"joint\d"\t-?\d+ (\d+)', [b'0', b'255', b'4294967295']))):
    rng = random.Random(50 + i)
    matches = list(re.finditer(pattern, anim_data))
    for j, m in enumerate(rng.sample(matches, min(4, len(matches)))):
        for k, value in enumerate(rng.sample(values, min(3, len(values)))):
            name = f'armanim{i}_{j}_{k}.md5mesh'
            mutated = anim_data[:m.start(1)] + value + anim_data[m.end(1):]
            write(name, arm_data, ((mutated, f'armanim{i}_{j}_{k}.md5anim'),))
rng = random.Random(8)
spots = list(NUMBER.finditer(anim_data))
for i in range(20):
    m = rng.choice(spots)
    write(f'armanimnum{i}.md5mesh', arm_data,
          ((replace_at(anim_data, m, rng.choice(HOSTILE_NUMBERS)), f'armanimnum{i}.md5anim'),))
# Parents in a cycle, a joint its own parent; 100,000 joints in a chain;
# 300 weights on vertex 0.
joints = re.search(rb'joints \{\n(.*?)\n\}', arm_data, re.S)
lines = joints.group(1).split(b'\n')
cyc = list(lines)
cyc[1] = re.sub(rb'\t-?\d+ ', b'\t2 ', cyc[1], count=1)
cyc[2] = re.sub(rb'\t-?\d+ ', b'\t1 ', cyc[2], count=1)
write('arm.cycle.md5mesh', arm_data[:joints.start(1)] + b'\n'.join(cyc) + arm_data[joints.end(1):], with_anim('arm.cycle.md5mesh'))
own = list(lines)
own[2] = re.sub(rb'\t-?\d+ ', b'\t2 ', own[2], count=1)
write('arm.ownparent.md5mesh', arm_data[:joints.start(1)] + b'\n'.join(own) + arm_data[joints.end(1):],
      with_anim('arm.ownparent.md5mesh'))
chain = b'\n'.join(b'\t"c%d"\t%d ( 0 0 0.01 ) ( 0 0 0 )' % (i, i - 1) for i in range(100000))
deep_mesh = re.sub(rb'numJoints \d+', b'numJoints 100000', arm_data[:joints.start(1)]) + chain + \
    arm_data[joints.end(1):]
write('arm.deep100k.md5mesh', deep_mesh)
vert0 = re.search(rb'vert 0 \( ([^)]*) \) (\d+) (\d+)', arm_data)
numweights = re.search(rb'numweights (\d+)', arm_data)
weight0 = re.search(rb'\tweight (\d+) (\d+) ([\d.]+) (\([^)]*\))', arm_data)
if vert0 and numweights and weight0:
    total = int(numweights.group(1))
    many = b''.join(b'\tweight %d 0 %.6f %s\n' % (total + i, 1.0 / 300, weight0.group(4)) for i in range(300))
    data = arm_data.replace(vert0.group(0), b'vert 0 ( %s ) %d 300' % (vert0.group(1), total), 1)
    data = data.replace(b'numweights %d' % total, b'numweights %d' % (total + 300), 1)
    last_weight = data.rfind(b'\tweight ')
    end_line = data.index(b'\n', last_weight) + 1
    write('arm.influences300.md5mesh', data[:end_line] + many + data[end_line:], with_anim('arm.influences300.md5mesh'))

# --- splices ----------------------------------------------------------------------
bases = [(worm_data, '.dae'), (seymour_data, '.dae'), (simple_data, '.gltf'), (snake_data, '.fbx'),
         (arm_data, '.md5mesh'), (read(wuson), '.smd')]
rng = random.Random(9)
for i in range(60):
    (a, ext), (b, _) = rng.choice(bases), rng.choice(bases)
    cut_a, cut_b = rng.randrange(1, len(a)), rng.randrange(len(b))
    write(f'splice{i}{ext}', a[:cut_a] + b[cut_b:])

# --- long messages ------------------------------------------------------------------
wuson_data = read(wuson)
lines = wuson_data.split(b'\n')
for i, line_no in enumerate((11, 50, 500)):
    changed = list(lines)
    changed[line_no] = b'{'
    write(f'wuson.mangled{i}.smd', b'\n'.join(changed))
junk = bytes(random.Random(10).choice(b'abcdefghij{}[]()<>"') for _ in range(2_000_000))
write('long_line.obj', b'v ' + junk + b'\nf 1 2 3\n')
write('long_number.dae', worm_data.replace(b'<float_array', b'<float_array bad="1"', 1).replace(
    b'</float_array>', b' 1.' + b'2.' * 500000 + b'3</float_array>', 1))
write('long_string.gltf', b'{"asset":{"version":"2.0"},"nodes":[{"name":"' + b'\\u001b[2J' * 100000 + b'"},' + junk[:100000] + b']}')
write('long_token.md5mesh', arm_data.replace(b'numJoints', b'numJoints' + junk[:1000000], 1), with_anim('long_token.md5mesh'))

for path in cases:
    print(path)
