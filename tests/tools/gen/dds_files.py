"""dds_files.py - one texture as a PNG and as DDS files in every encoding
Skinview reads, for the DDS tests (e2e_dds.sh, the DDS fuzz seeds).

  dds_files.py OUT_DIR [SIDE]

writes OUT_DIR/tex.png (SIDE x SIDE, default 64: smooth gradients, a
bright disc, a dark ring, alpha falling off to the right) and, of the same
texels, tex_bc1.dds (legacy DXT1), tex_bc2.dds (DXT3), tex_bc3.dds (DXT5),
tex_bc4.dds (ATI1: the red channel), tex_bc5.dds (ATI2: red and green),
tex_bc7.dds (DX10 header, BC7 mode 6 blocks), tex_bc1_dx10.dds,
tex_bgra.dds and tex_bgr.dds (masks), tex_lum.dds (luminance), each with
its whole mip chain (the reader uses the top level). The encoders are the
simplest that are correct: each block's endpoints are its extremes on
each channel, each texel the nearest palette entry; good enough that a
render with the DDS matches the PNG's within the golden metric."""
import math, os, struct, sys, zlib


def image(side):
    texels = []
    for y in range(side):
        for x in range(side):
            u, v = (x + 0.5) / side, (y + 0.5) / side
            r = 40 + 180 * u
            g = 60 + 150 * v
            b = 200 - 120 * u * v
            d = math.hypot(u - 0.4, v - 0.45)
            if d < 0.18:
                r, g, b = 250, 230, 120
            elif d < 0.24:
                r, g, b = 30, 20, 40
            a = 255 - 200 * u
            texels.append(tuple(int(round(max(0, min(255, c)))) for c in (r, g, b, a)))
    return texels


def png(path, side, texels):
    rows = b''.join(b'\0' + bytes(c for t in texels[y * side:(y + 1) * side] for c in t) for y in range(side))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', side, side, 8, 6, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))


def mips(side, texels):
    """The chain: each level the box average of the one above."""
    levels = [(side, texels)]
    while side > 1:
        half = side // 2
        prev = levels[-1][1]
        out = []
        for y in range(half):
            for x in range(half):
                quad = [prev[(2 * y + dy) * side + 2 * x + dx] for dy in (0, 1) for dx in (0, 1)]
                out.append(tuple((sum(q[c] for q in quad) + 2) // 4 for c in range(4)))
        levels.append((half, out))
        side = half
    return levels


def blocks(side, texels):
    for by in range(0, side, 4):
        for bx in range(0, side, 4):
            yield [texels[min(by + y, side - 1) * side + min(bx + x, side - 1)] for y in range(4) for x in range(4)]


def to565(c):
    return (c[0] * 31 + 127) // 255 << 11 | (c[1] * 63 + 127) // 255 << 5 | (c[2] * 31 + 127) // 255


def from565(v):
    r, g, b = v >> 11 & 31, v >> 5 & 63, v & 31
    return (r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2)


def colour_block(block):
    """Four-colour BC1 (c0 > c1): extremes by luminance, nearest entries."""
    lum = lambda c: 2 * c[0] + 5 * c[1] + c[2]
    hi, lo = max(block, key=lum), min(block, key=lum)
    c0, c1 = to565(hi), to565(lo)
    if c0 < c1:
        c0, c1 = c1, c0
    if c0 == c1:
        return struct.pack('<HHI', c0, c1, 0)
    p0, p1 = from565(c0), from565(c1)
    palette = [p0, p1, tuple((2 * a + b + 1) // 3 for a, b in zip(p0, p1)),
               tuple((a + 2 * b + 1) // 3 for a, b in zip(p0, p1))]
    bits = 0
    for t, c in enumerate(block):
        best = min(range(4), key=lambda i: sum((palette[i][k] - c[k]) ** 2 for k in range(3)))
        bits |= best << (2 * t)
    return struct.pack('<HHI', c0, c1, bits)


def value_block(values):
    """BC3 alpha / BC4 / BC5 channel: a0 > a1, eight values."""
    a0, a1 = max(values), min(values)
    if a0 == a1:
        return bytes([a0, a1]) + bytes(6)
    palette = [a0, a1] + [((7 - i) * a0 + i * a1 + 3) // 7 for i in range(1, 7)]
    bits = 0
    for t, v in enumerate(values):
        bits |= min(range(8), key=lambda i: abs(palette[i] - v)) << (3 * t)
    return bytes([a0, a1]) + bits.to_bytes(6, 'little')


def bc7_mode6(block):
    """Mode 6: one subset, RGBA endpoints of 7 bits and a p-bit each,
    4-bit indices (texel 0's top bit implied 0: the endpoints are swapped
    where it would be 1)."""
    e0 = [min(c[k] for c in block) for k in range(4)]
    e1 = [max(c[k] for c in block) for k in range(4)]

    def quant(e):  # 7 bits + p-bit: the 8-bit value's top 7 bits, its lowest bit as p
        q = [v >> 1 for v in e]
        p = 1 if sum(v & 1 for v in e) >= 2 else 0
        return q, p, [(v << 1 | p) for v in q]
    q0, p0, v0 = quant(e0)
    q1, p1, v1 = quant(e1)
    weights = [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64]

    def palette(a, b):
        return [[((64 - w) * a[k] + w * b[k] + 32) >> 6 for k in range(4)] for w in weights]
    pal = palette(v0, v1)
    idx = [min(range(16), key=lambda i: sum((pal[i][k] - c[k]) ** 2 for k in range(4))) for c in block]
    if idx[0] >= 8:  # swap the ends: index i becomes 15 - i
        q0, q1, p0, p1 = q1, q0, p1, p0
        idx = [15 - i for i in idx]
    bits, at = 0, 0

    def put(v, n):
        nonlocal bits, at
        bits |= (v & ((1 << n) - 1)) << at
        at += n
    put(1 << 6, 7)
    for k in range(4):
        put(q0[k], 7)
        put(q1[k], 7)
    put(p0, 1)
    put(p1, 1)
    for t, i in enumerate(idx):
        put(i, 3 if t == 0 else 4)
    assert at == 128
    return bits.to_bytes(16, 'little')


def header(side, levels, four=None, dxgi=None, masks=None, bits=0, flags=0):
    h = bytearray(128)
    h[0:4] = b'DDS '
    struct.pack_into('<IIIIIII', h, 4, 124, 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000, side, side, 0, 0, levels)
    struct.pack_into('<II', h, 76, 32, flags if masks else 0x4)
    if masks:
        struct.pack_into('<IIIIII', h, 84, 0, bits, *masks)
    else:
        h[84:88] = four.encode()
    struct.pack_into('<I', h, 108, 0x1000 | 0x400000 | 0x8)
    if dxgi is not None:
        h += struct.pack('<IIIII', dxgi, 3, 0, 1, 0)
    return bytes(h)


def write(path, side, chain, encode, **head):
    with open(path, 'wb') as f:
        f.write(header(side, len(chain), **head))
        for level_side, texels in chain:
            f.write(encode(level_side, texels))


def main():
    out = sys.argv[1]
    side = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    os.makedirs(out, exist_ok=True)
    texels = image(side)
    png(os.path.join(out, 'tex.png'), side, texels)
    chain = mips(side, texels)
    each = lambda fn: (lambda s, t: b''.join(fn(b) for b in blocks(s, t)))
    bc1 = each(colour_block)
    bc2 = each(lambda b: sum(((c[3] + 8) // 17) << (4 * i) for i, c in enumerate(b)).to_bytes(8, 'little') +
               colour_block(b))
    bc3 = each(lambda b: value_block([c[3] for c in b]) + colour_block(b))
    bc4 = each(lambda b: value_block([c[0] for c in b]))
    bc5 = each(lambda b: value_block([c[0] for c in b]) + value_block([c[1] for c in b]))
    bc7 = each(bc7_mode6)
    opaque = [(s, [c[:3] + (255,) for c in t]) for s, t in chain]
    write(os.path.join(out, 'tex_bc1.dds'), side, opaque, bc1, four='DXT1')
    write(os.path.join(out, 'tex_bc1_dx10.dds'), side, opaque, bc1, four='DX10', dxgi=71)
    write(os.path.join(out, 'tex_bc2.dds'), side, chain, bc2, four='DXT3')
    write(os.path.join(out, 'tex_bc3.dds'), side, chain, bc3, four='DXT5')
    write(os.path.join(out, 'tex_bc4.dds'), side, chain, bc4, four='ATI1')
    write(os.path.join(out, 'tex_bc5.dds'), side, chain, bc5, four='ATI2')
    write(os.path.join(out, 'tex_bc7.dds'), side, chain, bc7, four='DX10', dxgi=98)
    write(os.path.join(out, 'tex_bgra.dds'), side, chain,
          lambda s, t: b''.join(bytes((c[2], c[1], c[0], c[3])) for c in t),
          masks=(0xff0000, 0xff00, 0xff, 0xff000000), bits=32, flags=0x41)
    write(os.path.join(out, 'tex_bgr.dds'), side, chain, lambda s, t: b''.join(bytes((c[2], c[1], c[0])) for c in t),
          masks=(0xff0000, 0xff00, 0xff, 0), bits=24, flags=0x40)
    write(os.path.join(out, 'tex_lum.dds'), side, chain, lambda s, t: bytes(c[0] for c in t),
          masks=(0xff, 0, 0, 0), bits=8, flags=0x20000)


main()
