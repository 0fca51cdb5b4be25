#!/usr/bin/env python3
"""gltf_looks.py KIND OUT.glb - small glTF files for the material tests
(issue #19), each a .glb with its textures embedded as PNG:

  blend      a 2 x 2 quad facing +z, baseColorFactor (0.2, 0.4, 0.8, 0.5),
             alphaMode BLEND, double-sided: half the background shows through
  order      two such quads (alpha 0.6), a blue one 0.5 in front (+z) listed
             first and a red one 0.5 behind listed second, overlapping: drawn
             far to near, the overlap is mostly blue; in the file's order
             it would be mostly red
  mask       the same quad, white, with an 8 x 8 base colour texture whose
             left half has alpha 0 and right half alpha 255, alphaMode MASK
             (cutoff 0.5): the left half is not drawn at all
  srgb       the same quad, black and fully metal and rough (no diffuse, no
             specular to speak of), emissive factor 1 with a 4 x 4 emissive
             texture of sRGB grey 128: the pixel must read back 128
  maps       the quad, white, with one 8 x 8 texture as its metal-rough and
             occlusion map (glTF's packing: r occlusion, g roughness, b metal):
             left half rough dielectric, unoccluded; right half smooth metal,
             occlusion 0.25
  normal     a skinned tube (two joints, clip "Bend" turning the upper one
             by 0, 45, 90 degrees about z at 0, 1, 2 s), 24 sides, UVs
             around and along it, material with a normal map of ridges
  flat       the same tube and material without the normal map
  uvmap      the srgb quad with a 16 x 16 emissive texture of 4 x 4 blocks in
             16 colours (UVMAP_COLOURS, block (column, row) from the image's
             top left), under KHR_texture_transform UVMAP_TRANSFORM: its
             rotation and non-uniform scale tell the extension's order
             (T * R * S) and rotation sense from any other
  spheres    five spheres in a row, gold base colour, metallic 0, 0.25,
             0.5, 0.75, 1 and roughness 0.9 down to 0.1: the BRDF's range

Written by the test run (tests/tools/gen/generate.sh); only Python's standard
library."""
import math, struct, sys, zlib

from glb import Glb
from tube import quat

FLOAT, UINT16, UINT32 = 5126, 5123, 5125


def png(width, height, rgba):
    """An 8-bit RGBA PNG of `rgba` (rows top first, 4 bytes a texel)."""
    raw = b''.join(b'\0' + bytes(rgba[y * width * 4:(y + 1) * width * 4]) for y in range(height))

    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)

    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 6, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


class Builder:
    def __init__(self):
        self.glb = Glb()
        self.images, self.textures, self.materials, self.meshes = [], [], [], []

    def image(self, width, height, rgba):
        blob = png(width, height, rgba)
        self.glb.data += b'\0' * (-len(self.glb.data) % 4)
        self.glb.views.append({'buffer': 0, 'byteOffset': len(self.glb.data), 'byteLength': len(blob)})
        self.glb.data += blob
        self.images.append({'bufferView': len(self.glb.views) - 1, 'mimeType': 'image/png'})
        self.textures.append({'source': len(self.images) - 1})
        return len(self.textures) - 1

    def primitive(self, positions, normals, uvs, indices, material, joints=None, weights=None):
        n = len(positions) // 3
        attributes = {
            'POSITION': self.glb.add('f', positions, n, 'VEC3', FLOAT,
                                     min=[min(positions[k::3]) for k in range(3)],
                                     max=[max(positions[k::3]) for k in range(3)]),
            'NORMAL': self.glb.add('f', normals, n, 'VEC3', FLOAT),
            'TEXCOORD_0': self.glb.add('f', uvs, n, 'VEC2', FLOAT),
        }
        if joints:
            attributes['JOINTS_0'] = self.glb.add('H', joints, n, 'VEC4', UINT16)
            attributes['WEIGHTS_0'] = self.glb.add('f', weights, n, 'VEC4', FLOAT)
        return {'attributes': attributes, 'indices': self.glb.add('I', indices, len(indices), 'SCALAR', UINT32),
                'material': material}

    def write(self, path, gltf):
        gltf = dict(gltf, asset={'version': '2.0', 'generator': 'skinview tests/tools/gen/gltf_looks.py'},
                    materials=self.materials, meshes=self.meshes)
        if self.images:
            gltf.update(images=self.images, textures=self.textures)
        self.glb.write(path, gltf)


def quad(b, material):
    positions = [-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0]
    normals = [0, 0, 1] * 4
    uvs = [0, 1, 1, 1, 1, 0, 0, 0]  # glTF: v down the image
    b.meshes.append({'name': 'quad', 'primitives': [b.primitive(positions, normals, uvs, [0, 1, 2, 0, 2, 3], material)]})
    return {'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': [{'name': 'Quad', 'mesh': 0}]}


def blend(b):
    b.materials.append({'name': 'half_blue', 'doubleSided': True, 'alphaMode': 'BLEND',
                        'pbrMetallicRoughness': {'baseColorFactor': [0.2, 0.4, 0.8, 0.5], 'metallicFactor': 0.0}})
    return quad(b, 0)


def order(b):
    nodes = []
    for k, (name, color, z) in enumerate((('near_blue', [0.1, 0.2, 1.0, 0.6], 0.5), ('far_red', [1.0, 0.1, 0.1, 0.6], -0.5))):
        b.materials.append({'name': name, 'doubleSided': True, 'alphaMode': 'BLEND',
                            'pbrMetallicRoughness': {'baseColorFactor': color, 'metallicFactor': 0.0}})
        positions = [-1, -1, z, 1, -1, z, 1, 1, z, -1, 1, z]
        shift = 0.5 if k else -0.5  # overlapping in the middle
        positions = [p + (shift if i % 3 == 0 else 0) for i, p in enumerate(positions)]
        b.meshes.append({'name': name, 'primitives': [b.primitive(positions, [0, 0, 1] * 4, [0, 1, 1, 1, 1, 0, 0, 0],
                                                                  [0, 1, 2, 0, 2, 3], k)]})
        nodes.append({'name': name, 'mesh': k})
    return {'scene': 0, 'scenes': [{'nodes': [0, 1]}], 'nodes': nodes}


def mask(b):
    texels = []
    for y in range(8):
        for x in range(8):
            texels += [255, 255, 255, 0 if x < 4 else 255]
    b.materials.append({'name': 'right_half', 'doubleSided': True, 'alphaMode': 'MASK', 'alphaCutoff': 0.5,
                        'pbrMetallicRoughness': {'baseColorTexture': {'index': b.image(8, 8, texels)},
                                                 'metallicFactor': 0.0}})
    return quad(b, 0)


def srgb(b):
    grey = b.image(4, 4, [128, 128, 128, 255] * 16)
    b.materials.append({'name': 'emissive_grey', 'doubleSided': True, 'emissiveFactor': [1, 1, 1],
                        'emissiveTexture': {'index': grey},
                        'pbrMetallicRoughness': {'baseColorFactor': [0, 0, 0, 1], 'metallicFactor': 1.0,
                                                 'roughnessFactor': 1.0}})
    return quad(b, 0)


def maps(b):
    texels = []
    for y in range(8):
        for x in range(8):
            texels += [255, 255, 0, 255] if x < 4 else [64, 50, 255, 255]
    orm = b.image(8, 8, texels)
    b.materials.append({'name': 'orm', 'doubleSided': True, 'occlusionTexture': {'index': orm, 'strength': 1.0},
                        'pbrMetallicRoughness': {'baseColorFactor': [1, 1, 1, 1],
                                                 'metallicRoughnessTexture': {'index': orm}}})
    return quad(b, 0)


def ridges(width, height, count):
    """A tangent-space normal map of `count` ridges across u (x tilts)."""
    texels = []
    for y in range(height):
        for x in range(width):
            tilt = 0.6 * math.sin(2 * math.pi * count * (x + 0.5) / width)
            n = [tilt, 0.0, 1.0]
            length = math.sqrt(sum(c * c for c in n))
            texels += [round((c / length * 0.5 + 0.5) * 255) for c in n] + [255]
    return texels


def tube(b, normal_mapped):
    sides, rings, radius = 24, 17, 0.3
    positions, normals, uvs, joints, weights, indices = [], [], [], [], [], []
    for r in range(rings):
        y = 2.0 * r / (rings - 1)
        w1 = min(1.0, max(0.0, (y - 0.75) / 0.5))
        for s in range(sides + 1):  # a seam: the last column repeats the first with u = 1
            a = 2 * math.pi * s / sides
            c, sn = math.cos(a), math.sin(a)
            positions += [radius * c, y, -radius * sn]
            normals += [c, 0.0, -sn]
            uvs += [s / sides, 1.0 - y / 2.0]
            joints += [0, 1, 0, 0]
            weights += [1.0 - w1, w1, 0.0, 0.0]
    for r in range(rings - 1):
        for s in range(sides):
            a, c = r * (sides + 1) + s, (r + 1) * (sides + 1) + s
            indices += [a, a + 1, c + 1, a, c + 1, c]
    material = {'name': 'ridged' if normal_mapped else 'smooth',
                'pbrMetallicRoughness': {'baseColorFactor': [0.8, 0.55, 0.3, 1.0], 'metallicFactor': 0.0,
                                         'roughnessFactor': 0.45}}
    if normal_mapped:
        material['normalTexture'] = {'index': b.image(64, 16, ridges(64, 16, 8))}
    b.materials.append(material)
    b.meshes.append({'name': 'tube', 'primitives': [b.primitive(positions, normals, uvs, indices, 0, joints, weights)]})
    ibm = b.glb.add('f', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] +
                    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1], 2, 'MAT4', FLOAT)
    times = b.glb.add('f', [0.0, 1.0, 2.0], 3, 'SCALAR', FLOAT, min=[0.0], max=[2.0])
    turns = b.glb.add('f', sum((quat('z', d) for d in (0, 45, 90)), []), 3, 'VEC4', FLOAT)
    return {'scene': 0, 'scenes': [{'nodes': [0]}],
            'nodes': [{'name': 'Rig', 'children': [1, 2]}, {'name': 'TubeMesh', 'mesh': 0, 'skin': 0},
                      {'name': 'Lower', 'children': [3]}, {'name': 'Upper', 'translation': [0, 1, 0]}],
            'skins': [{'joints': [2, 3], 'inverseBindMatrices': ibm, 'skeleton': 2}],
            'animations': [{'name': 'Bend', 'samplers': [{'input': times, 'output': turns, 'interpolation': 'LINEAR'}],
                            'channels': [{'sampler': 0, 'target': {'node': 3, 'path': 'rotation'}}]}]}


def sphere(b, material, segments=32, rings=16):
    positions, normals, uvs, indices = [], [], [], []
    for r in range(rings + 1):
        theta = math.pi * r / rings
        for s in range(segments + 1):
            phi = 2 * math.pi * s / segments
            n = [math.sin(theta) * math.cos(phi), math.cos(theta), -math.sin(theta) * math.sin(phi)]
            positions += [0.45 * c for c in n]
            normals += n
            uvs += [s / segments, r / rings]
    for r in range(rings):
        for s in range(segments):
            a, c = r * (segments + 1) + s, (r + 1) * (segments + 1) + s
            indices += [a, c, a + 1, a + 1, c, c + 1]
    return b.primitive(positions, normals, uvs, indices, material)


# Every block a colour of sRGB levels 0, 128 and 255 that no other shares.
UVMAP_COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0),
                 (255, 0, 255), (0, 255, 255), (255, 255, 255), (128, 0, 0),
                 (0, 128, 0), (0, 0, 128), (128, 128, 0), (128, 0, 128),
                 (0, 128, 128), (255, 128, 0), (128, 255, 0), (0, 128, 255)]
UVMAP_TRANSFORM = {'offset': [0.25, 0.5], 'rotation': math.pi / 2, 'scale': [1.0, 0.5]}


def uvmap(b):
    texels = []
    for y in range(16):
        for x in range(16):
            texels += list(UVMAP_COLOURS[(y // 4) * 4 + x // 4]) + [255]
    blocks = b.image(16, 16, texels)
    b.materials.append({'name': 'emissive_blocks', 'doubleSided': True, 'emissiveFactor': [1, 1, 1],
                        'emissiveTexture': {'index': blocks,
                                            'extensions': {'KHR_texture_transform': UVMAP_TRANSFORM}},
                        'pbrMetallicRoughness': {'baseColorFactor': [0, 0, 0, 1], 'metallicFactor': 1.0,
                                                 'roughnessFactor': 1.0}})
    gltf = quad(b, 0)
    gltf['extensionsUsed'] = ['KHR_texture_transform']
    return gltf


def spheres(b):
    nodes = []
    for k in range(5):
        b.materials.append({'name': 'gold_m%.2f_r%.1f' % (k / 4, 0.9 - 0.2 * k),
                            'pbrMetallicRoughness': {'baseColorFactor': [1.0, 0.77, 0.34, 1.0],
                                                     'metallicFactor': k / 4, 'roughnessFactor': 0.9 - 0.2 * k}})
        b.meshes.append({'name': 'sphere%d' % k, 'primitives': [sphere(b, k)]})
        nodes.append({'name': 'Sphere%d' % k, 'mesh': k, 'translation': [k - 2.0, 0, 0]})
    return {'scene': 0, 'scenes': [{'nodes': list(range(5))}], 'nodes': nodes}


KINDS = {'blend': blend, 'order': order, 'mask': mask, 'srgb': srgb, 'maps': maps, 'normal': lambda b: tube(b, True),
         'flat': lambda b: tube(b, False), 'uvmap': uvmap, 'spheres': spheres}

if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit('usage: gltf_looks.py %s OUT.glb' % '|'.join(KINDS))
    builder = Builder()
    builder.write(sys.argv[2], KINDS[sys.argv[1]](builder))
