// three_skeleton.mjs - a second opinion on poses Skinview builds from more
// than one file or from a file without a mesh, from three.js (no code
// shared with Assimp). Written for Skinview's tests; runs where
// tools/setup-oracle.sh installed three.js (it copies this file there).
//
//   node three_skeleton.mjs MODEL OUT_{t}.json --time T[,T...] [--action NAME]
//        [--anim-file FILE]... [--joints | --stick-mesh] [--blend A,B,W]
//
// MODEL and each --anim-file are read with three's FBXLoader (.fbx),
// GLTFLoader (.gltf/.glb) or BVHLoader (.bvh: one skeleton, one clip).
// The clip NAME (default: the first) is taken from
// the anim files if any, else from MODEL, and played on MODEL with
// three's AnimationMixer, which binds tracks to objects by name - the way
// Skinview's --anim-file binds channels to nodes. Output (the skinned-points
// JSON of ../shared/oracle/compare.py): with --joints, the world position
// of every bone of MODEL (joints of a skeleton without a mesh); else every
// skinned vertex (CPU linear blend, three's applyBoneTransform); with
// --stick-mesh, the mesh Assimp builds for a skeleton without one (its
// SkeletonMeshBuilder, which the BVH reader calls), posed by three's bones:
// per joint, a pointer of 12 points to each child further than 1e-6 (ai_epsilon)
// (the child's rest position, and +-front, +-side at a tenth of its
// distance around the joint: up the child's direction, front = up x
// (1,0,0), or x (0,1,0) where up is within acos 0.99 of x; side = front x
// up); at a joint without children a knob of 24 points, +-0.18 x its own
// rest offset's length on each axis. Each point rides its joint rigidly,
// as Assimp weights them. Only the shape is Assimp's; the pose is three's
// reading of the file. FBX: the
// loader's Z-up root rotation is undone, as Assimp keeps the file's axes.
// Time: absolute seconds on the clip's time line.
// --blend A,B,W: clips A and B (names) played together, at effective
// weights 1 - W and W: three's mixer slerps the rotations and lerps the
// positions and scales by W, and a node only one clip animates is mixed
// with its rest transform for the other's share (Skinview's --blend, in
// the same words).
import fs from 'fs';
import * as THREE from 'three';
import { FBXLoader } from 'three/examples/jsm/loaders/FBXLoader.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';

globalThis.window ??= { innerWidth: 1, innerHeight: 1 };
globalThis.ProgressEvent ??= class extends Event {};

const args = process.argv.slice(2);
const value = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const values = flag => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
const [model, out] = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && ['--time', '--action', '--anim-file'].includes(args[i - 1])));
if (!model || !out) {
  console.error('usage: node three_skeleton.mjs MODEL OUT_{t}.json --time T[,T...] [--action NAME] [--anim-file FILE]... [--joints | --stick-mesh] [--blend A,B,W]');
  process.exit(2);
}

async function load(file) {
  const bytes = fs.readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  if (/\.bvh$/i.test(file)) {
    const { skeleton, clip } = new BVHLoader().parse(bytes.toString('latin1'));
    const group = new THREE.Group();
    group.add(skeleton.bones[0]);
    return { scene: group, animations: [clip] };
  }
  if (/\.fbx$/i.test(file)) {
    const group = new FBXLoader().parse(buffer, '');
    group.rotation.set(0, 0, 0);
    return { scene: group, animations: group.animations };
  }
  // glTF: read as one JSON with its buffers inline and no images or
  // materials (node has no image decoder; poses need none).
  let json, chunk = null;
  if (bytes.length >= 12 && bytes.readUInt32LE(0) === 0x46546c67) { // a GLB: chunks after a 12-byte header
    for (let at = 12; at + 8 <= bytes.length;) {
      const size = bytes.readUInt32LE(at), kind = bytes.readUInt32LE(at + 4), data = bytes.subarray(at + 8, at + 8 + size);
      if (kind === 0x4e4f534a) json = JSON.parse(data.toString('utf8'));
      else if (kind === 0x004e4942) chunk = data;
      at += 8 + size;
    }
  } else {
    json = JSON.parse(bytes.toString('utf8'));
  }
  for (const b of json.buffers || []) {
    if (b.uri !== undefined && b.uri.startsWith('data:')) continue;
    const data = b.uri === undefined ? chunk : fs.readFileSync(`${file.replace(/[^/]*$/, '')}${decodeURIComponent(b.uri)}`);
    b.uri = `data:application/octet-stream;base64,${Buffer.from(data).toString('base64')}`;
  }
  for (const key of ['images', 'textures', 'samplers', 'materials']) delete json[key];
  for (const mesh of json.meshes || []) for (const p of mesh.primitives || []) delete p.material;
  return await new Promise((resolve, reject) => new GLTFLoader().parse(JSON.stringify(json), '', resolve, reject));
}

const base = await load(model);
const sources = values('--anim-file');
const clips = sources.length ? (await Promise.all(sources.map(load))).flatMap(s => s.animations) : base.animations;
const wanted = value('--action', undefined);
const clip = wanted === undefined ? clips[0] : clips.find(c => c.name === wanted);
if (!clip) {
  console.error(`three_skeleton: no clip ${wanted ?? ''}; there are: ${clips.map(c => c.name).join(', ')}`);
  process.exit(1);
}
const root = base.scene;
// The stick mesh's points in each joint's own frame, from the rest pose
// (before the clip moves anything).
const stick = [];
if (args.includes('--stick-mesh')) {
  root.traverse(o => {
    if (!o.isBone) return;
    const local = [];
    const children = o.children.filter(c => c.isBone);
    if (children.length) {
      for (const c of children) {
        const to = c.position.clone(), length = to.length();
        if (length < 1e-6) continue;
        const up = to.clone().normalize();
        const orth = Math.abs(up.x) > 0.99 ? new THREE.Vector3(0, 1, 0) : new THREE.Vector3(1, 0, 0);
        const front = up.clone().cross(orth).normalize(), side = front.clone().cross(up).normalize();
        const f = front.multiplyScalar(0.1 * length), s = side.multiplyScalar(0.1 * length);
        local.push(f.clone().negate(), to, s.clone().negate(), s.clone().negate(), to, f, f, to, s, s, to, f.clone().negate());
      }
    } else {
      const k = 0.18 * o.position.length();
      for (const [x, y, z] of [[-k, 0, 0], [k, 0, 0], [0, -k, 0], [0, k, 0], [0, 0, -k], [0, 0, k]])
        for (let n = 0; n < 4; n++) local.push(new THREE.Vector3(x, y, z)); // the knob's 24 corners: 4 at each tip
    }
    stick.push({ joint: o, local: local.map(v => v.clone()) });
  });
}
const mixer = new THREE.AnimationMixer(root);
const blend = value('--blend', undefined);
const plays = [];
if (blend !== undefined) {
  const [a, b, w] = blend.split(',');
  for (const [name, weight] of [[a, 1 - Number(w)], [b, Number(w)]]) {
    const c = clips.find(k => k.name === name);
    if (!c || !(weight >= 0 && weight <= 1)) {
      console.error(`three_skeleton: --blend ${blend}: no clip ${name} or a weight outside 0..1`);
      process.exit(1);
    }
    plays.push([c, weight]);
  }
} else {
  plays.push([clip, 1]);
}
for (const [c, weight] of plays) {
  const action = mixer.clipAction(c);
  action.setLoop(THREE.LoopOnce);
  action.clampWhenFinished = true;
  action.setEffectiveWeight(weight);
  action.play();
}

for (const token of value('--time', '0').split(',')) {
  mixer.setTime(Number(token));
  root.updateMatrixWorld(true);
  const positions = [];
  const v = new THREE.Vector3();
  if (args.includes('--stick-mesh')) {
    for (const { joint, local } of stick)
      for (const p of local) {
        v.copy(p).applyMatrix4(joint.matrixWorld);
        positions.push(v.x, v.y, v.z);
      }
  } else if (args.includes('--joints')) {
    root.traverse(o => {
      if (o.isBone) {
        v.setFromMatrixPosition(o.matrixWorld);
        positions.push(v.x, v.y, v.z);
      }
    });
  } else {
    root.traverse(o => {
      if (!o.isMesh) return;
      const p = o.geometry.attributes.position;
      if (o.isSkinnedMesh) o.skeleton.update();
      for (let i = 0; i < p.count; i++) {
        v.fromBufferAttribute(p, i);
        if (o.isSkinnedMesh) o.applyBoneTransform(i, v);
        v.applyMatrix4(o.matrixWorld);
        positions.push(v.x, v.y, v.z);
      }
    });
  }
  const played = plays.map(([c, weight]) => (plays.length > 1 ? `${c.name} x ${weight}` : c.name)).join(' + ');
  const lo = [0, 1, 2].map(k => Math.min(...positions.filter((_, i) => i % 3 === k)));
  const hi = [0, 1, 2].map(k => Math.max(...positions.filter((_, i) => i % 3 === k)));
  const file = out.replace('{t}', token);
  fs.writeFileSync(file, JSON.stringify({
    generator: `three.js r${THREE.REVISION} three_skeleton.mjs`, model, t: Number(token), clip: played,
    num_points_total: positions.length / 3, aabb: { min: lo, max: hi }, meshes: [{ positions }],
  }));
  console.log(`three_skeleton: wrote ${file} (${positions.length / 3} points, clip ${played})`);
}
