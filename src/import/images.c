/* images.c - texture files into RGBA8 texels (images.h). Every read of
 * the file's bytes is checked against their size; every size product is
 * taken in 64 bits before anything is allocated. */
#include "private/images.h"
#include "private/images_dds.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>
#include <spng.h>

/* A side no texture format here may exceed (TGA's own limit); the
 * importer refuses far less (textures.c). */
enum { IMAGE_MAX_SIDE = 65535 };

/* libspng's bounds on one chunk and on all the ancillary chunks it keeps
 * (it wants the second at least the first): far past any real texture's
 * text or ICC profile, far below what a hostile length field asks for. */
enum { PNG_CHUNK_MAX = 64 << 20, PNG_CACHE_MAX = 64 << 20 };

/* A progressive JPEG may have any number of scans, each a pass over the
 * whole coefficient buffer; real encoders write about ten. Past this the
 * file is an attack on decode time, not an image. */
enum { JPEG_MAX_SCANS = 256 };

const char *image_format_name(image_format format)
{
    switch (format) {
    case IMAGE_PNG: return "PNG";
    case IMAGE_JPEG: return "JPEG";
    case IMAGE_TGA: return "TGA";
    case IMAGE_BMP: return "BMP";
    case IMAGE_DDS: return "DDS";
    default: return "unknown";
    }
}

static int say(char *why, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(why, size, format, args);
    va_end(args);
    return -1;
}

static double monotonic_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static unsigned get16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Texels and working memory within the limit, with room said why not. */
static int within_budget(const image_limits *limits, int width, int height, uint64_t working, char *why, size_t n)
{
    uint64_t texels = (uint64_t)width * (uint64_t)height * 4u;
    if (limits && limits->max_bytes && texels + working > limits->max_bytes)
        return say(why, n, "%dx%d texels take %llu MiB to decode, more than the %llu MiB left of the import's "
                   "memory budget (--import-memory)", width, height,
                   (unsigned long long)((texels + working + (1u << 20) - 1) >> 20),
                   (unsigned long long)(limits->max_bytes >> 20));
    return 0;
}

/* --- PNG (libspng) ----------------------------------------------------------- */

static spng_ctx *png_open(const unsigned char *bytes, size_t size)
{
    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx) return NULL;
    /* CRCs guard against damage in transit, not against a crafted file:
     * a texture whose checksum is off is still drawn, as before. */
    if (spng_set_crc_action(ctx, SPNG_CRC_USE, SPNG_CRC_USE) || spng_set_image_limits(ctx, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE) ||
        spng_set_chunk_limits(ctx, PNG_CHUNK_MAX, PNG_CACHE_MAX) || spng_set_png_buffer(ctx, bytes, size)) {
        spng_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

static int png_probe(const unsigned char *bytes, size_t size, image_info *info, char *why, size_t n)
{
    spng_ctx *ctx = png_open(bytes, size);
    if (!ctx) return say(why, n, "out of memory (PNG decoder)");
    struct spng_ihdr ihdr;
    int rc = spng_get_ihdr(ctx, &ihdr);
    spng_ctx_free(ctx);
    if (rc) return say(why, n, "not a valid PNG: %s", spng_strerror(rc));
    info->width = (int)ihdr.width, info->height = (int)ihdr.height;
    info->working_bytes = 0; /* a row or two, and the inflate window */
    return 0;
}

static unsigned char *png_decode(const unsigned char *bytes, size_t size, const image_limits *limits, int *width,
                                 int *height, char *why, size_t n)
{
    spng_ctx *ctx = png_open(bytes, size);
    if (!ctx) {
        say(why, n, "out of memory");
        return NULL;
    }
    struct spng_ihdr ihdr;
    size_t texel_bytes = 0;
    unsigned char *texels = NULL;
    int rc = spng_get_ihdr(ctx, &ihdr);
    if (rc == 0) rc = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &texel_bytes);
    if (rc) {
        say(why, n, "not a valid PNG: %s", spng_strerror(rc));
    } else if (texel_bytes != (size_t)ihdr.width * ihdr.height * 4u) {
        say(why, n, "a PNG whose decoded size does not match its %ux%u", ihdr.width, ihdr.height);
    } else if (within_budget(limits, (int)ihdr.width, (int)ihdr.height, 0, why, n) == 0) {
        texels = malloc(texel_bytes);
        if (!texels) say(why, n, "out of memory");
        /* Transparency chunks applied; no gamma: texels as written, as
         * every glTF and game viewer reads them. */
        else if ((rc = spng_decode_image(ctx, texels, texel_bytes, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS)) != 0) {
            say(why, n, "broken PNG: %s", spng_strerror(rc));
            free(texels);
            texels = NULL;
        } else {
            *width = (int)ihdr.width, *height = (int)ihdr.height;
        }
    }
    spng_ctx_free(ctx);
    return texels;
}

/* --- JPEG (libjpeg-turbo) ------------------------------------------------------ */

typedef struct jpeg_guard {
    struct jpeg_error_mgr errors; /* first: libjpeg's err pointer is cast back to this */
    struct jpeg_progress_mgr progress;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
    double deadline;
    j_decompress_ptr cinfo;
} jpeg_guard;

/* libjpeg's fatal errors come here; it must not return. */
static void jpeg_fail(j_common_ptr cinfo)
{
    jpeg_guard *guard = (jpeg_guard *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, guard->message);
    longjmp(guard->escape, 1);
}

/* Warnings (corrupt data it steps over) are not printed: only main
 * prints, and a damaged scan still gives an image. */
static void jpeg_quiet(j_common_ptr cinfo, int level)
{
    (void)cinfo, (void)level;
}

static void jpeg_watch(j_common_ptr cinfo)
{
    jpeg_guard *guard = (jpeg_guard *)(void *)cinfo->err;
    if (guard->cinfo->input_scan_number > JPEG_MAX_SCANS) {
        snprintf(guard->message, sizeof guard->message, "more than %d scans", JPEG_MAX_SCANS);
        longjmp(guard->escape, 1);
    }
    if (guard->deadline > 0.0 && monotonic_now() > guard->deadline) {
        snprintf(guard->message, sizeof guard->message, "its decoding ran past the import's time (--import-timeout)");
        longjmp(guard->escape, 1);
    }
}

static void jpeg_setup(jpeg_guard *guard, struct jpeg_decompress_struct *cinfo, double deadline)
{
    memset(guard, 0, sizeof *guard);
    cinfo->err = jpeg_std_error(&guard->errors);
    guard->errors.error_exit = jpeg_fail;
    guard->errors.emit_message = jpeg_quiet;
    guard->deadline = deadline;
    guard->cinfo = cinfo;
    guard->progress.progress_monitor = jpeg_watch;
}

/* What libjpeg keeps besides the output rows: a file of several scans
 * buffers every coefficient of the image (64 of 2 bytes a block), per
 * component at its sampling. Read after jpeg_read_header. */
static uint64_t jpeg_working_bytes(const struct jpeg_decompress_struct *cinfo)
{
    if (!jpeg_has_multiple_scans((j_decompress_ptr)cinfo)) return 0;
    uint64_t bytes = 0;
    for (int c = 0; c < cinfo->num_components; c++) {
        const jpeg_component_info *comp = &cinfo->comp_info[c];
        uint64_t across = (uint64_t)comp->width_in_blocks + (uint64_t)comp->h_samp_factor;
        uint64_t down = (uint64_t)comp->height_in_blocks + (uint64_t)comp->v_samp_factor;
        bytes += across * down * 128u;
    }
    return bytes;
}

static int jpeg_probe(const unsigned char *bytes, size_t size, image_info *info, char *why, size_t n)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_guard guard;
    jpeg_setup(&guard, &cinfo, 0.0);
    if (setjmp(guard.escape)) {
        jpeg_destroy_decompress(&cinfo);
        return say(why, n, "not a valid JPEG: %s", guard.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    info->width = (int)cinfo.image_width, info->height = (int)cinfo.image_height;
    info->working_bytes = jpeg_working_bytes(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

static unsigned char *jpeg_decode(const unsigned char *bytes, size_t size, const image_limits *limits, int *width,
                                  int *height, char *why, size_t n)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_guard guard;
    jpeg_setup(&guard, &cinfo, limits ? limits->deadline : 0.0);
    unsigned char *volatile texels = NULL;
    if (setjmp(guard.escape)) {
        jpeg_destroy_decompress(&cinfo);
        free(texels);
        say(why, n, "broken JPEG: %s", guard.message);
        return NULL;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &guard.progress;
    jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    int w = (int)cinfo.image_width, h = (int)cinfo.image_height;
    uint64_t working = jpeg_working_bytes(&cinfo);
    if (w <= 0 || h <= 0 || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE || within_budget(limits, w, h, working, why, n)) {
        if (w <= 0 || h <= 0 || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE) say(why, n, "a JPEG of %dx%d", w, h);
        jpeg_destroy_decompress(&cinfo);
        return NULL;
    }
    /* The limit on libjpeg's own allocations: a file whose header the
     * estimate above misjudges still stops at the budget. */
    if (limits && limits->max_bytes) cinfo.mem->max_memory_to_use = (long)(limits->max_bytes - (uint64_t)w * h * 4u);
    int cmyk = cinfo.num_components == 4;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    if ((int)cinfo.output_width != w || (int)cinfo.output_height != h || cinfo.output_components != 4) {
        snprintf(guard.message, sizeof guard.message, "unexpected output shape");
        longjmp(guard.escape, 1);
    }
    texels = malloc((size_t)w * (size_t)h * 4u);
    if (!texels) {
        snprintf(guard.message, sizeof guard.message, "out of memory");
        longjmp(guard.escape, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = texels + (size_t)cinfo.output_scanline * (size_t)w * 4u;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    if (cmyk) {
        /* Adobe's CMYK, as Photoshop writes it (the only common kind):
         * stored inverted, so each channel times K is the colour. */
        unsigned char *p = texels;
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++, p += 4) {
            unsigned k = p[3];
            p[0] = (unsigned char)((p[0] * k + 127) / 255);
            p[1] = (unsigned char)((p[1] * k + 127) / 255);
            p[2] = (unsigned char)((p[2] * k + 127) / 255);
            p[3] = 255;
        }
    }
    /* A file that ends early is finished with grey by libjpeg (a warning):
     * drawn as it is, as every viewer does. */
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *width = w, *height = h;
    return texels;
}

/* --- TGA ----------------------------------------------------------------------- */

/* The 18-byte header, checked. */
typedef struct tga_header {
    unsigned id_length, map_type, type, map_first, map_length, map_bits, width, height, bits, descriptor;
    size_t map_offset, data_offset;
} tga_header;

static int tga_header_read(const unsigned char *bytes, size_t size, tga_header *t, char *why, size_t n)
{
    if (size < 18) return say(why, n, "not an image (too short)");
    t->id_length = bytes[0], t->map_type = bytes[1], t->type = bytes[2];
    t->map_first = get16(bytes + 3), t->map_length = get16(bytes + 5), t->map_bits = bytes[7];
    t->width = get16(bytes + 12), t->height = get16(bytes + 14), t->bits = bytes[16], t->descriptor = bytes[17];
    unsigned base = t->type & ~8u; /* 9, 10, 11: the run-length kinds of 1, 2, 3 */
    int mapped = base == 1, truecolour = base == 2, grey = base == 3;
    if (!(mapped || truecolour || grey) || t->type > 11 || t->map_type > 1 || (mapped && t->map_type != 1))
        return say(why, n, "not a PNG, JPEG, TGA, BMP or DDS image");
    if (t->width == 0 || t->height == 0) return say(why, n, "a TGA of %ux%u", t->width, t->height);
    if ((mapped && t->bits != 8 && t->bits != 16) || (truecolour && t->bits != 15 && t->bits != 16 && t->bits != 24 &&
                                                       t->bits != 32) || (grey && t->bits != 8))
        return say(why, n, "a TGA of %u bits a texel, which is not one the format allows", t->bits);
    size_t map_bytes = 0;
    if (t->map_type == 1) {
        if (t->map_bits != 15 && t->map_bits != 16 && t->map_bits != 24 && t->map_bits != 32)
            return say(why, n, "a TGA palette of %u bits an entry", t->map_bits);
        if (mapped && t->map_length == 0) return say(why, n, "a TGA with an empty palette");
        map_bytes = (size_t)t->map_length * ((t->map_bits + 7) / 8);
    }
    t->map_offset = 18 + (size_t)t->id_length;
    t->data_offset = t->map_offset + map_bytes;
    if (t->data_offset > size) return say(why, n, "a TGA cut short in its palette");
    return 0;
}

/* One texel of `bits` (15, 16, 24, 32) at p into RGBA. */
static void tga_colour(const unsigned char *p, unsigned bits, unsigned char *out)
{
    if (bits == 15 || bits == 16) {
        unsigned v = get16(p);
        out[0] = (unsigned char)(((v >> 10) & 31) * 255 / 31);
        out[1] = (unsigned char)(((v >> 5) & 31) * 255 / 31);
        out[2] = (unsigned char)((v & 31) * 255 / 31);
        out[3] = 255; /* the attribute bit is unreliable across writers: opaque */
    } else {
        out[0] = p[2], out[1] = p[1], out[2] = p[0];
        out[3] = bits == 32 ? p[3] : 255;
    }
}

static unsigned char *tga_decode(const unsigned char *bytes, size_t size, const image_limits *limits, int *width,
                                 int *height, char *why, size_t n)
{
    tga_header t;
    if (tga_header_read(bytes, size, &t, why, n) != 0) return NULL;
    if (within_budget(limits, (int)t.width, (int)t.height, 0, why, n) != 0) return NULL;
    size_t count = (size_t)t.width * t.height;
    unsigned char *texels = malloc(count * 4);
    if (!texels) {
        say(why, n, "out of memory");
        return NULL;
    }
    unsigned base = t.type & ~8u;
    int rle = t.type >= 9;
    size_t texel_bytes = (t.bits + 7) / 8, entry_bytes = (t.map_bits + 7) / 8;
    const unsigned char *p = bytes + t.data_offset, *end = bytes + size;
    size_t done = 0;
    while (done < count) {
        size_t run = 1, raw = 1;
        int repeat = 0;
        if (rle) {
            if (p >= end) break;
            unsigned packet = *p++;
            run = (packet & 127) + 1;
            repeat = packet >= 128;
            raw = repeat ? 1 : run;
        }
        if ((size_t)(end - p) < raw * texel_bytes) break;
        if (run > count - done) run = count - done; /* a run past the end: the rest is dropped */
        for (size_t i = 0; i < run; i++) {
            const unsigned char *src = p + (repeat ? 0 : i) * texel_bytes;
            unsigned char *out = texels + (done + i) * 4;
            if (base == 3) {
                out[0] = out[1] = out[2] = src[0], out[3] = 255;
            } else if (base == 1) {
                unsigned index = t.bits == 8 ? src[0] : get16(src);
                if (index < t.map_first || index - t.map_first >= t.map_length) {
                    out[0] = out[1] = out[2] = 0, out[3] = 255; /* outside the palette: black */
                } else {
                    tga_colour(bytes + t.map_offset + (size_t)(index - t.map_first) * entry_bytes, t.map_bits, out);
                }
            } else {
                tga_colour(src, t.bits, out);
            }
        }
        p += raw * texel_bytes;
        done += run;
    }
    if (done < count) {
        free(texels);
        say(why, n, "a TGA cut short (%zu of %zu texels)", done, count);
        return NULL;
    }
    /* Rows are stored from the bottom unless the descriptor says top;
     * right to left where it says so. */
    size_t row = (size_t)t.width * 4;
    if (!(t.descriptor & 0x20))
        for (size_t y = 0; y < t.height / 2; y++) {
            unsigned char *a = texels + y * row, *b = texels + (t.height - 1 - y) * row;
            for (size_t i = 0; i < row; i++) {
                unsigned char c = a[i];
                a[i] = b[i], b[i] = c;
            }
        }
    if (t.descriptor & 0x10)
        for (size_t y = 0; y < t.height; y++)
            for (size_t x = 0; x < t.width / 2; x++) {
                uint32_t a, b;
                unsigned char *pa = texels + y * row + x * 4, *pb = texels + y * row + (t.width - 1 - x) * 4;
                memcpy(&a, pa, 4), memcpy(&b, pb, 4);
                memcpy(pa, &b, 4), memcpy(pb, &a, 4);
            }
    *width = (int)t.width, *height = (int)t.height;
    return texels;
}

/* --- BMP ----------------------------------------------------------------------- */

typedef struct bmp_header {
    long width, height; /* height < 0: rows stored top first */
    unsigned bits, compression, palette_entry, palette_count;
    size_t palette_offset, data_offset, stride;
    uint32_t masks[4]; /* red, green, blue, alpha; where bits >= 16 */
} bmp_header;

enum { BI_RGB = 0, BI_BITFIELDS = 3, BI_ALPHABITFIELDS = 6 };

static int bmp_header_read(const unsigned char *bytes, size_t size, bmp_header *b, char *why, size_t n)
{
    if (size < 26 || bytes[0] != 'B' || bytes[1] != 'M') return say(why, n, "not a BMP");
    b->data_offset = get32(bytes + 10);
    uint32_t header = get32(bytes + 14);
    if (header != 12 && header != 40 && header != 52 && header != 56 && header != 108 && header != 124)
        return say(why, n, "a BMP with a %u-byte header, not one of Windows' or OS/2's", header);
    if (size < 14 + (size_t)header) return say(why, n, "a BMP cut short in its header");
    memset(b->masks, 0, sizeof b->masks);
    if (header == 12) {
        b->width = get16(bytes + 18), b->height = get16(bytes + 20), b->bits = get16(bytes + 24);
        b->compression = BI_RGB, b->palette_entry = 3, b->palette_count = 0;
    } else {
        b->width = (int32_t)get32(bytes + 18), b->height = (int32_t)get32(bytes + 22), b->bits = get16(bytes + 28);
        b->compression = get32(bytes + 30), b->palette_entry = 4, b->palette_count = get32(bytes + 46);
    }
    b->palette_offset = 14 + (size_t)header;
    if (b->compression == BI_BITFIELDS || b->compression == BI_ALPHABITFIELDS) {
        if (b->bits != 16 && b->bits != 32) return say(why, n, "a BMP with bit fields on %u-bit texels", b->bits);
        size_t masks = b->compression == BI_ALPHABITFIELDS ? 4 : 3;
        if (header == 40) { /* the masks follow the header */
            if (size < b->palette_offset + masks * 4) return say(why, n, "a BMP cut short in its masks");
            for (size_t i = 0; i < masks; i++) b->masks[i] = get32(bytes + b->palette_offset + i * 4);
            b->palette_offset += masks * 4;
        } else { /* within the header */
            for (size_t i = 0; i < (header >= 56 ? 4u : 3u); i++) b->masks[i] = get32(bytes + 54 + i * 4);
        }
    } else if (b->compression == BI_RGB) {
        if (b->bits == 16) b->masks[0] = 0x7c00, b->masks[1] = 0x03e0, b->masks[2] = 0x001f;
        if (b->bits == 32) b->masks[0] = 0xff0000, b->masks[1] = 0xff00, b->masks[2] = 0xff, b->masks[3] = 0xff000000u;
    } else {
        return say(why, n, "a BMP compressed by method %u (run-length or embedded PNG/JPEG), which is not read",
                   b->compression);
    }
    if (b->bits != 1 && b->bits != 4 && b->bits != 8 && b->bits != 16 && b->bits != 24 && b->bits != 32)
        return say(why, n, "a BMP of %u bits a texel", b->bits);
    long down = b->height < 0 ? -b->height : b->height;
    if (b->width <= 0 || down == 0 || b->width > IMAGE_MAX_SIDE || down > IMAGE_MAX_SIDE)
        return say(why, n, "a BMP of %ldx%ld", b->width, b->height);
    if (b->bits <= 8) {
        unsigned most = 1u << b->bits;
        if (b->palette_count == 0 || b->palette_count > most) b->palette_count = most;
        if (b->palette_offset + (size_t)b->palette_count * b->palette_entry > b->data_offset ||
            b->data_offset > size)
            return say(why, n, "a BMP whose palette runs into its texels or past its end");
    }
    b->stride = ((size_t)b->width * b->bits + 31) / 32 * 4;
    /* The last row without its padding is whole enough. */
    size_t last = ((size_t)b->width * b->bits + 7) / 8;
    if (b->data_offset > size || (size - b->data_offset) < b->stride * (size_t)(down - 1) + last)
        return say(why, n, "a BMP cut short in its texels");
    return 0;
}

/* A channel's bits under `mask`, scaled to 0..255. */
static unsigned char bmp_channel(uint32_t value, uint32_t mask)
{
    if (!mask) return 0;
    int shift = __builtin_ctz(mask);
    uint32_t field = (value & mask) >> shift, top = mask >> shift;
    int bits = 32 - __builtin_clz(top);
    if (bits >= 8) return (unsigned char)(field >> (bits - 8));
    return (unsigned char)((field * 255u + top / 2) / top);
}

static unsigned char *bmp_decode(const unsigned char *bytes, size_t size, const image_limits *limits, int *width,
                                 int *height, char *why, size_t n)
{
    bmp_header b;
    if (bmp_header_read(bytes, size, &b, why, n) != 0) return NULL;
    int w = (int)b.width, h = (int)(b.height < 0 ? -b.height : b.height);
    if (within_budget(limits, w, h, 0, why, n) != 0) return NULL;
    unsigned char *texels = malloc((size_t)w * (size_t)h * 4u);
    if (!texels) {
        say(why, n, "out of memory");
        return NULL;
    }
    int any_alpha = 0;
    for (int y = 0; y < h; y++) {
        const unsigned char *row = bytes + b.data_offset + (size_t)y * b.stride;
        int out_y = b.height < 0 ? y : h - 1 - y;
        unsigned char *out = texels + (size_t)out_y * (size_t)w * 4u;
        for (int x = 0; x < w; x++, out += 4) {
            if (b.bits <= 8) {
                unsigned per_byte = 8 / b.bits, shift = 8 - b.bits * (x % per_byte + 1);
                unsigned index = (row[x / per_byte] >> shift) & ((1u << b.bits) - 1);
                if (index < b.palette_count) {
                    const unsigned char *entry = bytes + b.palette_offset + (size_t)index * b.palette_entry;
                    out[0] = entry[2], out[1] = entry[1], out[2] = entry[0];
                } else {
                    out[0] = out[1] = out[2] = 0; /* outside the palette: black */
                }
                out[3] = 255;
            } else if (b.bits == 24) {
                const unsigned char *p = row + (size_t)x * 3;
                out[0] = p[2], out[1] = p[1], out[2] = p[0], out[3] = 255;
            } else {
                uint32_t v = b.bits == 16 ? get16(row + (size_t)x * 2) : get32(row + (size_t)x * 4);
                out[0] = bmp_channel(v, b.masks[0]);
                out[1] = bmp_channel(v, b.masks[1]);
                out[2] = bmp_channel(v, b.masks[2]);
                out[3] = b.masks[3] ? bmp_channel(v, b.masks[3]) : 255;
                any_alpha |= out[3];
            }
        }
    }
    /* Most 32-bit BMPs leave the fourth byte 0, meaning unused, not clear:
     * an image with no alpha at all anywhere is opaque. */
    if (b.bits >= 16 && b.masks[3] && !any_alpha)
        for (size_t i = 0; i < (size_t)w * (size_t)h; i++) texels[i * 4 + 3] = 255;
    *width = w, *height = h;
    return texels;
}

/* --- dispatch -------------------------------------------------------------------- */

/* Formats model files name that are not decoded here, by their magic:
 * named in the warning rather than taken for a broken TGA. */
static const char *unsupported_format(const unsigned char *bytes, size_t size)
{
    static const struct {
        const char *magic;
        size_t length;
        const char *name;
    } known[] = {
        {"GIF8", 4, "GIF"}, {"8BPS", 4, "Photoshop (PSD)"}, {"#?RADIANCE", 10, "Radiance HDR"}, {"#?RGBE", 6, "Radiance HDR"},
        {"\xabKTX", 4, "KTX"}, {"II*\0", 4, "TIFF"}, {"MM\0*", 4, "TIFF"},
        {"\0\0\0\x0cjP  ", 8, "JPEG 2000"}, {"qoif", 4, "QOI"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (size >= known[i].length && memcmp(bytes, known[i].magic, known[i].length) == 0) return known[i].name;
    if (size >= 12 && memcmp(bytes, "RIFF", 4) == 0 && memcmp(bytes + 8, "WEBP", 4) == 0) return "WebP";
    if (size >= 3 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '7' &&
        (bytes[2] == ' ' || bytes[2] == '\n' || bytes[2] == '\r' || bytes[2] == '\t'))
        return "Netpbm (PNM)";
    return NULL;
}

static image_format sniff(const unsigned char *bytes, size_t size)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size >= 8 && memcmp(bytes, png, 8) == 0) return IMAGE_PNG;
    if (size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) return IMAGE_JPEG;
    if (size >= 2 && bytes[0] == 'B' && bytes[1] == 'M') return IMAGE_BMP;
    if (size >= 4 && memcmp(bytes, "DDS ", 4) == 0) return IMAGE_DDS;
    if (unsupported_format(bytes, size)) return IMAGE_UNKNOWN;
    /* TGA has no magic: what is left is read as TGA only if its header
     * holds together (tga_header_read). */
    return IMAGE_TGA;
}

int image_probe(const unsigned char *bytes, size_t size, image_info *info, char *why, size_t why_size)
{
    memset(info, 0, sizeof *info);
    info->format = sniff(bytes, size);
    int failed = 0;
    switch (info->format) {
    case IMAGE_PNG: failed = png_probe(bytes, size, info, why, why_size); break;
    case IMAGE_JPEG: failed = jpeg_probe(bytes, size, info, why, why_size); break;
    case IMAGE_UNKNOWN:
        failed = say(why, why_size, "a %s image, not one that is read (PNG, JPEG, TGA, BMP, DDS)",
                     unsupported_format(bytes, size));
        break;
    case IMAGE_DDS: failed = dds_probe(bytes, size, &info->width, &info->height, why, why_size); break;
    case IMAGE_BMP: {
        bmp_header b;
        failed = bmp_header_read(bytes, size, &b, why, why_size);
        if (!failed) info->width = (int)b.width, info->height = (int)(b.height < 0 ? -b.height : b.height);
        break;
    }
    default: {
        tga_header t;
        failed = tga_header_read(bytes, size, &t, why, why_size);
        if (!failed) info->width = (int)t.width, info->height = (int)t.height;
        break;
    }
    }
    if (failed) {
        info->format = IMAGE_UNKNOWN;
        return -1;
    }
    if (info->width <= 0 || info->height <= 0 || info->width > IMAGE_MAX_SIDE || info->height > IMAGE_MAX_SIDE) {
        say(why, why_size, "a %s of %dx%d", image_format_name(info->format), info->width, info->height);
        info->format = IMAGE_UNKNOWN;
        return -1;
    }
    return 0;
}

unsigned char *image_decode(const unsigned char *bytes, size_t size, const image_limits *limits, int *width,
                            int *height, char *why, size_t why_size)
{
    *width = *height = 0;
    switch (sniff(bytes, size)) {
    case IMAGE_PNG: return png_decode(bytes, size, limits, width, height, why, why_size);
    case IMAGE_JPEG: return jpeg_decode(bytes, size, limits, width, height, why, why_size);
    case IMAGE_BMP: return bmp_decode(bytes, size, limits, width, height, why, why_size);
    case IMAGE_UNKNOWN:
        say(why, why_size, "a %s image, not one that is read (PNG, JPEG, TGA, BMP, DDS)",
            unsupported_format(bytes, size));
        return NULL;
    case IMAGE_DDS: {
        int w, h;
        if (dds_probe(bytes, size, &w, &h, why, why_size) != 0 || within_budget(limits, w, h, 0, why, why_size) != 0)
            return NULL;
        return dds_decode(bytes, size, width, height, why, why_size);
    }
    default: return tga_decode(bytes, size, limits, width, height, why, why_size);
    }
}
