/* anim.c - key sampling, hierarchy walk, bone palette. */
#include "anim.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

double anim_clip_ticks(const skv_clip *clip, double seconds)
{
    double ticks = seconds * clip->ticks_per_second;
    if (!(clip->duration_ticks > 0.0) || !isfinite(ticks)) return 0.0;
    ticks = fmod(ticks, clip->duration_ticks);
    if (ticks < 0.0) ticks += clip->duration_ticks;
    return ticks;
}

/* Index of the last key with time <= t (0 if t is before the first key).
 * Keys are sorted by the importer. */
static int key_before(const double *first_time, size_t stride, int count, double t)
{
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        double mt = *(const double *)((const char *)first_time + (size_t)mid * stride);
        if (mt <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Interpolation factor between keys at t0 and t1, in [0, 1]. */
static float key_factor(double t0, double t1, double t)
{
    double span = t1 - t0;
    if (!(span > 0.0)) return 0.0f;
    double f = (t - t0) / span;
    return (float)(f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f);
}

void anim_sample_vec3(const skv_vec3_key *keys, int count, double t, float out[3])
{
    if (count == 1 || !(t > keys[0].time)) {
        memcpy(out, keys[0].value, 3 * sizeof(float));
        return;
    }
    if (t >= keys[count - 1].time) {
        memcpy(out, keys[count - 1].value, 3 * sizeof(float));
        return;
    }
    int i = key_before(&keys[0].time, sizeof keys[0], count, t);
    float f = key_factor(keys[i].time, keys[i + 1].time, t);
    for (int a = 0; a < 3; a++)
        out[a] = keys[i].value[a] + f * (keys[i + 1].value[a] - keys[i].value[a]);
}

static inline void quat_slerp(const float a[4], const float b[4], float f, float out[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sign = 1.0f;
    if (d < 0.0f) { /* q and -q are one rotation: take the shorter arc */
        d = -d;
        sign = -1.0f;
    }
    float wa, wb;
    if (d > 0.9995f) {
        /* Under ~1.8 degrees apart: normalised lerp is within 1e-6 of slerp
         * and avoids dividing by a vanishing sine. */
        wa = 1.0f - f;
        wb = f;
    } else {
        float theta = acosf(d), s = sinf(theta);
        wa = sinf((1.0f - f) * theta) / s;
        wb = sinf(f * theta) / s;
    }
    wb *= sign;
    float len2 = 0.0f;
    for (int k = 0; k < 4; k++) {
        out[k] = wa * a[k] + wb * b[k];
        len2 += out[k] * out[k];
    }
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] *= inv;
}

void anim_quat_slerp(const float a[4], const float b[4], float f, float out[4])
{
    quat_slerp(a, b, f, out);
}

/* A key's quaternion at unit length (identity for a zero one). */
static inline void quat_unit(const float q[4], float out[4])
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] = q[k] * inv;
}

void anim_sample_quat(const skv_quat_key *keys, int count, double t, float out[4])
{
    if (count == 1 || !(t > keys[0].time)) {
        anim_quat_slerp(keys[0].value, keys[0].value, 0.0f, out); /* normalises */
        return;
    }
    if (t >= keys[count - 1].time) {
        anim_quat_slerp(keys[count - 1].value, keys[count - 1].value, 0.0f, out);
        return;
    }
    int i = key_before(&keys[0].time, sizeof keys[0], count, t);
    float f = key_factor(keys[i].time, keys[i + 1].time, t);
    anim_quat_slerp(keys[i].value, keys[i + 1].value, f, out);
}

void anim_quat_mat4(const float q[4], mat4 out)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        glm_mat4_identity(out);
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    versor unit = {q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv};
    glm_quat_mat4(unit, out);
}

void anim_sample(const skv_skeleton *skeleton, const skv_clip *clip,
                 double ticks, mat4 *local)
{
    for (int n = 0; n < skeleton->node_count; n++) {
        int c = clip ? clip->node_channel[n] : -1;
        if (c < 0) {
            glm_mat4_copy(skeleton->rest_local[n], local[n]);
            continue;
        }
        const skv_channel *ch = &clip->channels[c];
        float t[3], s[3], q[4];
        anim_sample_vec3(ch->positions, ch->position_count, ticks, t);
        anim_sample_quat(ch->rotations, ch->rotation_count, ticks, q);
        anim_sample_vec3(ch->scales, ch->scale_count, ticks, s);
        /* local = T * R * S, written out: rotation columns scaled. */
        anim_quat_mat4(q, local[n]);
        for (int a = 0; a < 3; a++) glm_vec4_scale(local[n][a], s[a], local[n][a]);
        local[n][3][0] = t[0];
        local[n][3][1] = t[1];
        local[n][3][2] = t[2];
        local[n][3][3] = 1.0f;
    }
}

void skeleton_pose(const skv_skeleton *skeleton, const mat4 *local, mat4 *global)
{
    for (int n = 0; n < skeleton->node_count; n++) {
        int p = skeleton->parents[n];
        if (p < 0) glm_mat4_copy((vec4 *)local[n], global[n]);
        else glm_mat4_mul((vec4 *)global[p], (vec4 *)local[n], global[n]);
    }
}

void skin_palette(const skv_skeleton *skeleton, const mat4 *global,
                  const mat4 global_inverse, mat4 *palette)
{
    for (int b = 0; b < skeleton->bone_count; b++) {
        int n = skeleton->bone_node[b];
        if (n < 0) {
            glm_mat4_identity(palette[b]);
            continue;
        }
        mat4 node_to_model;
        glm_mat4_mul((vec4 *)global_inverse, (vec4 *)global[n], node_to_model);
        glm_mat4_mul(node_to_model, skeleton->bone_offset[b], palette[b]);
    }
}

int pose_create(skv_pose *pose, const skv_skeleton *skeleton)
{
    return pose_create_into(pose, skeleton, NULL);
}

int pose_create_into(skv_pose *pose, const skv_skeleton *skeleton, mat4 *palette)
{
    memset(pose, 0, sizeof *pose);
    pose->node_count = skeleton->node_count;
    pose->bone_count = skeleton->bone_count;
    size_t nodes = skeleton->node_count > 0 ? (size_t)skeleton->node_count : 1;
    size_t bones = skeleton->bone_count > 0 ? (size_t)skeleton->bone_count : 1;
    /* 64-byte aligned: a 4x4 float matrix is one cache line, and one
     * AVX-512 register. */
    pose->work = aligned_alloc(64, 2 * nodes * sizeof(mat4));
    pose->palette = palette ? palette : aligned_alloc(64, bones * sizeof(mat4));
    pose->palette_borrowed = palette != NULL;
    pose->walk_clip = -2;
    if (!pose->work || !pose->palette) {
        pose_destroy(pose);
        return -1;
    }
    pose->global = (mat4 *)pose->work;
    pose->local = pose->global + skeleton->node_count;
    return 0;
}

void pose_destroy(skv_pose *pose)
{
    free(pose->work);
    if (!pose->palette_borrowed) free(pose->palette);
    free(pose->cursors);
    free(pose->rest_trs);
    memset(pose, 0, sizeof *pose);
}

void pose_evaluate_reference(skv_pose *pose, const skv_model *model, int clip, double seconds)
{
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    double ticks = c ? anim_clip_ticks(c, seconds) : 0.0;
    pose->walk_clip = -2; /* every palette entry is rewritten here */
    pose->globals_owed = NULL;
    anim_sample(&model->skeleton, c, ticks, pose->local);
    skeleton_pose(&model->skeleton, pose->local, pose->global);
    skin_palette(&model->skeleton, pose->global, model->global_inverse, pose->palette);
}

/* --- the fast path ------------------------------------------------------- */

/* Key index for t, strictly inside the key range (first.time < t < last.time):
 * the cursor's key or the next one in playback, binary search otherwise. */
static inline int key_at(const double *first_time, size_t stride, int count, double t, int *cursor)
{
#define KEY_TIME(i) (*(const double *)((const char *)first_time + (size_t)(i) * stride))
    int i = *cursor;
    if (i >= 0 && i < count - 1 && KEY_TIME(i) <= t) {
        if (t < KEY_TIME(i + 1)) return i;
        if (i + 2 < count && t < KEY_TIME(i + 2)) return *cursor = i + 1;
    }
#undef KEY_TIME
    return *cursor = key_before(first_time, stride, count, t);
}

static inline void sample_vec3(const skv_vec3_key *keys, int count, double t, int *cursor, float out[3])
{
    const float *v;
    if (count == 1 || !(t > keys[0].time)) v = keys[0].value;
    else if (t >= keys[count - 1].time) v = keys[count - 1].value;
    else {
        int i = key_at(&keys[0].time, sizeof keys[0], count, t, cursor);
        float f = key_factor(keys[i].time, keys[i + 1].time, t);
        const float *a = keys[i].value, *b = keys[i + 1].value;
        out[0] = a[0] + f * (b[0] - a[0]);
        out[1] = a[1] + f * (b[1] - a[1]);
        out[2] = a[2] + f * (b[2] - a[2]);
        return;
    }
    out[0] = v[0], out[1] = v[1], out[2] = v[2];
}

static inline void sample_quat(const skv_quat_key *keys, int count, double t, int *cursor, float out[4])
{
    if (count == 1 || !(t > keys[0].time)) quat_unit(keys[0].value, out);
    else if (t >= keys[count - 1].time) quat_unit(keys[count - 1].value, out);
    else {
        int i = key_at(&keys[0].time, sizeof keys[0], count, t, cursor);
        quat_slerp(keys[i].value, keys[i + 1].value, key_factor(keys[i].time, keys[i + 1].time, t), out);
    }
}

/* One key array at key i, factor f; a single-key array is its key. */
static inline void lerp_vec3_at(const skv_vec3_key *keys, int count, int i, float f, float out[3])
{
    if (count == 1) {
        out[0] = keys[0].value[0], out[1] = keys[0].value[1], out[2] = keys[0].value[2];
        return;
    }
    const float *a = keys[i].value, *b = keys[i + 1].value;
    out[0] = a[0] + f * (b[0] - a[0]);
    out[1] = a[1] + f * (b[1] - a[1]);
    out[2] = a[2] + f * (b[2] - a[2]);
}

/* All three arrays of a shared_times channel: one search, one factor. */
static inline void sample_shared(const skv_channel *ch, double t, int *cursor, float tr[3], float q[4], float s[3])
{
    const double *times;
    size_t stride;
    int count;
    if (ch->rotation_count > 1) times = &ch->rotations[0].time, stride = sizeof ch->rotations[0], count = ch->rotation_count;
    else if (ch->position_count > 1) times = &ch->positions[0].time, stride = sizeof ch->positions[0], count = ch->position_count;
    else times = &ch->scales[0].time, stride = sizeof ch->scales[0], count = ch->scale_count;
#define SHARED_TIME(i) (*(const double *)((const char *)times + (size_t)(i) * stride))
    int i;
    float f;
    if (count == 1 || !(t > times[0])) i = 0, f = 0.0f;
    else if (t >= SHARED_TIME(count - 1)) i = count - 2, f = 1.0f;
    else {
        i = key_at(times, stride, count, t, cursor);
        f = key_factor(SHARED_TIME(i), SHARED_TIME(i + 1), t);
    }
#undef SHARED_TIME
    lerp_vec3_at(ch->positions, ch->position_count, i, f, tr);
    lerp_vec3_at(ch->scales, ch->scale_count, i, f, s);
    if (ch->rotation_count == 1) quat_unit(ch->rotations[0].value, q);
    else if (f == 0.0f) quat_unit(ch->rotations[i].value, q);
    else if (f == 1.0f) quat_unit(ch->rotations[i + 1].value, q);
    else quat_slerp(ch->rotations[i].value, ch->rotations[i + 1].value, f, q);
}

/* local = T * R * S from a unit quaternion, written straight into the
 * columns (the product anim_quat_mat4 + scaling would form). */
static inline void trs_mat4(const float t[3], const float q[4], const float s[3], mat4 out)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    out[0][0] = (1.0f - 2.0f * (yy + zz)) * s[0];
    out[0][1] = 2.0f * (xy + wz) * s[0];
    out[0][2] = 2.0f * (xz - wy) * s[0];
    out[0][3] = 0.0f;
    out[1][0] = 2.0f * (xy - wz) * s[1];
    out[1][1] = (1.0f - 2.0f * (xx + zz)) * s[1];
    out[1][2] = 2.0f * (yz + wx) * s[1];
    out[1][3] = 0.0f;
    out[2][0] = 2.0f * (xz + wy) * s[2];
    out[2][1] = 2.0f * (yz - wx) * s[2];
    out[2][2] = (1.0f - 2.0f * (xx + yy)) * s[2];
    out[2][3] = 0.0f;
    out[3][0] = t[0];
    out[3][1] = t[1];
    out[3][2] = t[2];
    out[3][3] = 1.0f;
}

/* Key pair and factor at t on precomputed spans: i = 0, f = 0 before
 * the first key, i = count - 2, f = 1 after the last. */
static inline int packed_key(const skv_packed_keys *pk, double t, int *cursor, float *f)
{
    int i, n = pk->count;
#define PACKED_TIME(k) (*(const double *)((const char *)pk->times + (size_t)(k) * pk->time_stride))
    if (!(t > PACKED_TIME(0))) i = 0, *f = 0.0f;
    else if (t >= PACKED_TIME(n - 1)) i = n - 2, *f = 1.0f;
    else {
        i = key_at(pk->times, pk->time_stride, n, t, cursor);
        double x = (t - PACKED_TIME(i)) * pk->inv_span[i];
        *f = (float)(x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x);
    }
#undef PACKED_TIME
    return i;
}

#if defined(__SSE2__)
/* The exact arc for four rotations at once, one per lane (structure of
 * arrays: a[0] holds the four x, ...), factor f: slerp's weights
 * sin((1 - f) theta) / sin theta and sin(f theta) / sin theta with theta
 * = acos(a . b), as polynomials. The common 1 / sin theta is left out
 * (the caller normalises), so what is evaluated is (1 - f) sinc((1 - f)
 * theta) and f sinc(f theta): no division by a vanishing sine, no branch,
 * and theta = 0 gives normalised lerp's weights exactly. Keys are in one
 * hemisphere already (anim_channel_finish), so a . b >= 0 and theta <= pi / 2.
 * Error against slerp in double precision: below 3e-7 over the whole arc
 * (tests/test_anim.c, slerp_lanes_exact). */
static inline __m128 acos01_ps(__m128 d)
{
    /* acos d = 2 asin sqrt((1 - d) / 2) above 0.5, pi/2 - asin d below;
     * asin x = x + x z P(z), z = x^2, on |x| <= 0.5 (Cephes' asinf
     * coefficients, relative error ~2.5e-7). */
    __m128 half = _mm_set1_ps(0.5f);
    __m128 high = _mm_cmpgt_ps(d, half);
    __m128 x_high = _mm_sqrt_ps(_mm_mul_ps(half, _mm_sub_ps(_mm_set1_ps(1.0f), d)));
    __m128 x = _mm_or_ps(_mm_and_ps(high, x_high), _mm_andnot_ps(high, d));
    __m128 z = _mm_mul_ps(x, x);
    __m128 p = _mm_set1_ps(4.2163199048e-2f);
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(2.4181311049e-2f));
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(4.5470025998e-2f));
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(7.4953002686e-2f));
    p = _mm_add_ps(_mm_mul_ps(p, z), _mm_set1_ps(1.6666752422e-1f));
    __m128 asin_x = _mm_add_ps(x, _mm_mul_ps(_mm_mul_ps(x, z), p));
    __m128 theta_high = _mm_add_ps(asin_x, asin_x);
    __m128 theta_low = _mm_sub_ps(_mm_set1_ps(1.57079632679f), asin_x);
    return _mm_or_ps(_mm_and_ps(high, theta_high), _mm_andnot_ps(high, theta_low));
}

/* k sinc(k theta) = k sin(k theta) / (k theta) for k theta in [0, pi/2]:
 * Taylor to x^10 (the next term is under 4e-8 there). */
static inline __m128 weight_ps(__m128 k, __m128 theta)
{
    __m128 x = _mm_mul_ps(k, theta);
    __m128 x2 = _mm_mul_ps(x, x);
    __m128 p = _mm_set1_ps(-1.0f / 39916800.0f);
    p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(1.0f / 362880.0f));
    p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-1.0f / 5040.0f));
    p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(1.0f / 120.0f));
    p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(-1.0f / 6.0f));
    p = _mm_add_ps(_mm_mul_ps(p, x2), _mm_set1_ps(1.0f));
    return _mm_mul_ps(k, p);
}

/* r[c] = the unnormalised slerp of a and b (structure of arrays). */
static inline void slerp_soa(const __m128 a[4], const __m128 b[4], __m128 f, __m128 r[4])
{
    __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1])),
                          _mm_add_ps(_mm_mul_ps(a[2], b[2]), _mm_mul_ps(a[3], b[3])));
    /* Unit keys give d in [0, 1] up to rounding; keys that are not unit
     * (files store some) are clamped, as the reference's d > 0.9995 test
     * sends them to lerp. NaN becomes 0 here and is caught by the
     * caller's length test. */
    d = _mm_min_ps(_mm_max_ps(d, _mm_setzero_ps()), _mm_set1_ps(1.0f));
    __m128 one = _mm_set1_ps(1.0f), k = _mm_sub_ps(one, f), wa, wb;
    __m128 x = _mm_sub_ps(one, d);
    if (_mm_movemask_ps(_mm_cmplt_ps(x, _mm_set1_ps(0.045f))) == 0xf) {
        /* Every lane's keys within ~0.3 rad (most of a smooth clip's
         * pairs): theta^2 from the series of acos(1 - x)^2 (the next
         * term, 128 x^5 / 1575, is under 2e-8 here) and shorter sincs
         * (k theta <= 0.3: the x^8 term is under 2e-10). */
        __m128 t2 = _mm_set1_ps(4.0f / 35.0f);
        t2 = _mm_add_ps(_mm_mul_ps(t2, x), _mm_set1_ps(8.0f / 45.0f));
        t2 = _mm_add_ps(_mm_mul_ps(t2, x), _mm_set1_ps(1.0f / 3.0f));
        t2 = _mm_add_ps(_mm_mul_ps(t2, x), _mm_set1_ps(2.0f));
        t2 = _mm_mul_ps(t2, x);
        __m128 ya = _mm_mul_ps(_mm_mul_ps(k, k), t2), yb = _mm_mul_ps(_mm_mul_ps(f, f), t2);
        __m128 pa = _mm_set1_ps(-1.0f / 5040.0f), pb = pa;
        pa = _mm_add_ps(_mm_mul_ps(pa, ya), _mm_set1_ps(1.0f / 120.0f));
        pb = _mm_add_ps(_mm_mul_ps(pb, yb), _mm_set1_ps(1.0f / 120.0f));
        pa = _mm_add_ps(_mm_mul_ps(pa, ya), _mm_set1_ps(-1.0f / 6.0f));
        pb = _mm_add_ps(_mm_mul_ps(pb, yb), _mm_set1_ps(-1.0f / 6.0f));
        wa = _mm_mul_ps(k, _mm_add_ps(_mm_mul_ps(pa, ya), one));
        wb = _mm_mul_ps(f, _mm_add_ps(_mm_mul_ps(pb, yb), one));
    } else {
        __m128 theta = acos01_ps(d);
        wa = weight_ps(k, theta), wb = weight_ps(f, theta);
    }
    for (int c = 0; c < 4; c++) r[c] = _mm_add_ps(_mm_mul_ps(wa, a[c]), _mm_mul_ps(wb, b[c]));
}

/* slerp_soa and the normalisation sample_lanes applies, on four lanes. */
static void slerp_lanes(const float a[4][4], const float b[4][4], float f, float out[4][4])
{
    __m128 ra[4], rb[4], r[4];
    for (int j = 0; j < 4; j++) ra[j] = _mm_loadu_ps(a[j]), rb[j] = _mm_loadu_ps(b[j]);
    _MM_TRANSPOSE4_PS(ra[0], ra[1], ra[2], ra[3]);
    _MM_TRANSPOSE4_PS(rb[0], rb[1], rb[2], rb[3]);
    slerp_soa(ra, rb, _mm_set1_ps(f), r);
    __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(r[0], r[0]), _mm_mul_ps(r[1], r[1])),
                             _mm_add_ps(_mm_mul_ps(r[2], r[2]), _mm_mul_ps(r[3], r[3])));
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    for (int c = 0; c < 4; c++) r[c] = _mm_mul_ps(r[c], inv);
    _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
    for (int j = 0; j < 4; j++) _mm_storeu_ps(out[j], r[j]);
}

/* A lane's key i as 4 lanes (a one-key array's step is 0: always its
 * key). */
static inline __m128 lane_key(const float *first, int32_t step, int i)
{
    return _mm_loadu_ps((const float *)((const char *)first + (ptrdiff_t)i * step));
}

/* Four channels of one time group at key pair i, factor f, into their
 * locals: T and S lerped per channel, R on the exact arc (slerp_soa), then the rotation normalised and
 * turned into T * R * S with one channel per lane (structure of arrays),
 * the same arithmetic trs_mat4 does for one. */
static inline void sample_lanes(const skv_walk_lane *lane, int i, float f, float *work)
{
    __m128 fv = _mm_set1_ps(f), t[4], r[4], s[4], ra[4], rb[4];
    for (int j = 0; j < 4; j++) {
        const skv_walk_lane *l = &lane[j];
        __m128 a = lane_key(l->t, l->t_step, i), b = lane_key(l->t, l->t_step, i + 1);
        t[j] = _mm_add_ps(a, _mm_mul_ps(fv, _mm_sub_ps(b, a)));
        ra[j] = lane_key(l->r, l->r_step, i), rb[j] = lane_key(l->r, l->r_step, i + 1);
        a = lane_key(l->s, l->s_step, i), b = lane_key(l->s, l->s_step, i + 1);
        s[j] = _mm_add_ps(a, _mm_mul_ps(fv, _mm_sub_ps(b, a)));
    }
    _MM_TRANSPOSE4_PS(ra[0], ra[1], ra[2], ra[3]); /* now ra[0] = x of the four, ... */
    _MM_TRANSPOSE4_PS(rb[0], rb[1], rb[2], rb[3]);
    _MM_TRANSPOSE4_PS(s[0], s[1], s[2], s[3]);
    slerp_soa(ra, rb, fv, r);
    __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(r[0], r[0]), _mm_mul_ps(r[1], r[1])),
                             _mm_add_ps(_mm_mul_ps(r[2], r[2]), _mm_mul_ps(r[3], r[3])));
    /* A zero or non-finite quaternion gives identity, as quat_unit. */
    __m128 ok = _mm_and_ps(_mm_cmpgt_ps(len2, _mm_setzero_ps()), _mm_cmplt_ps(len2, _mm_set1_ps(INFINITY)));
    __m128 inv = _mm_and_ps(ok, _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2)));
    __m128 x = _mm_mul_ps(r[0], inv), y = _mm_mul_ps(r[1], inv), z = _mm_mul_ps(r[2], inv);
    __m128 w = _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(r[3], inv)), _mm_andnot_ps(ok, _mm_set1_ps(1.0f)));
    __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f);
    __m128 xx = _mm_mul_ps(x, x), yy = _mm_mul_ps(y, y), zz = _mm_mul_ps(z, z);
    __m128 xy = _mm_mul_ps(x, y), xz = _mm_mul_ps(x, z), yz = _mm_mul_ps(y, z);
    __m128 wx = _mm_mul_ps(w, x), wy = _mm_mul_ps(w, y), wz = _mm_mul_ps(w, z);
    __m128 c0[4] = {_mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(yy, zz))), s[0]),
                    _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(xy, wz)), s[0]),
                    _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(xz, wy)), s[0]), _mm_setzero_ps()};
    __m128 c1[4] = {_mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(xy, wz)), s[1]),
                    _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, zz))), s[1]),
                    _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(yz, wx)), s[1]), _mm_setzero_ps()};
    __m128 c2[4] = {_mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(xz, wy)), s[2]),
                    _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(yz, wx)), s[2]),
                    _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, yy))), s[2]), _mm_setzero_ps()};
    /* Back to one channel per register: column k of lane j. */
    _MM_TRANSPOSE4_PS(c0[0], c0[1], c0[2], c0[3]);
    _MM_TRANSPOSE4_PS(c1[0], c1[1], c1[2], c1[3]);
    _MM_TRANSPOSE4_PS(c2[0], c2[1], c2[2], c2[3]);
    /* Translation column: x, y, z of the lerp, w = 1. */
    __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)), w1 = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
    for (int j = 0; j < 4; j++) {
        float *out = (float *)((char *)work + lane[j].out);
        _mm_storeu_ps(out, c0[j]);
        _mm_storeu_ps(out + 4, c1[j]);
        _mm_storeu_ps(out + 8, c2[j]);
        _mm_storeu_ps(out + 12, _mm_or_ps(_mm_and_ps(t[j], xyz), w1));
    }
}
#else
/* Without SSE: each lane on its own, through the scalar sampler. */
static inline void sample_lanes(const skv_walk_lane *lane, int i, float f, float *work)
{
    for (int j = 0; j < 4; j++) {
        const skv_walk_lane *l = &lane[j];
        float t[3], q[4], s[3];
        const float *ta = (const float *)((const char *)l->t + (ptrdiff_t)i * l->t_step);
        const float *tb = (const float *)((const char *)l->t + (ptrdiff_t)(i + 1) * l->t_step);
        const float *ra = (const float *)((const char *)l->r + (ptrdiff_t)i * l->r_step);
        const float *rb = (const float *)((const char *)l->r + (ptrdiff_t)(i + 1) * l->r_step);
        const float *sa = (const float *)((const char *)l->s + (ptrdiff_t)i * l->s_step);
        const float *sb = (const float *)((const char *)l->s + (ptrdiff_t)(i + 1) * l->s_step);
        for (int k = 0; k < 3; k++) t[k] = ta[k] + f * (tb[k] - ta[k]), s[k] = sa[k] + f * (sb[k] - sa[k]);
        quat_slerp(ra, rb, f, q);
        trs_mat4(t, q, s, (vec4 *)((char *)work + l->out));
    }
}
#endif

#if !defined(__SSE2__)
static void slerp_lanes(const float a[4][4], const float b[4][4], float f, float out[4][4])
{
    for (int j = 0; j < 4; j++) quat_slerp(a[j], b[j], f, out[j]);
}
#endif

void anim_quat_slerp_lanes(const float a[4][4], const float b[4][4], float f, float out[4][4])
{
    slerp_lanes(a, b, f, out);
}

/* out = a * b for affine matrices (bottom row 0 0 0 1): the bottom row is
 * not computed, it comes out of the columns' w by itself. */
static inline void affine_mul(const mat4 a, const mat4 b, mat4 out)
{
#if defined(__SSE2__)
    __m128 a0 = _mm_loadu_ps(a[0]), a1 = _mm_loadu_ps(a[1]), a2 = _mm_loadu_ps(a[2]), a3 = _mm_loadu_ps(a[3]);
    __m128 r[4];
    for (int j = 0; j < 4; j++) {
        /* Broadcasts by shuffling the loaded column: one instruction each. */
        __m128 bj = _mm_loadu_ps(b[j]);
        r[j] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bj, bj, 0x00)),
                                     _mm_mul_ps(a1, _mm_shuffle_ps(bj, bj, 0x55))),
                          _mm_mul_ps(a2, _mm_shuffle_ps(bj, bj, 0xaa)));
    }
    r[3] = _mm_add_ps(r[3], a3);
    for (int j = 0; j < 4; j++) _mm_storeu_ps(out[j], r[j]);
#else
    mat4 r;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
            r[j][i] = a[0][i] * b[j][0] + a[1][i] * b[j][1] + a[2][i] * b[j][2] + (j == 3 ? a[3][i] : 0.0f);
    memcpy(out, r, sizeof r);
#endif
}

/* The walk's step: node n's global from its parent's (the root's from
 * globalInverse, so globals are in model space). */
static inline void node_global(skv_pose *pose, const skv_model *model, int n, const float *local)
{
    int p = model->skeleton.parents[n];
    if (p < 0) glm_mat4_mul((vec4 *)model->global_inverse, (vec4 *)local, pose->global[n]);
    else affine_mul(pose->global[p], (vec4 *)local, pose->global[n]);
}

/* final[b] = global(node of b) * offset[b]. */
static inline void bone_palette(skv_pose *pose, const skv_skeleton *sk)
{
    for (int b = 0; b < sk->bone_count; b++) {
        int n = sk->bone_node[b];
        if (n < 0) glm_mat4_identity(pose->palette[b]);
        else affine_mul(pose->global[n], sk->bone_offset[b], pose->palette[b]);
    }
}

/* Cursors for `clip`'s channels, reset when the clip changes; NULL (binary
 * search every time) if they cannot be allocated. */
static int *pose_cursors(skv_pose *pose, int clip, int channels)
{
    if (channels > pose->cursor_capacity) {
        int *c = realloc(pose->cursors, (size_t)channels * 3 * sizeof *c);
        if (!c) return NULL;
        pose->cursors = c;
        pose->cursor_capacity = channels;
        pose->cursor_clip = -2;
    }
    if (pose->cursor_clip != clip) {
        memset(pose->cursors, 0, (size_t)channels * 3 * sizeof *pose->cursors);
        pose->cursor_clip = clip;
    }
    return pose->cursors;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(SKV_SANITIZE)
/* One build for any x86-64, another for CPUs with AVX2 and FMA, picked
 * when the program loads. */
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void pose_evaluate(skv_pose *pose, const skv_model *model, int clip, double seconds)
{
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    const skv_walk *w = c ? walk_clip(model, clip) : model->rest_walk;
    if (!w) {
        pose_evaluate_reference(pose, model, clip, seconds);
        return;
    }
    double ticks = c ? anim_clip_ticks(c, seconds) : 0.0;
    int clip_key = c ? clip : -1;
    if (pose->walk_clip != clip_key) {
        walk_run(w->fixed, w->fixed_count, pose->work, w->constants, (float *)pose->palette); /* once: any kernel */
        pose->walk_clip = clip_key;
    }

    /* Locals of the channels whose keys move: time groups four lanes at
     * a time, then the channels keyed at times of their own. */
    int *cursors = w->sample_count > 0 ? pose_cursors(pose, clip, c->channel_count) : NULL;
    for (int g = 0; g < w->group_count; g++) {
        const skv_walk_group *grp = &w->groups[g];
        const skv_walk_lane *lanes = &w->lanes[grp->first_lane];
        int scratch = -1;
        int *cur = cursors ? &cursors[lanes[0].channel * 3] : &scratch;
        float f;
        int i = packed_key(grp->keys, ticks, cur, &f);
        for (int l = 0; l < grp->lane_count; l += 4) sample_lanes(&lanes[l], i, f, pose->work);
    }
    for (int k = 0; k < w->loose_count; k++) {
        int ch_index = w->loose[k];
        const skv_channel *ch = &c->channels[ch_index];
        int scratch[3] = {-1, -1, -1};
        int *cur = cursors ? &cursors[ch_index * 3] : scratch;
        _Alignas(16) float t[4], s[4], q[4];
        if (ch->shared_times) sample_shared(ch, ticks, cur, t, q, s);
        else {
            sample_vec3(ch->positions, ch->position_count, ticks, &cur[0], t);
            sample_quat(ch->rotations, ch->rotation_count, ticks, &cur[1], q);
            sample_vec3(ch->scales, ch->scale_count, ticks, &cur[2], s);
        }
        trs_mat4(t, q, s, pose->local[ch->node]);
    }
    /* Then the globals the palette needs, and the palette. */
    skv_walk_kernel kernel = (skv_walk_kernel)pose->walk_kernel;
    if (walk_run_kernel(kernel, w->globals, w->global_count, pose->work, w->constants, pose->work) != 0) {
        kernel = SKV_WALK_AUTO; /* not on this CPU */
        walk_run(w->globals, w->global_count, pose->work, w->constants, pose->work);
    }
    walk_run_kernel(kernel, w->palette, w->palette_count, pose->work, w->constants, (float *)pose->palette);
    pose->globals_owed = w->deferred_count > 0 ? w : NULL;
}

const mat4 *pose_globals(skv_pose *pose)
{
    const skv_walk *w = pose->globals_owed;
    if (w) walk_run(w->deferred, w->deferred_count, pose->work, w->constants, pose->work);
    pose->globals_owed = NULL;
    return (const mat4 *)pose->global;
}

void anim_decompose(const mat4 m, float t_out[3], float q_out[4], float s_out[3])
{
    vec4 t;
    mat4 r;
    vec3 s;
    glm_decompose((vec4 *)m, t, r, s);
    if (glm_mat4_det(r) < 0.0f) { /* mirrored: the reflection goes into the scale */
        glm_vec4_negate(r[0]);
        s[0] = -s[0];
    }
    versor q;
    glm_mat4_quat(r, q);
    memcpy(t_out, t, 3 * sizeof(float));
    quat_unit(q, q_out);
    memcpy(s_out, s, 3 * sizeof(float));
}

/* Every node's rest transform as T, R, S, decomposed on the pose's first
 * blend and kept (the rest pose never changes); NULL if memory runs out. */
static const skv_trs *pose_rest_trs(skv_pose *pose, const skv_skeleton *sk)
{
    if (!pose->rest_trs) {
        skv_trs *all = malloc((size_t)(sk->node_count > 0 ? sk->node_count : 1) * sizeof *all);
        if (!all) return NULL;
        for (int n = 0; n < sk->node_count; n++) anim_decompose(sk->rest_local[n], all[n].t, all[n].r, all[n].s);
        pose->rest_trs = all;
    }
    return pose->rest_trs;
}

static void channel_trs(const skv_channel *ch, double ticks, skv_trs *out)
{
    int cursor[3] = {-1, -1, -1}; /* two clips at once: no cursors */
    if (ch->constant) {
        /* One key per array: exactly what the keys say (constant_local is
         * only a cache of their product). */
        memcpy(out->t, ch->positions[0].value, sizeof out->t);
        quat_unit(ch->rotations[0].value, out->r);
        memcpy(out->s, ch->scales[0].value, sizeof out->s);
    } else if (ch->shared_times) {
        sample_shared(ch, ticks, cursor, out->t, out->r, out->s);
    } else {
        sample_vec3(ch->positions, ch->position_count, ticks, &cursor[0], out->t);
        sample_quat(ch->rotations, ch->rotation_count, ticks, &cursor[1], out->r);
        sample_vec3(ch->scales, ch->scale_count, ticks, &cursor[2], out->s);
    }
}

void pose_evaluate_blend(skv_pose *pose, const skv_model *model, int clip_a, double seconds_a, int clip_b,
                         double seconds_b, float weight)
{
    const skv_skeleton *sk = &model->skeleton;
    const skv_clip *a = clip_a >= 0 && clip_a < model->clip_count ? &model->clips[clip_a] : NULL;
    const skv_clip *b = clip_b >= 0 && clip_b < model->clip_count ? &model->clips[clip_b] : NULL;
    double ticks_a = a ? anim_clip_ticks(a, seconds_a) : 0.0, ticks_b = b ? anim_clip_ticks(b, seconds_b) : 0.0;
    float w = weight > 0.0f ? (weight < 1.0f ? weight : 1.0f) : 0.0f;
    pose->walk_clip = -2; /* every global and palette entry is rewritten here */
    pose->globals_owed = NULL;
    const skv_trs *rest = pose_rest_trs(pose, sk);

    for (int n = 0; n < sk->node_count; n++) {
        int ca = a ? a->node_channel[n] : -1, cb = b ? b->node_channel[n] : -1;
        const float *local;
        if (ca < 0 && cb < 0) {
            local = (const float *)sk->rest_local[n];
        } else {
            /* A node one clip does not animate keeps its rest transform
             * there, and is blended with the other clip's motion. */
            skv_trs ta, tb, out;
            if (ca >= 0) channel_trs(&a->channels[ca], ticks_a, &ta);
            else if (rest) ta = rest[n];
            else anim_decompose(sk->rest_local[n], ta.t, ta.r, ta.s);
            if (cb >= 0) channel_trs(&b->channels[cb], ticks_b, &tb);
            else if (rest) tb = rest[n];
            else anim_decompose(sk->rest_local[n], tb.t, tb.r, tb.s);
            for (int k = 0; k < 3; k++) {
                out.t[k] = ta.t[k] + w * (tb.t[k] - ta.t[k]);
                out.s[k] = ta.s[k] + w * (tb.s[k] - ta.s[k]);
            }
            quat_slerp(ta.r, tb.r, w, out.r);
            trs_mat4(out.t, out.r, out.s, pose->local[n]);
            local = (const float *)pose->local[n];
        }
        node_global(pose, model, n, local);
    }
    bone_palette(pose, sk);
}

/* The precomputed spans of a shared_times channel (model.h), turning its
 * rotation keys into one hemisphere on the way; NULL when memory runs
 * out (the channel is then sampled as it is). */
static skv_packed_keys *pack_keys(skv_channel *ch, const double *times, size_t stride, int count)
{
    size_t span_at = (sizeof(skv_packed_keys) + 7) & ~(size_t)7;
    char *block = malloc(span_at + (size_t)count * sizeof(double));
    if (!block) return NULL;
    skv_packed_keys *pk = (skv_packed_keys *)block;
    pk->count = count;
    pk->times = times;
    pk->time_stride = stride;
    pk->inv_span = (double *)(block + span_at);
    for (int k = 1; k < count; k++) {
        if (ch->rotation_count > 1) {
            /* The shorter arc, as quat_slerp's sign test picks it. */
            const float *a = ch->rotations[k - 1].value;
            float *b = ch->rotations[k].value;
            if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f)
                for (int c = 0; c < 4; c++) b[c] = -b[c];
        }
        double span = *(const double *)((const char *)times + (size_t)k * stride) -
                      *(const double *)((const char *)times + (size_t)(k - 1) * stride);
        pk->inv_span[k - 1] = span > 0.0 ? 1.0 / span : 0.0;
    }
    return pk;
}

void anim_channel_finish(skv_channel *ch)
{
    /* Shared key times: compare every array of more than one key with the
     * first such array. */
    const double *lead = NULL;
    size_t lead_stride = 0;
    int lead_count = 0;
    ch->shared_times = 1;
    const double *times[3] = {&ch->positions[0].time, &ch->rotations[0].time, &ch->scales[0].time};
    size_t strides[3] = {sizeof ch->positions[0], sizeof ch->rotations[0], sizeof ch->scales[0]};
    int counts[3] = {ch->position_count, ch->rotation_count, ch->scale_count};
    for (int a = 0; a < 3 && ch->shared_times; a++) {
        if (counts[a] <= 1) continue;
        if (!lead) {
            lead = times[a], lead_stride = strides[a], lead_count = counts[a];
            continue;
        }
        if (counts[a] != lead_count) {
            ch->shared_times = 0;
            break;
        }
        for (int k = 0; k < lead_count; k++)
            if (*(const double *)((const char *)times[a] + k * strides[a]) !=
                *(const double *)((const char *)lead + k * lead_stride)) {
                ch->shared_times = 0;
                break;
            }
    }
    ch->constant = 0;
    free(ch->packed);
    ch->packed = NULL;
    if (ch->shared_times && lead_count >= 2) ch->packed = pack_keys(ch, lead, lead_stride, lead_count);
    if (ch->position_count != 1 || ch->rotation_count != 1 || ch->scale_count != 1) return;
    float q[4];
    quat_unit(ch->rotations[0].value, q);
    trs_mat4(ch->positions[0].value, q, ch->scales[0].value, ch->constant_local);
    ch->constant = 1;
}
