/* output.c - PNG, OBJ and GIF output. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <spng.h>

#include "text.h"

/* PNGs by Debian's libspng at zlib level 1, each row filtered by "up"
 * alone: of the settings measured on rendered frames (bench/NOTES.md,
 * #47) the fastest that still writes smaller files than stb's encoder
 * did; the pixels are the same, the bytes not. `write` gets the bytes in
 * order and returns 0, or non-zero to stop. 0 on success. */
static int encode_png(int width, int height, const unsigned char *rgba, spng_rw_fn *write, void *context)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    if (!ctx) return -1;
    struct spng_ihdr ihdr = {.width = (uint32_t)width, .height = (uint32_t)height, .bit_depth = 8,
                             .color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA};
    int e = spng_set_png_stream(ctx, write, context);
    if (!e) e = spng_set_ihdr(ctx, &ihdr);
    if (!e) e = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, 1);
    if (!e) e = spng_set_option(ctx, SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_UP);
    if (!e) e = spng_encode_image(ctx, rgba, (size_t)width * (size_t)height * 4, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
    spng_ctx_free(ctx);
    return e ? -1 : 0;
}

static int write_png_bytes(spng_ctx *ctx, void *file, void *bytes, size_t count)
{
    (void)ctx;
    fwrite(bytes, 1, count, file); /* checked when the file is committed */
    return 0;
}

skv_result output_write_png(const char *path, int width, int height, const unsigned char *rgba, skv_error *err)
{
    skv_outfile out;
    skv_result r = outfile_open(&out, path, err);
    if (r != SKV_OK) return r;
    if (encode_png(width, height, rgba, write_png_bytes, out.file) != 0) {
        outfile_discard(&out);
        return skv_fail(err, SKV_ERR_OUTPUT, "cannot write PNG %s", path);
    }
    return outfile_commit(&out, path, err);
}

/* The last line of defence of issue #21: the importer repairs the inputs
 * known to overflow, but a chain of large finite transforms can still
 * multiply past a float. An OBJ with "nan" or "inf" in it breaks whatever
 * reads it, so such a pose is refused before the file is touched. */
static int point_finite(const mat4 scene, const float *p)
{
    vec4 q;
    glm_mat4_mulv((vec4 *)scene, (vec4){p[0], p[1], p[2], 1.0f}, q);
    return isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]);
}

static skv_result refuse_non_finite(skv_error *err)
{
    return skv_fail(err, SKV_ERR_CONTENT, "the pose has non-finite coordinates (the file's transforms overflow a "
                    "float); nothing written");
}

skv_result output_write_obj(const char *path, const skv_model *model, const float *positions,
                             const float *normals, const mat4 scene, skv_error *err)
{
    mat3 normal_matrix;
    glm_mat4_pick3((vec4 *)scene, normal_matrix);
    glm_mat3_inv(normal_matrix, normal_matrix);
    glm_mat3_transpose(normal_matrix);
    for (int v = 0; v < model->vertex_count; v++) {
        vec3 n;
        glm_mat3_mulv(normal_matrix, (float *)&normals[v * 3], n);
        if (!point_finite(scene, &positions[v * 3]) || !isfinite(n[0]) || !isfinite(n[1]) || !isfinite(n[2]))
            return refuse_non_finite(err);
    }
    skv_outfile out;
    skv_result r = outfile_open(&out, path, err);
    if (r != SKV_OK) return r;
    FILE *f = out.file;

    /* Names go through text_put_line: a newline in one would start an
     * OBJ line of the file's choosing ("v ...", "f ..."). */
    fprintf(f, "# skinview pose export: ");
    text_put_line(f, model->path ? model->path : "");
    fprintf(f, "\n");
    for (int v = 0; v < model->vertex_count; v++) {
        vec4 p = {positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2], 1.0f}, q;
        glm_mat4_mulv((vec4 *)scene, p, q);
        fprintf(f, "v %.7g %.7g %.7g\n", q[0], q[1], q[2]);
    }
    for (int v = 0; v < model->vertex_count; v++) {
        vec3 n;
        glm_mat3_mulv(normal_matrix, (float *)&normals[v * 3], n);
        glm_vec3_normalize(n);
        fprintf(f, "vn %.5f %.5f %.5f\n", n[0], n[1], n[2]);
    }
    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        fprintf(f, "o ");
        text_put_line(f, mesh->name);
        fprintf(f, "\n");
        for (int i = 0; i < mesh->index_count; i += 3) {
            const uint32_t *tri = &model->indices[mesh->first_index + i];
            long a = mesh->base_vertex + (long)tri[0] + 1, b = mesh->base_vertex + (long)tri[1] + 1,
                 c = mesh->base_vertex + (long)tri[2] + 1;
            fprintf(f, "f %ld//%ld %ld//%ld %ld//%ld\n", a, a, b, b, c, c);
        }
    }
    return outfile_commit(&out, path, err);
}

skv_result output_write_skeleton_obj(const char *path, const skv_model *model, const mat4 *global,
                                      const mat4 scene, int *joints, skv_error *err)
{
    const skv_skeleton *sk = &model->skeleton;
    int *vertex_of = malloc((size_t)(sk->node_count > 0 ? sk->node_count : 1) * sizeof *vertex_of);
    if (!vertex_of) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (int n = 0; n < sk->node_count; n++) vertex_of[n] = 0;
    for (int b = 0; b < sk->bone_count; b++)
        if (sk->bone_node[b] >= 0 && model_bone_from_file(model, b)) vertex_of[sk->bone_node[b]] = -1;
    for (int n = 0; n < sk->node_count; n++) {
        if (vertex_of[n] == -1 && !point_finite(scene, global[n][3])) {
            free(vertex_of);
            return refuse_non_finite(err);
        }
    }
    skv_outfile out;
    skv_result r = outfile_open(&out, path, err);
    if (r != SKV_OK) {
        free(vertex_of);
        return r;
    }
    FILE *f = out.file;
    fprintf(f, "# skinview pose export: ");
    text_put_line(f, model->path ? model->path : "");
    fprintf(f, "\n# no mesh in the file: its joints as points, its bones as lines\no skeleton\n");
    int count = 0;
    for (int n = 0; n < sk->node_count; n++) {
        if (vertex_of[n] != -1) continue;
        vec4 p;
        glm_mat4_mulv((vec4 *)scene, (vec4){global[n][3][0], global[n][3][1], global[n][3][2], 1.0f}, p);
        fprintf(f, "v %.7g %.7g %.7g\n", p[0], p[1], p[2]);
        vertex_of[n] = ++count; /* OBJ counts from 1 */
    }
    for (int n = 0; n < sk->node_count; n++) {
        if (vertex_of[n] <= 0) continue;
        int p = sk->parents[n];
        while (p >= 0 && vertex_of[p] <= 0) p = sk->parents[p];
        if (p >= 0) fprintf(f, "l %d %d\n", vertex_of[p], vertex_of[n]);
    }
    free(vertex_of);
    if (joints) *joints = count;
    return outfile_commit(&out, path, err);
}

/* --- animated GIF ------------------------------------------------------- */

static int rgb15(const unsigned char *p)
{
    return (p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3);
}

/* The palette: the 256 most common 15-bit colours of `rgba`, then for every
 * 15-bit colour its nearest entry. */
static int build_palette(skv_gif *gif, const unsigned char *rgba)
{
    int *counts = calloc(32768, sizeof *counts);
    if (!counts) return -1;
    size_t pixels = (size_t)gif->width * gif->height;
    for (size_t i = 0; i < pixels; i++) counts[rgb15(&rgba[i * 4])]++;
    gif->palette_size = 0;
    for (int k = 0; k < 256; k++) {
        int best = -1;
        for (int c = 0; c < 32768; c++)
            if (counts[c] > 0 && (best < 0 || counts[c] > counts[best])) best = c;
        if (best < 0) break;
        counts[best] = 0;
        unsigned char *e = &gif->palette[gif->palette_size++ * 3];
        e[0] = (unsigned char)(((best >> 10) & 31) * 255 / 31);
        e[1] = (unsigned char)(((best >> 5) & 31) * 255 / 31);
        e[2] = (unsigned char)((best & 31) * 255 / 31);
    }
    free(counts);
    if (gif->palette_size == 0) gif->palette[0] = gif->palette[1] = gif->palette[2] = 0, gif->palette_size = 1;
    for (int c = 0; c < 32768; c++) {
        int r = ((c >> 10) & 31) * 255 / 31, g = ((c >> 5) & 31) * 255 / 31, b = (c & 31) * 255 / 31;
        int best = 0, best_d = 1 << 30;
        for (int k = 0; k < gif->palette_size; k++) {
            const unsigned char *e = &gif->palette[k * 3];
            int d = (r - e[0]) * (r - e[0]) + (g - e[1]) * (g - e[1]) + (b - e[2]) * (b - e[2]);
            if (d < best_d) best = k, best_d = d;
        }
        gif->nearest[c] = (unsigned char)best;
    }
    return 0;
}

skv_result output_gif_begin(skv_gif *gif, const char *path, int width, int height, double fps, skv_error *err)
{
    memset(gif, 0, sizeof *gif);
    if (width > 65535 || height > 65535) return skv_fail(err, SKV_ERR_OUTPUT, "%s: GIF images stop at 65535 pixels", path);
    gif->width = width, gif->height = height;
    gif->delay_cs = (int)(100.0 / (fps > 0.0 ? fps : 15.0) + 0.5);
    if (gif->delay_cs < 2) gif->delay_cs = 2; /* viewers slow down anything faster */
    gif->nearest = malloc(32768);
    gif->indices = malloc((size_t)width * height);
    if (!gif->nearest || !gif->indices) {
        free(gif->nearest), free(gif->indices);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    skv_result r = outfile_open(&gif->out, path, err);
    if (r != SKV_OK) {
        free(gif->nearest), free(gif->indices);
        gif->nearest = gif->indices = NULL;
    }
    return r;
}

/* LZW code output, packed LSB first into sub-blocks of up to 255 bytes. */
typedef struct bit_writer {
    FILE *file;
    unsigned char block[255];
    int block_len;
    unsigned bits, bit_count;
} bit_writer;

static void put_code(bit_writer *w, unsigned code, unsigned width)
{
    w->bits |= code << w->bit_count;
    w->bit_count += width;
    while (w->bit_count >= 8) {
        w->block[w->block_len++] = (unsigned char)(w->bits & 0xff);
        w->bits >>= 8;
        w->bit_count -= 8;
        if (w->block_len == 255) {
            fputc(255, w->file);
            fwrite(w->block, 1, 255, w->file);
            w->block_len = 0;
        }
    }
}

static void flush_bits(bit_writer *w)
{
    if (w->bit_count > 0) put_code(w, 0, 8 - w->bit_count);
    if (w->block_len > 0) {
        fputc(w->block_len, w->file);
        fwrite(w->block, 1, (size_t)w->block_len, w->file);
    }
    fputc(0, w->file); /* end of the image data */
}

/* LZW with 8-bit symbols: codes 0-255 literal, 256 clear, 257 end; the
 * table (prefix code, next byte) -> code lives in an open-addressed hash
 * and is cleared when it reaches 4096 codes. */
static int write_lzw(FILE *file, const unsigned char *data, size_t count)
{
    enum { CLEAR = 256, END = 257, HASH = 8192 };
    int *keys = malloc(HASH * sizeof *keys);
    short *values = malloc(HASH * sizeof *values);
    if (!keys || !values) {
        free(keys), free(values);
        return -1;
    }
    bit_writer w = {.file = file};
    fputc(8, file); /* minimum code size */
    unsigned width = 9;
    int next = 258;
    memset(keys, -1, HASH * sizeof *keys);
    put_code(&w, CLEAR, width);
    int prefix = data[0];
    for (size_t i = 1; i < count; i++) {
        int key = prefix << 8 | data[i];
        unsigned h = ((unsigned)key * 2654435761u) >> 19; /* 13 bits */
        while (keys[h] != -1 && keys[h] != key) h = (h + 1) & (HASH - 1);
        if (keys[h] == key) {
            prefix = values[h];
            continue;
        }
        put_code(&w, (unsigned)prefix, width);
        if (next == 4096) {
            put_code(&w, CLEAR, width);
            memset(keys, -1, HASH * sizeof *keys);
            next = 258;
            width = 9;
        } else {
            keys[h] = key;
            values[h] = (short)next;
            /* The decoder learns this code one step later: widen when the
             * code just added no longer fits. */
            if (next == (1 << width) && width < 12) width++;
            next++;
        }
        prefix = data[i];
    }
    put_code(&w, (unsigned)prefix, width);
    put_code(&w, END, width);
    flush_bits(&w);
    free(keys), free(values);
    return 0;
}

static void put16(FILE *f, int v)
{
    fputc(v & 0xff, f);
    fputc((v >> 8) & 0xff, f);
}

skv_result output_gif_frame(skv_gif *gif, const unsigned char *rgba, skv_error *err)
{
    FILE *f = gif->out.file;
    if (gif->palette_size == 0) {
        if (build_palette(gif, rgba) != 0) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        int bits = 1;
        while ((1 << bits) < gif->palette_size) bits++;
        fwrite("GIF89a", 1, 6, f);
        put16(f, gif->width);
        put16(f, gif->height);
        fputc(0x80 | (bits - 1) << 4 | (bits - 1), f); /* global table of 2^bits colours */
        fputc(0, f), fputc(0, f);
        for (int k = 0; k < (1 << bits); k++) {
            if (k < gif->palette_size) fwrite(&gif->palette[k * 3], 1, 3, f);
            else fputc(0, f), fputc(0, f), fputc(0, f);
        }
        /* Loop forever (the NETSCAPE2.0 application extension). */
        fwrite("\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00", 1, 19, f);
    }
    size_t pixels = (size_t)gif->width * gif->height;
    for (size_t i = 0; i < pixels; i++) gif->indices[i] = gif->nearest[rgb15(&rgba[i * 4])];
    /* Graphic control extension: the frame's delay. */
    fputc(0x21, f), fputc(0xf9, f), fputc(4, f), fputc(0x04, f);
    put16(f, gif->delay_cs);
    fputc(0, f), fputc(0, f);
    fputc(0x2c, f);
    put16(f, 0), put16(f, 0), put16(f, gif->width), put16(f, gif->height);
    fputc(0, f);
    if (write_lzw(f, gif->indices, pixels) != 0) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    return ferror(f) ? skv_fail(err, SKV_ERR_OUTPUT, "cannot write the GIF: %s", strerror(errno)) : SKV_OK;
}

skv_result output_gif_end(skv_gif *gif, const char *path, int failed, skv_error *err)
{
    skv_result r = SKV_OK;
    if (gif->out.file && failed) {
        outfile_discard(&gif->out); /* the old file, if any, stays */
    } else if (gif->out.file) {
        fputc(0x3b, gif->out.file); /* trailer */
        r = outfile_commit(&gif->out, path, err);
    }
    free(gif->nearest), free(gif->indices);
    memset(gif, 0, sizeof *gif);
    return r;
}

/* --- numbered files that are new ---------------------------------------- */

int output_create_numbered(const char *prefix, const char *suffix, int *number, char *path, size_t path_size)
{
    for (int n = *number > 0 ? *number : 1; n < INT_MAX; n++) {
        if ((size_t)snprintf(path, path_size, "%s%d%s", prefix, n, suffix) >= path_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* O_EXCL: nothing there is overwritten, and a symbolic link (even
         * one to nowhere) counts as there; O_NOFOLLOW says so twice. */
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *number = n + 1;
            return fd;
        }
        if (errno != EEXIST && errno != ELOOP) return -1;
    }
    errno = EEXIST;
    return -1;
}

typedef struct fd_sink {
    int fd;
    int failed;
} fd_sink;

static int write_to_fd(spng_ctx *ctx, void *context, void *data, size_t size)
{
    (void)ctx;
    fd_sink *sink = context;
    for (const char *p = data; !sink->failed && size > 0;) {
        ssize_t put = write(sink->fd, p, size);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            sink->failed = 1;
            break;
        }
        p += put, size -= (size_t)put;
    }
    return sink->failed ? SPNG_IO_ERROR : 0;
}

skv_result output_write_png_numbered(const char *prefix, int *number, char *path, size_t path_size, int width,
                                      int height, const unsigned char *rgba, skv_error *err)
{
    int fd = output_create_numbered(prefix, ".png", number, path, path_size);
    if (fd < 0) return skv_fail(err, SKV_ERR_OUTPUT, "cannot create %s: %s", path, strerror(errno));
    fd_sink sink = {.fd = fd};
    errno = 0;
    int ok = encode_png(width, height, rgba, write_to_fd, &sink) == 0 && !sink.failed;
    int why = errno;
    if (close(fd) != 0 && ok) ok = 0, why = errno;
    if (ok) return SKV_OK;
    unlink(path); /* the file this call created, half written */
    return skv_fail(err, SKV_ERR_OUTPUT, "cannot write PNG %s%s%s", path, why ? ": " : "", why ? strerror(why) : "");
}
