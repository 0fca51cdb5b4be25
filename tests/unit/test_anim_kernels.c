/* test_anim_kernels.c - the per-frame kernels (kernels.c, kernels_x86.c)
 * on every instruction set this CPU has: the products against cglm's,
 * the lanes' and the one-channel frames' slerp against double precision,
 * the prepared arcs, and the vector registers' upper halves left clean. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"

/* Slerp in double precision from float unit keys, a . b >= 0. */
static void slerp_double(const float a[4], const float b[4], double f, double out[4])
{
    double d = 0.0;
    for (int k = 0; k < 4; k++) d += (double)a[k] * b[k];
    double theta = acos(d > 1.0 ? 1.0 : d), wa = 1.0 - f, wb = f;
    if (theta > 1e-9) wa = sin((1.0 - f) * theta) / sin(theta), wb = sin(f * theta) / sin(theta);
    double len = 0.0;
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k], len += out[k] * out[k];
    for (int k = 0; k < 4; k++) out[k] /= sqrt(len);
}

/* The rotation matrix of unit quaternion q (x, y, z, w), column-major. */
static void rotation_double(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)},
                      {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)},
                      {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(m, r, sizeof r);
}

/* kernels.h's solo_frame needs the walk's search where playback's step
 * does not find the pair: a test's clip of two keys at 0 and 1. */
static int two_keys_at(const skv_solo *solo, double ticks, int *cursor, float *f)
{
    (void)solo;
    *f = ticks <= 0.0 ? 0.0f : ticks >= 1.0 ? 1.0f : (float)ticks;
    *cursor = 0;
    return 0;
}

/* One lane's keys qa, qb (T 0, S 1) prepared as a one-channel walk's
 * pair (kernels_solo_pair, `weighted` or not) with one palette entry
 * under an identity offset, posed by the kernel's solo_frame (or
 * solo_frame_weighted) at factor f (ticks = seconds = f on keys at 0 and
 * 1): the entry the kernel writes, and the local it leaves unformed as
 * kernels_solo_local forms it. */
static void solo_frame_local(const skv_kernels *kn, int weighted, const float qa[4], const float qb[4], float f,
                             mat4 entry, mat4 local)
{
    _Alignas(16) float rows[2 * SKV_EACH_KEY_FLOATS] = {0};
    for (int c = 0; c < 4; c++) rows[4 + c] = qa[c], rows[SKV_EACH_KEY_FLOATS + 4 + c] = qb[c];
    for (int c = 0; c < 3; c++) rows[8 + c] = rows[SKV_EACH_KEY_FLOATS + 8 + c] = 1.0f;
    _Alignas(64) mat4 identity = GLM_MAT4_IDENTITY_INIT, work, palette;
    const skv_walk_step step = {0, ~0, 0};
    _Alignas(64) float pair[SKV_SOLO_PAIR_FLOATS(1)];
    CHECK(kernels_solo_pair(rows, weighted, &step, 1, &identity, pair));
    static const double times[2] = {0.0, 1.0}, inv_span[2] = {1.0, 0.0};
    skv_solo solo = {.times = times, .inv_span = inv_span, .key_count = 2, .out = 0, .terms = pair,
                     .pair_floats = SKV_SOLO_PAIR_FLOATS(1), .steps = &step, .steps_end = &step + 1,
                     .weighted = weighted, .key_at = two_keys_at};
    int cursor = 0;
    double loops = 0.0;
    (weighted ? kn->solo_frame_weighted : kn->solo_frame)(&solo, f, 1.0, 2.0, &cursor, (float *)work,
                                                          (float *)palette, &loops);
    CHECK(work[3][3] == 0.0f); /* left unformed */
    kernels_solo_local(&solo, (float *)work);
    glm_mat4_copy(palette, entry);
    glm_mat4_copy(work, local);
}

/* The time groups' sampler of every kernel (kernels.h) against slerp in
 * double precision over the whole arc (keys 0 to 180 degrees apart as
 * rotations, factors across [0, 1]), T = 0 and S = 1 so the locals are
 * the rotations' matrices: every entry within 1e-6, each lane on the
 * vectorised arc (no lane is left to a scalar redo). The one-channel
 * kernels too: sample_solo, and solo_frame from prepared pairs. */
static void test_slerp_lanes_exact(void)
{
    enum { LANES = SKV_LANE_BLOCK };
    int ran = 0;
    for (int kernel = SKV_WALK_PORTABLE; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        const skv_kernels *kn = kernels_get((skv_walk_kernel)kernel);
        if (!kn) continue;
        unsigned seed = 23;
        double worst = 0.0, worst_angle = 0.0, worst_solo = 0.0, worst_terms = 0.0, worst_weighted = 0.0;
        double worst_lengths = 0.0; /* the lanes on keys of other lengths */
        unsigned lengths = 7; /* the weighted pairs' key lengths */
        int pairs = 0;
        for (int step = 0; step <= 1000; step++) {
            _Alignas(64) float a[SKV_KEY_FLOATS(1)] = {0}, b[SKV_KEY_FLOATS(1)] = {0};
            _Alignas(64) mat4 out[LANES];
            int32_t offsets[LANES];
            float qa[LANES][4], qb[LANES][4];
            for (int j = 0; j < LANES; j++) {
                /* Rotation angles between the keys from 0 to pi: small
                 * ones densely (the short polynomial), then the rest. */
                double apart = step < 250 ? 1e-3 * step * (j + 1) / LANES : M_PI * (step - 250) / 750.0 * (j + 1) / LANES;
                float axis[3] = {frand(&seed), frand(&seed), frand(&seed)};
                float turn[3] = {frand(&seed), frand(&seed), frand(&seed)};
                float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]) + 1e-6f;
                float tlen = sqrtf(turn[0] * turn[0] + turn[1] * turn[1] + turn[2] * turn[2]) + 1e-6f;
                axis_angle(axis[0] / len, axis[1] / len, axis[2] / len, 3.0 * frand(&seed), qa[j]);
                float delta[4];
                axis_angle(turn[0] / tlen, turn[1] / tlen, turn[2] / tlen, apart, delta);
                versor q;
                glm_quat_mul(qa[j], delta, q);
                glm_quat_normalize(q);
                memcpy(qb[j], q, sizeof q);
                float dot = qa[j][0] * qb[j][0] + qa[j][1] * qb[j][1] + qa[j][2] * qb[j][2] + qa[j][3] * qb[j][3];
                if (dot < 0.0f) /* one hemisphere, as walk_compile.c prepares keys */
                    for (int k = 0; k < 4; k++) qb[j][k] = -qb[j][k];
                for (int c = 0; c < 4; c++) a[(3 + c) * LANES + j] = qa[j][c], b[(3 + c) * LANES + j] = qb[j][c];
                for (int c = 0; c < 3; c++) a[(7 + c) * LANES + j] = b[(7 + c) * LANES + j] = 1.0f;
                offsets[j] = (int32_t)(j * sizeof(mat4));
            }
            for (int fi = 0; fi <= 16; fi++) {
                float f = fi / 16.0f;
                if (fi == 5) f = 1e-3f;
                if (fi == 11) f = 1.0f - 1e-3f;
                kn->sample(a, b, f, offsets, LANES, (float *)out);
                /* Keys of lengths 0.8 to 1.2 (files store some), one
                 * hemisphere by the dot product as the reference forms
                 * it (the walk turns keys so; near 90 degrees apart,
                 * scaled keys can change its sign): the lanes and the
                 * weighted pairs below. */
                float ka[LANES][4], kb[LANES][4];
                _Alignas(64) float wa[SKV_KEY_FLOATS(1)], wb[SKV_KEY_FLOATS(1)];
                _Alignas(64) mat4 out_lengths[LANES];
                memcpy(wa, a, sizeof wa), memcpy(wb, b, sizeof wb);
                for (int j = 0; j < LANES; j++) {
                    float sa = 1.0f + 0.2f * frand(&lengths), sb = 1.0f + 0.2f * frand(&lengths);
                    for (int k = 0; k < 4; k++) ka[j][k] = sa * qa[j][k], kb[j][k] = sb * qb[j][k];
                    if (ka[j][0] * kb[j][0] + ka[j][1] * kb[j][1] + ka[j][2] * kb[j][2] + ka[j][3] * kb[j][3] < 0.0f)
                        for (int k = 0; k < 4; k++) kb[j][k] = -kb[j][k];
                    for (int c = 0; c < 4; c++) wa[(3 + c) * LANES + j] = ka[j][c], wb[(3 + c) * LANES + j] = kb[j][c];
                }
                kn->sample(wa, wb, f, offsets, LANES, (float *)out_lengths);
                /* The one-channel sampler on the same keys, lane by lane
                 * (sample_each's rows: T 0, R, S 0), into the same
                 * locals the check below reads. */
                _Alignas(16) mat4 solo[LANES];
                for (int j = 0; j < LANES; j++) {
                    _Alignas(16) float rows[2 * SKV_EACH_KEY_FLOATS] = {0};
                    for (int c = 0; c < 4; c++) rows[4 + c] = qa[j][c], rows[SKV_EACH_KEY_FLOATS + 4 + c] = qb[j][c];
                    for (int c = 0; c < 3; c++) rows[8 + c] = rows[SKV_EACH_KEY_FLOATS + 8 + c] = 1.0f;
                    kn->sample_solo(rows, f, offsets[j], (float *)solo);
                    for (int c = 0; c < 4; c++)
                        for (int r = 0; r < 4; r++) worst_solo = fmax(worst_solo, fabs(solo[j][c][r] - out[j][c][r]));
                }
                if (fi % 2) memcpy(out, solo, sizeof solo); /* every other factor checks the solo's own locals */
                for (int j = 0; j < LANES; j++) {
                    double e[4];
                    slerp_double(qa[j], qb[j], f, e);
                    /* Prepared pairs want keys of unit length (qa's axis
                     * is not quite): against their own double slerp. */
                    float qu[4];
                    double eu[4], lu = 0.0;
                    for (int k = 0; k < 4; k++) lu += (double)qa[j][k] * qa[j][k];
                    for (int k = 0; k < 4; k++) qu[k] = (float)(qa[j][k] / sqrt(lu));
                    slerp_double(qu, qb[j], f, eu);
                    mat4 terms, terms_local;
                    solo_frame_local(kn, 0, qu, qb[j], f, terms, terms_local);
                    /* Weighted pairs: the keys of other lengths. */
                    float rq[4];
                    keys_slerp(ka[j], kb[j], f, rq);
                    mat4 weighted, weighted_local;
                    solo_frame_local(kn, 1, ka[j], kb[j], f, weighted, weighted_local);
                    /* The lanes follow the arc of acos(a . b) as it is
                     * (the reference lerps above 0.9995, which for keys
                     * of other lengths is up to 1.3e-5 away): against
                     * that arc in double precision. */
                    double el[4], ml[3][3], mr[3][3], rqd[4] = {rq[0], rq[1], rq[2], rq[3]};
                    slerp_double(ka[j], kb[j], f, el);
                    rotation_double(el, ml);
                    rotation_double(rqd, mr);
                    for (int c = 0; c < 3; c++)
                        for (int r = 0; r < 3; r++)
                            worst_weighted = fmax(worst_weighted, fmax(fabs(weighted[c][r] - mr[c][r]),
                                                                       fabs(weighted_local[c][r] - mr[c][r]))),
                            worst_lengths = fmax(worst_lengths, fabs(out_lengths[j][c][r] - ml[c][r]));
                    double mu[3][3], m[3][3];
                    rotation_double(eu, mu);
                    rotation_double(e, m);
                    for (int c = 0; c < 3; c++)
                        for (int r = 0; r < 3; r++) {
                            double err = fabs(out[j][c][r] - m[c][r]);
                            if (err > worst) worst = err, worst_angle = quat_angle(qa[j], qb[j]);
                            worst_terms = fmax(worst_terms, fabs(terms[c][r] - mu[c][r]));
                            worst_terms = fmax(worst_terms, fabs(terms_local[c][r] - mu[c][r]));
                        }
                    for (int k = 0; k < 4; k++) /* T 0 and the bottom row 0 0 0 1, exactly */
                        worst_terms = fmax(worst_terms, fabs(terms[3][k] - (k == 3)) + fabs(terms[k][3] - (k == 3)) +
                                                            fabs(terms_local[3][k] - (k == 3)) +
                                                            fabs(terms_local[k][3] - (k == 3)));
                    pairs++;
                }
            }
        }
        printf("sampler %s vs double slerp: max rotation matrix error %.2g (keys %.3g rad apart) over %d slerps "
               "(lanes and one-channel alternately); one-channel vs lanes %.2g; prepared pairs (solo_frame) %.2g; "
               "keys of other lengths: weighted pairs vs the reference's slerp %.2g, lanes vs double slerp %.2g\n",
               kn->name, worst, worst_angle, pairs, worst_solo, worst_terms, worst_weighted, worst_lengths);
        CHECK(worst < 1e-6);
        CHECK(worst_terms < 1e-6);
        CHECK(worst_weighted < 1e-6);
        CHECK(worst_lengths < 1e-6);
        CHECK(worst_solo < 2e-6); /* each within 1e-6 of the double slerp */
        ran++;
    }
    CHECK(ran >= 2);
}

/* kernels.h's sample_arc on pairs prepared by kernels_arc_pair, every
 * kernel, every lane count 1-32 (the narrower samplers' tails, two
 * blocks): against slerp, T and S lerps in double precision, and against
 * the lanes' sampler on the same keys. Keys of other lengths, not finite
 * or in two hemispheres are not prepared. */
static void test_sample_arc(void)
{
    enum { BLOCKS = 2, LANES = BLOCKS * SKV_LANE_BLOCK };
    int ran = 0;
    for (int kernel = SKV_WALK_PORTABLE; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        const skv_kernels *kn = kernels_get((skv_walk_kernel)kernel);
        if (!kn) continue;
        unsigned seed = 41;
        double worst = 0.0, worst_lanes = 0.0, worst_angle = 0.0;
        int locals = 0, lane_count_differs = 0;
        for (int step = 0; step <= 120; step++) {
            _Alignas(64) float a[SKV_KEY_FLOATS(BLOCKS)], b[SKV_KEY_FLOATS(BLOCKS)], arc[SKV_ARC_FLOATS(BLOCKS)];
            float qa[LANES][4], qb[LANES][4], ta[LANES][3], tb[LANES][3], sa[LANES][3], sb[LANES][3];
            int32_t offsets[LANES];
            for (int j = 0; j < LANES; j++) {
                /* 0 to pi apart (pi/2 after the turn below): small ones first. */
                double apart = step < 30 ? 1e-4 * step * (j + 1) / LANES : M_PI * (step - 30) / 90.0 * (j + 1) / LANES;
                float axis[3] = {frand(&seed), frand(&seed), frand(&seed)}, turn[3] = {frand(&seed), frand(&seed), frand(&seed)};
                float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]) + 1e-6f;
                float tlen = sqrtf(turn[0] * turn[0] + turn[1] * turn[1] + turn[2] * turn[2]) + 1e-6f;
                versor q0, delta, q1;
                axis_angle(axis[0] / len, axis[1] / len, axis[2] / len, 3.0 * frand(&seed), q0);
                axis_angle(turn[0] / tlen, turn[1] / tlen, turn[2] / tlen, apart, delta);
                glm_quat_normalize(q0);
                glm_quat_mul(q0, delta, q1);
                glm_quat_normalize(q1);
                if (step % 10 == 5) { /* about one axis: entries exactly 0, of either sign */
                    float a0 = 3.0f * frand(&seed), a1 = a0 + 0.5f * frand(&seed);
                    glm_vec4_zero(q0), glm_vec4_zero(q1);
                    q0[j % 3] = sinf(a0 / 2.0f), q0[3] = cosf(a0 / 2.0f);
                    q1[j % 3] = sinf(a1 / 2.0f), q1[3] = cosf(a1 / 2.0f);
                }
                if (glm_vec4_dot(q0, q1) < 0.0f) glm_vec4_negate(q1); /* one hemisphere, as walk_compile.c turns keys */
                size_t at = kernels_lane_at(j, SKV_KEY_FLOATS(1));
                for (int c = 0; c < 4; c++) {
                    qa[j][c] = q0[c], qb[j][c] = q1[c];
                    a[at + (size_t)(3 + c) * SKV_LANE_BLOCK] = q0[c], b[at + (size_t)(3 + c) * SKV_LANE_BLOCK] = q1[c];
                }
                for (int c = 0; c < 3; c++) {
                    ta[j][c] = 2.0f * frand(&seed), tb[j][c] = 2.0f * frand(&seed);
                    sa[j][c] = 1.0f + 0.5f * frand(&seed), sb[j][c] = 1.0f + 0.5f * frand(&seed);
                    if (step % 10 == 5) sa[j][c] = sb[j][c] = (j + c) % 3 == 0 ? -1.0f : 1.0f;
                    a[at + (size_t)c * SKV_LANE_BLOCK] = ta[j][c], b[at + (size_t)c * SKV_LANE_BLOCK] = tb[j][c];
                    a[at + (size_t)(7 + c) * SKV_LANE_BLOCK] = sa[j][c], b[at + (size_t)(7 + c) * SKV_LANE_BLOCK] = sb[j][c];
                }
                offsets[j] = (int32_t)(j * sizeof(mat4));
            }
            CHECK(kernels_arc_pair(a, b, BLOCKS, arc));
            for (int fi = 0; fi <= 10; fi++) {
                float f = fi == 9 ? 1e-3f : fi == 10 ? 1.0f - 1e-3f : fi / 8.0f;
                int count = 1 + (step + fi) % LANES; /* every count 1-32 over the steps */
                _Alignas(64) mat4 out[LANES], lanes[LANES], all[LANES];
                kn->sample_arc(arc, f, offsets, count, (float *)out);
                kn->sample(a, b, f, offsets, count, (float *)lanes);
                /* A lane's local is the same bit for bit whatever lanes
                 * share its call: whole vectors, a narrower sampler's
                 * tail, a last lane alone (arc_lane). */
                kn->sample_arc(arc, f, offsets, LANES, (float *)all);
                if (memcmp(out, all, (size_t)count * sizeof(mat4)) != 0) lane_count_differs++;
                for (int j = 0; j < count; j++) {
                    double e[4], m[3][3];
                    slerp_double(qa[j], qb[j], f, e);
                    rotation_double(e, m);
                    for (int c = 0; c < 4; c++)
                        for (int r = 0; r < 4; r++) {
                            double want = c < 3 && r < 3 ? m[c][r] * ((double)sa[j][c] + f * ((double)sb[j][c] - sa[j][c]))
                                        : c == 3 && r < 3 ? (double)ta[j][r] + f * ((double)tb[j][r] - ta[j][r])
                                                          : (double)(c == 3 && r == 3);
                            double err = fabs(out[j][c][r] - want);
                            if (err > worst) worst = err, worst_angle = quat_angle(qa[j], qb[j]);
                            worst_lanes = fmax(worst_lanes, fabs(out[j][c][r] - lanes[j][c][r]));
                        }
                    locals++;
                }
            }
        }
        printf("sample_arc %s: %d locals, max error %.2g against double (keys %.3g rad apart), %.2g against the "
               "lanes' sampler; %d calls whose locals differ from the same lanes' in a 32-lane call\n",
               kn->name, locals, worst, worst_angle, worst_lanes, lane_count_differs);
        CHECK(lane_count_differs == 0);
        CHECK(worst < 1e-6);
        CHECK(worst_lanes < 2e-6);
        ran++;
    }
    CHECK(ran >= 2);
    /* Not prepared: a key 1.1 long, NaN, keys in two hemispheres, a key
     * 1 + 5e-7 long (over the 4e-7 kernels_arc_pair allows); 1 + 3e-7 is. */
    for (int bad = 0; bad < 5; bad++) {
        _Alignas(64) float a[SKV_KEY_FLOATS(1)] = {0}, b[SKV_KEY_FLOATS(1)] = {0}, arc[SKV_ARC_FLOATS(1)];
        for (int j = 0; j < SKV_LANE_BLOCK; j++)
            a[6 * SKV_LANE_BLOCK + j] = b[6 * SKV_LANE_BLOCK + j] = 1.0f; /* w = 1 */
        CHECK(kernels_arc_pair(a, b, 1, arc));
        b[6 * SKV_LANE_BLOCK + 5] = bad == 0 ? 1.1f : bad == 1 ? NAN : bad == 2 ? -0.6f : bad == 3 ? 1.0f + 5e-7f : 1.0f + 3e-7f;
        if (bad == 2) b[3 * SKV_LANE_BLOCK + 5] = 0.8f; /* x: unit, 127 degrees from a */
        CHECK(kernels_arc_pair(a, b, 1, arc) == (bad == 4));
    }
}

/* kernels.h's sample_arc_compact on pairs compacted by
 * kernels_arc_compact: every kernel, lane counts 5-44 (past 8, 16 and
 * 32: every width's vectors, narrower tails and lone last lanes), the
 * locals bit for bit those
 * sample_arc forms on the full pairs, and vector_wide's palette bit for
 * bit on both. T moves in no channel, the first, a middle one, the last
 * (whose padding lanes write its local again) or three; the fixed T and
 * S hold zeros of both signs (the arc's T0 + f 0 turns -0 into +0).
 * Padding lanes repeat the last channel, as the walk lays them out;
 * nothing past the channels' locals is written. */
static void test_sample_arc_compact(void)
{
    enum { BLOCKS = 3, LANES = BLOCKS * SKV_LANE_BLOCK, WORK = LANES + 4 };
    static _Alignas(64) float a[SKV_KEY_FLOATS(BLOCKS)], b[SKV_KEY_FLOATS(BLOCKS)], arc[SKV_ARC_FLOATS(BLOCKS)];
    static _Alignas(64) float carc[SKV_COMPACT_ARC_FLOATS(BLOCKS, 3)], fixed[SKV_CARC_FIXED_FLOATS(BLOCKS)];
    static _Alignas(64) mat4 full_out[WORK], compact_out[WORK], full_palette[LANES], compact_palette[LANES];
    int ran = 0;
    for (int kernel = SKV_WALK_PORTABLE; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        const skv_kernels *kn = kernels_get((skv_walk_kernel)kernel);
        if (!kn) continue;
        int calls = 0, differ = 0, wide_differ = 0, written_past = 0;
        for (int n = 5; n <= 44; n++)
            for (int use = 0; use < 5; use++) {
                int t_lane[3], t_count = use == 0 ? 0 : use == 4 ? 3 : 1;
                if (use == 1 || use == 4) t_lane[0] = 0;
                if (use == 2) t_lane[0] = n / 2;
                if (use == 3) t_lane[0] = n - 1;
                if (use == 4) t_lane[1] = n / 2, t_lane[2] = n - 1;
                for (int l = 0; l < LANES; l++) {
                    int ch = l < n ? l : n - 1; /* padding lanes: the last channel again */
                    unsigned lane_seed = 1000u * (unsigned)n + 10u * (unsigned)ch + (unsigned)use;
                    float axis[3] = {frand(&lane_seed), frand(&lane_seed), frand(&lane_seed) + 1.5f};
                    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
                    versor q0, q1;
                    double turn = 2.0 * frand(&lane_seed);
                    axis_angle(axis[0] / len, axis[1] / len, axis[2] / len, turn, q0);
                    axis_angle(axis[0] / len, axis[1] / len, axis[2] / len, turn + 1.2 * frand(&lane_seed), q1);
                    int moves = 0;
                    for (int j = 0; j < t_count; j++) moves |= t_lane[j] == ch;
                    size_t at = kernels_lane_at(l, SKV_KEY_FLOATS(1));
                    for (int c = 0; c < 4; c++)
                        a[at + (size_t)(3 + c) * SKV_LANE_BLOCK] = q0[c], b[at + (size_t)(3 + c) * SKV_LANE_BLOCK] = q1[c];
                    for (int c = 0; c < 3; c++) {
                        float t = (ch + c) % 4 == 0 ? -0.0f : (ch + c) % 4 == 1 ? 0.0f : frand(&lane_seed);
                        float sv = (ch + c) % 5 == 0 ? -0.0f : 1.0f + 0.3f * frand(&lane_seed);
                        a[at + (size_t)c * SKV_LANE_BLOCK] = t;
                        b[at + (size_t)c * SKV_LANE_BLOCK] = moves ? t + 0.7f * frand(&lane_seed) + 0.1f : t;
                        a[at + (size_t)(7 + c) * SKV_LANE_BLOCK] = b[at + (size_t)(7 + c) * SKV_LANE_BLOCK] = sv;
                    }
                }
                CHECK(kernels_arc_pair(a, b, BLOCKS, arc));
                kernels_arc_compact(arc, BLOCKS, t_lane, t_count, carc, fixed);
                int32_t out[LANES], t_out[3];
                for (int l = 0; l < LANES; l++) out[l] = (int32_t)((l < n ? l : n - 1) * sizeof(mat4));
                for (int j = 0; j < t_count; j++) t_out[j] = out[t_lane[j]];
                skv_compact c = {.fixed = fixed, .t_out = t_out, .stride = LANES, .t_count = t_count,
                                 .t_at = (int)SKV_CARC_FLOATS(BLOCKS)};
                float f = (float)((n * 5 + use) % 11) / 10.0f;
                for (int i = 0; i < WORK; i++)
                    for (int k = 0; k < 16; k++) full_out[i][k / 4][k % 4] = compact_out[i][k / 4][k % 4] = 42.0f;
                kn->sample_arc(arc, f, out, n, (float *)full_out);
                kn->sample_arc_compact(carc, f, out, n, (float *)compact_out, &c);
                differ += memcmp(full_out, compact_out, (size_t)n * sizeof(mat4)) != 0;
                for (int i = n; i < WORK; i++)
                    for (int k = 0; k < 16; k++) written_past += compact_out[i][k / 4][k % 4] != 42.0f;
                /* vector_wide (the one-group frame) on both, palette entry
                 * l the local of channel l times an offset. */
                static _Alignas(64) mat4 constants[1];
                glm_mat4_identity(constants[0]);
                constants[0][3][0] = 0.25f, constants[0][3][1] = -0.5f;
                skv_walk_step steps[LANES];
                for (int l = 0; l < n; l++) steps[l] = (skv_walk_step){out[l], 0, (int32_t)(l * sizeof(mat4))};
                skv_walk_lists lists = {.palette = steps, .constants = (const mat4 *)constants, .palette_count = n,
                                        .lanes = n, .arc = 1};
                kn->vector_wide(arc, NULL, f, out, (float *)full_out, &lists, (float *)full_palette);
                lists.arc = 2, lists.compact = &c;
                kn->vector_wide(carc, NULL, f, out, (float *)compact_out, &lists, (float *)compact_palette);
                wide_differ += memcmp(full_palette, compact_palette, (size_t)n * sizeof(mat4)) != 0;
                calls++;
            }
        printf("sample_arc_compact %s: %d calls, %d whose locals differ from sample_arc's, %d vector_wide palettes "
               "that differ, %d floats written past the locals\n",
               kn->name, calls, differ, wide_differ, written_past);
        CHECK(calls == 200 && differ == 0 && wide_differ == 0 && written_past == 0);
        ran++;
    }
    CHECK(ran >= 2);
}

/* Every product kernel this CPU has, against cglm's matrix product, on
 * general (not affine) matrices, operands from the work block and from
 * the constants. */
static void test_walk_kernels(void)
{
    enum { WORK = 6, CONSTANTS = 3 };
    unsigned seed = 21;
    _Alignas(64) mat4 work[WORK], constants[CONSTANTS], expect[WORK];
    for (int m = 0; m < WORK; m++)
        for (int k = 0; k < 16; k++) work[m][k / 4][k % 4] = frand(&seed);
    for (int m = 0; m < CONSTANTS; m++)
        for (int k = 0; k < 16; k++) constants[m][k / 4][k % 4] = 2.0f * frand(&seed);
    /* out 3 = work 0 * work 1; out 4 = constant 2 * work 3 (the step
     * before's result); out 5 = work 4 * constant 1. */
    skv_walk_step steps[3] = {{0, 64, 3 * 64}, {~(2 * 64), 3 * 64, 4 * 64}, {4 * 64, ~(1 * 64), 5 * 64}};
    glm_mat4_mul(work[0], work[1], expect[3]);
    glm_mat4_mul(constants[2], expect[3], expect[4]);
    glm_mat4_mul(expect[4], constants[1], expect[5]);
    const char *names[] = {"auto", "portable", "avx2", "avx512", "scalar"};
    int ran = 0;
    for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        _Alignas(64) mat4 out[WORK];
        memcpy(out, work, sizeof work);
        const skv_kernels *kn = kernels_get((skv_walk_kernel)kernel);
        if (!kn) {
            printf("walk kernel %s: not on this CPU\n", names[kernel]);
            continue;
        }
        kn->run(steps, 3, (float *)out, constants, (float *)out);
        /* The crowd's rows: the same products' top three rows, 48 bytes
         * each at step.out / 64 * 48. */
        _Alignas(64) float rows[WORK * SKV_ROWS_FLOATS];
        memset(rows, 0, sizeof rows);
        kn->run_rows(steps, 3, (float *)out, constants, rows);
        kn->fence();
        double worst_rows = 0.0;
        for (int m = 3; m < WORK; m++)
            for (int k = 0; k < 12; k++)
                worst_rows = fmax(worst_rows, fabs(rows[m * SKV_ROWS_FLOATS + k] - out[m][k % 4][k / 4]));
        CHECK(worst_rows < 1e-5);
        double worst = 0.0;
        for (int m = 3; m < WORK; m++)
            for (int k = 0; k < 16; k++) worst = fmax(worst, fabs(out[m][k / 4][k % 4] - expect[m][k / 4][k % 4]));
        /* run_affine: general a, b with an exact 0 0 0 1 bottom row (work
         * 1 and 2, constant 1, copies made affine); a = work 3 is the
         * step before's result. */
        _Alignas(64) mat4 aw[WORK], ac[CONSTANTS], ae[WORK];
        memcpy(aw, work, sizeof work);
        memcpy(ac, constants, sizeof constants);
        float *affine_b[3] = {(float *)aw[1], (float *)aw[2], (float *)ac[1]};
        for (int m = 0; m < 3; m++) affine_b[m][3] = affine_b[m][7] = affine_b[m][11] = 0.0f, affine_b[m][15] = 1.0f;
        skv_walk_step affine_steps[3] = {{0, 64, 3 * 64}, {~(2 * 64), ~(1 * 64), 4 * 64}, {3 * 64, 2 * 64, 5 * 64}};
        glm_mat4_mul(aw[0], aw[1], ae[3]);
        glm_mat4_mul(ac[2], ac[1], ae[4]);
        glm_mat4_mul(ae[3], aw[2], ae[5]);
        kn->run_affine(affine_steps, 3, (float *)aw, ac, (float *)aw);
        double worst_affine = 0.0;
        for (int m = 3; m < WORK; m++)
            for (int k = 0; k < 16; k++) worst_affine = fmax(worst_affine, fabs(aw[m][k / 4][k % 4] - ae[m][k / 4][k % 4]));
        /* run_palette: a palette's steps, a always in work, b always an
         * (affine) constant; the second step reads the first's result. */
        memcpy(aw, work, sizeof work);
        skv_walk_step palette_steps[2] = {{0, ~(1 * 64), 3 * 64}, {3 * 64, ~(1 * 64), 4 * 64}};
        glm_mat4_mul(aw[0], ac[1], ae[3]);
        glm_mat4_mul(ae[3], ac[1], ae[4]);
        kn->run_palette(palette_steps, 2, (float *)aw, ac, (float *)aw);
        for (int m = 3; m < 5; m++)
            for (int k = 0; k < 16; k++) worst_affine = fmax(worst_affine, fabs(aw[m][k / 4][k % 4] - ae[m][k / 4][k % 4]));
        /* rows_palette: the same palette steps prepared as a walk does
         * (b's top rows row-major, out among 48-byte rows; the second
         * pair a last odd one, its step twice) give run_rows' rows bit for
         * bit, b's bottom row 0 0 0 1 being known. */
        _Alignas(64) skv_rows_pair prepared[2];
        _Alignas(64) float rows_run[5 * SKV_ROWS_FLOATS], rows_prepared[5 * SKV_ROWS_FLOATS];
        memset(prepared, 0, sizeof prepared);
        memset(rows_run, 0, sizeof rows_run);
        memset(rows_prepared, 0xff, sizeof rows_prepared);
        for (int k = 0; k < 4; k++) {
            const skv_walk_step *step = &palette_steps[k < 2 ? k : 1];
            for (int j = 0; j < SKV_ROWS_FLOATS; j++) prepared[k / 2].b[j / 4][4 * (k % 2) + j % 4] = ac[1][j % 4][j / 4];
            prepared[k / 2].a[k % 2] = step->a;
            prepared[k / 2].out[k % 2] = step->out / 64 * (int32_t)(SKV_ROWS_FLOATS * sizeof(float));
        }
        kn->run_rows(palette_steps, 2, (float *)aw, ac, rows_run);
        kn->rows_palette(prepared, 2, (const float *)aw, rows_prepared);
        kn->fence();
        CHECK(memcmp(rows_run + 3 * SKV_ROWS_FLOATS, rows_prepared + 3 * SKV_ROWS_FLOATS,
                     2 * SKV_ROWS_FLOATS * sizeof(float)) == 0);
        for (int m = 3; m < 5; m++)
            for (int k = 0; k < 12; k++)
                worst_affine = fmax(worst_affine, fabs(rows_prepared[m * SKV_ROWS_FLOATS + k] - ae[m][k % 4][k / 4]));
        printf("walk kernel %s: max abs difference %.2g, affine b %.2g (run_affine, run_palette, rows_palette)\n", names[kernel],
               worst, worst_affine);
        CHECK(worst < 1e-5);
        CHECK(worst_affine < 1e-5);
        ran++;
    }
    CHECK(ran >= 3); /* auto, portable and scalar everywhere */
}

/* Every sampler and product kernel returns with the upper halves of the
 * vector registers clean: the walk's own code between kernel calls is
 * SSE2, and on the AMD EPYC machines here SSE2 code after a kernel that
 * left them dirty cost ~300 cycles more a call (the 8-lane sampler's
 * missing vzeroupper: its callee takes a 256-bit argument, so GCC thought
 * the state clean; a BCN crowd character took 1.7x as long). In every
 * build: GCC's own vzeroupper needs -fexpensive-optimizations, which a
 * Debug build lacked (CMakeLists.txt turns it on for kernels_x86.c). */
static void test_kernels_leave_upper_clean(void)
{
    if (vex_upper_dirty() < 0) {
        printf("kernels leave the upper halves clean: this CPU cannot say (no AVX or no XGETBV 1)\n");
        return;
    }
    enum { BLOCKS = 2, LANES = BLOCKS * SKV_LANE_BLOCK, WORK = 2 * LANES };
    static _Alignas(64) float keys[2][SKV_KEY_FLOATS(BLOCKS)], each[LANES][2 * SKV_EACH_KEY_FLOATS];
    static _Alignas(64) mat4 work[WORK];
    unsigned seed = 5;
    for (size_t i = 0; i < SKV_KEY_FLOATS(BLOCKS); i++) keys[0][i] = frand(&seed), keys[1][i] = frand(&seed);
    for (int l = 0; l < LANES; l++)
        for (int i = 0; i < 2 * SKV_EACH_KEY_FLOATS; i++) each[l][i] = frand(&seed);
    /* Prepared arcs (sample_arc) need unit keys in one hemisphere: both
     * keys' rotations the identity. */
    static _Alignas(64) float unit_keys[2][SKV_KEY_FLOATS(BLOCKS)], arcs[SKV_ARC_FLOATS(BLOCKS)];
    memcpy(unit_keys, keys, sizeof keys);
    for (int l = 0; l < LANES; l++) {
        size_t at = kernels_lane_at(l, SKV_KEY_FLOATS(1));
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 4; c++) unit_keys[k][at + (size_t)(3 + c) * SKV_LANE_BLOCK] = c == 3;
    }
    CHECK(kernels_arc_pair(unit_keys[0], unit_keys[1], BLOCKS, arcs));
    int32_t out[LANES];
    const float *each_keys[LANES];
    float f[LANES];
    for (int l = 0; l < LANES; l++) out[l] = (int32_t)(l * sizeof(mat4)), each_keys[l] = each[l], f[l] = 0.3f;
    skv_walk_step steps[2] = {{0, (int32_t)sizeof(mat4), 2 * (int32_t)sizeof(mat4)},
                              {2 * (int32_t)sizeof(mat4), (int32_t)sizeof(mat4), 3 * (int32_t)sizeof(mat4)}};
    _Alignas(64) skv_rows_pair pair;
    memset(&pair, 0, sizeof pair);
    pair.b[0][0] = pair.b[1][1] = pair.b[2][2] = 1.0f;
    _Alignas(64) float rows[4 * SKV_ROWS_FLOATS];
    /* The palette's steps (a in work, b the identity constant), the
     * lists vector_palette takes, and a one-channel walk's prepared pair
     * (as test_clip_ticks builds it) for solo_frame. */
    _Alignas(64) mat4 constants[1], palette[2];
    glm_mat4_identity(constants[0]);
    skv_walk_step palette_steps[2] = {{0, ~0, 0}, {(int32_t)sizeof(mat4), ~0, (int32_t)sizeof(mat4)}};
    /* The lists hold their constants' byte offsets, not complements
     * (kernels.h, skv_walk_lists): a helper's review found ~0 here made
     * the kernels read from one byte before `constants` (ASan). */
    skv_walk_step list_steps[2] = {{0, 0, 0}, {(int32_t)sizeof(mat4), 0, (int32_t)sizeof(mat4)}};
    skv_walk_lists lists = {.globals = steps, .palette = list_steps, .translations = list_steps + 1,
                            .constants = (const mat4 *)constants, .global_count = 2, .palette_count = 1,
                            .translation_count = 1, .lanes = 4};
    _Alignas(16) float solo_keys[2 * SKV_EACH_KEY_FLOATS];
    _Alignas(64) float solo_pair[SKV_SOLO_PAIR_FLOATS(0)];
    skv_solo solo;
    identity_solo(solo_keys, solo_pair, &solo);
    const char *names[] = {"auto", "portable", "avx2", "avx512", "scalar"};
    int checked = 0;
    for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        const skv_kernels *kn = kernels_get((skv_walk_kernel)kernel);
        if (!kn) continue;
        char dirty[512] = "";
        for (int n = 1; n <= LANES; n++) {
            for (int i = 0; i < WORK; i++) glm_mat4_identity(work[i]);
            kn->sample(keys[0], keys[1], 0.4f, out, n, (float *)work);
            if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " sample(%d)", n);
            kn->sample_arc(arcs, 0.4f, out, n, (float *)work);
            if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " sample_arc(%d)", n);
            if (n % 4 == 0) {
                kn->sample_each(each_keys, f, out, n, (float *)work);
                if (vex_upper_dirty())
                    snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " sample_each(%d)", n);
            }
        }
        kn->sample_solo(each[0], 0.6f, out[1], (float *)work);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " sample_solo");
        for (int i = 0; i < WORK; i++) glm_mat4_identity(work[i]);
        kn->run(steps, 2, (float *)work, NULL, (float *)work);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " run");
        kn->run_affine(steps, 2, (float *)work, NULL, (float *)work);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " run_affine");
        kn->run_rows(steps, 2, (float *)work, NULL, rows);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " run_rows");
        pair.a[0] = pair.a[1] = 0, pair.out[0] = 0, pair.out[1] = (int32_t)(SKV_ROWS_FLOATS * sizeof(float));
        kn->rows_palette(&pair, 1, (const float *)work, rows);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " rows_palette");
        /* The entries the walk calls last in a frame (run_chain, the
         * palette's products, the one-call frames) too. */
        for (int i = 0; i < WORK; i++) glm_mat4_identity(work[i]);
        kn->run_chain(steps, 2, (float *)work, NULL, (float *)work);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " run_chain");
        kn->run_palette(palette_steps, 2, (float *)work, constants, (float *)palette);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " run_palette");
        kn->solo_palette(each[0], 0.6f, out[1], (float *)work, palette_steps, 2, constants, (float *)palette);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " solo_palette");
        kn->vector_palette(keys[0], keys[1], 0.4f, out, (float *)work, &lists, (float *)palette);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " vector_palette");
        /* Compacted arcs (sample_arc_compact), rotations the identity, T
         * moving in the last channel. */
        static _Alignas(64) float compact_arcs[SKV_COMPACT_ARC_FLOATS(BLOCKS, 1)], fixed[SKV_CARC_FIXED_FLOATS(BLOCKS)];
        for (int n = 5; n <= LANES; n++) {
            int last = n - 1;
            int32_t t_out = out[last];
            kernels_arc_compact(arcs, BLOCKS, &last, 1, compact_arcs, fixed);
            skv_compact compact = {.fixed = fixed, .t_out = &t_out, .stride = LANES, .t_count = 1,
                                   .t_at = (int)SKV_CARC_FLOATS(BLOCKS)};
            kn->sample_arc_compact(compact_arcs, 0.4f, out, n, (float *)work, &compact);
            if (vex_upper_dirty())
                snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " sample_arc_compact(%d)", n);
            lists.arc = 2, lists.lanes = n, lists.compact = &compact;
            kn->vector_wide(compact_arcs, NULL, 0.4f, out, (float *)work, &lists, (float *)palette);
            if (vex_upper_dirty())
                snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " vector_wide(%d, compact arcs)", n);
            lists.compact = NULL;
        }
        for (int n = 5; n <= LANES; n++) /* every tail the wide samplers have */
            for (lists.arc = 0, lists.lanes = n; lists.arc < 2; lists.arc++) {
                kn->vector_wide(lists.arc ? arcs : keys[0], keys[1], 0.4f, out, (float *)work, &lists,
                                (float *)palette);
                if (vex_upper_dirty())
                    snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " vector_wide(%d%s)", n,
                             lists.arc ? ", arcs" : "");
            }
        lists.arc = 0, lists.lanes = 4;
        int cursor = -1;
        double loops = 0.0;
        kn->solo_frame(&solo, 0.3, 1.0, 1.0, &cursor, (float *)work, NULL, &loops);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " solo_frame");
        cursor = -1;
        kn->solo_frame_weighted(&solo, 0.7, 1.0, 1.0, &cursor, (float *)work, NULL, &loops);
        if (vex_upper_dirty()) snprintf(dirty + strlen(dirty), sizeof dirty - strlen(dirty), " solo_frame_weighted");
        kn->fence();
        printf("kernels %s leave the upper halves clean:%s\n", names[kernel], dirty[0] ? dirty : " yes");
        CHECK(dirty[0] == 0);
        checked++;
    }
    CHECK(checked >= 3);
}

int main(void)
{
    test_walk_kernels();
    test_kernels_leave_upper_clean();
    test_slerp_lanes_exact();
    test_sample_arc();
    test_sample_arc_compact();
    return check_summary();
}
