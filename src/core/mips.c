/* mips.c - a texture's mipmap levels, made on the CPU (mips.h). */
#include "mips.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How a byte reads and how a mean is written back, per channel kind. */
typedef struct mips_tables {
    float srgb_to_linear[256];
    float byte_value[256];
    /* The linear value at which sRGB byte v + 1 starts: the value of
     * sRGB (v + 0.5) / 255 (a tie goes up). */
    float srgb_start[255];
    /* For linear values in [k / 4096, (k + 1) / 4096): the sRGB byte at k / 4096,
     * where the search up srgb_start begins (a step or two at most). */
    unsigned char srgb_guess[4097];
} mips_tables;

static double srgb_decode(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static void tables_fill(mips_tables *t)
{
    for (int v = 0; v < 256; v++) {
        t->srgb_to_linear[v] = (float)srgb_decode(v / 255.0);
        t->byte_value[v] = (float)v;
    }
    for (int v = 0; v < 255; v++) t->srgb_start[v] = (float)srgb_decode((v + 0.5) / 255.0);
    int v = 0;
    for (int k = 0; k <= 4096; k++) {
        float at = (float)k / 4096.0f;
        while (v < 255 && t->srgb_start[v] <= at) v++;
        t->srgb_guess[k] = (unsigned char)v;
    }
}

static unsigned char linear_to_srgb(const mips_tables *t, float value)
{
    if (!(value > 0.0f)) return 0;
    if (value >= 1.0f) return 255;
    int v = t->srgb_guess[(int)(value * 4096.0f)];
    while (v < 255 && t->srgb_start[v] <= value) v++;
    return (unsigned char)v;
}

static unsigned char byte_round(float value)
{
    if (!(value > 0.0f)) return 0;
    if (value >= 255.0f) return 255;
    return (unsigned char)(int)(value + 0.5f);
}

/* The source texels one destination texel along an axis reads, and
 * their weights (summing to 1): two halves along an even side; along an
 * odd side s = 2d + 1, texel x covers [x s / d, (x + 1) s / d) of the
 * source: (d - x) / s of texel 2x, d / s of 2x + 1, (x + 1) / s of
 * 2x + 2; a side of 1 stays 1. */
typedef struct axis_taps {
    int *first;
    int *count;
    float *weight; /* 3 a destination texel */
} axis_taps;

static int axis_taps_create(axis_taps *taps, int source, int dest)
{
    taps->first = malloc((size_t)dest * sizeof *taps->first);
    taps->count = malloc((size_t)dest * sizeof *taps->count);
    taps->weight = malloc((size_t)dest * 3 * sizeof *taps->weight);
    if (!taps->first || !taps->count || !taps->weight) return -1;
    for (int x = 0; x < dest; x++) {
        float *w = &taps->weight[x * 3];
        if (source == 1) {
            taps->first[x] = 0, taps->count[x] = 1;
            w[0] = 1.0f, w[1] = w[2] = 0.0f;
        } else if (source % 2 == 0) {
            taps->first[x] = 2 * x, taps->count[x] = 2;
            w[0] = w[1] = 0.5f, w[2] = 0.0f;
        } else {
            taps->first[x] = 2 * x, taps->count[x] = 3;
            w[0] = (float)(dest - x) / (float)source;
            w[1] = (float)dest / (float)source;
            w[2] = (float)(x + 1) / (float)source;
        }
    }
    return 0;
}

static void axis_taps_destroy(axis_taps *taps)
{
    free(taps->first);
    free(taps->count);
    free(taps->weight);
}

/* Rows [y0, y1) of one level made from the level above it. */
typedef struct level_band {
    const mips_tables *tables;
    const unsigned char *src;
    int sw, sh;
    unsigned char *dst;
    int dw, dh;
    int srgb;
    const axis_taps *xs, *ys; /* NULL when both sides are even */
    int y0, y1;
    float *row;               /* sw * 4 floats, the band's own (odd sides only) */
} level_band;

/* Even sides, the common case (every power-of-two texture but its last
 * levels): each texel the mean of a 2 x 2 block; the means of bytes are
 * exact in integers. */
static void band_halve(const level_band *b)
{
    const float *lin = b->tables->srgb_to_linear;
    for (int y = b->y0; y < b->y1; y++) {
        const unsigned char *p = &b->src[(size_t)(2 * y) * (size_t)b->sw * 4], *q = p + (size_t)b->sw * 4;
        unsigned char *out = &b->dst[(size_t)y * (size_t)b->dw * 4];
        for (int x = 0; x < b->dw; x++, p += 8, q += 8, out += 4) {
            for (int c = 0; c < 3; c++)
                out[c] = b->srgb ? linear_to_srgb(b->tables, (lin[p[c]] + lin[p[c + 4]] + lin[q[c]] + lin[q[c + 4]]) * 0.25f)
                                 : (unsigned char)((p[c] + p[c + 4] + q[c] + q[c + 4] + 2) >> 2);
            out[3] = (unsigned char)((p[3] + p[7] + q[3] + q[7] + 2) >> 2);
        }
    }
}

/* Any sides: each destination row's source rows read into linear values
 * and summed with their weights into `row`, then each destination texel
 * from its columns. */
static void band_reduce(const level_band *b)
{
    const mips_tables *t = b->tables;
    const axis_taps *xs = b->xs, *ys = b->ys;
    const float *colour = b->srgb ? t->srgb_to_linear : t->byte_value;
    const float *alpha = t->byte_value;
    float *row = b->row;
    for (int y = b->y0; y < b->y1; y++) {
        memset(row, 0, (size_t)b->sw * 4 * sizeof *row);
        for (int k = 0; k < ys->count[y]; k++) {
            const unsigned char *in = &b->src[(size_t)(ys->first[y] + k) * (size_t)b->sw * 4];
            float wy = ys->weight[y * 3 + k];
            for (int i = 0; i < b->sw; i++) {
                row[i * 4 + 0] += wy * colour[in[i * 4 + 0]];
                row[i * 4 + 1] += wy * colour[in[i * 4 + 1]];
                row[i * 4 + 2] += wy * colour[in[i * 4 + 2]];
                row[i * 4 + 3] += wy * alpha[in[i * 4 + 3]];
            }
        }
        unsigned char *out = &b->dst[(size_t)y * (size_t)b->dw * 4];
        for (int x = 0; x < b->dw; x++) {
            float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int k = 0; k < xs->count[x]; k++) {
                const float *in = &row[(size_t)(xs->first[x] + k) * 4];
                float wx = xs->weight[x * 3 + k];
                for (int c = 0; c < 4; c++) sum[c] += wx * in[c];
            }
            for (int c = 0; c < 3; c++) out[x * 4 + c] = b->srgb ? linear_to_srgb(t, sum[c]) : byte_round(sum[c]);
            out[x * 4 + 3] = byte_round(sum[3]);
        }
    }
}

static void *band_run(void *arg)
{
    const level_band *b = arg;
    if (b->xs)
        band_reduce(b);
    else
        band_halve(b);
    return NULL;
}

/* A big texture's levels are made by up to this many threads, each a band
 * of rows at least MIPS_BAND_TEXELS big (smaller levels are quicker
 * than starting a thread). */
#define MIPS_THREADS 8
#define MIPS_BAND_TEXELS 65536

/* One level from the level above it, its rows in bands on `threads`
 * threads (this one among them; alone where none starts). -1 when
 * memory runs out. */
static int level_make(const mips_tables *t, const unsigned char *src, int sw, int sh, unsigned char *dst, int dw,
                      int dh, int srgb, int threads)
{
    axis_taps xs = {0}, ys = {0};
    int odd = sw % 2 != 0 || sh % 2 != 0;
    long texels = (long)dw * dh;
    int bands = (int)(texels / MIPS_BAND_TEXELS);
    bands = bands < 1 ? 1 : bands > threads ? threads : bands;
    level_band band[MIPS_THREADS];
    float *rows = NULL;
    int failed = 0;
    if (odd) {
        rows = malloc((size_t)bands * (size_t)sw * 4 * sizeof *rows);
        failed = !rows || axis_taps_create(&xs, sw, dw) || axis_taps_create(&ys, sh, dh);
    }
    if (!failed) {
        pthread_t thread[MIPS_THREADS];
        int started[MIPS_THREADS] = {0};
        for (int i = 0; i < bands; i++) {
            band[i] = (level_band){t, src, sw, sh, dst, dw, dh, srgb, odd ? &xs : NULL, odd ? &ys : NULL,
                                   (int)((long)dh * i / bands), (int)((long)dh * (i + 1) / bands),
                                   odd ? rows + (size_t)i * (size_t)sw * 4 : NULL};
            if (i > 0) started[i] = pthread_create(&thread[i], NULL, band_run, &band[i]) == 0;
        }
        band_run(&band[0]);
        for (int i = 1; i < bands; i++) {
            if (started[i])
                pthread_join(thread[i], NULL);
            else
                band_run(&band[i]);
        }
    }
    free(rows);
    axis_taps_destroy(&xs);
    axis_taps_destroy(&ys);
    return failed ? -1 : 0;
}

skv_result mips_create(skv_mips *mips, const unsigned char *rgba, int width, int height, int srgb)
{
    memset(mips, 0, sizeof *mips);
    if (width < 1 || height < 1) return SKV_ERR_ARGUMENT;
    size_t bytes = 0;
    for (int w = width, h = height; (w > 1 || h > 1) && mips->count < SKV_MIPS_MAX; mips->count++) {
        w = w > 1 ? w / 2 : 1, h = h > 1 ? h / 2 : 1;
        mips->width[mips->count] = w, mips->height[mips->count] = h;
        mips->offset[mips->count] = bytes;
        bytes += (size_t)w * (size_t)h * 4;
    }
    if (mips->count == 0) return SKV_OK;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = (int)(cores < 1 ? 1 : cores > MIPS_THREADS ? MIPS_THREADS : cores);
    mips_tables *tables = malloc(sizeof *tables);
    mips->texels = malloc(bytes);
    int failed = !tables || !mips->texels;
    if (!failed) tables_fill(tables);
    const unsigned char *src = rgba;
    int sw = width, sh = height;
    for (int l = 0; l < mips->count && !failed; l++) {
        unsigned char *dst = mips->texels + mips->offset[l];
        failed = level_make(tables, src, sw, sh, dst, mips->width[l], mips->height[l], srgb, threads) != 0;
        src = dst, sw = mips->width[l], sh = mips->height[l];
    }
    free(tables);
    if (failed) {
        mips_destroy(mips);
        return SKV_ERR_MEMORY;
    }
    return SKV_OK;
}

void mips_destroy(skv_mips *mips)
{
    free(mips->texels);
    memset(mips, 0, sizeof *mips);
}
