/* anim_fixtures.h - what several of the animation core's unit tests
 * (test_anim_*.c, one per module of src/core) share: angles between
 * rotations, seeded random numbers, the vector registers' state, a
 * random 40-node model with two clips, compiled walks, a crowd against
 * the reference, and a one-channel walk's prepared pair. Each test
 * includes it after check.h: its CHECKs count in that test's tally. */
#ifndef SKV_ANIM_FIXTURES_H
#define SKV_ANIM_FIXTURES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "crowd.h"
#include "layers.h"
#include "walk.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <xmmintrin.h>
/* 1 if the upper halves of the vector registers hold state (XINUSE bit 2,
 * read by XGETBV with ECX = 1), 0 if not, -1 where the CPU cannot say. */
static inline int vex_upper_dirty(void)
{
    unsigned a, b, c, d;
    if (!__builtin_cpu_supports("avx") || !__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a & 4)) return -1;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    (void)hi;
    return (lo >> 2) & 1;
}
#else
static inline int vex_upper_dirty(void)
{
    return -1;
}
#endif

/* Angle between two rotations, from the vector part of a^-1 * b in double
 * precision (acos of a float dot product loses small angles entirely). */
static inline double quat_angle(const float a[4], const float b[4])
{
    double ax = a[0], ay = a[1], az = a[2], aw = a[3], bx = b[0], by = b[1], bz = b[2], bw = b[3];
    double vx = aw * bx - bw * ax - (ay * bz - az * by);
    double vy = aw * by - bw * ay - (az * bx - ax * bz);
    double vz = aw * bz - bw * az - (ax * by - ay * bx);
    double w = aw * bw + ax * bx + ay * by + az * bz;
    return 2.0 * atan2(sqrt(vx * vx + vy * vy + vz * vz), fabs(w));
}

static inline void axis_angle(float x, float y, float z, double angle, float q[4])
{
    q[0] = x * (float)sin(angle / 2), q[1] = y * (float)sin(angle / 2), q[2] = z * (float)sin(angle / 2);
    q[3] = (float)cos(angle / 2);
}

/* The clip time a one-channel frame kernel (kernels.h, solo_frame) hands
 * to the walk's search: test_clip_ticks' record of it. */
static double searched_ticks __attribute__((unused));

static inline int record_ticks(const skv_solo *solo, double ticks, int *cursor, float *f)
{
    (void)solo;
    searched_ticks = ticks;
    *cursor = -1; /* the next frame searches again */
    *f = 0.0f;
    return 0;
}

/* A walk of one channel keyed twice (ticks 0 and 1) with the identity,
 * its pair prepared (rows: 2 * SKV_EACH_KEY_FLOATS floats, 16-byte
 * aligned; pair: SKV_SOLO_PAIR_FLOATS(0), 64-byte aligned), as the frame
 * kernels (solo_frame) take it; its search records the ticks it is given. */
static inline void identity_solo(float *rows, float *pair, skv_solo *solo)
{
    static const double key_times[2] = {0.0, 1.0}, inv_span[2] = {1.0, 0.0};
    memset(rows, 0, 2 * SKV_EACH_KEY_FLOATS * sizeof *rows);
    for (int k = 0; k < 2; k++) rows[SKV_EACH_KEY_FLOATS * k + 7] = 1.0f, rows[SKV_EACH_KEY_FLOATS * k + 8] = 1.0f;
    for (int k = 0; k < 2; k++) rows[SKV_EACH_KEY_FLOATS * k + 9] = rows[SKV_EACH_KEY_FLOATS * k + 10] = 1.0f;
    CHECK(kernels_solo_pair(rows, 0, NULL, 0, NULL, pair));
    *solo = (skv_solo){.times = key_times, .inv_span = inv_span, .key_count = 2, .terms = pair,
                       .pair_floats = SKV_SOLO_PAIR_FLOATS(0), .key_at = record_ticks};
}

static inline float frand(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (float)((*seed >> 8) & 0xffff) / 65535.0f * 2.0f - 1.0f;
}

/* The model's walks, every one compiled now rather than on first use. */
static skv_walks *compiled_walks(const skv_model *model)
{
    skv_walks *walks = NULL;
    CHECK(walks_create(&walks, model) == SKV_OK);
    CHECK(walks_compile_all(walks) == SKV_OK);
    return walks;
}

/* A random 40-node model with two clips of uneven key arrays (some
 * channels fixed, some with T and R on one time line), in static storage;
 * random_model_free releases its keys. */
enum { RM_NODES = 40, RM_CLIPS = 2 };

static struct {
    int parents[RM_NODES], bone_node[RM_NODES];
    mat4 rest[RM_NODES], offsets[RM_NODES];
    skv_channel channels[RM_CLIPS][RM_NODES];
    int node_channel[RM_CLIPS][RM_NODES];
    skv_clip clips[RM_CLIPS];
    skv_model model;
    skv_walks *walks; /* the model's, every one compiled */
    int shared; /* channels with T and R on one time line */
} rm __attribute__((unused));

/* Set: every fifth node (1, 6, 11, ...) a root and globalInverse the
 * identity, so moving roots hang under an identity (walk_compile.c then uses
 * their locals as globals, without a product). */
static int rm_identity_roots __attribute__((unused));

static inline void random_model_build(void)
{
    enum { NODES = RM_NODES, CLIPS = RM_CLIPS };
    memset(&rm, 0, sizeof rm);
    unsigned seed = 11;
    int *parents = rm.parents, *bone_node = rm.bone_node;
    mat4 *rest = rm.rest, *offsets = rm.offsets;
    for (int i = 0; i < NODES; i++) {
        parents[i] = i == 0 ? -1 : (int)((frand(&seed) * 0.5f + 0.5f) * (i - 1) + 0.5f);
        if (rm_identity_roots && i % 5 == 1) parents[i] = -1;
        float q[4] = {frand(&seed), frand(&seed), frand(&seed), frand(&seed)};
        keys_quat_mat4(q, rest[i]);
        rest[i][3][0] = frand(&seed), rest[i][3][1] = frand(&seed), rest[i][3][2] = frand(&seed);
        float o[4] = {frand(&seed), frand(&seed), frand(&seed), frand(&seed)};
        keys_quat_mat4(o, offsets[i]);
        offsets[i][3][1] = frand(&seed);
        bone_node[i] = i;
    }
    skv_channel (*channels)[NODES] = rm.channels;
    int (*node_channel)[NODES] = rm.node_channel;
    skv_clip *clips = rm.clips;
    for (int c = 0; c < CLIPS; c++) {
        int count = 0;
        for (int n = 0; n < NODES; n++) {
            node_channel[c][n] = -1;
            if ((n + c) % 3 == 0) continue; /* some nodes keep their rest */
            skv_channel *ch = &channels[c][count];
            ch->node = n;
            ch->position_count = 1 + (n % 4);
            ch->rotation_count = 1 + (n % 3); /* n = 0, 12, 24, 36: one key each, fixed */
            ch->scale_count = 1 + (n % 2);
            ch->positions = calloc((size_t)ch->position_count, sizeof *ch->positions);
            ch->rotations = calloc((size_t)ch->rotation_count, sizeof *ch->rotations);
            ch->scales = calloc((size_t)ch->scale_count, sizeof *ch->scales);
            for (int k = 0; k < ch->position_count; k++) {
                ch->positions[k].time = 2.0 + 20.0 * k / ch->position_count;
                for (int a = 0; a < 3; a++) ch->positions[k].value[a] = frand(&seed);
            }
            for (int k = 0; k < ch->rotation_count; k++) {
                ch->rotations[k].time = ch->rotation_count > 1 ? 24.0 * k / (ch->rotation_count - 1) : 3.0;
                /* Some rotations on time lines of their own: time groups of
                 * one channel, sampled together (walk.c's small groups). */
                if (n % 8 == 0 && k > 0) ch->rotations[k].time -= 0.05 * n;
                for (int a = 0; a < 4; a++) ch->rotations[k].value[a] = frand(&seed);
            }
            for (int k = 0; k < ch->scale_count; k++) {
                ch->scales[k].time = 5.0 * k;
                for (int a = 0; a < 3; a++) ch->scales[k].value[a] = 1.0f + 0.3f * frand(&seed);
            }
            if (n % 5 == 2 && ch->rotation_count > 1) { /* T and R keyed at the same times */
                free(ch->positions);
                ch->position_count = ch->rotation_count;
                ch->positions = calloc((size_t)ch->position_count, sizeof *ch->positions);
                for (int k = 0; k < ch->position_count; k++) {
                    ch->positions[k].time = ch->rotations[k].time;
                    for (int a = 0; a < 3; a++) ch->positions[k].value[a] = frand(&seed);
                }
            }
            rm.shared += n % 5 == 2 && ch->rotation_count > 1 && ch->scale_count == 1;
            node_channel[c][n] = count++;
        }
        clips[c] = (skv_clip){.duration_ticks = 24.0, .ticks_per_second = 10.0 + c, .channel_count = count,
                              .channels = channels[c], .node_channel = node_channel[c]};
    }
    skv_model *model = &rm.model;
    *model = (skv_model){.clip_count = CLIPS, .clips = clips};
    model->skeleton = (skv_skeleton){.node_count = NODES, .parents = parents, .rest_local = rest,
                                    .bone_count = NODES, .bone_node = bone_node, .bone_offset = offsets};
    glm_scale_make(model->global_inverse, (vec3){0.5f, 0.5f, 0.5f});
    model->global_inverse[3][2] = 3.0f;
    if (rm_identity_roots) glm_mat4_identity(model->global_inverse);
    rm.walks = compiled_walks(model); /* now rather than on first use */
}

static inline void random_model_free(void)
{
    walks_destroy(rm.walks);
    for (int c = 0; c < RM_CLIPS; c++)
        for (int k = 0; k < rm.clips[c].channel_count; k++) {
            free(rm.channels[c][k].positions);
            free(rm.channels[c][k].rotations);
            free(rm.channels[c][k].scales);
        }
}

/* The largest difference between two poses' palettes over their first
 * `bones` entries; NaN counts as infinitely far. */
static inline double palettes_apart(const skv_pose *a, const skv_pose *b, int bones)
{
    double worst = 0.0;
    for (int k = 0; k < bones; k++)
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double e = fabs(a->palette[k][c][r] - b->palette[k][c][r]);
                worst = fmax(worst, isnan(e) ? INFINITY : e);
            }
    return worst;
}

/* The largest difference of `fast`'s globals (pose_globals: those its
 * frame owed formed now) from the reference pose's, which are before
 * globalInverse; NaN counts as infinitely far. */
static inline double globals_apart(skv_pose *fast, const skv_pose *ref, const skv_model *model)
{
    const mat4 *g = pose_globals(fast);
    double worst = 0.0;
    for (int n = 0; n < model->skeleton.node_count; n++) {
        mat4 expect;
        glm_mat4_mul((vec4 *)model->global_inverse, (vec4 *)ref->global[n], expect);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double e = fabs(g[n][c][r] - expect[c][r]);
                worst = fmax(worst, isnan(e) ? INFINITY : e);
            }
    }
    return worst;
}

/* The crowd posed at t: the largest difference of a character's palette
 * (3x4 rows, crowd.h) from the reference at its own clip and time offset
 * (with `count` layers of `desc`: the layers' reference),
 * with the reference's bottom rows against 0 0 0 1. */
static inline double crowd_layers_worst_at(skv_crowd *crowd, const skv_model *model, skv_pose *ref, double t,
                                           const skv_layer_desc *desc, int count)
{
    double worst = 0.0;
    crowd_evaluate(crowd, t);
    for (int i = 0; i < crowd->count; i++) {
        if (count > 0) pose_evaluate_layers_reference(ref, model, crowd->clips[i], t + crowd->offsets[i], desc, count);
        else pose_evaluate_reference(ref, model, crowd->clips[i], t + crowd->offsets[i]);
        const float *mine = &crowd->palettes[(size_t)i * crowd->bone_count * SKV_ROWS_FLOATS];
        for (int b = 0; b < model->skeleton.bone_count; b++)
            for (int c = 0; c < 4; c++) {
                for (int r = 0; r < 3; r++) {
                    double e = fabs(mine[b * SKV_ROWS_FLOATS + 4 * r + c] - ref->palette[b][c][r]);
                    worst = fmax(worst, isnan(e) ? INFINITY : e);
                }
                worst = fmax(worst, fabs(ref->palette[b][c][3] - (c == 3 ? 1.0f : 0.0f)));
            }
    }
    return worst;
}

static inline double crowd_worst_at(skv_crowd *crowd, const skv_model *model, skv_pose *ref, double t)
{
    return crowd_layers_worst_at(crowd, model, ref, t, NULL, 0);
}

#endif
