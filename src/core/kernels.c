/* kernels.c - the plain C kernels (any CPU) and the one dispatch point. */
#include "kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define OPERAND(x) \
    ((const float *)((x) >= 0 ? (const char *)work + (x) : (const char *)constants + ~(x)))

static void run_scalar(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float r[16];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++)
                r[4 * j + k] = a[k] * b[4 * j] + a[4 + k] * b[4 * j + 1] + a[8 + k] * b[4 * j + 2] +
                               a[12 + k] * b[4 * j + 3];
        memcpy((char *)out + s[i].out, r, sizeof r);
    }
}

/* k sin(k theta) / (k theta), the slerp weight without its 1 / sin theta
 * (the result is normalised after). */
static float arc_weight(float k, float theta)
{
    float x = k * theta;
    return x > 1e-3f ? sinf(x) / theta : k * (1.0f - x * x / 6.0f);
}

/* One channel between keys a and b at factor f into the local at `out`;
 * component c (T x y z, R x y z w, S x y z) at a[at[c]], b[at[c]]. */
static void sample_one(const float *a, const float *b, const size_t at[SKV_LANE_COMPONENTS], float f, float *out)
{
    float v[SKV_LANE_COMPONENTS];
    for (int c = 0; c < SKV_LANE_COMPONENTS; c += c == 2 ? 5 : 1) v[c] = a[at[c]] + f * (b[at[c]] - a[at[c]]);
    float d = 0.0f;
    for (int c = 3; c < 7; c++) d += a[at[c]] * b[at[c]];
    d = d > 0.0f ? (d < 1.0f ? d : 1.0f) : 0.0f;
    float theta = acosf(d), wa = arc_weight(1.0f - f, theta), wb = arc_weight(f, theta);
    float len2 = 0.0f;
    for (int c = 3; c < 7; c++) {
        v[c] = wa * a[at[c]] + wb * b[at[c]];
        len2 += v[c] * v[c];
    }
    float x = 0.0f, y = 0.0f, z = 0.0f, w = 1.0f; /* a zero or non-finite quaternion: identity */
    if (len2 > 0.0f && isfinite(len2)) {
        float inv = 1.0f / sqrtf(len2);
        x = v[3] * inv, y = v[4] * inv, z = v[5] * inv, w = v[6] * inv;
    }
    const float *s = &v[7];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    float m[16] = {(1.0f - 2.0f * (yy + zz)) * s[0], 2.0f * (xy + wz) * s[0], 2.0f * (xz - wy) * s[0], 0.0f,
                   2.0f * (xy - wz) * s[1], (1.0f - 2.0f * (xx + zz)) * s[1], 2.0f * (yz + wx) * s[1], 0.0f,
                   2.0f * (xz + wy) * s[2], 2.0f * (yz - wx) * s[2], (1.0f - 2.0f * (xx + yy)) * s[2], 0.0f,
                   v[0], v[1], v[2], 1.0f};
    memcpy(out, m, sizeof m);
}

static void sample_scalar(const float *a, const float *b, float f, const int32_t *out, int lane_count, float *work)
{
    size_t at[SKV_LANE_COMPONENTS];
    for (int c = 0; c < SKV_LANE_COMPONENTS; c++) at[c] = (size_t)c * SKV_LANE_BLOCK;
    for (int l = 0; l < lane_count; l++) {
        size_t lane = (size_t)(l / SKV_LANE_BLOCK) * SKV_KEY_FLOATS(1) + (size_t)(l % SKV_LANE_BLOCK);
        sample_one(a + lane, b + lane, at, f, (float *)((char *)work + out[l]));
    }
}

static void sample_each_scalar(const float *const *keys, const float *f, const int32_t *out, int lane_count,
                               float *work)
{
    static const size_t at[SKV_LANE_COMPONENTS] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10};
    for (int l = 0; l < lane_count; l++)
        sample_one(keys[l], keys[l] + SKV_EACH_KEY_FLOATS, at, f[l], (float *)((char *)work + out[l]));
}

static void run_rows_scalar(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float *o = out + (size_t)(s[i].out / (int32_t)sizeof(mat4)) * SKV_ROWS_FLOATS;
        for (int r = 0; r < 3; r++)
            for (int j = 0; j < 4; j++)
                o[4 * r + j] = a[r] * b[4 * j] + a[4 + r] * b[4 * j + 1] + a[8 + r] * b[4 * j + 2] + a[12 + r] * b[4 * j + 3];
    }
}

static void sample_solo_scalar(const float *key, float f, int32_t out, float *work)
{
    static const size_t at[SKV_LANE_COMPONENTS] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10};
    sample_one(key, key + SKV_EACH_KEY_FLOATS, at, f, (float *)((char *)work + out));
}

static void solo_palette_scalar(const float *key, float f, int32_t out, float *work, const skv_walk_step *steps,
                                int count, const mat4 *constants, float *palette)
{
    sample_solo_scalar(key, f, out, work);
    run_scalar(steps, count, work, constants, palette);
}

static void vector_palette_scalar(const float *a, const float *b, float f, const int32_t *out, float *work,
                                  const skv_walk_lists *lists, float *palette)
{
    sample_scalar(a, b, f, out, 4, work);
    run_scalar(lists->globals, lists->global_count, work, lists->constants, work);
    run_scalar(lists->palette, lists->palette_count, work, lists->constants, palette);
    run_scalar(lists->translations, lists->translation_count, work, lists->constants, palette);
}

/* Plain C has no non-temporal store: ordinary ones, ordered by a fence. */
static void fence_scalar(void)
{
    atomic_thread_fence(memory_order_release);
}

/* Plain C: the general product serves affine operands too (exact for them). */
const skv_kernels skv_kernels_scalar = {"scalar", 1, run_scalar, run_scalar, run_scalar, run_rows_scalar, fence_scalar, sample_scalar,
                                        sample_each_scalar, sample_solo_scalar, solo_palette_scalar,
                                        vector_palette_scalar};

/* Every kernel set this CPU runs, and the best of them, settled once. */
static skv_walk_kernel best = SKV_WALK_SCALAR;
static const skv_kernels *tables[SKV_WALK_KERNEL_COUNT];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void find_tables(void)
{
    const skv_kernels *portable = kernels_x86(SKV_WALK_PORTABLE);
    tables[SKV_WALK_SCALAR] = &skv_kernels_scalar;
    tables[SKV_WALK_PORTABLE] = portable ? portable : &skv_kernels_scalar; /* "portable" is plain C off x86 */
    tables[SKV_WALK_AVX2] = kernels_x86(SKV_WALK_AVX2);
    tables[SKV_WALK_AVX512] = kernels_x86(SKV_WALK_AVX512);
    best = tables[SKV_WALK_AVX512] ? SKV_WALK_AVX512
         : tables[SKV_WALK_AVX2]   ? SKV_WALK_AVX2
         : portable                ? SKV_WALK_PORTABLE
                                   : SKV_WALK_SCALAR;
    tables[SKV_WALK_AUTO] = tables[best];
}

skv_walk_kernel kernels_best(void)
{
    pthread_once(&tables_once, find_tables);
    return best;
}

const skv_kernels *kernels_get(skv_walk_kernel which)
{
    pthread_once(&tables_once, find_tables);
    return which >= SKV_WALK_AUTO && which < SKV_WALK_KERNEL_COUNT ? tables[which] : NULL;
}
