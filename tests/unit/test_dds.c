/* test_dds.c - the DDS decoder (src/import/images_dds.c) against an
 * independent one: the GL driver's (Mesa's llvmpipe here), which decodes
 * the same blocks when they are uploaded compressed (S3TC, RGTC, BPTC) and
 * read back. Thousands of random blocks of each format, BC7's in every
 * mode and partition, in DDS files with legacy and DX10 headers; then the
 * plain-channel layouts against texels written by hand, and every prefix
 * of a file refused or whole.
 *
 * Tolerances: BC7 and the plain layouts exactly; the S3TC colours within
 * 1 level and the 8-value alpha/red/green blocks within 2 (the formats
 * leave the rounding of thirds, fifths and sevenths to the decoder, and
 * Mesa's is biased: 48 exactly, (4 x 10 + 200) / 5, reads back as 47). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include <glad/gl.h>
#include "gpu.h"
#include "images.h"

#define GL_COMPRESSED_RGBA_S3TC_DXT1_EXT 0x83F1
#define GL_COMPRESSED_RGBA_S3TC_DXT3_EXT 0x83F2
#define GL_COMPRESSED_RGBA_S3TC_DXT5_EXT 0x83F3
#define GL_COMPRESSED_RED_RGTC1 0x8DBB
#define GL_COMPRESSED_RG_RGTC2 0x8DBD
#define GL_COMPRESSED_RGBA_BPTC_UNORM 0x8E8C

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* A DDS of `width` x `height` around `data`: a legacy header with `four`
 * as its code, or a DX10 header with `dxgi` where `four` is NULL. */
static unsigned char *dds_file(int width, int height, const char *four, uint32_t dxgi, const unsigned char *data,
                               size_t data_size, size_t *size)
{
    size_t header = 128 + (four ? 0 : 20);
    unsigned char *file = calloc(1, header + data_size);
    memcpy(file, "DDS ", 4);
    put32(file + 4, 124);
    put32(file + 8, 0x1 | 0x2 | 0x4 | 0x1000 | 0x80000); /* caps, height, width, pixel format, linear size */
    put32(file + 12, (uint32_t)height), put32(file + 16, (uint32_t)width);
    put32(file + 20, (uint32_t)data_size);
    put32(file + 76, 32), put32(file + 80, 0x4); /* DDPF_FOURCC */
    memcpy(file + 84, four ? four : "DX10", 4);
    put32(file + 108, 0x1000); /* DDSCAPS_TEXTURE */
    if (!four) put32(file + 128, dxgi), put32(file + 132, 3), put32(file + 140, 1);
    memcpy(file + header, data, data_size);
    *size = header + data_size;
    return file;
}

/* The driver's decode of `data` (`format`) as RGBA8. */
static unsigned char *gl_decode(GLenum format, int width, int height, const unsigned char *data, size_t size)
{
    GLuint texture;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glCompressedTexImage2D(GL_TEXTURE_2D, 0, format, width, height, 0, (GLsizei)size, data);
    unsigned char *rgba = malloc((size_t)width * height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glDeleteTextures(1, &texture);
    if (glGetError() != GL_NO_ERROR) {
        free(rgba);
        return NULL;
    }
    return rgba;
}

/* Random blocks for one kind; BC7's first byte made to name `bc7_mode`. */
static void random_blocks(unsigned char *data, size_t size, int bc7_mode)
{
    for (size_t i = 0; i < size; i++) data[i] = (unsigned char)rng();
    if (bc7_mode >= 0)
        for (size_t b = 0; b < size; b += 16) data[b] = (unsigned char)((data[b] & ~((2u << bc7_mode) - 1)) | 1u << bc7_mode);
}

/* Compares ours with the driver's on channels `channels` (a mask of
 * R=1 G=2 B=4 A=8), within `tolerance`; counts and reports the worst. */
static int compare(const char *what, const unsigned char *ours, const unsigned char *theirs, int count, int channels,
                   int tolerance)
{
    int worst = 0, where = -1;
    for (int i = 0; i < count * 4; i++) {
        if (!(channels >> (i & 3) & 1)) continue;
        int d = abs(ours[i] - theirs[i]);
        if (d > worst) worst = d, where = i;
    }
    if (worst > tolerance)
        fprintf(stderr, "%s: texel %d channel %d: ours %d, the driver's %d (off by %d)\n", what, where / 4, where % 4,
                ours[where], theirs[where], worst);
    return worst <= tolerance;
}

static void test_against_gl(void)
{
    struct {
        const char *name, *four;
        uint32_t dxgi;
        GLenum gl;
        int block_bytes, channels, tolerance, bc7;
    } kinds[] = {
        {"BC1", "DXT1", 0, GL_COMPRESSED_RGBA_S3TC_DXT1_EXT, 8, 15, 1, 0},
        {"BC2", "DXT3", 0, GL_COMPRESSED_RGBA_S3TC_DXT3_EXT, 16, 15, 1, 0},
        {"BC3", "DXT5", 0, GL_COMPRESSED_RGBA_S3TC_DXT5_EXT, 16, 15, 2, 0},
        {"BC4", "ATI1", 0, GL_COMPRESSED_RED_RGTC1, 8, 1, 2, 0},
        {"BC5", "ATI2", 0, GL_COMPRESSED_RG_RGTC2, 16, 3, 2, 0},
        {"BC1 (DX10)", NULL, 71, GL_COMPRESSED_RGBA_S3TC_DXT1_EXT, 8, 15, 1, 0},
        {"BC7", NULL, 98, GL_COMPRESSED_RGBA_BPTC_UNORM, 16, 15, 0, 1},
    };
    enum { SIDE = 64 }; /* 256 blocks a file */
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int mode = kinds[k].bc7 ? 0 : -1; mode < (kinds[k].bc7 ? 8 : 0); mode++) {
            for (int round = 0; round < 8; round++) {
                size_t size = (size_t)(SIDE / 4) * (SIDE / 4) * kinds[k].block_bytes;
                unsigned char *data = malloc(size);
                random_blocks(data, size, mode);
                size_t file_size;
                unsigned char *file = dds_file(SIDE, SIDE, kinds[k].four, kinds[k].dxgi, data, size, &file_size);
                int w, h;
                char why[256] = "";
                unsigned char *ours = image_decode(file, file_size, NULL, &w, &h, why, sizeof why);
                unsigned char *theirs = gl_decode(kinds[k].gl, SIDE, SIDE, data, size);
                char what[64];
                snprintf(what, sizeof what, "%s mode %d round %d", kinds[k].name, mode, round);
                if (!ours) fprintf(stderr, "%s: not decoded: %s\n", what, why);
                CHECK(ours && theirs && w == SIDE && h == SIDE);
                if (ours && theirs)
                    CHECK(compare(what, ours, theirs, SIDE * SIDE, kinds[k].channels, kinds[k].tolerance));
                /* BC4 is grey, BC5's blue the rebuilt z: what the driver
                 * does not give, checked here. */
                if (ours && kinds[k].gl == GL_COMPRESSED_RED_RGTC1)
                    CHECK(ours[0] == ours[1] && ours[1] == ours[2] && ours[3] == 255);
                free(ours);
                free(theirs);
                free(file);
                free(data);
            }
        }
    }
}

/* BC5: a normal map's third channel from the first two. */
static void test_bc5_normal(void)
{
    unsigned char block[16] = {0};
    /* Both channels flat: x = y = 128 (0 as a normal), so z = 1 (255). */
    block[0] = block[1] = 128, block[8] = block[9] = 128;
    size_t size;
    unsigned char *file = dds_file(4, 4, "ATI2", 0, block, 16, &size);
    int w, h;
    char why[256];
    unsigned char *rgba = image_decode(file, size, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[0] == 128 && rgba[1] == 128 && rgba[2] == 255 && rgba[3] == 255);
    free(rgba);
    free(file);
}

/* The plain layouts: BGRA, BGR, luminance, A8, through the legacy masks
 * and a DX10 R8G8B8A8; odd sizes. */
static void test_plain(void)
{
    enum { W = 3, H = 2 };
    unsigned char file[256];
    struct {
        uint32_t flags, bits, masks[4];
    } layouts[] = {
        {0x41, 32, {0xff0000, 0xff00, 0xff, 0xff000000u}}, /* BGRA */
        {0x40, 24, {0xff0000, 0xff00, 0xff, 0}},           /* BGR */
        {0x20000, 8, {0xff, 0, 0, 0}},                     /* luminance */
        {0x40, 16, {0xf800, 0x07e0, 0x001f, 0}},           /* 5-6-5 */
    };
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        memset(file, 0, sizeof file);
        memcpy(file, "DDS ", 4);
        put32(file + 4, 124), put32(file + 12, H), put32(file + 16, W), put32(file + 76, 32);
        put32(file + 80, layouts[l].flags), put32(file + 88, layouts[l].bits);
        for (int c = 0; c < 4; c++) put32(file + 92 + 4 * c, layouts[l].masks[c]);
        unsigned bytes = layouts[l].bits / 8;
        for (int i = 0; i < W * H; i++)
            for (unsigned b = 0; b < bytes; b++) file[128 + i * bytes + b] = (unsigned char)(i * 40 + b * 7 + 1);
        size_t size = 128 + (size_t)W * H * bytes;
        int w, h;
        char why[256] = "";
        unsigned char *rgba = image_decode(file, size, NULL, &w, &h, why, sizeof why);
        CHECK(rgba && w == W && h == H);
        if (!rgba) {
            fprintf(stderr, "plain layout %zu: %s\n", l, why);
            continue;
        }
        /* Texel 2 (its bytes 81, 88, 95, 102). */
        const unsigned char *t = rgba + 2 * 4;
        if (l == 0) CHECK(t[0] == 95 && t[1] == 88 && t[2] == 81 && t[3] == 102);
        if (l == 1) CHECK(t[0] == 95 && t[1] == 88 && t[2] == 81 && t[3] == 255);
        if (l == 2) CHECK(t[0] == 81 && t[1] == 81 && t[2] == 81 && t[3] == 255);
        if (l == 3) { /* 0x5851: red 11, green 2, blue 17 */
            CHECK(t[0] == (11 * 255 + 15) / 31 && t[1] == (2 * 255 + 31) / 63 && t[2] == (17 * 255 + 15) / 31);
        }
        /* Every prefix: refused with a reason, never read past. */
        for (size_t n = 0; n < size; n++) {
            unsigned char *copy = malloc(n ? n : 1);
            memcpy(copy, file, n);
            unsigned char *cut = image_decode(copy, n, NULL, &w, &h, why, sizeof why);
            CHECK(!cut && why[0]);
            free(cut);
            free(copy);
        }
        free(rgba);
    }
}

/* Headers that lie or name what is not read: refused by what is wrong. */
static void test_refused(void)
{
    unsigned char block[8] = {0};
    size_t size;
    int w, h;
    char why[256];
    unsigned char *file = dds_file(4, 4, "DXT1", 0, block, 8, &size);
    put32(file + 12, 4096); /* a height the bytes do not hold */
    CHECK(!image_decode(file, size, NULL, &w, &h, why, sizeof why) && strstr(why, "cut short"));
    free(file);
    file = dds_file(4, 4, "BC6H", 0, block, 8, &size);
    CHECK(!image_decode(file, size, NULL, &w, &h, why, sizeof why) && strstr(why, "BC6H"));
    free(file);
    file = dds_file(4, 4, NULL, 84, block, 8, &size); /* BC5 signed */
    CHECK(!image_decode(file, size, NULL, &w, &h, why, sizeof why) && strstr(why, "signed"));
    free(file);
    file = dds_file(4, 4, "DXT1", 0, block, 8, &size);
    put32(file + 112, 0x200); /* a cube map */
    CHECK(!image_decode(file, size, NULL, &w, &h, why, sizeof why) && strstr(why, "cube"));
    free(file);
}

int main(void)
{
    skv_gpu gpu;
    skv_error err;
    if (gpu_headless_create(&gpu, 0, &err) != SKV_OK) {
        fprintf(stderr, "test_dds: no GL context: %s\n", err.message);
        return 1;
    }
    test_against_gl();
    gpu_headless_destroy(&gpu);
    test_bc5_normal();
    test_plain();
    test_refused();
    return check_summary();
}
