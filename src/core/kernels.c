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

/* The local T * R(q) * S into out (column-major), q = (x, y, z, w) of
 * unit length. */
static void unit_local(float x, float y, float z, float w, const float t[3], const float s[3], float *out)
{
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    float m[16] = {(1.0f - 2.0f * (yy + zz)) * s[0], 2.0f * (xy + wz) * s[0], 2.0f * (xz - wy) * s[0], 0.0f,
                   2.0f * (xy - wz) * s[1], (1.0f - 2.0f * (xx + zz)) * s[1], 2.0f * (yz + wx) * s[1], 0.0f,
                   2.0f * (xz + wy) * s[2], 2.0f * (yz - wx) * s[2], (1.0f - 2.0f * (xx + yy)) * s[2], 0.0f,
                   t[0], t[1], t[2], 1.0f};
    memcpy(out, m, sizeof m);
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
        if (len2 < 1e-30f) { /* subnormal squares are inexact: 2^64 times larger first (exact) */
            len2 = 0.0f;
            for (int c = 3; c < 7; c++) v[c] *= 0x1p64f, len2 += v[c] * v[c];
        }
        float inv = 1.0f / sqrtf(len2);
        x = v[3] * inv, y = v[4] * inv, z = v[5] * inv, w = v[6] * inv;
    }
    unit_local(x, y, z, w, &v[0], &v[7], out);
}

static void sample_scalar(const float *a, const float *b, float f, const int32_t *out, int lane_count, float *work)
{
    size_t at[SKV_LANE_COMPONENTS];
    for (int c = 0; c < SKV_LANE_COMPONENTS; c++) at[c] = (size_t)c * SKV_LANE_BLOCK;
    for (int l = 0; l < lane_count; l++) {
        size_t lane = kernels_lane_at(l, SKV_KEY_FLOATS(1));
        sample_one(a + lane, b + lane, at, f, (float *)((char *)work + out[l]));
    }
}

/* kernels.h, sample_compact: each lane's two keys gathered as sample_one
 * takes them (T and S the fixed ones, in both), then the moving T's. */
static void sample_compact_scalar(const float *a, const float *b, float f, const int32_t *out, int lane_count,
                                  float *work, const skv_compact *c)
{
    static const size_t at[SKV_LANE_COMPONENTS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    size_t stride = (size_t)c->stride;
    for (int l = 0; l < lane_count; l++) {
        float ka[SKV_LANE_COMPONENTS], kb[SKV_LANE_COMPONENTS];
        for (size_t k = 0; k < 3; k++) {
            ka[k] = kb[k] = c->fixed[k * stride + (size_t)l];
            ka[7 + k] = kb[7 + k] = c->fixed[(3 + k) * stride + (size_t)l];
        }
        for (size_t k = 0; k < 4; k++) ka[3 + k] = a[k * stride + (size_t)l], kb[3 + k] = b[k * stride + (size_t)l];
        sample_one(ka, kb, at, f, (float *)((char *)work + out[l]));
    }
    kernels_compact_patch(a, b, f, c, work);
}

/* The rotation of an arc at factor f: theta, m and n's components
 * `stride` floats apart from m and n. sin y and cos y by kernels.h's
 * KERNELS_ARC_ polynomials; q = cos y m + sin y n is of unit length to
 * float rounding, so the rotation takes it as it is. */
static void arc_turn(float theta, const float *m, const float *n, size_t stride, float f, float q[4])
{
    float y = (f - 0.5f) * theta, z = kernels_square_floor(y * y);
    float sy = y * (1.0f + z * (KERNELS_ARC_S1 + z * (KERNELS_ARC_S2 + z * KERNELS_ARC_S3)));
    float cy = 1.0f + z * (KERNELS_ARC_C1 + z * (KERNELS_ARC_C2 + z * (KERNELS_ARC_C3 + z * KERNELS_ARC_C4)));
    for (size_t c = 0; c < 4; c++) q[c] = cy * m[c * stride] + sy * n[c * stride];
}

/* One channel of a prepared key pair (kernels.h, SKV_ARC_M), its
 * component c at p[c * SKV_LANE_BLOCK], at factor f, into the local at
 * `out`. */
static void arc_one(const float *p, float f, float *out)
{
#define ARC(c) p[(size_t)(c) * SKV_LANE_BLOCK]
    float q[4], t[3], s[3];
    arc_turn(ARC(SKV_ARC_THETA), &ARC(SKV_ARC_M), &ARC(SKV_ARC_N), SKV_LANE_BLOCK, f, q);
    for (int c = 0; c < 3; c++)
        t[c] = ARC(SKV_ARC_T0 + c) + f * ARC(SKV_ARC_DT + c), s[c] = ARC(SKV_ARC_S0 + c) + f * ARC(SKV_ARC_DS + c);
#undef ARC
    unit_local(q[0], q[1], q[2], q[3], t, s, out);
}

static void sample_arc_scalar(const float *arc, float f, const int32_t *out, int lane_count, float *work)
{
    for (int l = 0; l < lane_count; l++)
        arc_one(arc + kernels_lane_at(l, SKV_ARC_FLOATS(1)), f, (float *)((char *)work + out[l]));
}

/* kernels.h, sample_arc_compact: each lane as arc_one forms it, T and S
 * the fixed ones (arc_one's T0 + f 0), then the moving T's, T0 + f dT as
 * arc_one sums them. */
static void sample_arc_compact_scalar(const float *arc, float f, const int32_t *out, int lane_count, float *work,
                                      const skv_compact *c)
{
    for (int l = 0; l < lane_count; l++) {
        const float *p = arc + kernels_lane_at(l, SKV_CARC_FLOATS(1));
        const float *fixed = c->fixed + kernels_lane_at(l, SKV_CARC_FIXED_FLOATS(1));
        float q[4], t[3], s[3];
        for (int k = 0; k < 3; k++) t[k] = fixed[k * SKV_LANE_BLOCK], s[k] = fixed[(3 + k) * SKV_LANE_BLOCK];
        arc_turn(p[SKV_CARC_THETA * SKV_LANE_BLOCK], p + SKV_CARC_M * SKV_LANE_BLOCK, p + SKV_CARC_N * SKV_LANE_BLOCK,
                 SKV_LANE_BLOCK, f, q);
        unit_local(q[0], q[1], q[2], q[3], t, s, (float *)((char *)work + out[l]));
    }
    const float *moving = arc + c->t_at;
    for (int j = 0; j < c->t_count; j++, moving += SKV_CARC_T_FLOATS) {
        float *m = (float *)((char *)work + c->t_out[j]) + 12;
        for (int k = 0; k < 3; k++) m[k] = moving[k] + f * moving[4 + k];
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

static void rows_palette_scalar(const skv_rows_pair *p, int count, const float *work, float *out)
{
    static const float e3[4] = {0.0f, 0.0f, 0.0f, 1.0f}; /* b's bottom row */
    for (int i = 0; i < count; i++)
        for (int e = 0; e < 2; e++) {
            const float *a = (const float *)((const char *)work + p[i].a[e]);
            float *o = (float *)((char *)out + p[i].out[e]);
            for (int r = 0; r < 3; r++)
                for (int j = 0; j < 4; j++)
                    o[4 * r + j] = a[r] * p[i].b[0][4 * e + j] + a[4 + r] * p[i].b[1][4 * e + j] +
                                   a[8 + r] * p[i].b[2][4 * e + j] + a[12 + r] * e3[j];
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

/* One step of skv_walk_lists whose b is a constant's byte offset (not
 * its complement, as run_scalar takes it). */
static void run_constant(const skv_walk_step *s, float *work, const mat4 *constants, float *out)
{
    skv_walk_step step = {s->a, ~s->b, s->out};
    run_scalar(&step, 1, work, constants, out);
}

static void vector_palette_scalar(const float *a, const float *b, float f, const int32_t *out, float *work,
                                  const skv_walk_lists *lists, float *palette)
{
    if (lists->arc == 1) sample_arc_scalar(a, f, out, lists->lanes, work);
    else if (lists->arc) sample_arc_compact_scalar(a, f, out, lists->lanes, work, lists->compact);
    else if (lists->compact) sample_compact_scalar(a, b, f, out, lists->lanes, work, lists->compact);
    else sample_scalar(a, b, f, out, lists->lanes, work);
    run_scalar(lists->globals, lists->global_count, work, lists->constants, work);
    for (int i = 0; i < lists->palette_count; i++) run_constant(&lists->palette[i], work, lists->constants, palette);
    for (int i = 0; i < lists->translation_count; i++)
        run_constant(&lists->translations[i], work, lists->constants, palette);
    for (int i = 0; i < lists->leaf_count; i++) {
        run_constant(lists->leaves + 2 * i, work, lists->constants, work);
        run_scalar(lists->leaves + 2 * i + 1, 1, work, lists->constants, palette);
    }
}

/* --- one channel's key pairs prepared once (kernels.h, solo_frame) ----------
 *
 * Between unit keys q0 and q1 (one hemisphere, theta apart as unit
 * vectors, 0 <= theta <= pi/2) slerp is q(f) = cos(f theta) q0 +
 * sin(f theta) p, p the unit part of q1 orthogonal to q0: a unit
 * quaternion on the whole arc. Its rotation matrix, written as the
 * quadratic form of q (the diagonal ww + xx - yy - zz ..., which is the
 * usual 1 - 2(yy + zz) ... for unit q), is then K0 + K1 cos 2ft + K2
 * sin 2ft with three constant matrices: R(q0) = K0 + K1, R(p) = K0 - K1,
 * R((q0 + p) / sqrt 2) = K0 + K2. Measured from the middle of the arc, y
 * = 2f theta - theta = (2f - 1) theta in [-pi/2, pi/2], it is K0 + Kc
 * cos y + Ks sin y. T and S are lerped, T0 + f dT and S0 + f dS, so T *
 * R * S is a sum of six matrices times 1, f, cos y, sin y, f cos y and
 * f sin y, and so is each palette entry (T * R * S) * b, the same sums
 * multiplied by b. All of it is formed here in double precision and
 * rounded once to float; a frame adds the six (solo_frame). */

/* The rotation matrix's quadratic form at q (x, y, z, w), rows r of
 * column c at m[c][r]. */
static void quat_form(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = w * w + x * x - y * y - z * z, m[0][1] = 2.0 * (x * y + w * z), m[0][2] = 2.0 * (x * z - w * y);
    m[1][0] = 2.0 * (x * y - w * z), m[1][1] = w * w - x * x + y * y - z * z, m[1][2] = 2.0 * (y * z + w * x);
    m[2][0] = 2.0 * (x * z + w * y), m[2][1] = 2.0 * (y * z - w * x), m[2][2] = w * w - x * x - y * y + z * z;
}

/* v, or 0 where it is under 2^-32: an arc's rotation components and
 * angle (unit quaternions, angles <= pi) that small are an exporter's
 * rounding noise (1e-20 and less in ozz's walk.fbx, Fox.glb; twist.dae's
 * held keys 2.2e-16 apart), and the frame's products of two or three of
 * them (sin y n, the rotation's xy, zz, ..., y^3 of a sine) fall under
 * float's normal range: a CPU takes such a subnormal result
 * through a slow path (on Intel, a microcode assist of ~100+ cycles an
 * instruction; bench/NOTES.md v7r). Up to three components each under
 * 2^-32 move the quaternion by sqrt(3) 2^-32 at most, the rotation by
 * about 2^-30 rad: far under a float entry's rounding (2^-24). */
static double arc_flush(double v)
{
    return fabs(v) < 0x1p-32 ? 0.0 : v;
}

/* The arc from unit keys q0 to q1 (double): their angle theta and dot
 * product *d, and p, the unit part of q1 orthogonal to q0 (0 for equal
 * keys): q0 cos t + p sin t runs along the arc. kernels_solo_pair's and
 * kernels_arc_pair's preparation both start from it. */
static double arc_basis(const double q0[4], const double q1[4], double p[4], double *d)
{
    double dot = 0.0, pl = 0.0;
    for (int c = 0; c < 4; c++) dot += q0[c] * q1[c];
    for (int c = 0; c < 4; c++) p[c] = q1[c] - dot * q0[c], pl += p[c] * p[c];
    pl = sqrt(pl);
    for (int c = 0; c < 4; c++) p[c] = pl > 0.0 ? p[c] / pl : 0.0;
    *d = dot;
    return atan2(pl, dot);
}

/* A pair's rotation keys in double: its arc's K0 and, for unit keys
 * (`weighted` 0), Kc and Ks (R = K0 + Kc cos y + Ks sin y, y = (2f - 1)
 * theta), else K1 and K2 (R = K0 + K1 cos 2psi + K2 sin 2psi, psi the
 * angle from the first key's direction); and the head solo_frame reads.
 * 0 where a unit pair was asked for and a key is not of unit length to
 * KERNELS_UNIT_KEY, or a key is 0 or not finite. */
static int arc_forms(const float *ka, const float *kb, int weighted, double k[3][3][3], float *head)
{
    double q0[4], q1[4], l0 = 0.0, l1 = 0.0;
    for (int c = 0; c < 4; c++) q0[c] = ka[c], q1[c] = kb[c], l0 += q0[c] * q0[c], l1 += q1[c] * q1[c];
    l0 = sqrt(l0), l1 = sqrt(l1);
    if (!(l0 > 0.0 && l1 > 0.0 && isfinite(l0) && isfinite(l1))) return 0;
    if (!weighted && !(fabs(l0 - 1.0) <= KERNELS_UNIT_KEY && fabs(l1 - 1.0) <= KERNELS_UNIT_KEY)) return 0;
    /* solo_frame_weighted divides by u^2 + v^2, the squared length of the
     * keys' weighted sum, in float: at least a quarter of the shorter
     * key's square (the weights' larger one is >= 1/2, the cross term >=
     * 0 in one hemisphere), at most four times the longer's. Keys from
     * 1e-9 to 1e17 keep it between 2.5e-19 and 4e34; shorter or longer
     * ones (3e-20 made it overflow to infinity: a NaN palette) are
     * sampled by the reference's own sums (no prepared pairs). */
    if (weighted && !(fmin(l0, l1) >= 1e-9 && fmax(l0, l1) <= 1e17)) return 0;
    double d, p[4], mid[4];
    for (int c = 0; c < 4; c++) q0[c] /= l0, q1[c] /= l1;
    double theta = arc_flush(arc_basis(q0, q1, p, &d));
    /* Equal keys: p = 0, whose form is 0; then K0 = K1 = R(q0) / 2, K2 =
     * 0 and every angle gives R(q0). */
    for (int c = 0; c < 4; c++) mid[c] = (q0[c] + p[c]) * sqrt(0.5);
    double r0[3][3], rp[3][3], rm[3][3];
    quat_form(q0, r0), quat_form(p, rp), quat_form(mid, rm);
    double ct = weighted ? 1.0 : cos(theta), st = weighted ? 0.0 : sin(theta);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double k0 = (r0[i][j] + rp[i][j]) / 2.0, k1 = (r0[i][j] - rp[i][j]) / 2.0, k2 = rm[i][j] - k0;
            k[0][i][j] = k0;
            k[1][i][j] = k1 * ct + k2 * st; /* cos y (weighted: cos 2psi) */
            k[2][i][j] = k2 * ct - k1 * st; /* sin y (weighted: sin 2psi) */
        }
    memset(head, 0, SKV_SOLO_HEAD * sizeof *head);
    if (!weighted) {
        head[0] = (float)(2.0 * theta), head[1] = -(float)theta; /* exactly twice the one: y = f * head[0] + head[1] */
        return 1;
    }
    /* The reference's slerp on the keys as they are: weights wa, wb for
     * their dot product (normalised lerp's, theta 0, past 0.9995), their
     * sum wa a + wb b = u q0 + v p: u = wa |a| + wb |b| cos theta, v = wb
     * |b| sin theta. */
    double raw = 0.0;
    for (int c = 0; c < 4; c++) raw += (double)ka[c] * kb[c];
    raw = raw < 0.0 ? 0.0 : raw > 1.0 ? 1.0 : raw;
    head[0] = raw > 0.9995 ? 0.0f : (float)acos(raw);
    head[1] = (float)l0, head[2] = (float)(l1 * cos(theta)), head[3] = (float)(l1 * sin(theta));
    return 1;
}

int kernels_solo_pair(const float *key, int weighted, const skv_walk_step *steps, int count, const mat4 *constants,
                      float *pair)
{
    const float *kb = key + SKV_EACH_KEY_FLOATS;
    double k[3][3][3];
    if (!arc_forms(key + 4, kb + 4, weighted, k, pair)) return 0;
    /* The local's six terms (1, f, cos y, sin y, f cos y, f sin y): the
     * rotation part's columns times S0 or dS, T0 and dT in column 3,
     * the bottom row 0 0 0 1 in the first. */
    double local[SKV_SOLO_TERMS][16] = {{0}};
    for (int t = 0; t < SKV_SOLO_TERMS; t++) {
        int form = t == 0 || t == 1 ? 0 : t == 2 || t == 4 ? 1 : 2, by_f = t == 1 || t >= 4;
        for (int c = 0; c < 3; c++) {
            double s = by_f ? (double)kb[8 + c] - key[8 + c] : key[8 + c];
            for (int r = 0; r < 3; r++) local[t][4 * c + r] = k[form][c][r] * s;
        }
    }
    for (int r = 0; r < 3; r++) local[0][12 + r] = key[r], local[1][12 + r] = (double)kb[r] - key[r];
    local[0][15] = 1.0;
    float *out = pair + SKV_SOLO_HEAD;
    for (int m = -1; m < count; m++) {
        const float *b = m < 0 ? NULL : (const float *)constants[~steps[m].b / (int32_t)sizeof(mat4)];
        for (int t = 0; t < SKV_SOLO_TERMS; t++, out += 16)
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) {
                    double v = local[t][4 * c + r];
                    if (b)
                        v = local[t][r] * b[4 * c] + local[t][4 + r] * b[4 * c + 1] + local[t][8 + r] * b[4 * c + 2] +
                            local[t][12 + r] * b[4 * c + 3];
                    out[4 * c + r] = (float)v;
                }
    }
    return 1;
}

/* One matrix of a prepared pair (its six at m) at factor f and the arc's
 * c, s, in plain C, summed as the SIMD kernels' solo_matrix sums them:
 * (m0 + f m1) + c (m2 + f m4) + s (m3 + f m5). */
static void solo_matrix_scalar(const float *m, float f, float c, float s, float *o)
{
    for (int e = 0; e < 16; e++) {
        float one = m[e] + f * m[16 + e], by_c = m[32 + e] + f * m[64 + e], by_s = m[48 + e] + f * m[80 + e];
        o[e] = (one + c * by_c) + s * by_s;
    }
}

static void solo_frame_any(const skv_solo *solo, int weighted, double seconds, double ticks_per_second,
                           double duration, int *cursor, float *work, float *palette, double *loops)
{
    double t = keys_ticks_from(seconds, ticks_per_second, duration, loops);
    float f, c, s;
    int i;
    if (!kernels_solo_step(solo, t, cursor, &i, &f))
        i = solo->key_rate > 0.0 ? kernels_solo_seek(solo, t, cursor, &f) : solo->key_at(solo, t, cursor, &f);
    const float *m = solo->terms + (size_t)i * solo->pair_floats;
    kernels_solo_arc(m, weighted, f, &c, &s);
    m += SKV_SOLO_HEAD;
    for (const skv_walk_step *step = solo->steps; step < solo->steps_end; step++)
        solo_matrix_scalar(m += SKV_SOLO_TERMS * 16, f, c, s, (float *)((char *)palette + step->out));
    kernels_solo_stash((float *)((char *)work + solo->out), i, f);
}

static void solo_frame_scalar(const skv_solo *solo, double seconds, double ticks_per_second, double duration,
                              int *cursor, float *work, float *palette, double *loops)
{
    solo_frame_any(solo, 0, seconds, ticks_per_second, duration, cursor, work, palette, loops);
}

static void solo_frame_weighted_scalar(const skv_solo *solo, double seconds, double ticks_per_second,
                                       double duration, int *cursor, float *work, float *palette, double *loops)
{
    solo_frame_any(solo, 1, seconds, ticks_per_second, duration, cursor, work, palette, loops);
}

void kernels_solo_local(const skv_solo *solo, float *work)
{
    float *local = (float *)((char *)work + solo->out), c, s;
    if (local[15] != 0.0f) return; /* formed */
    int i;
    memcpy(&i, local, sizeof i);
    const float *m = solo->terms + (size_t)i * solo->pair_floats;
    kernels_solo_arc(m, solo->weighted, local[1], &c, &s);
    solo_matrix_scalar(m + SKV_SOLO_HEAD, local[1], c, s, local);
}

/* kernels_arc_pair for one lane: its keys' components at a[c *
 * SKV_LANE_BLOCK] and b[...], its arc's at p[c * SKV_LANE_BLOCK]. */
static int lane_arc(const float *a, const float *b, float *p)
{
#define KEY(k, c) (double)(k)[(size_t)(c) * SKV_LANE_BLOCK]
#define SET(c, v) (p[(size_t)(c) * SKV_LANE_BLOCK] = (float)(v))
    double q0[4], q1[4], l0 = 0.0, l1 = 0.0, d;
    for (int c = 0; c < 4; c++) q0[c] = KEY(a, 3 + c), q1[c] = KEY(b, 3 + c), l0 += q0[c] * q0[c], l1 += q1[c] * q1[c];
    l0 = sqrt(l0), l1 = sqrt(l1);
    /* Unit to KERNELS_UNIT_KEY (kernels.h). NaN fails too. */
    if (!(fabs(l0 - 1.0) <= KERNELS_UNIT_KEY && fabs(l1 - 1.0) <= KERNELS_UNIT_KEY)) return 0;
    for (int c = 0; c < 4; c++) q0[c] /= l0, q1[c] /= l1;
    double u[4], theta = arc_basis(q0, q1, u, &d); /* equal keys: theta 0, u 0, n unused */
    if (!(d >= -1e-7)) return 0;
    double ch = cos(theta / 2.0), sh = sin(theta / 2.0);
    for (int c = 0; c < 4; c++)
        SET(SKV_ARC_M + c, arc_flush(ch * q0[c] + sh * u[c])), SET(SKV_ARC_N + c, arc_flush(ch * u[c] - sh * q0[c]));
    for (int c = 0; c < 3; c++) {
        SET(SKV_ARC_T0 + c, KEY(a, c)), SET(SKV_ARC_DT + c, KEY(b, c) - KEY(a, c));
        SET(SKV_ARC_S0 + c, KEY(a, 7 + c)), SET(SKV_ARC_DS + c, KEY(b, 7 + c) - KEY(a, 7 + c));
    }
    SET(SKV_ARC_THETA, arc_flush(theta));
#undef KEY
#undef SET
    return 1;
}

int kernels_arc_pair(const float *a, const float *b, int blocks, float *arc)
{
    for (int l = 0; l < blocks * SKV_LANE_BLOCK; l++) {
        size_t key = kernels_lane_at(l, SKV_KEY_FLOATS(1));
        if (!lane_arc(a + key, b + key, arc + kernels_lane_at(l, SKV_ARC_FLOATS(1)))) return 0;
    }
    return 1;
}

void kernels_arc_compact(const float *arc, int blocks, const int *t_lane, int t_count, float *pair, float *fixed)
{
    for (int l = 0; l < blocks * SKV_LANE_BLOCK; l++) {
        const float *p = arc + kernels_lane_at(l, SKV_ARC_FLOATS(1));
        float *q = pair + kernels_lane_at(l, SKV_CARC_FLOATS(1));
        for (int c = 0; c < 4; c++) {
            q[(SKV_CARC_M + c) * SKV_LANE_BLOCK] = p[(SKV_ARC_M + c) * SKV_LANE_BLOCK];
            q[(SKV_CARC_N + c) * SKV_LANE_BLOCK] = p[(SKV_ARC_N + c) * SKV_LANE_BLOCK];
        }
        q[SKV_CARC_THETA * SKV_LANE_BLOCK] = p[SKV_ARC_THETA * SKV_LANE_BLOCK];
        if (!fixed) continue;
        /* T0 + f dT for dT = 0, without its f: T0, but +0 for -0 (f 0 is
         * +0, and -0 + +0 is +0); S likewise. */
        float *x = fixed + kernels_lane_at(l, SKV_CARC_FIXED_FLOATS(1));
        for (int c = 0; c < 3; c++) {
            float t = p[(SKV_ARC_T0 + c) * SKV_LANE_BLOCK], s = p[(SKV_ARC_S0 + c) * SKV_LANE_BLOCK];
            x[c * SKV_LANE_BLOCK] = t == 0.0f ? 0.0f : t;
            x[(3 + c) * SKV_LANE_BLOCK] = s == 0.0f ? 0.0f : s;
            x[(6 + c) * SKV_LANE_BLOCK] = x[(3 + c) * SKV_LANE_BLOCK] * 2.0f;
        }
    }
    float *moving = pair + SKV_CARC_FLOATS(blocks);
    for (int j = 0; j < t_count; j++, moving += SKV_CARC_T_FLOATS) {
        const float *p = arc + kernels_lane_at(t_lane[j], SKV_ARC_FLOATS(1));
        for (int c = 0; c < 3; c++) {
            moving[c] = p[(SKV_ARC_T0 + c) * SKV_LANE_BLOCK];
            moving[4 + c] = p[(SKV_ARC_DT + c) * SKV_LANE_BLOCK];
        }
        moving[3] = 1.0f, moving[7] = 0.0f;
    }
}

/* Plain C has no non-temporal store: ordinary ones, ordered by a fence. */
static void fence_scalar(void)
{
    atomic_thread_fence(memory_order_release);
}

/* Plain C: the general product serves affine operands too (exact for them). */
const skv_kernels skv_kernels_scalar = {"scalar", 1, run_scalar, run_scalar, run_scalar, run_scalar, run_rows_scalar, rows_palette_scalar, fence_scalar, sample_scalar,
                                        sample_arc_scalar, sample_each_scalar, sample_solo_scalar, solo_palette_scalar,
                                        vector_palette_scalar, vector_palette_scalar, solo_frame_scalar, solo_frame_weighted_scalar,
                                        sample_compact_scalar, sample_arc_compact_scalar, 0};

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
