/* test_images.c - the texture decoders (src/import/images.c) on images
 * made here with exactly known texels: PNG written by libspng's encoder
 * and JPEG by libjpeg's (in every layout a model's texture comes in),
 * TGA and BMP written byte by byte from their specifications. Each must
 * decode to those texels (JPEG within its quantisation); every prefix of
 * each file must be refused or decoded whole, never read past; formats
 * not read are named; the memory budget, the scan limit and the deadline
 * hold. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>
#include <spng.h>

#include "check.h"
#include "images.h"

enum { W = 5, H = 3 }; /* odd sizes: rows padded in BMP, odd chroma in JPEG */

/* The texel the test images hold at (x, y). */
static void expected_texel(int x, int y, unsigned char out[4])
{
    out[0] = (unsigned char)(10 + x * 40);
    out[1] = (unsigned char)(20 + y * 60);
    out[2] = (unsigned char)(200 - (x + y) * 20);
    out[3] = (unsigned char)(255 - x * 30 - y * 5);
}

/* Decodes and compares with expected_texel (alpha from it only if
 * `alpha`, else 255); `tolerance` per channel. Returns 1 if it matched. */
static int decodes_to_expected(const unsigned char *bytes, size_t size, int alpha, int tolerance, const char *what)
{
    int w = 0, h = 0;
    char why[256] = "";
    unsigned char *rgba = image_decode(bytes, size, NULL, &w, &h, why, sizeof why);
    if (!rgba) {
        fprintf(stderr, "%s: not decoded: %s\n", what, why);
        return 0;
    }
    image_info info;
    int ok = w == W && h == H && image_probe(bytes, size, &info, why, sizeof why) == 0 && info.width == W &&
             info.height == H;
    for (int y = 0; ok && y < H; y++)
        for (int x = 0; ok && x < W; x++) {
            unsigned char want[4];
            expected_texel(x, y, want);
            if (!alpha) want[3] = 255;
            for (int c = 0; c < 4; c++)
                if (abs((int)rgba[(y * W + x) * 4 + c] - (int)want[c]) > tolerance) {
                    fprintf(stderr, "%s: texel %d,%d channel %d is %d, expected %d\n", what, x, y, c,
                            rgba[(y * W + x) * 4 + c], want[c]);
                    ok = 0;
                }
        }
    free(rgba);
    return ok;
}

/* Every prefix of a valid file: refused with a reason, or decoded at the
 * full size (a JPEG cut short is finished in grey, as libjpeg does). */
static int prefixes_safe(const unsigned char *bytes, size_t size)
{
    int ok = 1;
    for (size_t n = 0; n < size; n++) {
        unsigned char *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees any read past them */
        memcpy(copy, bytes, n);
        int w = -1, h = -1;
        char why[256] = "";
        unsigned char *rgba = image_decode(copy, n, NULL, &w, &h, why, sizeof why);
        if (rgba ? (w != W || h != H) : why[0] == '\0') ok = 0;
        image_info info;
        why[0] = '\0';
        if (image_probe(copy, n, &info, why, sizeof why) != 0 && why[0] == '\0') ok = 0;
        free(rgba);
        free(copy);
    }
    return ok;
}

/* --- PNG ------------------------------------------------------------------- */

static unsigned char *png_encode(const void *pixels, size_t pixel_bytes, uint8_t colour_type, uint8_t depth,
                                 uint8_t interlace, struct spng_plte *plte, struct spng_trns *trns, size_t *size)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    struct spng_ihdr ihdr = {.width = W, .height = H, .bit_depth = depth, .color_type = colour_type,
                             .interlace_method = interlace};
    int error = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1) || spng_set_ihdr(ctx, &ihdr) ||
                (plte && spng_set_plte(ctx, plte)) || (trns && spng_set_trns(ctx, trns)) ||
                spng_encode_image(ctx, pixels, pixel_bytes, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    unsigned char *png = error ? NULL : spng_get_png_buffer(ctx, size, &error);
    spng_ctx_free(ctx);
    if (!png) fprintf(stderr, "png_encode: %s\n", spng_strerror(error));
    return png;
}

static void test_png(void)
{
    unsigned char rgba[W * H * 4], rgb[W * H * 3], grey[W * H], index[W * H];
    uint16_t rgb16[W * H * 3];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char t[4];
            expected_texel(x, y, t);
            int i = y * W + x;
            memcpy(rgba + i * 4, t, 4);
            memcpy(rgb + i * 3, t, 3);
            for (int c = 0; c < 3; c++) rgb16[i * 3 + c] = (uint16_t)(t[c] * 257); /* both bytes t: any byte order */
            index[i] = (unsigned char)i;
        }
    size_t size;
    unsigned char *png = png_encode(rgba, sizeof rgba, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8, 0, NULL, NULL, &size);
    CHECK(png && decodes_to_expected(png, size, 1, 0, "PNG RGBA8"));
    CHECK(png && prefixes_safe(png, size));
    free(png);
    png = png_encode(rgba, sizeof rgba, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8, 1, NULL, NULL, &size);
    CHECK(png && decodes_to_expected(png, size, 1, 0, "PNG RGBA8 interlaced"));
    free(png);
    png = png_encode(rgb, sizeof rgb, SPNG_COLOR_TYPE_TRUECOLOR, 8, 0, NULL, NULL, &size);
    CHECK(png && decodes_to_expected(png, size, 0, 0, "PNG RGB8"));
    free(png);
    /* 16 bits a sample, as the 16-bit PPM that crashed stb_image: the
     * high byte of each. */
    png = png_encode(rgb16, sizeof rgb16, SPNG_COLOR_TYPE_TRUECOLOR, 16, 0, NULL, NULL, &size);
    CHECK(png && decodes_to_expected(png, size, 0, 0, "PNG RGB16"));
    CHECK(png && prefixes_safe(png, size));
    free(png);
    /* A palette with transparency: each index its own texel. */
    struct spng_plte plte = {.n_entries = W * H};
    struct spng_trns trns = {.n_type3_entries = W * H};
    for (int i = 0; i < W * H; i++) {
        unsigned char t[4];
        expected_texel(i % W, i / W, t);
        plte.entries[i] = (struct spng_plte_entry){t[0], t[1], t[2], 255};
        trns.type3_alpha[i] = t[3];
    }
    png = png_encode(index, sizeof index, SPNG_COLOR_TYPE_INDEXED, 8, 0, &plte, &trns, &size);
    CHECK(png && decodes_to_expected(png, size, 1, 0, "PNG palette + tRNS"));
    free(png);
    /* Grey: each texel's red as grey. */
    for (int i = 0; i < W * H; i++) grey[i] = rgba[i * 4];
    png = png_encode(grey, sizeof grey, SPNG_COLOR_TYPE_GRAYSCALE, 8, 0, NULL, NULL, &size);
    int w, h;
    char why[256];
    unsigned char *out = png ? image_decode(png, size, NULL, &w, &h, why, sizeof why) : NULL;
    CHECK(out && out[4 * 4] == grey[4] && out[4 * 4 + 1] == grey[4] && out[4 * 4 + 2] == grey[4] && out[4 * 4 + 3] == 255);
    free(out);
    free(png);
}

/* --- JPEG ------------------------------------------------------------------- */

/* A JPEG of flat 8x8 blocks (nothing for the quantiser to lose but a
 * level or two), `components` 1, 3 or 4 (4: CMYK as Adobe writes it). */
static unsigned char *jpeg_encode(const unsigned char *pixels, int width, int height, int components,
                                  int progressive, unsigned long *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr errors;
    c.err = jpeg_std_error(&errors);
    jpeg_create_compress(&c);
    unsigned char *out = NULL;
    *size = 0;
    jpeg_mem_dest(&c, &out, size);
    c.image_width = (JDIMENSION)width, c.image_height = (JDIMENSION)height;
    c.input_components = components;
    c.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 100, TRUE);
    for (int i = 0; i < c.num_components; i++) c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    if (progressive) jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)c.next_scanline * (size_t)width * (size_t)components);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return out;
}

/* 16 x 16 in four flat blocks of these colours. */
static const unsigned char quadrant[4][4] = {{250, 10, 10, 40}, {10, 240, 20, 120}, {30, 20, 230, 200}, {128, 128, 128, 255}};

static int jpeg_quadrants_match(const unsigned char *rgba, int cmyk)
{
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            const unsigned char *q = quadrant[(y / 8) * 2 + x / 8];
            for (int c = 0; c < 3; c++) {
                int want = cmyk ? (q[c] * q[3] + 127) / 255 : q[c];
                if (abs(rgba[(y * 16 + x) * 4 + c] - want) > 3) return 0;
            }
            if (rgba[(y * 16 + x) * 4 + 3] != 255) return 0;
        }
    return 1;
}

static void test_jpeg(void)
{
    unsigned char rgb[16 * 16 * 3], cmyk[16 * 16 * 4], grey[16 * 16];
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            const unsigned char *q = quadrant[(y / 8) * 2 + x / 8];
            memcpy(rgb + (y * 16 + x) * 3, q, 3);
            memcpy(cmyk + (y * 16 + x) * 4, q, 4);
            grey[y * 16 + x] = q[0];
        }
    for (int progressive = 0; progressive < 2; progressive++) {
        unsigned long size;
        unsigned char *jpeg = jpeg_encode(rgb, 16, 16, 3, progressive, &size);
        int w, h;
        char why[256];
        unsigned char *rgba = image_decode(jpeg, size, NULL, &w, &h, why, sizeof why);
        CHECK(rgba && w == 16 && h == 16 && jpeg_quadrants_match(rgba, 0));
        image_info info;
        CHECK(image_probe(jpeg, size, &info, why, sizeof why) == 0 && info.format == IMAGE_JPEG);
        /* A progressive file buffers its coefficients: 3 components of
         * (2 + 1) x (2 + 1) blocks at 128 bytes; a baseline one none. */
        CHECK(info.working_bytes == (progressive ? 3u * 3 * 3 * 128 : 0u));
        free(rgba);
        if (progressive) {
            /* The same file cut at every length: the JPEG prefixes are
             * finished or refused, never read past. */
            for (unsigned long n = 0; n < size; n += 7) {
                unsigned char *copy = malloc(n ? n : 1);
                memcpy(copy, jpeg, n);
                unsigned char *cut = image_decode(copy, n, NULL, &w, &h, why, sizeof why);
                CHECK(!cut || (w == 16 && h == 16));
                free(cut);
                free(copy);
            }
        }
        free(jpeg);
    }
    unsigned long size;
    unsigned char *jpeg = jpeg_encode(grey, 16, 16, 1, 0, &size);
    int w, h;
    char why[256];
    unsigned char *rgba = image_decode(jpeg, size, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && abs(rgba[0] - 250) <= 3 && abs(rgba[1] - 250) <= 3 && abs(rgba[2] - 250) <= 3 && rgba[3] == 255);
    free(rgba);
    free(jpeg);
    jpeg = jpeg_encode(cmyk, 16, 16, 4, 0, &size);
    rgba = image_decode(jpeg, size, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && jpeg_quadrants_match(rgba, 1));
    free(rgba);
    free(jpeg);
}

/* A progressive JPEG whose last scan is repeated until it has far more
 * scans than an encoder writes: each is a pass over every coefficient.
 * Refused by count, quickly. */
static void test_jpeg_scan_flood(void)
{
    unsigned char rgb[16 * 16 * 3] = {0};
    unsigned long size;
    unsigned char *jpeg = jpeg_encode(rgb, 16, 16, 3, 1, &size);
    size_t last = 0;
    for (size_t i = 0; i + 1 < size; i++)
        if (jpeg[i] == 0xff && jpeg[i + 1] == 0xda) last = i;
    CHECK(last > 0 && jpeg[size - 2] == 0xff && jpeg[size - 1] == 0xd9);
    size_t scan = size - 2 - last, copies = 400;
    unsigned char *flood = malloc(last + scan * copies + 2);
    memcpy(flood, jpeg, last);
    for (size_t k = 0; k < copies; k++) memcpy(flood + last + k * scan, jpeg + last, scan);
    memcpy(flood + last + scan * copies, jpeg + size - 2, 2);
    int w, h;
    char why[256] = "";
    unsigned char *rgba = image_decode(flood, last + scan * copies + 2, NULL, &w, &h, why, sizeof why);
    CHECK(!rgba && strstr(why, "scans"));
    free(rgba);
    free(flood);
    free(jpeg);
}

/* The bomb: a progressive 8192 x 8192 JPEG of a hundred bytes and
 * one empty scan. Its coefficients alone take 128 MiB: past a budget of
 * 64 MiB it is refused from its header, before any allocation. */
static void test_jpeg_bomb(void)
{
    unsigned char bomb[256];
    size_t n = 0;
    static const unsigned char soi[] = {0xff, 0xd8};
    memcpy(bomb + n, soi, 2), n += 2;
    bomb[n++] = 0xff, bomb[n++] = 0xdb, bomb[n++] = 0, bomb[n++] = 67, bomb[n++] = 0; /* DQT, table 0 */
    for (int i = 0; i < 64; i++) bomb[n++] = 1;
    static const unsigned char sof2[] = {0xff, 0xc2, 0, 11, 8, 0x20, 0x00, 0x20, 0x00, 1, 1, 0x11, 0};
    memcpy(bomb + n, sof2, sizeof sof2), n += sizeof sof2;
    /* DHT: one DC table, one code (its symbol 0: no difference). */
    static const unsigned char dht[] = {0xff, 0xc4, 0, 20, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(bomb + n, dht, sizeof dht), n += sizeof dht;
    static const unsigned char sos[] = {0xff, 0xda, 0, 8, 1, 1, 0x00, 0, 0, 0}; /* DC first scan */
    memcpy(bomb + n, sos, sizeof sos), n += sizeof sos;
    bomb[n++] = 0xff, bomb[n++] = 0xd9;
    image_info info;
    char why[256] = "";
    CHECK(image_probe(bomb, n, &info, why, sizeof why) == 0 && info.width == 8192 && info.height == 8192);
    CHECK(info.working_bytes >= (uint64_t)1024 * 1024 * 128);
    image_limits limits = {.max_bytes = (uint64_t)64 << 20};
    int w, h;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned char *rgba = image_decode(bomb, n, &limits, &w, &h, why, sizeof why);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(!rgba && strstr(why, "memory budget"));
    CHECK((t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec) < 0.1);
    free(rgba);
    /* A deadline already past stops it too (checked between row groups). */
    image_limits late = {.deadline = 1e-9};
    rgba = image_decode(bomb, n, &late, &w, &h, why, sizeof why);
    CHECK(!rgba && strstr(why, "time"));
    free(rgba);
}

/* --- TGA -------------------------------------------------------------------- */

static size_t tga_header(unsigned char *out, int type, int bits, int descriptor, int map_length, int map_bits)
{
    memset(out, 0, 18);
    out[0] = 3; /* an id of 3 bytes, skipped */
    out[1] = map_length ? 1 : 0;
    out[2] = (unsigned char)type;
    out[5] = (unsigned char)map_length, out[7] = (unsigned char)map_bits;
    out[12] = W, out[14] = H;
    out[16] = (unsigned char)bits, out[17] = (unsigned char)descriptor;
    memcpy(out + 18, "id!", 3);
    return 21;
}

/* The texel of file row `row` (0 = first stored) at column `col`, for a
 * file stored bottom-up unless `top`, right to left if `right`. */
static void stored_texel(int col, int row, int top, int right, unsigned char out[4])
{
    expected_texel(right ? W - 1 - col : col, top ? row : H - 1 - row, out);
}

static void test_tga(void)
{
    unsigned char file[1024];
    for (int variant = 0; variant < 4; variant++) {
        int top = variant & 1, right = variant >> 1;
        /* 32-bit truecolour, BGRA. */
        size_t n = tga_header(file, 2, 32, (top ? 0x20 : 0) | (right ? 0x10 : 0) | 8, 0, 0);
        for (int row = 0; row < H; row++)
            for (int col = 0; col < W; col++) {
                unsigned char t[4];
                stored_texel(col, row, top, right, t);
                file[n++] = t[2], file[n++] = t[1], file[n++] = t[0], file[n++] = t[3];
            }
        CHECK(decodes_to_expected(file, n, 1, 0, "TGA 32"));
        CHECK(prefixes_safe(file, n));
    }
    /* 24-bit, run-length: each row one run of its first texel's colour
     * would lose the pattern, so: raw packets of 3 and 2, across rows. */
    size_t n = tga_header(file, 10, 24, 0x20, 0, 0);
    int total = W * H;
    for (int i = 0; i < total;) {
        int count = (i / 3) % 2 ? 2 : 3;
        if (count > total - i) count = total - i;
        file[n++] = (unsigned char)(count - 1); /* raw packet */
        for (int k = 0; k < count; k++, i++) {
            unsigned char t[4];
            expected_texel(i % W, i / W, t);
            file[n++] = t[2], file[n++] = t[1], file[n++] = t[0];
        }
    }
    CHECK(decodes_to_expected(file, n, 0, 0, "TGA 24 RLE raw packets"));
    CHECK(prefixes_safe(file, n));
    /* A run packet over a row's end: all of it one colour. */
    n = tga_header(file, 10, 24, 0x20, 0, 0);
    file[n++] = 0x80 | (W * H - 1), file[n++] = 1, file[n++] = 2, file[n++] = 3;
    int w, h;
    char why[256];
    unsigned char *rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[(W * H - 1) * 4] == 3 && rgba[(W * H - 1) * 4 + 1] == 2 && rgba[(W * H - 1) * 4 + 2] == 1);
    free(rgba);
    /* Colour-mapped: 8-bit indices into a 24-bit map of every texel. */
    n = tga_header(file, 1, 8, 0x20, W * H, 24);
    for (int i = 0; i < W * H; i++) {
        unsigned char t[4];
        expected_texel(i % W, i / W, t);
        file[n++] = t[2], file[n++] = t[1], file[n++] = t[0];
    }
    for (int i = 0; i < W * H; i++) file[n++] = (unsigned char)i;
    CHECK(decodes_to_expected(file, n, 0, 0, "TGA colour-mapped"));
    CHECK(prefixes_safe(file, n));
    /* An index past the map: black, not a read past it. */
    file[n - 1] = 200;
    rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[(W * H - 1) * 4] == 0 && rgba[(W * H - 1) * 4 + 3] == 255);
    free(rgba);
    /* 16-bit 5-5-5: the colours to 5 bits, widened back. */
    n = tga_header(file, 2, 16, 0x20, 0, 0);
    file[n++] = 0x1f, file[n++] = 0x7c; /* red 31, green 0, blue 31 */
    for (int i = 1; i < W * H; i++) file[n++] = 0, file[n++] = 0;
    rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[0] == 255 && rgba[1] == 0 && rgba[2] == 255 && rgba[3] == 255 && rgba[4] == 0);
    free(rgba);
    /* Grey. */
    n = tga_header(file, 3, 8, 0x20, 0, 0);
    for (int i = 0; i < W * H; i++) file[n++] = (unsigned char)(i * 10);
    rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[7 * 4] == 70 && rgba[7 * 4 + 1] == 70 && rgba[7 * 4 + 2] == 70);
    free(rgba);
    /* Headers no writer makes: refused by what is wrong. */
    n = tga_header(file, 2, 12, 0, 0, 0);
    CHECK(!image_decode(file, n + 100, NULL, &w, &h, why, sizeof why) && strstr(why, "bits"));
    n = tga_header(file, 1, 8, 0, 0, 0); /* colour-mapped without a map */
    CHECK(!image_decode(file, n + 100, NULL, &w, &h, why, sizeof why));
}

/* --- BMP -------------------------------------------------------------------- */

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xffff), put16(p + 2, v >> 16);
}

/* A BMP with a 40-byte header; `extra` bytes between header and texels
 * (masks, palette), filled by the caller at 54. Returns the texel offset. */
static size_t bmp_header(unsigned char *out, int bits, int compression, int height, size_t extra, int colours)
{
    memset(out, 0, 54 + extra);
    out[0] = 'B', out[1] = 'M';
    put32(out + 10, (uint32_t)(54 + extra));
    put32(out + 14, 40);
    put32(out + 18, W), put32(out + 22, (uint32_t)height);
    put16(out + 26, 1), put16(out + 28, (unsigned)bits);
    put32(out + 30, (uint32_t)compression);
    put32(out + 46, (uint32_t)colours);
    return 54 + extra;
}

static void test_bmp(void)
{
    unsigned char file[2048];
    int w, h;
    char why[256];
    for (int top = 0; top < 2; top++) {
        /* 24-bit, rows padded to 4 bytes (5 texels: 15 + 1). */
        size_t n = bmp_header(file, 24, 0, top ? -H : H, 0, 0);
        for (int row = 0; row < H; row++) {
            for (int col = 0; col < W; col++) {
                unsigned char t[4];
                stored_texel(col, row, top, 0, t);
                file[n++] = t[2], file[n++] = t[1], file[n++] = t[0];
            }
            file[n++] = 0;
        }
        CHECK(decodes_to_expected(file, n, 0, 0, "BMP 24"));
        CHECK(prefixes_safe(file, n));
    }
    /* 32-bit with bit fields, alpha in the top byte. */
    size_t n = bmp_header(file, 32, 6, H, 16, 0);
    put32(file + 54, 0x00ff0000), put32(file + 58, 0x0000ff00), put32(file + 62, 0x000000ff), put32(file + 66, 0xff000000);
    for (int row = 0; row < H; row++)
        for (int col = 0; col < W; col++) {
            unsigned char t[4];
            stored_texel(col, row, 0, 0, t);
            file[n++] = t[2], file[n++] = t[1], file[n++] = t[0], file[n++] = t[3];
        }
    CHECK(decodes_to_expected(file, n, 1, 0, "BMP 32 bit fields"));
    CHECK(prefixes_safe(file, n));
    /* Plain 32-bit whose fourth bytes are all 0: opaque, as written. */
    n = bmp_header(file, 32, 0, H, 0, 0);
    for (int row = 0; row < H; row++)
        for (int col = 0; col < W; col++) {
            unsigned char t[4];
            stored_texel(col, row, 0, 0, t);
            file[n++] = t[2], file[n++] = t[1], file[n++] = t[0], file[n++] = 0;
        }
    CHECK(decodes_to_expected(file, n, 0, 0, "BMP 32 no alpha"));
    /* 8-bit palette of every texel's colour (rows padded: 5 + 3). */
    n = bmp_header(file, 8, 0, H, (size_t)W * H * 4, W * H);
    for (int i = 0; i < W * H; i++) {
        unsigned char t[4];
        expected_texel(i % W, i / W, t);
        file[54 + i * 4] = t[2], file[54 + i * 4 + 1] = t[1], file[54 + i * 4 + 2] = t[0];
    }
    for (int row = 0; row < H; row++) {
        for (int col = 0; col < W; col++) file[n++] = (unsigned char)((H - 1 - row) * W + col);
        file[n++] = 0, file[n++] = 0, file[n++] = 0;
    }
    CHECK(decodes_to_expected(file, n, 0, 0, "BMP 8 palette"));
    CHECK(prefixes_safe(file, n));
    /* 1 and 4 bits a texel: the first texel's index in the high bits. */
    n = bmp_header(file, 4, 0, H, 16 * 4, 16);
    file[54 + 3 * 4 + 2] = 200; /* entry 3: red 200 */
    for (int row = 0; row < H; row++) file[n++] = 0x30, file[n++] = 0, file[n++] = 0, file[n++] = 0;
    unsigned char *rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[0] == 200 && rgba[4] == 0);
    free(rgba);
    n = bmp_header(file, 1, 0, H, 2 * 4, 2);
    file[54 + 4 + 1] = 77; /* entry 1: green 77 */
    for (int row = 0; row < H; row++) file[n++] = 0x40, file[n++] = 0, file[n++] = 0, file[n++] = 0;
    rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[1 * 4 + 1] == 77 && rgba[1] == 0);
    free(rgba);
    /* 16-bit 5-6-5 bit fields. */
    n = bmp_header(file, 16, 3, H, 12, 0);
    put32(file + 54, 0xf800), put32(file + 58, 0x07e0), put32(file + 62, 0x001f);
    for (int row = 0; row < H; row++) {
        for (int col = 0; col < W; col++) put16(file + n, 0xf81f), n += 2; /* red and blue full */
        file[n++] = 0, file[n++] = 0;
    }
    rgba = image_decode(file, n, NULL, &w, &h, why, sizeof why);
    CHECK(rgba && rgba[0] == 255 && rgba[1] == 0 && rgba[2] == 255 && rgba[3] == 255);
    free(rgba);
    /* Run-length compression is not read: refused by name. */
    n = bmp_header(file, 8, 1, H, 0, 0);
    CHECK(!image_decode(file, n + 64, NULL, &w, &h, why, sizeof why) && strstr(why, "compressed"));
    /* A palette running into the texels. */
    n = bmp_header(file, 8, 0, H, 4, 256);
    CHECK(!image_decode(file, n + 64, NULL, &w, &h, why, sizeof why) && strstr(why, "palette"));
}

/* --- what is not read, and the budget ------------------------------------ */

static void test_refused(void)
{
    int w, h;
    char why[256];
    /* The 16-bit binary PPM that made stb_image read past its heap block. */
    unsigned char ppm[64];
    int n = snprintf((char *)ppm, sizeof ppm, "P6\n4 4\n65535\n");
    memset(ppm + n, 0xab, sizeof ppm - (size_t)n);
    CHECK(!image_decode(ppm, sizeof ppm, NULL, &w, &h, why, sizeof why) && strstr(why, "PNM"));
    image_info info;
    CHECK(image_probe(ppm, sizeof ppm, &info, why, sizeof why) != 0 && info.format == IMAGE_UNKNOWN);
    static const unsigned char gif[] = "GIF89a\x04\x00\x04\x00\x80\x00\x00";
    CHECK(!image_decode(gif, sizeof gif, NULL, &w, &h, why, sizeof why) && strstr(why, "GIF"));
    static const unsigned char text[] = "not an image at all, just words";
    CHECK(!image_decode(text, sizeof text, NULL, &w, &h, why, sizeof why) && why[0]);
    CHECK(!image_decode(text, 0, NULL, &w, &h, why, sizeof why));
    /* A budget one byte short of the texels. */
    unsigned char file[256];
    size_t size = tga_header(file, 3, 8, 0x20, 0, 0) + W * H;
    image_limits tight = {.max_bytes = W * H * 4 - 1};
    CHECK(!image_decode(file, size, &tight, &w, &h, why, sizeof why) && strstr(why, "memory budget"));
    image_limits enough = {.max_bytes = W * H * 4};
    unsigned char *rgba = image_decode(file, size, &enough, &w, &h, why, sizeof why);
    CHECK(rgba != NULL);
    free(rgba);
}

int main(void)
{
    test_png();
    test_jpeg();
    test_jpeg_scan_flood();
    test_jpeg_bomb();
    test_tga();
    test_bmp();
    test_refused();
    return check_summary();
}
