// three_skeleton.mjs - a second opinion on poses Skinview builds from more
// than one file or from a file without a mesh, from three.js (no code
// shared with Assimp). Written for Skinview's tests; runs where
// tools/setup-oracle.sh installed three.js (it copies this file there).
//
//   node three_skeleton.mjs MODEL OUT_{t}.json --time T[,T...] [--action NAME]
//        [--anim-file FILE]... [--joints | --stick-mesh | --dual-quaternion] [--blend A,B,W] [--rest-pose]
//        [--all-influences]
//
// MODEL and each --anim-file are read with three's FBXLoader (.fbx),
// GLTFLoader (.gltf/.glb), BVHLoader (.bvh: one skeleton, one clip) or
// ColladaLoader (.dae, its root turned to Y up and scaled to metres, as
// Assimp does; the loader averages a joint's separately animated <rotate>
// channels, so only files without them fit: ../shared/oracle's README).
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
// --dual-quaternion: every skinned vertex blended as dual quaternions
// (Kavan et al. 2007) from three's skin matrices, which must be rigid: each
// matrix's rotation and translation as a unit dual quaternion, each turned
// to the hemisphere of the vertex's largest-weight bone's, summed by weight,
// divided by the rotation part's length, applied. A skin matrix with scale
// (beyond 1e-4) is refused: this blend has no place for it.
// --rest-pose: no clip plays; every node keeps its own transform (the
// file's rest pose, what Skinview's --bind-pose exports: for nearly every
// file the pose the mesh was bound in, but not where the inverse bind
// matrices say otherwise, e.g. SimpleSkin.gltf).
// --all-influences: every skinned vertex blended linearly from every
// influence the file gives it, not three's 4 (its loaders keep the 4
// largest and drop the rest), the weights divided by their sum: glTF
// from every JOINTS_n / WEIGHTS_n pair of the primitive, binary FBX from
// its clusters read by hand (fbx_influences.mjs), matched to three's
// vertices by position (a position two control points with different
// influences share is refused, as is a geometric transform). Bones,
// their inverses and the bind matrices are three's. With --dual-quaternion
// the whole lists are blended as dual quaternions; a vertex the file
// weights to nothing keeps three's own reading.
// Time: absolute seconds on the clip's time line.
// --blend A,B,W: clips A and B (names) played together, each on its own
// loop, at effective weights 1 - W and W: three's mixer slerps the
// rotations and lerps the positions and scales by W, and a node only one
// clip animates is mixed with its rest transform for the other's share
// (Skinview's --blend, in the same words).
import fs from 'fs';
import * as THREE from 'three';
import { FBXLoader } from 'three/examples/jsm/loaders/FBXLoader.js';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { ColladaLoader } from 'three/examples/jsm/loaders/ColladaLoader.js';
import { fbxInfluences } from './fbx_influences.mjs';

globalThis.window ??= { innerWidth: 1, innerHeight: 1 };
globalThis.ProgressEvent ??= class extends Event {};

const args = process.argv.slice(2);
const value = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const values = flag => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
const [model, out] = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && ['--time', '--action', '--anim-file'].includes(args[i - 1])));
if (!model || !out) {
  console.error('usage: node three_skeleton.mjs MODEL OUT_{t}.json --time T[,T...] [--action NAME] [--anim-file FILE]... ' +
    '[--joints | --stick-mesh | --dual-quaternion] [--blend A,B,W] [--rest-pose] [--all-influences]');
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
  if (/\.dae$/i.test(file)) {
    globalThis.DOMParser ??= (await import('@xmldom/xmldom')).DOMParser;
    const { scene } = new ColladaLoader().parse(bytes.toString('utf8').replace(/<library_images>[\s\S]*?<\/library_images>/, ''), '');
    return { scene, animations: scene.animations };
  }
  if (/\.fbx$/i.test(file)) {
    const group = new FBXLoader().parse(buffer, '');
    group.rotation.set(0, 0, 0);
    return { scene: group, animations: group.animations, bytes };
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
  const text = JSON.stringify(json);
  const gltf = await new Promise((resolve, reject) => new GLTFLoader().parse(text, '', resolve, reject));
  // The file as it was: three normalises a skinned mesh's WEIGHTS_0 in
  // place, in the accessor its parser caches (--all-influences reads them
  // here instead).
  return { scene: gltf.scene, animations: gltf.animations, parser: gltf.parser, json: JSON.parse(text) };
}

const base = await load(model);
const sources = values('--anim-file');
const clips = sources.length ? (await Promise.all(sources.map(load))).flatMap(s => s.animations) : base.animations;
const wanted = value('--action', undefined);
const clip = wanted === undefined ? clips[0] : clips.find(c => c.name === wanted);
if (!clip && (wanted !== undefined || clips.length > 0)) { // a file without clips is posed as it rests
  console.error(`three_skeleton: no clip ${wanted ?? ''}; there are: ${clips.map(c => c.name).join(', ')}`);
  process.exit(1);
}
const root = base.scene;

// --all-influences: per skinned mesh, per vertex, [bone index, weight]
// pairs (every influence, weights summing to 1).
const allInfluences = new Map();
function fail(message) {
  console.error(`three_skeleton: --all-influences: ${message}`);
  process.exit(1);
}
function normalised(pairs) {
  const kept = pairs.filter(([, w]) => w > 0), sum = kept.reduce((s, [, w]) => s + w, 0);
  return sum > 0 ? kept.map(([b, w]) => [b, w / sum]) : [];
}
if (args.includes('--all-influences')) {
  const skinned = [];
  root.traverse(o => o.isSkinnedMesh && skinned.push(o));
  if (base.parser) { // glTF: JOINTS_n / WEIGHTS_n of the primitive each mesh came from
    for (const o of skinned) {
      const at = base.parser.associations.get(o);
      const primitive = at && base.parser.json.meshes[at.meshes].primitives[at.primitives];
      if (!primitive) fail(`no glTF primitive for mesh ${o.name}`);
      const lists = Array.from({ length: o.geometry.attributes.position.count }, () => []);
      for (let n = 0; `JOINTS_${n}` in primitive.attributes; n++) {
        const joints = gltfVec4(base.json, primitive.attributes[`JOINTS_${n}`]);
        const weights = gltfVec4(base.json, primitive.attributes[`WEIGHTS_${n}`]);
        if (joints.length !== lists.length || weights.length !== lists.length) fail(`JOINTS_${n} or WEIGHTS_${n} of mesh ${o.name} has another vertex count`);
        for (let i = 0; i < lists.length; i++)
          for (let k = 0; k < 4; k++) lists[i].push([joints[i][k], weights[i][k]]);
      }
      allInfluences.set(o, lists.map(normalised));
    }
  } else if (base.bytes) { // binary FBX: the clusters, read by hand
    let geometries;
    try {
      geometries = fbxInfluences(base.bytes);
    } catch (e) {
      fail(e.message);
    }
    for (const o of skinned) {
      const matches = geometries.filter(g => THREE.PropertyBinding.sanitizeNodeName(g.model) === o.name);
      if (matches.length !== 1) fail(`mesh ${o.name} matches ${matches.length} skinned geometries of the file`);
      const g = matches[0];
      if (g.geometric) fail(`mesh ${o.name} has a geometric transform`);
      const boneIndex = new Map();
      o.skeleton.bones.forEach((b, i) => boneIndex.set(b.name, boneIndex.has(b.name) ? -1 : i));
      // three's vertex positions are the control points rounded to float.
      const byPosition = new Map();
      for (let k = 0; k < g.influences.length; k++) {
        const key = [0, 1, 2].map(c => Math.fround(g.positions[3 * k + c])).join(' ');
        const pairs = g.influences[k].map(([name, w]) => {
          const i = boneIndex.get(THREE.PropertyBinding.sanitizeNodeName(name));
          if (i === undefined || i < 0) fail(`bone ${name} is ${i === undefined ? 'not' : 'twice'} in mesh ${o.name}'s skeleton`);
          return [i, w];
        });
        const list = normalised(pairs), seen = byPosition.get(key);
        if (seen !== undefined && JSON.stringify(seen) !== JSON.stringify(list)) fail(`two control points of mesh ${o.name} at ${key} weigh differently`);
        byPosition.set(key, list);
      }
      const p = o.geometry.attributes.position;
      allInfluences.set(o, Array.from({ length: p.count }, (_, i) => {
        const list = byPosition.get([p.getX(i), p.getY(i), p.getZ(i)].join(' '));
        if (list === undefined) fail(`vertex ${i} of mesh ${o.name} is at no control point`);
        return list;
      }));
    }
  } else {
    fail('only glTF and binary FBX files are read for it');
  }
}
// A VEC4 accessor of the glTF as written (buffers inline as data URIs):
// one [x, y, z, w] a vertex, normalised integers as fractions.
function gltfVec4(json, index) {
  const a = json.accessors[index];
  if (!a || a.type !== 'VEC4' || a.sparse || a.bufferView === undefined) fail(`accessor ${index} is not a plain VEC4`);
  const view = json.bufferViews[a.bufferView];
  const data = Buffer.from(json.buffers[view.buffer].uri.split(',')[1], 'base64');
  const [width, read, scale] = { 5121: [1, 'readUInt8', 255], 5123: [2, 'readUInt16LE', 65535], 5126: [4, 'readFloatLE', 1] }[a.componentType] ?? fail(`accessor ${index}'s component type ${a.componentType}`);
  const stride = view.byteStride || 4 * width, start = (view.byteOffset || 0) + (a.byteOffset || 0);
  return Array.from({ length: a.count }, (_, i) => [0, 1, 2, 3].map(k => {
    const v = data[read](start + i * stride + k * width);
    return a.normalized && scale !== 1 ? v / scale : v;
  }));
}
// Vertex i of skinned mesh o blended from every influence (as
// applyBoneTransform, with the whole list). A vertex the file weights to
// nothing keeps three's own reading.
function allSkin(o, i, v) {
  const list = allInfluences.get(o)[i];
  if (list.length === 0) return o.applyBoneTransform(i, v);
  const base = v.clone().applyMatrix4(o.bindMatrix), m = new THREE.Matrix4(), sum = new THREE.Vector3();
  for (const [bone, w] of list) {
    m.multiplyMatrices(o.skeleton.bones[bone].matrixWorld, o.skeleton.boneInverses[bone]);
    sum.addScaledVector(base.clone().applyMatrix4(m), w);
  }
  v.copy(sum).applyMatrix4(o.bindMatrixInverse);
}
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
} else if (clip) {
  plays.push([clip, 1]);
}
for (const [c, weight] of args.includes('--rest-pose') ? [] : plays) {
  const action = mixer.clipAction(c);
  if (blend === undefined) {
    action.setLoop(THREE.LoopOnce);
    action.clampWhenFinished = true;
  } else {
    action.setLoop(THREE.LoopRepeat); // each clip on its own loop, as Skinview's --blend
  }
  action.setEffectiveWeight(weight);
  action.play();
}

// --dual-quaternion: vertex i of skinned mesh `o`, in place (bind space
// in, the mesh's space out, as applyBoneTransform).
const dualQuaternion = args.includes('--dual-quaternion');
function dqSkin(o, i, v) {
  const index = o.geometry.attributes.skinIndex, weight = o.geometry.attributes.skinWeight;
  const listed = allInfluences.has(o) ? allInfluences.get(o)[i] : [];
  const influences = listed.length ? [...listed]
    : [0, 1, 2, 3].map(k => [index.getComponent(i, k), weight.getComponent(i, k)]).filter(([, w]) => w > 0);
  influences.sort((a, b) => b[1] - a[1]);
  const m = new THREE.Matrix4(), q = new THREE.Quaternion(), t = new THREE.Vector3(), s = new THREE.Vector3();
  const real = [0, 0, 0, 0], dual = [0, 0, 0, 0];
  let pivot = null;
  for (const [bone, w] of influences) {
    // The skin matrix in bind space: bindMatrixInverse x boneWorld x boneInverse x bindMatrix.
    m.multiplyMatrices(o.skeleton.bones[bone].matrixWorld, o.skeleton.boneInverses[bone]);
    m.premultiply(o.bindMatrixInverse).multiply(o.bindMatrix);
    m.decompose(t, q, s);
    if (Math.max(Math.abs(s.x - 1), Math.abs(s.y - 1), Math.abs(s.z - 1)) > 1e-4) {
      console.error(`three_skeleton: --dual-quaternion: bone ${bone}'s skin matrix scales (${s.x}, ${s.y}, ${s.z})`);
      process.exit(1);
    }
    let r = [q.x, q.y, q.z, q.w];
    pivot ??= r;
    if (r[0] * pivot[0] + r[1] * pivot[1] + r[2] * pivot[2] + r[3] * pivot[3] < 0) r = r.map(c => -c);
    // dual part: 0.5 x (t, 0) x r
    const d = [0.5 * (t.x * r[3] + t.y * r[2] - t.z * r[1]), 0.5 * (-t.x * r[2] + t.y * r[3] + t.z * r[0]),
      0.5 * (t.x * r[1] - t.y * r[0] + t.z * r[3]), -0.5 * (t.x * r[0] + t.y * r[1] + t.z * r[2])];
    for (let c = 0; c < 4; c++) real[c] += w * r[c], dual[c] += w * d[c];
  }
  const n = Math.hypot(...real);
  const [x, y, z, w] = real.map(c => c / n), [dx, dy, dz, dw] = dual.map(c => c / n);
  // translation: 2 x dual x conjugate(real)
  const tx = 2 * (-dw * x + dx * w - dy * z + dz * y), ty = 2 * (-dw * y + dx * z + dy * w - dz * x),
    tz = 2 * (-dw * z - dx * y + dy * x + dz * w);
  v.applyQuaternion(new THREE.Quaternion(x, y, z, w)).add(new THREE.Vector3(tx, ty, tz));
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
        if (o.isSkinnedMesh && dualQuaternion) dqSkin(o, i, v);
        else if (o.isSkinnedMesh && allInfluences.has(o)) allSkin(o, i, v);
        else if (o.isSkinnedMesh) o.applyBoneTransform(i, v);
        v.applyMatrix4(o.matrixWorld);
        positions.push(v.x, v.y, v.z);
      }
    });
  }
  const played = args.includes('--rest-pose') ? 'none (rest pose)' : plays.length === 0 ? 'none (the file has none)'
    : plays.map(([c, weight]) => (plays.length > 1 ? `${c.name} x ${weight}` : c.name)).join(' + ');
  const lo = [0, 1, 2].map(k => Math.min(...positions.filter((_, i) => i % 3 === k)));
  const hi = [0, 1, 2].map(k => Math.max(...positions.filter((_, i) => i % 3 === k)));
  const file = out.replace('{t}', token);
  fs.writeFileSync(file, JSON.stringify({
    generator: `three.js r${THREE.REVISION} three_skeleton.mjs`, model, t: Number(token), clip: played,
    num_points_total: positions.length / 3, aabb: { min: lo, max: hi }, meshes: [{ positions }],
  }));
  console.log(`three_skeleton: wrote ${file} (${positions.length / 3} points, clip ${played})`);
}
