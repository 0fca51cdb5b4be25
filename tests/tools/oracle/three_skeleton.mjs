// three_skeleton.mjs - a second opinion on poses Skinview builds from more
// than one file or from a file without a mesh, from three.js (no code
// shared with Assimp). Written for Skinview's tests; runs where
// tools/setup-oracle.sh installed three.js (it copies this file there).
//
//   node three_skeleton.mjs MODEL OUT_{t}.json --time T[,T...] [--action NAME]
//        [--anim-file FILE]... [--joints | --stick-mesh]
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
  console.error('usage: node three_skeleton.mjs MODEL OUT_{t}.json --time T[,T...] [--action NAME] [--anim-file FILE]... [--joints | --stick-mesh]');
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
  return await new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
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
const action = mixer.clipAction(clip);
action.setLoop(THREE.LoopOnce);
action.clampWhenFinished = true;
action.play();

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
  const lo = [0, 1, 2].map(k => Math.min(...positions.filter((_, i) => i % 3 === k)));
  const hi = [0, 1, 2].map(k => Math.max(...positions.filter((_, i) => i % 3 === k)));
  const file = out.replace('{t}', token);
  fs.writeFileSync(file, JSON.stringify({
    generator: `three.js r${THREE.REVISION} three_skeleton.mjs`, model, t: Number(token), clip: clip.name,
    num_points_total: positions.length / 3, aabb: { min: lo, max: hi }, meshes: [{ positions }],
  }));
  console.log(`three_skeleton: wrote ${file} (${positions.length / 3} points, clip ${clip.name})`);
}
