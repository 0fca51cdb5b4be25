/* kernels_x86.c - every SIMD intrinsic of the animation core: the walk's
 * products and the time groups' sampler for SSE2 (any x86-64, 4 channels
 * at a time), AVX2 + FMA (8) and AVX-512F + DQ (16), and the check of which of them this CPU runs (made once,
 * by kernels_get in kernels.c, the one dispatch point). */
#include "kernels.h"

#include <math.h>
#include <stddef.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define OPERAND(x) \
    ((const float *)((x) >= 0 ? (const char *)work + (x) : (const char *)constants + ~(x)))

/* --- products --------------------------------------------------------------
 * Column-major 4x4: out column j = sum over k of a column k * b[j][k].
 * Each kernel loads both operands before it stores. */

/* All four columns in one register: b's entries broadcast within each
 * 128-bit lane, a's columns repeated in every lane. */
__attribute__((target("avx512f"))) static void run_avx512(const skv_walk_step *s, int count, float *work,
                                                           const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        __m512 bv = _mm512_loadu_ps(b);
        __m512 r0 = _mm512_mul_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a)), _mm512_permute_ps(bv, 0x00));
        __m512 r1 = _mm512_mul_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 4)), _mm512_permute_ps(bv, 0x55));
        r0 = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 8)), _mm512_permute_ps(bv, 0xaa), r0);
        r1 = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 12)), _mm512_permute_ps(bv, 0xff), r1);
        _mm512_storeu_ps((float *)((char *)out + s[i].out), _mm512_add_ps(r0, r1));
    }
}

/* Two columns per register. */
__attribute__((target("avx2,fma"))) static void run_avx2(const skv_walk_step *s, int count, float *work,
                                                          const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        __m256 a0 = _mm256_broadcast_ps((const __m128 *)a), a1 = _mm256_broadcast_ps((const __m128 *)(a + 4));
        __m256 a2 = _mm256_broadcast_ps((const __m128 *)(a + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(a + 12));
        float *o = (float *)((char *)out + s[i].out);
        for (int h = 0; h < 2; h++) {
            __m256 bv = _mm256_loadu_ps(b + 8 * h);
            __m256 r0 = _mm256_mul_ps(a0, _mm256_permute_ps(bv, 0x00));
            __m256 r1 = _mm256_mul_ps(a1, _mm256_permute_ps(bv, 0x55));
            r0 = _mm256_fmadd_ps(a2, _mm256_permute_ps(bv, 0xaa), r0);
            r1 = _mm256_fmadd_ps(a3, _mm256_permute_ps(bv, 0xff), r1);
            _mm256_storeu_ps(o + 8 * h, _mm256_add_ps(r0, r1));
        }
    }
}

/* run_avx512 for an affine b: three of b's entries per column, a's
 * fourth column added where b has its 1 (lanes 12-15). */
__attribute__((target("avx512f"))) static inline void affine_avx512(const float *a, const float *b, float *o)
{
    __m512 bv = _mm512_loadu_ps(b);
    __m512 r0 = _mm512_mul_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a)), _mm512_permute_ps(bv, 0x00));
    __m512 r1 = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 4)), _mm512_permute_ps(bv, 0x55),
                                _mm512_maskz_broadcast_f32x4(0xf000, _mm_loadu_ps(a + 12)));
    r0 = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 8)), _mm512_permute_ps(bv, 0xaa), r0);
    _mm512_storeu_ps(o, _mm512_add_ps(r0, r1));
}

__attribute__((target("avx512f"))) static void run_affine_avx512(const skv_walk_step *s, int count, float *work,
                                                                  const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++)
        affine_avx512(OPERAND(s[i].a), OPERAND(s[i].b), (float *)((char *)out + s[i].out));
}

/* The palette's steps (kernels.h, run_palette): a in work, b a constant. */
__attribute__((target("avx512f"))) static void run_palette_avx512(const skv_walk_step *s, int count, float *work,
                                                                   const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++)
        affine_avx512((const float *)((const char *)work + s[i].a), (const float *)((const char *)constants + ~s[i].b),
                      (float *)((char *)out + s[i].out));
}

/* run_avx2 for an affine b (affine_avx2): columns 0 and 1 from three of
 * a's columns; columns 2 and 3 the same plus a's fourth column in the high
 * half only (where b has its 1). From a's columns already in registers:
 * r01 the product's columns 0 and 1, r23 columns 2 and 3 (run_chain_avx2
 * feeds it the product before); b's columns in registers too (b01: 0 and
 * 1, b23: 2 and 3), affine_columns_avx2 loads them. */
__attribute__((target("avx2,fma"))) static inline void affine_products_avx2(__m256 a0, __m256 a1, __m256 a2,
                                                                            __m256 a3, __m256 b01, __m256 b23,
                                                                            __m256 *r01, __m256 *r23)
{
    *r01 = _mm256_mul_ps(a0, _mm256_permute_ps(b01, 0x00));
    *r01 = _mm256_fmadd_ps(a1, _mm256_permute_ps(b01, 0x55), *r01);
    *r01 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b01, 0xaa), *r01);
    *r23 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b23, 0xaa), _mm256_mul_ps(a0, _mm256_permute_ps(b23, 0x00)));
    *r23 = _mm256_add_ps(*r23, _mm256_fmadd_ps(a1, _mm256_permute_ps(b23, 0x55), a3));
}

__attribute__((target("avx2,fma"))) static inline void affine_columns_avx2(__m256 a0, __m256 a1, __m256 a2,
                                                                           __m256 a3, const float *b, __m256 *r01,
                                                                           __m256 *r23)
{
    affine_products_avx2(a0, a1, a2, a3, _mm256_loadu_ps(b), _mm256_loadu_ps(b + 8), r01, r23);
}

/* a's columns 0-2 in both halves of a register, column 3 in the high half
 * only (where b has its 1), as affine_columns_avx2 takes them. */
__attribute__((target("avx2,fma"))) static inline void load_columns_avx2(const float *a, __m256 *a0, __m256 *a1,
                                                                         __m256 *a2, __m256 *a3)
{
    *a0 = _mm256_broadcast_ps((const __m128 *)a), *a1 = _mm256_broadcast_ps((const __m128 *)(a + 4));
    *a2 = _mm256_broadcast_ps((const __m128 *)(a + 8));
    *a3 = _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_loadu_ps(a + 12), 1);
}

__attribute__((target("avx2,fma"))) static inline void affine_avx2(const float *a, const float *b, float *o)
{
    __m256 a0, a1, a2, a3, r01, r23;
    load_columns_avx2(a, &a0, &a1, &a2, &a3);
    affine_columns_avx2(a0, a1, a2, a3, b, &r01, &r23);
    _mm256_storeu_ps(o, r01);
    _mm256_storeu_ps(o + 8, r23);
}

/* affine_avx2 for a b that only translates (kernels.h, skv_walk_lists):
 * a's columns 0-2 copied, column 3 the sums affine_avx2 (and
 * affine_avx512) form there. */
__attribute__((target("avx2,fma"))) static inline void translate_avx2(const float *a, const float *b, float *o)
{
    __m128 a2 = _mm_loadu_ps(a + 8);
    __m128 c3 = _mm_add_ps(_mm_fmadd_ps(a2, _mm_broadcast_ss(b + 14), _mm_mul_ps(_mm_loadu_ps(a), _mm_broadcast_ss(b + 12))),
                           _mm_fmadd_ps(_mm_loadu_ps(a + 4), _mm_broadcast_ss(b + 13), _mm_loadu_ps(a + 12)));
    _mm256_storeu_ps(o, _mm256_loadu_ps(a));
    _mm256_storeu_ps(o + 8, _mm256_set_m128(c3, a2));
}

__attribute__((target("avx2,fma"))) static void run_affine_avx2(const skv_walk_step *s, int count, float *work,
                                                                 const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) affine_avx2(OPERAND(s[i].a), OPERAND(s[i].b), (float *)((char *)out + s[i].out));
}

/* run_chain (kernels.h) in AVX2: a step whose a is the step before's
 * product takes a's columns from that product's registers instead of
 * loading what was just stored; 128-bit broadcast loads of a matrix
 * stored by 256-bit stores wait for the stores to finish (slower than
 * reading the matrix whole: bench/NOTES.md v7j). The same products as
 * run_affine_avx2, but where two links follow each other (G1 = G0 b1,
 * G2 = G1 b2) the second is formed as G0 (b1 b2): b1 b2 does not wait
 * for the chain, so the chain waits for one product every two links,
 * not two (bench/NOTES.md v7k). The same matrices to rounding (one
 * product associated the other way). */
__attribute__((target("avx2,fma"))) static void run_chain_avx2(const skv_walk_step *s, int count, float *work,
                                                                const mat4 *constants, float *out)
{
    __m256 r01 = _mm256_setzero_ps(), r23 = _mm256_setzero_ps();
    const float *last = NULL;
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float *o = (float *)((char *)out + s[i].out);
        __m256 a0, a1, a2, a3;
        if (a == last) { /* the product before, as load_columns_avx2 lays it out */
            a0 = _mm256_permute2f128_ps(r01, r01, 0x00), a1 = _mm256_permute2f128_ps(r01, r01, 0x11);
            a2 = _mm256_permute2f128_ps(r23, r23, 0x00), a3 = _mm256_permute2f128_ps(r23, r23, 0x18);
            const float *b2;
            if (i + 1 < count && OPERAND(s[i + 1].a) == o && (b2 = OPERAND(s[i + 1].b)) != o) {
                /* Two links: b1 b2 off the chain, then G0 b1 and G0 (b1 b2). */
                __m256 b0, b1c, b2c, b3, p01, p23, g01, g23;
                load_columns_avx2(b, &b0, &b1c, &b2c, &b3);
                affine_columns_avx2(b0, b1c, b2c, b3, b2, &p01, &p23);
                affine_columns_avx2(a0, a1, a2, a3, b, &g01, &g23);
                _mm256_storeu_ps(o, g01);
                _mm256_storeu_ps(o + 8, g23);
                affine_products_avx2(a0, a1, a2, a3, p01, p23, &r01, &r23);
                o = (float *)((char *)out + s[i + 1].out);
                _mm256_storeu_ps(o, r01);
                _mm256_storeu_ps(o + 8, r23);
                last = o;
                i++;
                continue;
            }
        } else {
            load_columns_avx2(a, &a0, &a1, &a2, &a3);
        }
        affine_columns_avx2(a0, a1, a2, a3, b, &r01, &r23);
        _mm256_storeu_ps(o, r01);
        _mm256_storeu_ps(o + 8, r23);
        last = o;
    }
}

__attribute__((target("avx2,fma"))) static void run_palette_avx2(const skv_walk_step *s, int count, float *work,
                                                                  const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++)
        affine_avx2((const float *)((const char *)work + s[i].a), (const float *)((const char *)constants + ~s[i].b),
                    (float *)((char *)out + s[i].out));
}

/* One column per register. */
static void run_sse2(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float *o = (float *)((char *)out + s[i].out);
        __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
        __m128 r[4];
        for (int j = 0; j < 4; j++) {
            /* Broadcasts by shuffling the loaded column: one instruction each. */
            __m128 bj = _mm_loadu_ps(b + 4 * j);
            r[j] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bj, bj, 0x00)),
                                         _mm_mul_ps(a1, _mm_shuffle_ps(bj, bj, 0x55))),
                              _mm_add_ps(_mm_mul_ps(a2, _mm_shuffle_ps(bj, bj, 0xaa)),
                                         _mm_mul_ps(a3, _mm_shuffle_ps(bj, bj, 0xff))));
        }
        for (int j = 0; j < 4; j++) _mm_storeu_ps(o + 4 * j, r[j]);
    }
}

/* run_sse2 for an affine b: columns 0-2 from three of a's columns,
 * column 3 adds a's fourth as it is. */
static inline void affine_sse2(const float *a, const float *b, float *o)
{
    __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
    __m128 r[4];
    for (int j = 0; j < 4; j++) {
        __m128 bj = _mm_loadu_ps(b + 4 * j);
        r[j] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bj, bj, 0x00)),
                                     _mm_mul_ps(a1, _mm_shuffle_ps(bj, bj, 0x55))),
                          _mm_mul_ps(a2, _mm_shuffle_ps(bj, bj, 0xaa)));
    }
    r[3] = _mm_add_ps(r[3], a3);
    for (int j = 0; j < 4; j++) _mm_storeu_ps(o + 4 * j, r[j]);
}

/* affine_sse2 for a b that only translates (kernels.h, skv_walk_lists):
 * a's columns 0-2 copied, column 3 affine_sse2's sums. */
static inline void translate_sse2(const float *a, const float *b, float *o)
{
    __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8);
    __m128 c3 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(b[12])), _mm_mul_ps(a1, _mm_set1_ps(b[13]))),
                           _mm_mul_ps(a2, _mm_set1_ps(b[14])));
    _mm_storeu_ps(o, a0);
    _mm_storeu_ps(o + 4, a1);
    _mm_storeu_ps(o + 8, a2);
    _mm_storeu_ps(o + 12, _mm_add_ps(c3, _mm_loadu_ps(a + 12)));
}

static void run_affine_sse2(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) affine_sse2(OPERAND(s[i].a), OPERAND(s[i].b), (float *)((char *)out + s[i].out));
}

static void run_palette_sse2(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++)
        affine_sse2((const float *)((const char *)work + s[i].a), (const float *)((const char *)constants + ~s[i].b),
                    (float *)((char *)out + s[i].out));
}

/* Rows 0-2 of a * b from b's rows b0-b3, streamed to o (run_rows_sse2,
 * rows_palette_sse2). */
static inline void stream_rows_sse2(const float *a, __m128 b0, __m128 b1, __m128 b2, __m128 b3, float *o)
{
    for (int r = 0; r < 3; r++) {
        __m128 row = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(a[r]), b0), _mm_mul_ps(_mm_set1_ps(a[4 + r]), b1)),
                                _mm_add_ps(_mm_mul_ps(_mm_set1_ps(a[8 + r]), b2), _mm_mul_ps(_mm_set1_ps(a[12 + r]), b3)));
        _mm_stream_ps(o + 4 * r, row);
    }
}

/* A crowd's palette rows (kernels.h, run_rows): row r of a * b is the sum
 * over k of a[k][r] times row k of b; b's rows by one transpose. */
static void run_rows_sse2(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float *o = out + (size_t)(s[i].out / (int32_t)sizeof(mat4)) * SKV_ROWS_FLOATS;
        __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8), b3 = _mm_loadu_ps(b + 12);
        _MM_TRANSPOSE4_PS(b0, b1, b2, b3); /* now b's rows */
        stream_rows_sse2(a, b0, b1, b2, b3, o);
    }
}

/* run_rows_sse2 on prepared pairs (kernels.h, rows_palette): b's rows
 * loaded as they are. */
static void rows_palette_sse2(const skv_rows_pair *p, int count, const float *work, float *out)
{
    const __m128 b3 = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
    for (int i = 0; i < count; i++)
        for (int e = 0; e < 2; e++) {
            const float *a = (const float *)((const char *)work + p[i].a[e]);
            float *o = (float *)((char *)out + p[i].out[e]);
            stream_rows_sse2(a, _mm_load_ps(p[i].b[0] + 4 * e), _mm_load_ps(p[i].b[1] + 4 * e),
                             _mm_load_ps(p[i].b[2] + 4 * e), b3, o);
        }
}

__attribute__((target("avx2,fma"))) static void run_rows_avx2(const skv_walk_step *s, int count, float *work,
                                                               const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float *o = out + (size_t)(s[i].out / (int32_t)sizeof(mat4)) * SKV_ROWS_FLOATS;
        __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8), b3 = _mm_loadu_ps(b + 12);
        _MM_TRANSPOSE4_PS(b0, b1, b2, b3);
        for (int r = 0; r < 3; r++) {
            __m128 row = _mm_mul_ps(_mm_broadcast_ss(a + r), b0);
            row = _mm_fmadd_ps(_mm_broadcast_ss(a + 4 + r), b1, row);
            row = _mm_fmadd_ps(_mm_broadcast_ss(a + 8 + r), b2, row);
            row = _mm_fmadd_ps(_mm_broadcast_ss(a + 12 + r), b3, row);
            _mm_stream_ps(o + 4 * r, row);
        }
    }
}

/* rows_palette with both entries of a pair in one register: column k of
 * each global in its half, a[k][r] spread over the half by one in-lane
 * permute, times the two entries' row k of b (one load); each half
 * streamed to its entry. The sums run_rows_avx2 forms, in its order. */
__attribute__((target("avx2,fma"))) static void rows_palette_avx2(const skv_rows_pair *p, int count,
                                                                   const float *work, float *out)
{
    const __m256 b3 = _mm256_setr_ps(0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f);
    for (int i = 0; i < count; i++) {
        const float *a0 = (const float *)((const char *)work + p[i].a[0]);
        const float *a1 = (const float *)((const char *)work + p[i].a[1]);
        float *o0 = (float *)((char *)out + p[i].out[0]), *o1 = (float *)((char *)out + p[i].out[1]);
        __m256 c0 = _mm256_loadu2_m128(a1, a0), c1 = _mm256_loadu2_m128(a1 + 4, a0 + 4);
        __m256 c2 = _mm256_loadu2_m128(a1 + 8, a0 + 8), c3 = _mm256_loadu2_m128(a1 + 12, a0 + 12);
#define ROWS_PAIR_ROW(r)                                                                                    \
    do {                                                                                                    \
        __m256 row = _mm256_mul_ps(_mm256_permute_ps(c0, 0x55 * (r)), _mm256_load_ps(p[i].b[0]));          \
        row = _mm256_fmadd_ps(_mm256_permute_ps(c1, 0x55 * (r)), _mm256_load_ps(p[i].b[1]), row);          \
        row = _mm256_fmadd_ps(_mm256_permute_ps(c2, 0x55 * (r)), _mm256_load_ps(p[i].b[2]), row);          \
        row = _mm256_fmadd_ps(_mm256_permute_ps(c3, 0x55 * (r)), b3, row);                                 \
        _mm_stream_ps(o0 + 4 * (r), _mm256_castps256_ps128(row));                                           \
        _mm_stream_ps(o1 + 4 * (r), _mm256_extractf128_ps(row, 1));                                         \
    } while (0)
        ROWS_PAIR_ROW(0);
        ROWS_PAIR_ROW(1);
        ROWS_PAIR_ROW(2);
#undef ROWS_PAIR_ROW
    }
}

static void fence_x86(void)
{
    _mm_sfence();
}

/* --- the sampler, 4 channels per SSE2 register ----------------------------- */

#define SUFFIX(name) name##_sse2
#define TARGET
#define FMA(a, b, c) _mm_add_ps(_mm_mul_ps(a, b), c)
#define FNMA(a, b, c) _mm_sub_ps(c, _mm_mul_ps(a, b))
#include "kernels_x86_m128.h"
/* Column k of the four locals: entries 4k .. 4k + 3, one channel per
 * lane, transposed into one register per channel. */
static inline void store_locals_sse2(__m128 m[16], const int32_t *out, float *work)
{
    for (int k = 0; k < 4; k++) {
        _MM_TRANSPOSE4_PS(m[4 * k], m[4 * k + 1], m[4 * k + 2], m[4 * k + 3]);
        for (int j = 0; j < 4; j++) _mm_storeu_ps((float *)((char *)work + out[j]) + 4 * k, m[4 * k + j]);
    }
}
#define STORE_LOCALS(m, out, work) store_locals_sse2(m, out, work)
#define GATHER4
#define SOLO_TERMS
#define STORE(p, v) _mm_storeu_ps(p, v)
#define SINGLE(a, b, f, out, work) sample_single_sse2(a, b, f, out, work)
#define SINGLE_ARC(p, f, out, work) sample_arc_single_sse2(p, f, out, work)
#define ONE_ARC(p, f, out, work) arc_lane_sse2(p, f, out, work)
#define ONE_ARC_COMPACT(p, fixed, f, out, work) arc_compact_lane_sse2(p, fixed, f, out, work)
#define ARC_PATCH(moving, f, c, work) arc_patch_sse2(moving, f, c, work)
#include "kernels_x86_lanes.h"

/* --- the sampler, 4 channels per register with AVX2 + FMA: the last
 * lanes of the wider samplers ---------------------------------------------- */

#define SUFFIX(name) name##_avx2x4
#define TARGET __attribute__((target("avx2,fma")))
#define FMA(a, b, c) _mm_fmadd_ps(a, b, c)
#define FNMA(a, b, c) _mm_fnmadd_ps(a, b, c)
#include "kernels_x86_m128.h"
/* Columns k and k + 1 of the four locals at once: the two columns'
 * registers side by side in 256 bits, transposed within halves, give each
 * channel its two columns, 8 floats in a row (column-major), one store. */
TARGET static inline void store_locals_avx2x4(__m128 m[16], const int32_t *out, float *work)
{
    for (int k = 0; k < 4; k += 2) {
        __m256 c[4];
        for (int j = 0; j < 4; j++) c[j] = _mm256_set_m128(m[4 * (k + 1) + j], m[4 * k + j]);
        __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]), t1 = _mm256_unpackhi_ps(c[0], c[1]);
        __m256 t2 = _mm256_unpacklo_ps(c[2], c[3]), t3 = _mm256_unpackhi_ps(c[2], c[3]);
        _mm256_storeu_ps((float *)((char *)work + out[0]) + 4 * k, _mm256_shuffle_ps(t0, t2, 0x44));
        _mm256_storeu_ps((float *)((char *)work + out[1]) + 4 * k, _mm256_shuffle_ps(t0, t2, 0xee));
        _mm256_storeu_ps((float *)((char *)work + out[2]) + 4 * k, _mm256_shuffle_ps(t1, t3, 0x44));
        _mm256_storeu_ps((float *)((char *)work + out[3]) + 4 * k, _mm256_shuffle_ps(t1, t3, 0xee));
    }
}
#define STORE_LOCALS(m, out, work) store_locals_avx2x4(m, out, work)
#define GATHER4
#define ONE_ARC(p, f, out, work) arc_lane_avx2x4(p, f, out, work)
#define ONE_ARC_COMPACT(p, fixed, f, out, work) arc_compact_lane_avx2x4(p, fixed, f, out, work)
#define ARC_PATCH(moving, f, c, work) arc_patch_avx2x4(moving, f, c, work)
#include "kernels_x86_lanes.h"

/* --- the sampler, 8 channels per AVX2 register ----------------------------- */

#define VEC __m256
#define SUFFIX(name) name##_avx2
#define TARGET __attribute__((target("avx2,fma")))
#define LOAD(p) _mm256_load_ps(p)
#define LOADU(p) _mm256_loadu_ps(p)
#define SET1(x) _mm256_set1_ps(x)
#define ZERO() _mm256_setzero_ps()
#define ADD(a, b) _mm256_add_ps(a, b)
#define SUB(a, b) _mm256_sub_ps(a, b)
#define MUL(a, b) _mm256_mul_ps(a, b)
#define FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define FNMA(a, b, c) _mm256_fnmadd_ps(a, b, c)
#define MIN(a, b) _mm256_min_ps(a, b)
#define MAX(a, b) _mm256_max_ps(a, b)
#define SQRT(a) _mm256_sqrt_ps(a)
#define DIV(a, b) _mm256_div_ps(a, b)
#define AND(a, b) _mm256_and_ps(a, b)
#define ANDNOT(m, x) _mm256_andnot_ps(m, x)
#define OR(a, b) _mm256_or_ps(a, b)
#define LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define ALL(m) (_mm256_movemask_ps(m) == 0xff)
/* Eight locals, two columns at a time: columns k and k + 1 of channels
 * 0-3 side by side in 256 bits (and of channels 4-7), transposed within
 * halves as store_locals_avx2x4 does: each channel's two columns, 8
 * floats in a row, one store. */
TARGET static inline void store_locals_avx2(__m256 m[16], const int32_t *out, float *work)
{
    for (int k = 0; k < 4; k += 2)
        for (int h = 0; h < 2; h++) {
            __m256 c[4];
            for (int j = 0; j < 4; j++) /* the selector must be an immediate, also at -O0 */
                c[j] = h ? _mm256_permute2f128_ps(m[4 * k + j], m[4 * (k + 1) + j], 0x31)
                         : _mm256_permute2f128_ps(m[4 * k + j], m[4 * (k + 1) + j], 0x20);
            __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]), t1 = _mm256_unpackhi_ps(c[0], c[1]);
            __m256 t2 = _mm256_unpacklo_ps(c[2], c[3]), t3 = _mm256_unpackhi_ps(c[2], c[3]);
            const int32_t *o = out + 4 * h;
            _mm256_storeu_ps((float *)((char *)work + o[0]) + 4 * k, _mm256_shuffle_ps(t0, t2, 0x44));
            _mm256_storeu_ps((float *)((char *)work + o[1]) + 4 * k, _mm256_shuffle_ps(t0, t2, 0xee));
            _mm256_storeu_ps((float *)((char *)work + o[2]) + 4 * k, _mm256_shuffle_ps(t1, t3, 0x44));
            _mm256_storeu_ps((float *)((char *)work + o[3]) + 4 * k, _mm256_shuffle_ps(t1, t3, 0xee));
        }
}
#define STORE_LOCALS(m, out, work) store_locals_avx2(m, out, work)
#define CLEAN_UPPER() _mm256_zeroupper()
#define NARROW(a, b, f, out, lanes, work) sample_avx2x4(a, b, f, out, lanes, work)
#define NARROW_LANES 4
#define SINGLE(a, b, f, out, work) sample_single_avx2x4(a, b, f, out, work)
#define NARROW_ARC(p, f, out, lanes, work) sample_arc_avx2x4(p, f, out, lanes, work)
#define SINGLE_ARC(p, f, out, work) sample_arc_single_avx2x4(p, f, out, work)
#define ONE_ARC(p, f, out, work) arc_lane_avx2x4(p, f, out, work)
#define NARROW_ARC_COMPACT(p, fixed, f, out, lanes, work) arc_compact_lanes_avx2x4(p, fixed, f, out, lanes, work)
#define ONE_ARC_COMPACT(p, fixed, f, out, work) arc_compact_lane_avx2x4(p, fixed, f, out, work)
#define ARC_PATCH(moving, f, c, work) arc_patch_avx2x4(moving, f, c, work)
#define GATHER8
#define GATHER8_REST(keys, f, out, lanes, work) sample_each_avx2x4(keys, f, out, lanes, work)
#define SOLO_TERMS
#define STORE(p, v) _mm256_storeu_ps(p, v)
#include "kernels_x86_lanes.h"

/* --- the sampler, 16 channels per AVX-512 register --------------------------
 * Comparisons give masks; they are widened to all-ones lanes (AVX-512DQ)
 * so the shared arithmetic's AND / OR selects work as with SSE and AVX. */

#define VEC __m512
#define SUFFIX(name) name##_avx512
#define TARGET __attribute__((target("avx512f,avx512dq,avx2,fma")))
#define LOAD(p) _mm512_load_ps(p)
#define LOADU(p) _mm512_loadu_ps(p)
#define SET1(x) _mm512_set1_ps(x)
#define ZERO() _mm512_setzero_ps()
#define ADD(a, b) _mm512_add_ps(a, b)
#define SUB(a, b) _mm512_sub_ps(a, b)
#define MUL(a, b) _mm512_mul_ps(a, b)
#define FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define FNMA(a, b, c) _mm512_fnmadd_ps(a, b, c)
#define MIN(a, b) _mm512_min_ps(a, b)
#define MAX(a, b) _mm512_max_ps(a, b)
#define SQRT(a) _mm512_sqrt_ps(a)
#define DIV(a, b) _mm512_div_ps(a, b)
#define AND(a, b) _mm512_and_ps(a, b)
#define ANDNOT(m, x) _mm512_andnot_ps(m, x)
#define OR(a, b) _mm512_or_ps(a, b)
#define LT(a, b) _mm512_castsi512_ps(_mm512_movm_epi32(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)))
#define GT(a, b) _mm512_castsi512_ps(_mm512_movm_epi32(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)))
#define ALL(m) (_mm512_movepi32_mask(_mm512_castps_si512(m)) == 0xffff)
/* Sixteen locals: the low and high eight channels as AVX2 stores them. */
TARGET static inline void store_locals_avx512(__m512 m[16], const int32_t *out, float *work)
{
    __m256 lo[16], hi[16];
    for (int k = 0; k < 16; k++) lo[k] = _mm512_castps512_ps256(m[k]), hi[k] = _mm512_extractf32x8_ps(m[k], 1);
    store_locals_avx2(lo, out, work);
    store_locals_avx2(hi, out + 8, work);
}
#define STORE_LOCALS(m, out, work) store_locals_avx512(m, out, work)
#define CLEAN_UPPER() _mm256_zeroupper()
#define NARROW(a, b, f, out, lanes, work) sample_avx2(a, b, f, out, lanes, work)
#define NARROW_COMPACT(a, b, f, out, from, lanes, work, c) compact_lanes_avx2(a, b, f, out, from, lanes, work, c)
#define NARROW_LANES 8
#define SINGLE(a, b, f, out, work) sample_single_avx2x4(a, b, f, out, work)
#define NARROW_ARC(p, f, out, lanes, work) sample_arc_avx2(p, f, out, lanes, work)
#define SINGLE_ARC(p, f, out, work) sample_arc_single_avx2x4(p, f, out, work)
#define ONE_ARC(p, f, out, work) arc_lane_avx2x4(p, f, out, work)
#define NARROW_ARC_COMPACT(p, fixed, f, out, lanes, work) arc_compact_lanes_avx2(p, fixed, f, out, lanes, work)
#define ONE_ARC_COMPACT(p, fixed, f, out, work) arc_compact_lane_avx2x4(p, fixed, f, out, work)
#define ARC_PATCH(moving, f, c, work) arc_patch_avx2x4(moving, f, c, work)
#include "kernels_x86_lanes.h"

/* kernels.h, solo_palette: the sampler and the palette's products
 * inlined into one function (flatten), the same arithmetic as the two
 * calls. */
__attribute__((flatten)) static void solo_palette_sse2(const float *key, float f, int32_t out, float *work,
                                                      const skv_walk_step *steps, int count, const mat4 *constants,
                                                      float *palette)
{
    sample_solo_sse2(key, f, out, work);
    run_palette_sse2(steps, count, work, constants, palette);
}

__attribute__((target("avx2,fma"), flatten)) static void solo_palette_avx2(const float *key, float f, int32_t out,
                                                                          float *work, const skv_walk_step *steps,
                                                                          int count, const mat4 *constants,
                                                                          float *palette)
{
    sample_solo_avx2x4(key, f, out, work);
    run_palette_avx2(steps, count, work, constants, palette);
}

__attribute__((target("avx512f,avx2,fma"), flatten)) static void solo_palette_avx512(const float *key, float f,
                                                                                    int32_t out, float *work,
                                                                                    const skv_walk_step *steps,
                                                                                    int count, const mat4 *constants,
                                                                                    float *palette)
{
    sample_solo_avx2x4(key, f, out, work);
    run_palette_avx512(steps, count, work, constants, palette);
}

/* kernels.h, vector_palette: one 4-lane vector and both product lists
 * inlined into one function (flatten), the same arithmetic as the three
 * calls; the globals' operands are all in work (the walk checks), so
 * none is tested for its kind. One body for each build, named by its
 * suffixes: the sampler's (4 lanes) and the products'. Each list is read
 * into locals first: the vector stores may alias anything (their types
 * do), so GCC would read it again at every step. */
#define VECTOR_PALETTE_BODY(LANES, PRODUCTS)                                                                          \
    do {                                                                                                             \
        if (lists->arc) sample_arc_single_##LANES(a, f, out, work);                                                  \
        else if (lists->t_fixed) sample_single_t_fixed_##LANES(a, b, f, out, work);                                  \
        else sample_single_##LANES(a, b, f, out, work);                                                              \
        VECTOR_PRODUCTS(PRODUCTS);                                                                                   \
    } while (0)

/* kernels.h, vector_wide: the set's own sampler (SUFFIX: sample_arc_SUFFIX
 * or sample_SUFFIX, one call), then the same products. */
#define VECTOR_WIDE_BODY(SUFFIX, PRODUCTS)                                                                            \
    do {                                                                                                             \
        if (__builtin_expect(lists->arc == 1, 1)) sample_arc_##SUFFIX(a, f, out, lists->lanes, work);                \
        else if ((unsigned)lists->arc > 1) /* one compare for both */                                                 \
            sample_arc_compact_##SUFFIX(a, f, out, lists->lanes, work, lists->compact);                              \
        else if (lists->compact) sample_compact_##SUFFIX(a, b, f, out, lists->lanes, work, lists->compact);         \
        else sample_##SUFFIX(a, b, f, out, lists->lanes, work);                                                      \
        VECTOR_PRODUCTS(PRODUCTS);                                                                                   \
    } while (0)

/* The products of vector_palette and vector_wide: the globals, the
 * palette's general steps, its translations, then the leaves. The first
 * two loops unrolled twice: fewer instructions a frame on a long walk
 * (huesitos.fbx) than not unrolled or unrolled 4 times, and next to no
 * more on a short one (worm.dae). */
#define VECTOR_PRODUCTS(PRODUCTS)                                                                                     \
    do {                                                                                                             \
        const skv_walk_step *g = lists->globals;                                                                     \
        _Pragma("GCC unroll 2")                                                                                      \
        for (int i = 0, count = lists->global_count; i < count; i++)                                                 \
            affine_##PRODUCTS((const float *)((const char *)work + g[i].a),                                          \
                              (const float *)((const char *)work + g[i].b), (float *)((char *)work + g[i].out));     \
        const mat4 *constants = lists->constants;                                                                    \
        const skv_walk_step *p = lists->palette;                                                                     \
        _Pragma("GCC unroll 2")                                                                                      \
        for (int i = 0, count = lists->palette_count; i < count; i++)                                                \
            affine_##PRODUCTS((const float *)((const char *)work + p[i].a),                                          \
                              (const float *)((const char *)constants + p[i].b),                                     \
                              (float *)((char *)palette + p[i].out));                                                \
        const skv_walk_step *t = lists->translations;                                                                \
        for (int i = 0, count = lists->translation_count; i < count; i++)                                            \
            translate_##PRODUCTS((const float *)((const char *)work + t[i].a),                                       \
                                 (const float *)((const char *)constants + t[i].b),                                  \
                                 (float *)((char *)palette + t[i].out));                                             \
        /* The leaves last: before the palette's steps they made                                                     \
         * worm.dae's frames slower. */                                                                              \
        const skv_walk_step *l = lists->leaves;                                                                      \
        for (int i = 0, count = lists->leaf_count; i < count; i++, l += 2) {                                         \
            const float *lb = (const float *)((const char *)constants + l[0].b);                                     \
            float *lt = (float *)((char *)work + l[0].out);                                                          \
            if (i < lists->leaf_translations) translate_##PRODUCTS((const float *)((const char *)work + l[0].a), lb, lt); \
            else affine_##PRODUCTS((const float *)((const char *)work + l[0].a), lb, lt);                            \
            affine_##PRODUCTS((const float *)((const char *)work + l[1].a), lt, (float *)((char *)palette + l[1].out)); \
        }                                                                                                            \
    } while (0)

__attribute__((flatten)) static void vector_palette_sse2(const float *a, const float *b, float f, const int32_t *out,
                                                        float *work, const skv_walk_lists *lists, float *palette)
{
    VECTOR_PALETTE_BODY(sse2, sse2);
}

__attribute__((flatten)) static void vector_wide_sse2(const float *a, const float *b, float f, const int32_t *out,
                                                     float *work, const skv_walk_lists *lists, float *palette)
{
    VECTOR_WIDE_BODY(sse2, sse2);
}

__attribute__((target("avx2,fma"), flatten)) static void vector_palette_avx2(const float *a, const float *b, float f,
                                                                            const int32_t *out, float *work,
                                                                            const skv_walk_lists *lists,
                                                                            float *palette)
{
    VECTOR_PALETTE_BODY(avx2x4, avx2);
}

__attribute__((target("avx2,fma"), flatten)) static void vector_wide_avx2(const float *a, const float *b, float f,
                                                                         const int32_t *out, float *work,
                                                                         const skv_walk_lists *lists, float *palette)
{
    VECTOR_WIDE_BODY(avx2, avx2);
}

/* AVX-512's vector_wide: its 16-lane sampler, AVX2's products (the
 * table's comment below). */
__attribute__((target("avx512f,avx512dq,avx2,fma"), flatten)) static void
vector_wide_avx512(const float *a, const float *b, float f, const int32_t *out, float *work,
                   const skv_walk_lists *lists, float *palette)
{
    VECTOR_WIDE_BODY(avx512, avx2);
}

static const skv_kernels kernels_sse2 = {"portable", 4, run_sse2, run_affine_sse2, run_affine_sse2, run_palette_sse2, run_rows_sse2, rows_palette_sse2,
                                         fence_x86, sample_sse2, sample_arc_sse2, sample_each_sse2, sample_solo_sse2,
                                         solo_palette_sse2, vector_palette_sse2, vector_wide_sse2, solo_frame_sse2,
                                         solo_frame_weighted_sse2, sample_compact_sse2, sample_arc_compact_sse2, 0};
static const skv_kernels kernels_avx2 = {"avx2", 8, run_avx2, run_affine_avx2, run_chain_avx2, run_palette_avx2, run_rows_avx2, rows_palette_avx2,
                                         fence_x86, sample_avx2, sample_arc_avx2, sample_each_avx2, sample_solo_avx2x4,
                                         solo_palette_avx2, vector_palette_avx2, vector_wide_avx2, solo_frame_avx2,
                                         solo_frame_weighted_avx2, sample_compact_avx2, sample_arc_compact_avx2, 1};
/* The rows are 48 bytes: 128-bit streams, as AVX2's. vector_palette and
 * a walk of one channel's frame (solo_frame) are AVX2's too. A
 * vector_palette on affine_avx512's products (half the instructions a
 * product) ran slower on an AVX-512 EPYC (Zen 4, bench/NOTES.md v7t):
 * the next product's 128-bit broadcasts of a 512-bit store wait for it,
 * as in the chains below. One 512-bit register a matrix would save a few
 * instructions of solo_frame (not written: the same wait).
 * vector_wide samples 16 lanes (sample_arc_avx512; sample_avx512 for
 * keys without arcs) and forms AVX2's products: faster than AVX2's
 * sampler on a lent Xeon (bench/NOTES.md v7r).
 * Chains are AVX2's run_chain_avx2, which hands each product to the next
 * link in registers: run_affine_avx512 stores every link and loads it
 * back, which made the 130-bone tentacle's chain slower than AVX2's on a
 * Xeon with AVX-512 (lent once, bench/NOTES.md v7n). */
static const skv_kernels kernels_avx512 = {"avx512", 16, run_avx512, run_affine_avx512, run_chain_avx2, run_palette_avx512,
                                            run_rows_avx2, rows_palette_avx2, fence_x86, sample_avx512, sample_arc_avx512,
                                            sample_each_avx2,
                                            sample_solo_avx2x4, solo_palette_avx512, vector_palette_avx2, vector_wide_avx512,
                                            solo_frame_avx2, solo_frame_weighted_avx2, sample_compact_avx512,
                                            sample_arc_compact_avx512, 1};

const skv_kernels *kernels_x86(skv_walk_kernel which)
{
    /* The CPU's features, read once by the C runtime at start-up. */
    switch (which) {
    case SKV_WALK_PORTABLE: return &kernels_sse2;
    case SKV_WALK_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kernels_avx2 : NULL;
    case SKV_WALK_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                       __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                   ? &kernels_avx512
                   : NULL;
    default: return NULL;
    }
}

#else
const skv_kernels *kernels_x86(skv_walk_kernel which)
{
    (void)which;
    return NULL;
}
#endif
