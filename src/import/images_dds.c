/* images_dds.c - DirectDraw Surface textures (images.h): the legacy and
 * DX10 headers, the block-compressed formats game assets ship (BC1..BC5,
 * BC7) and plain RGB(A)/BGR(A)/luminance, decoded on the CPU into RGBA8
 * from the top mip level (the renderer builds its own chain). Written from
 * Microsoft's DDS and Direct3D 11 block-compression documentation; the
 * decodes are checked against Mesa's (tests/tools/dds_vs_gl.c). Every size
 * is checked against the bytes before anything is read. */
#include "private/images_dds.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DDS_HEADER_BYTES = 4 + 124, DX10_HEADER_BYTES = 20 };

/* DDS_PIXELFORMAT flags */
enum { DDPF_ALPHAPIXELS = 0x1, DDPF_ALPHA = 0x2, DDPF_FOURCC = 0x4, DDPF_RGB = 0x40, DDPF_LUMINANCE = 0x20000 };
/* dwCaps2: a cube map or a volume is not a model's texture */
enum { DDSCAPS2_CUBEMAP = 0x200, DDSCAPS2_VOLUME = 0x200000 };

/* DXGI_FORMAT values a DX10 header names. */
enum {
    DXGI_R8G8B8A8_UNORM = 28, DXGI_R8G8B8A8_UNORM_SRGB = 29, DXGI_R8_UNORM = 61, DXGI_A8_UNORM = 65,
    DXGI_BC1_UNORM = 71, DXGI_BC1_UNORM_SRGB = 72, DXGI_BC2_UNORM = 74, DXGI_BC2_UNORM_SRGB = 75,
    DXGI_BC3_UNORM = 77, DXGI_BC3_UNORM_SRGB = 78, DXGI_BC4_UNORM = 80, DXGI_BC4_SNORM = 81,
    DXGI_BC5_UNORM = 83, DXGI_BC5_SNORM = 84, DXGI_B8G8R8A8_UNORM = 87, DXGI_B8G8R8X8_UNORM = 88,
    DXGI_B8G8R8A8_UNORM_SRGB = 91, DXGI_B8G8R8X8_UNORM_SRGB = 93, DXGI_BC7_UNORM = 98, DXGI_BC7_UNORM_SRGB = 99,
};

typedef enum dds_kind { DDS_BC1, DDS_BC2, DDS_BC3, DDS_BC4, DDS_BC5, DDS_BC7, DDS_MASKED } dds_kind;

typedef struct dds_layout {
    dds_kind kind;
    unsigned width, height;
    size_t offset; /* of the top level's bytes */
    /* DDS_MASKED: bytes a texel, and each channel's mask (luminance: red
     * only, replicated; alpha 0: opaque) */
    unsigned texel_bytes;
    uint32_t masks[4];
    int luminance;
} dds_layout;

static int say(char *why, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, size, format, args);
    va_end(args);
    return -1;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t fourcc(const char *s)
{
    return (uint32_t)(unsigned char)s[0] | (uint32_t)(unsigned char)s[1] << 8 | (uint32_t)(unsigned char)s[2] << 16 |
           (uint32_t)(unsigned char)s[3] << 24;
}

static int block_kind_of_dxgi(uint32_t format, dds_layout *d)
{
    switch (format) {
    case DXGI_BC1_UNORM: case DXGI_BC1_UNORM_SRGB: d->kind = DDS_BC1; return 0;
    case DXGI_BC2_UNORM: case DXGI_BC2_UNORM_SRGB: d->kind = DDS_BC2; return 0;
    case DXGI_BC3_UNORM: case DXGI_BC3_UNORM_SRGB: d->kind = DDS_BC3; return 0;
    case DXGI_BC4_UNORM: d->kind = DDS_BC4; return 0;
    case DXGI_BC5_UNORM: d->kind = DDS_BC5; return 0;
    case DXGI_BC7_UNORM: case DXGI_BC7_UNORM_SRGB: d->kind = DDS_BC7; return 0;
    case DXGI_R8G8B8A8_UNORM: case DXGI_R8G8B8A8_UNORM_SRGB:
        d->kind = DDS_MASKED, d->texel_bytes = 4;
        d->masks[0] = 0xff, d->masks[1] = 0xff00, d->masks[2] = 0xff0000, d->masks[3] = 0xff000000u;
        return 0;
    case DXGI_B8G8R8A8_UNORM: case DXGI_B8G8R8A8_UNORM_SRGB: case DXGI_B8G8R8X8_UNORM: case DXGI_B8G8R8X8_UNORM_SRGB:
        d->kind = DDS_MASKED, d->texel_bytes = 4;
        d->masks[0] = 0xff0000, d->masks[1] = 0xff00, d->masks[2] = 0xff;
        d->masks[3] = format == DXGI_B8G8R8A8_UNORM || format == DXGI_B8G8R8A8_UNORM_SRGB ? 0xff000000u : 0;
        return 0;
    case DXGI_R8_UNORM:
        d->kind = DDS_MASKED, d->texel_bytes = 1, d->masks[0] = 0xff, d->luminance = 1;
        return 0;
    case DXGI_A8_UNORM:
        d->kind = DDS_MASKED, d->texel_bytes = 1, d->masks[3] = 0xff;
        return 0;
    default: return -1;
    }
}

static size_t level_bytes(const dds_layout *d)
{
    size_t blocks = (size_t)((d->width + 3) / 4) * ((d->height + 3) / 4);
    switch (d->kind) {
    case DDS_BC1: case DDS_BC4: return blocks * 8;
    case DDS_MASKED: return (size_t)d->width * d->height * d->texel_bytes;
    default: return blocks * 16;
    }
}

static int dds_layout_read(const unsigned char *bytes, size_t size, dds_layout *d, char *why, size_t n)
{
    memset(d, 0, sizeof *d);
    if (size < DDS_HEADER_BYTES || memcmp(bytes, "DDS ", 4) != 0) return say(why, n, "a DDS cut short in its header");
    const unsigned char *h = bytes + 4;
    if (get32(h) != 124 || get32(h + 72) != 32) return say(why, n, "a DDS whose header sizes are not 124 and 32");
    d->height = get32(h + 8), d->width = get32(h + 12);
    uint32_t caps2 = get32(h + 108);
    if (caps2 & (DDSCAPS2_CUBEMAP | DDSCAPS2_VOLUME)) return say(why, n, "a DDS cube map or volume, not a 2-D texture");
    uint32_t flags = get32(h + 76), code = get32(h + 80), bits = get32(h + 84);
    d->offset = DDS_HEADER_BYTES;
    if (flags & DDPF_FOURCC) {
        if (code == fourcc("DX10")) {
            if (size < DDS_HEADER_BYTES + DX10_HEADER_BYTES) return say(why, n, "a DDS cut short in its DX10 header");
            const unsigned char *x = bytes + DDS_HEADER_BYTES;
            uint32_t format = get32(x), dimension = get32(x + 4), array = get32(x + 12);
            d->offset += DX10_HEADER_BYTES;
            if (dimension != 3 /* TEXTURE2D */ || array > 1 || (get32(x + 8) & 0x4 /* cube */))
                return say(why, n, "a DDS that is not one 2-D texture (dimension %u, array %u)", dimension, array);
            if (format == DXGI_BC4_SNORM || format == DXGI_BC5_SNORM)
                return say(why, n, "a DDS of signed BC4/BC5 blocks, which are not read");
            if (block_kind_of_dxgi(format, d) != 0) return say(why, n, "a DDS of DXGI format %u, which is not read", format);
        } else if (code == fourcc("DXT1")) d->kind = DDS_BC1;
        else if (code == fourcc("DXT2") || code == fourcc("DXT3")) d->kind = DDS_BC2;
        else if (code == fourcc("DXT4") || code == fourcc("DXT5")) d->kind = DDS_BC3;
        else if (code == fourcc("ATI1") || code == fourcc("BC4U")) d->kind = DDS_BC4;
        else if (code == fourcc("ATI2") || code == fourcc("BC5U")) d->kind = DDS_BC5;
        else {
            char name[5];
            for (int i = 0; i < 4; i++) {
                unsigned char c = (unsigned char)(code >> (8 * i));
                name[i] = c >= 32 && c < 127 ? (char)c : '?';
            }
            name[4] = '\0';
            return say(why, n, "a DDS of four-character code '%s', which is not read", name);
        }
    } else if (flags & (DDPF_RGB | DDPF_LUMINANCE | DDPF_ALPHA)) {
        if (bits != 8 && bits != 16 && bits != 24 && bits != 32)
            return say(why, n, "a DDS of %u bits a texel", bits);
        d->kind = DDS_MASKED, d->texel_bytes = bits / 8;
        d->masks[0] = get32(h + 88), d->masks[1] = get32(h + 92), d->masks[2] = get32(h + 96);
        d->masks[3] = flags & (DDPF_ALPHAPIXELS | DDPF_ALPHA) ? get32(h + 100) : 0;
        d->luminance = (flags & DDPF_LUMINANCE) != 0;
        if (d->luminance) d->masks[1] = d->masks[2] = 0;
        if (flags & DDPF_ALPHA && !(flags & (DDPF_RGB | DDPF_LUMINANCE))) d->masks[0] = d->masks[1] = d->masks[2] = 0;
        if (bits < 32)
            for (int c = 0; c < 4; c++)
                if (d->masks[c] >> bits) return say(why, n, "a DDS whose channel masks pass its %u bits", bits);
    } else {
        return say(why, n, "a DDS whose pixel format says neither blocks nor channels");
    }
    if (d->width == 0 || d->height == 0 || d->width > 65535 || d->height > 65535)
        return say(why, n, "a DDS of %ux%u", d->width, d->height);
    if (d->offset > size || size - d->offset < level_bytes(d))
        return say(why, n, "a DDS cut short in its texels (%zu bytes for %ux%u, %zu there)", level_bytes(d), d->width,
                   d->height, d->offset > size ? (size_t)0 : size - d->offset);
    return 0;
}

int dds_probe(const unsigned char *bytes, size_t size, int *width, int *height, char *why, size_t why_size)
{
    dds_layout d;
    if (dds_layout_read(bytes, size, &d, why, why_size) != 0) return -1;
    *width = (int)d.width, *height = (int)d.height;
    return 0;
}

/* --- blocks ------------------------------------------------------------------ */

static void rgb565(unsigned v, unsigned char out[3])
{
    unsigned r = (v >> 11) & 31, g = (v >> 5) & 63, b = v & 31;
    out[0] = (unsigned char)(r << 3 | r >> 2);
    out[1] = (unsigned char)(g << 2 | g >> 4);
    out[2] = (unsigned char)(b << 3 | b >> 2);
}

/* A BC1 colour block into 16 RGBA texels; `four_colour`: BC2/BC3's colour
 * part, always the four-colour kind. */
static void decode_bc1(const unsigned char *block, unsigned char *out, int four_colour)
{
    unsigned c0 = block[0] | block[1] << 8, c1 = block[2] | block[3] << 8;
    unsigned char palette[4][4];
    rgb565(c0, palette[0]), rgb565(c1, palette[1]);
    palette[0][3] = palette[1][3] = palette[2][3] = palette[3][3] = 255;
    for (int c = 0; c < 3; c++) {
        if (four_colour || c0 > c1) {
            palette[2][c] = (unsigned char)((2 * palette[0][c] + palette[1][c] + 1) / 3);
            palette[3][c] = (unsigned char)((palette[0][c] + 2 * palette[1][c] + 1) / 3);
        } else {
            palette[2][c] = (unsigned char)((palette[0][c] + palette[1][c]) / 2);
            palette[3][c] = 0;
        }
    }
    if (!four_colour && c0 <= c1) palette[3][3] = 0; /* the transparent black of 1-bit alpha */
    uint32_t indices = get32(block + 4);
    for (int t = 0; t < 16; t++) memcpy(out + t * 4, palette[(indices >> (2 * t)) & 3], 4);
}

/* BC3's alpha block (and BC4/BC5's channels): 8 values from two, 3-bit
 * indices; into `out[t * stride]`. */
static void decode_alpha_block(const unsigned char *block, unsigned char *out, int stride)
{
    unsigned a0 = block[0], a1 = block[1];
    unsigned char values[8] = {(unsigned char)a0, (unsigned char)a1};
    if (a0 > a1) {
        for (int i = 1; i < 7; i++) values[i + 1] = (unsigned char)(((7 - i) * a0 + i * a1 + 3) / 7);
    } else {
        for (int i = 1; i < 5; i++) values[i + 1] = (unsigned char)(((5 - i) * a0 + i * a1 + 2) / 5);
        values[6] = 0, values[7] = 255;
    }
    uint64_t indices = 0;
    for (int i = 0; i < 6; i++) indices |= (uint64_t)block[2 + i] << (8 * i);
    for (int t = 0; t < 16; t++) out[t * stride] = values[(indices >> (3 * t)) & 7];
}

/* --- BC7 (Direct3D 11's block compression, also GL's BPTC) ------------------ */

typedef struct bc7_mode {
    int subsets, partition_bits, rotation_bits, selection_bit, colour_bits, alpha_bits, endpoint_pbits, shared_pbits,
        index_bits, index2_bits;
} bc7_mode;

static const bc7_mode bc7_modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0}, {3, 6, 0, 0, 5, 0, 0, 0, 2, 0},
    {2, 6, 0, 0, 7, 0, 1, 0, 2, 0}, {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0},
};

/* Two subsets: bit t set where texel t is in the second. */
static const uint16_t bc7_partitions2[64] = {
    0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80, 0xc800, 0xffec, 0xfe80, 0xe800, 0xffe8,
    0xff00, 0xfff0, 0xf000, 0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310, 0x3100, 0x8cce, 0x088c, 0x3110,
    0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c, 0xaaaa, 0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696,
    0xa55a, 0x73ce, 0x13c8, 0x324c, 0x3bdc, 0x6996, 0xc33c, 0x9966, 0x0660, 0x0272, 0x04e4, 0x4e40, 0x2720,
    0xc936, 0x936c, 0x39c6, 0x639c, 0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22,
};

/* Three subsets: texel t's subset, texels in rows from the top left. */
static const char bc7_partitions3[64][17] = {
    "0011001102212222", "0001001122112221", "0000200122112211", "0222002200110111",
    "0000000011221122", "0011001100220022", "0022002211111111", "0011001122112211",
    "0000000011112222", "0000111111112222", "0000111122222222", "0012001200120012",
    "0112011201120112", "0122012201220122", "0011011211221222", "0011200122002220",
    "0001001101121122", "0111001120012200", "0000112211221122", "0022002200221111",
    "0111011102220222", "0001000122212221", "0000001101220122", "0000110022102210",
    "0122012200110000", "0012001211222222", "0110122112210110", "0000011012211221",
    "0022110211020022", "0110011020022222", "0011012201220011", "0000200022112221",
    "0000000211221222", "0222002200120011", "0011001200220222", "0120012001200120",
    "0000111122220000", "0120120120120120", "0120201212010120", "0011220011220011",
    "0011112222000011", "0101010122222222", "0000000021212121", "0022112200221122",
    "0022001100220011", "0220122102201221", "0101222222220101", "0000212121212121",
    "0101010101012222", "0222011102220111", "0002111200021112", "0000211221122112",
    "0222011101110222", "0002111211120002", "0110011001102222", "0000000021122112",
    "0110011022222222", "0022001100110022", "0022112211220022", "0000000000002112",
    "0002000100020001", "0222122202221222", "0101222222222222", "0111201122012220",
};

/* The texel whose index drops its top bit, for the second subset of two
 * and the second and third of three (the first's is texel 0). */
static const unsigned char bc7_anchor2[64] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2,  8,  2,  2,  8,  8,  15,
    2,  8,  2,  2,  8,  8,  2,  2,  15, 15, 6,  8,  2,  8,  15, 15, 2,  8,  2,  2,  2,  15, 15, 6,
    6,  2,  6,  8,  15, 15, 2,  2,  15, 15, 15, 15, 15, 2,  2,  15,
};
static const unsigned char bc7_anchor3a[64] = {
    3,  3,  15, 15, 8,  3,  15, 15, 8,  8,  6,  6,  6,  5,  3,  3,  3,  3,  8,  15, 3,  3,  6,  10,
    5,  8,  8,  6,  8,  5,  15, 15, 8,  15, 3,  5,  6,  10, 8,  15, 15, 3,  15, 5,  15, 15, 15, 15,
    3,  15, 5,  5,  5,  8,  5,  10, 5,  10, 8,  13, 15, 12, 3,  3,
};
static const unsigned char bc7_anchor3b[64] = {
    15, 8,  8,  3,  15, 15, 3,  8,  15, 15, 15, 15, 15, 15, 15, 8,  15, 8,  15, 3,  15, 8,  15, 8,
    3,  15, 6,  10, 15, 15, 10, 8,  15, 3,  15, 10, 10, 8,  9,  10, 6,  15, 8,  15, 3,  6,  6,  8,
    15, 3,  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3,  15, 15, 8,
};

static const unsigned char bc7_weights2[4] = {0, 21, 43, 64};
static const unsigned char bc7_weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
static const unsigned char bc7_weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

typedef struct bit_reader {
    const unsigned char *block;
    unsigned at;
} bit_reader;

static unsigned bits_take(bit_reader *r, int count)
{
    unsigned v = 0;
    for (int i = 0; i < count; i++, r->at++) v |= (unsigned)((r->block[r->at >> 3] >> (r->at & 7)) & 1) << i;
    return v;
}

static unsigned char bc7_interpolate(unsigned e0, unsigned e1, unsigned index, int bits)
{
    unsigned w = bits == 2 ? bc7_weights2[index] : bits == 3 ? bc7_weights3[index] : bc7_weights4[index];
    return (unsigned char)(((64 - w) * e0 + w * e1 + 32) >> 6);
}

static int bc7_subset(int subsets, unsigned partition, int t)
{
    if (subsets == 1) return 0;
    if (subsets == 2) return (bc7_partitions2[partition] >> t) & 1;
    return bc7_partitions3[partition][t] - '0';
}

static int bc7_is_anchor(int subsets, unsigned partition, int t)
{
    if (t == 0) return 1;
    if (subsets == 2) return t == bc7_anchor2[partition];
    if (subsets == 3) return t == bc7_anchor3a[partition] || t == bc7_anchor3b[partition];
    return 0;
}

static void decode_bc7(const unsigned char *block, unsigned char *out)
{
    int m = 0;
    while (m < 8 && !((block[0] >> m) & 1)) m++;
    if (m == 8) { /* no mode: the format's reserved block, all zero */
        memset(out, 0, 64);
        return;
    }
    const bc7_mode *mode = &bc7_modes[m];
    bit_reader r = {block, (unsigned)m + 1};
    unsigned partition = bits_take(&r, mode->partition_bits);
    unsigned rotation = bits_take(&r, mode->rotation_bits);
    unsigned selection = bits_take(&r, mode->selection_bit);
    unsigned endpoints[3][2][4] = {{{0}}}; /* [subset][end][channel] */
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < mode->subsets; s++)
            for (int e = 0; e < 2; e++) endpoints[s][e][c] = bits_take(&r, mode->colour_bits);
    for (int s = 0; s < mode->subsets && mode->alpha_bits; s++)
        for (int e = 0; e < 2; e++) endpoints[s][e][3] = bits_take(&r, mode->alpha_bits);
    int colour_bits = mode->colour_bits, alpha_bits = mode->alpha_bits;
    if (mode->endpoint_pbits || mode->shared_pbits) {
        unsigned pbits[3][2];
        for (int s = 0; s < mode->subsets; s++) {
            if (mode->endpoint_pbits) {
                pbits[s][0] = bits_take(&r, 1);
                pbits[s][1] = bits_take(&r, 1);
            } else {
                pbits[s][0] = pbits[s][1] = bits_take(&r, 1);
            }
        }
        for (int s = 0; s < mode->subsets; s++)
            for (int e = 0; e < 2; e++)
                for (int c = 0; c < 4; c++) endpoints[s][e][c] = endpoints[s][e][c] << 1 | pbits[s][e];
        colour_bits++;
        if (alpha_bits) alpha_bits++;
    }
    /* Each endpoint to 8 bits: its bits repeated into the low ones. */
    for (int s = 0; s < mode->subsets; s++)
        for (int e = 0; e < 2; e++)
            for (int c = 0; c < 4; c++) {
                int bits = c < 3 ? colour_bits : alpha_bits;
                unsigned v = endpoints[s][e][c];
                endpoints[s][e][c] = bits ? (v << (8 - bits)) | (v >> (2 * bits - 8)) : 255;
            }
    unsigned indices[16], indices2[16] = {0};
    for (int t = 0; t < 16; t++)
        indices[t] = bits_take(&r, mode->index_bits - bc7_is_anchor(mode->subsets, partition, t));
    for (int t = 0; t < 16 && mode->index2_bits; t++) indices2[t] = bits_take(&r, mode->index2_bits - (t == 0));
    for (int t = 0; t < 16; t++) {
        int s = bc7_subset(mode->subsets, partition, t);
        unsigned char *texel = out + t * 4;
        unsigned colour_index = indices[t], alpha_index = indices[t];
        int colour_index_bits = mode->index_bits, alpha_index_bits = mode->index_bits;
        if (mode->index2_bits) {
            alpha_index = indices2[t], alpha_index_bits = mode->index2_bits;
            if (selection) { /* mode 4: the colour takes the wider index */
                unsigned swap = colour_index;
                colour_index = alpha_index, alpha_index = swap;
                colour_index_bits = mode->index2_bits, alpha_index_bits = mode->index_bits;
            }
        }
        for (int c = 0; c < 3; c++)
            texel[c] = bc7_interpolate(endpoints[s][0][c], endpoints[s][1][c], colour_index, colour_index_bits);
        texel[3] = mode->alpha_bits ? bc7_interpolate(endpoints[s][0][3], endpoints[s][1][3], alpha_index,
                                                      alpha_index_bits)
                                    : 255;
        if (rotation) { /* alpha swapped with red, green or blue */
            unsigned char swap = texel[3];
            texel[3] = texel[rotation - 1], texel[rotation - 1] = swap;
        }
    }
}

/* --- whole images ---------------------------------------------------------- */

static unsigned char masked_channel(uint32_t value, uint32_t mask)
{
    if (!mask) return 0;
    int shift = __builtin_ctz(mask);
    uint32_t field = (value & mask) >> shift, top = mask >> shift;
    int bits = 32 - __builtin_clz(top);
    if (bits >= 8) return (unsigned char)(field >> (bits - 8));
    return (unsigned char)((field * 255u + top / 2) / top);
}

unsigned char *dds_decode(const unsigned char *bytes, size_t size, int *width, int *height, char *why, size_t why_size)
{
    dds_layout d;
    if (dds_layout_read(bytes, size, &d, why, why_size) != 0) return NULL;
    unsigned char *texels = malloc((size_t)d.width * d.height * 4u);
    if (!texels) {
        say(why, why_size, "out of memory");
        return NULL;
    }
    const unsigned char *src = bytes + d.offset;
    if (d.kind == DDS_MASKED) {
        for (size_t i = 0; i < (size_t)d.width * d.height; i++, src += d.texel_bytes) {
            uint32_t v = 0;
            for (unsigned b = 0; b < d.texel_bytes; b++) v |= (uint32_t)src[b] << (8 * b);
            unsigned char *out = texels + i * 4;
            out[0] = masked_channel(v, d.masks[0]);
            out[1] = d.luminance ? out[0] : masked_channel(v, d.masks[1]);
            out[2] = d.luminance ? out[0] : masked_channel(v, d.masks[2]);
            out[3] = d.masks[3] ? masked_channel(v, d.masks[3]) : 255;
        }
    } else {
        size_t block_bytes = d.kind == DDS_BC1 || d.kind == DDS_BC4 ? 8 : 16;
        unsigned across = (d.width + 3) / 4, down = (d.height + 3) / 4;
        for (unsigned by = 0; by < down; by++)
            for (unsigned bx = 0; bx < across; bx++, src += block_bytes) {
                unsigned char block[64]; /* 4 x 4 RGBA */
                switch (d.kind) {
                case DDS_BC1: decode_bc1(src, block, 0); break;
                case DDS_BC2:
                    decode_bc1(src + 8, block, 1);
                    for (int t = 0; t < 16; t++) block[t * 4 + 3] = (unsigned char)(((src[t / 2] >> (4 * (t & 1))) & 15) * 17);
                    break;
                case DDS_BC3:
                    decode_bc1(src + 8, block, 1);
                    decode_alpha_block(src, block + 3, 4);
                    break;
                case DDS_BC4:
                    decode_alpha_block(src, block, 4);
                    for (int t = 0; t < 16; t++) block[t * 4 + 1] = block[t * 4 + 2] = block[t * 4], block[t * 4 + 3] = 255;
                    break;
                case DDS_BC5:
                    /* Two channels of a normal map: the third rebuilt, as
                     * z = sqrt(1 - x^2 - y^2) of the unit normal. */
                    decode_alpha_block(src, block, 4);
                    decode_alpha_block(src + 8, block + 1, 4);
                    for (int t = 0; t < 16; t++) {
                        float x = block[t * 4] / 127.5f - 1.0f, y = block[t * 4 + 1] / 127.5f - 1.0f;
                        float zz = 1.0f - x * x - y * y;
                        int z = (int)((zz > 0.0f ? sqrtf(zz) : 0.0f) * 127.5f + 128.0f);
                        block[t * 4 + 2] = (unsigned char)(z > 255 ? 255 : z);
                        block[t * 4 + 3] = 255;
                    }
                    break;
                default: decode_bc7(src, block); break;
                }
                for (int y = 0; y < 4; y++) {
                    unsigned py = by * 4 + (unsigned)y;
                    if (py >= d.height) break;
                    for (int x = 0; x < 4; x++) {
                        unsigned px = bx * 4 + (unsigned)x;
                        if (px >= d.width) break;
                        memcpy(texels + ((size_t)py * d.width + px) * 4, block + (y * 4 + x) * 4, 4);
                    }
                }
            }
    }
    *width = (int)d.width, *height = (int)d.height;
    return texels;
}
