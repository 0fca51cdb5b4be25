// fbx_influences.mjs - every skin influence of a binary FBX file's control
// points, read from the file by hand (three.js's FBXLoader keeps the 4
// largest of a vertex's and drops the rest, so three_skeleton.mjs
// --all-influences needs them from elsewhere; Assimp is not asked).
//
//   import { fbxInfluences } from './fbx_influences.mjs';
//   fbxInfluences(bytes) -> [{ model, positions, influences, geometric }]
//
// One entry per skinned geometry: `model` the name of the Model node it
// hangs on, `positions` its control points (Vertices, x y z doubles),
// `influences[k]` control point k's [boneName, weight] pairs from every
// Cluster of its Skin (the bone being the Model the cluster links), and
// `geometric` whether that Model carries a GeometricTranslation, Rotation
// or Scaling (which three applies to the points before skinning).
//
// The binary format as documented by its readers (Blender's, three's, the
// Autodesk SDK's descriptions): a 27-byte header (magic, version at 23),
// then node records - end offset, property count, property bytes (each
// 4 bytes before version 7500, 8 from it), a name length byte, the name,
// the properties, nested records, and a record of zeros closing a list.
// Property codes: Y C I F D L scalars; f d l i b c arrays (length,
// encoding 1 = zlib, compressed length, data); S R length-prefixed bytes.
import zlib from 'zlib';

function readNodes(bytes) {
  if (bytes.toString('latin1', 0, 20) !== 'Kaydara FBX Binary  ')
    throw new Error('not a binary FBX file (an ASCII one is not read here)');
  const version = bytes.readUInt32LE(23), wide = version >= 7500, word = wide ? 8 : 4;
  const uint = at => (wide ? Number(bytes.readBigUInt64LE(at)) : bytes.readUInt32LE(at));
  const scalar = { Y: [2, 'readInt16LE'], C: [1, 'readUInt8'], I: [4, 'readInt32LE'], F: [4, 'readFloatLE'], D: [8, 'readDoubleLE'] };
  const array = { f: [4, 'readFloatLE'], d: [8, 'readDoubleLE'], i: [4, 'readInt32LE'], b: [1, 'readUInt8'], c: [1, 'readUInt8'] };
  function property(at) {
    const code = String.fromCharCode(bytes[at++]);
    if (scalar[code]) return [bytes[scalar[code][1]](at), at + scalar[code][0]];
    if (code === 'L') return [bytes.readBigInt64LE(at).toString(), at + 8];
    if (code === 'S' || code === 'R') {
      const n = bytes.readUInt32LE(at);
      return [code === 'S' ? bytes.toString('latin1', at + 4, at + 4 + n) : bytes.subarray(at + 4, at + 4 + n), at + 4 + n];
    }
    if (array[code] || code === 'l') {
      const count = bytes.readUInt32LE(at), encoding = bytes.readUInt32LE(at + 4), size = bytes.readUInt32LE(at + 8);
      const raw = bytes.subarray(at + 12, at + 12 + size);
      const data = encoding === 1 ? zlib.inflateSync(raw) : raw;
      const [width, read] = code === 'l' ? [8, null] : array[code];
      if (data.length !== count * width) throw new Error(`an array property of ${count} holds ${data.length} bytes`);
      const values = [];
      for (let k = 0; k < count; k++) values.push(read ? data[read](k * width) : data.readBigInt64LE(k * width).toString());
      return [values, at + 12 + size];
    }
    throw new Error(`unknown property code '${code}' at byte ${at - 1}`);
  }
  // One record at `at`: [node, next], node null for a closing record.
  function record(at) {
    const end = uint(at), count = uint(at + word), nameLength = bytes[at + 3 * word];
    if (end === 0) return [null, at + 3 * word + 1];
    if (end > bytes.length || end <= at) throw new Error(`a record at byte ${at} ends at ${end}`);
    let p = at + 3 * word + 1;
    const name = bytes.toString('latin1', p, p + nameLength);
    p += nameLength;
    const props = [];
    for (let k = 0; k < count; k++) {
      const [value, next] = property(p);
      props.push(value);
      p = next;
    }
    const children = [];
    while (p < end) {
      const [child, next] = record(p);
      p = next;
      if (!child) break;
      children.push(child);
    }
    return [{ name, props, children }, end];
  }
  const top = [];
  for (let at = 27; at + 3 * word + 1 <= bytes.length;) {
    const [node, next] = record(at);
    if (!node) break;
    top.push(node);
    at = next;
  }
  return top;
}

const child = (node, name) => node.children.find(c => c.name === name);
const objectName = text => String(text).split('\x00\x01')[0];

export function fbxInfluences(bytes) {
  const top = readNodes(bytes);
  const objects = top.find(n => n.name === 'Objects'), connections = top.find(n => n.name === 'Connections');
  if (!objects || !connections) throw new Error('no Objects or Connections section');
  const byId = new Map(objects.children.map(o => [String(o.props[0]), o]));
  const links = connections.children.filter(c => c.name === 'C' && c.props[0] === 'OO').map(c => [String(c.props[1]), String(c.props[2])]);
  const childrenOf = id => links.filter(([, parent]) => parent === id).map(([c]) => byId.get(c)).filter(Boolean);
  const parentsOf = id => links.filter(([c]) => c === id).map(([, parent]) => byId.get(parent)).filter(Boolean);
  const result = [];
  for (const geometry of objects.children.filter(o => o.name === 'Geometry' && o.props[2] === 'Mesh')) {
    const gid = String(geometry.props[0]);
    const skins = childrenOf(gid).filter(d => d.name === 'Deformer' && d.props[2] === 'Skin');
    if (skins.length === 0) continue;
    const models = parentsOf(gid).filter(m => m.name === 'Model');
    if (models.length !== 1) throw new Error(`geometry ${objectName(geometry.props[1])} hangs on ${models.length} models`);
    const vertices = child(geometry, 'Vertices');
    if (!vertices) throw new Error(`geometry ${objectName(geometry.props[1])} has no Vertices`);
    const positions = vertices.props[0];
    const influences = Array.from({ length: positions.length / 3 }, () => []);
    for (const skin of skins)
      for (const cluster of childrenOf(String(skin.props[0])).filter(d => d.name === 'Deformer' && d.props[2] === 'Cluster')) {
        const bones = childrenOf(String(cluster.props[0])).filter(m => m.name === 'Model');
        const indexes = child(cluster, 'Indexes'), weights = child(cluster, 'Weights');
        if (!indexes || !weights) continue; // a cluster that weights nothing
        if (bones.length !== 1) throw new Error(`cluster ${objectName(cluster.props[1])} links ${bones.length} models`);
        const bone = objectName(bones[0].props[1]);
        indexes.props[0].forEach((k, j) => {
          if (k < 0 || k >= influences.length) throw new Error(`cluster ${bone} weights control point ${k} of ${influences.length}`);
          influences[k].push([bone, weights.props[0][j]]);
        });
      }
    const properties = child(models[0], 'Properties70');
    const geometric = (properties ? properties.children : []).some(p =>
      /^Geometric(Translation|Rotation|Scaling)$/.test(p.props[0]) &&
      p.props.slice(4).some(v => v !== (p.props[0] === 'GeometricScaling' ? 1 : 0)));
    result.push({ model: objectName(models[0].props[1]), positions, influences, geometric });
  }
  return result;
}
