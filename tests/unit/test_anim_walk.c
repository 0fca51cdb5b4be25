/* test_anim_walk.c - a clip's compiled walk (walk_compile.c, run by
 * walk.c, kept in walks.c): small clips, seeks, chains, leaves, merged
 * time lines, prepared pairs and arcs and their budgets, still clips,
 * keys at one time, zero keys, subnormal-free frames; each against the
 * reference on every kernel, and what each walk compiled to. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"

/* For the tests' loops over the kernels: 0 where this CPU lacks
 * `kernel`; else `fast` posing on it and, unless NULL, `ref` (for the
 * reference), both created. */
static int kernel_poses(const skv_skeleton *skeleton, int kernel, skv_pose *fast, skv_pose *ref)
{
    if (!kernels_get((skv_walk_kernel)kernel)) return 0;
    CHECK(pose_create(fast, skeleton) == SKV_OK);
    if (ref) CHECK(pose_create(ref, skeleton) == SKV_OK);
    fast->walk_kernel = kernel;
    return 1;
}

/* `model` holding `clip_count` clips over a skeleton of `nodes` nodes
 * and `bones` bones (bone_node, offsets), globalInverse the identity; the
 * arrays are the caller's. */
static void model_of_clips(skv_model *model, skv_clip *clips, int clip_count, int nodes, int *parents, mat4 *rest,
                           int bones, int *bone_node, mat4 *offsets)
{
    memset(model, 0, sizeof *model);
    model->clip_count = clip_count, model->clips = clips;
    model->skeleton = (skv_skeleton){.node_count = nodes, .parents = parents, .rest_local = rest,
                                     .bone_count = bones, .bone_node = bone_node, .bone_offset = offsets};
    glm_mat4_identity(model->global_inverse);
}

/* model_of_clips of one clip, every node a bone. */
static void model_of_clip(skv_model *model, skv_clip *clip, int nodes, int *parents, mat4 *rest, int *bone_node,
                          mat4 *offsets)
{
    model_of_clips(model, clip, 1, nodes, parents, rest, nodes, bone_node, offsets);
}

/* A node's rest transform and its bone's offset, turned and moved at
 * random (from `seed`). */
static void random_node(mat4 rest, mat4 offset, unsigned *seed)
{
    float q[4] = {frand(seed), frand(seed), frand(seed), frand(seed)};
    keys_quat_mat4(q, rest);
    rest[3][0] = frand(seed), rest[3][2] = frand(seed);
    float o[4] = {frand(seed), frand(seed), frand(seed), frand(seed)};
    keys_quat_mat4(o, offset);
    offset[3][1] = frand(seed);
}

/* Small clips, where the walk samples one or two channels without lanes
 * (kernels.h, sample_solo) or a few in one vector: 1, 2, 3 and 5 moving
 * channels, on one time line or on lines of their own, against the
 * reference on every kernel: playback over several loops, backwards,
 * seeks, times before the first key and after the last. Each case says
 * how many channels it expects to go to the one-channel sampler. */
static void test_small_clips(void)
{
    enum { NODES = 6, MAX_CH = 5 };
    /* lines[k]: the time line of channel k (channels on one line share a
     * group); solo: channels expected on the one-channel sampler. */
    /* unit: rotation keys of unit length, so that time lines may be
     * keyed as one (walk_compile.c, merge_time_lines: merged, how many) and a walk
     * of one channel prepares its key pairs (kernels.h, solo_frame);
     * uneven: the globalInverse scaled unevenly, as in case 4; t_once: T
     * keyed once (vector_palette's t_fixed). */
    static const struct {
        int channels, lines[MAX_CH], solo, each, unit, merged, uneven, t_once;
    } cases[] = {
        {1, {0}, 1, 0, 0, 0, 0, 0},             /* one channel: sample_solo */
        {2, {0, 0}, 0, 0, 0, 0, 0, 0},          /* one group of two: a 4-lane vector */
        {2, {0, 1}, 2, 0, 0, 0, 0, 0},          /* two groups of one: solo, not shared vectors */
        {3, {0, 0, 0}, 0, 0, 0, 0, 0, 0},       /* one group of three: a 4-lane vector */
        {3, {0, 1, 2}, 0, 3, 0, 0, 0, 0},       /* three groups of one: shared vectors */
        {3, {0, 0, 1}, 0, 3, 0, 0, 0, 0},       /* a group of two and one of one: shared */
        {5, {0, 0, 0, 0, 1}, 1, 0, 0, 0, 0, 0}, /* a vector of four and one solo: the general loop */
        /* Unit rotations: lines 0 and 1 share only their last time, the
         * union has 7 keys; line 1 starts later (its first key copied
         * before it), the other keys are added on each curve. */
        {2, {0, 1}, 0, 0, 1, 2, 0, 0},          /* two lines as one group of two: a 4-lane vector */
        {4, {0, 0, 0, 1}, 0, 0, 1, 2, 0, 0},    /* a vector of four: 28 channel keys <= 2 x 14 */
        {3, {0, 0, 1}, 0, 0, 1, 2, 0, 1},       /* a 4-lane vector, not shared ones; T keyed once */
        {3, {0, 1, 2}, 0, 0, 1, 3, 0, 0},       /* 13 union keys x 3 <= 3 x 15: keyed as one */
        {4, {0, 0, 0, 0}, 0, 0, 0, 0, 0, 0},    /* a vector of four, general products */
        /* A vector of three under an unevenly scaled globalInverse: a
         * moving node's parent is a constant that does not fold, so a
         * global product reads a constant (not vector_palette's). */
        {3, {0, 0, 0}, 0, 0, 0, 0, 1, 0},
        /* One channel, unit keys: the prepared pairs. Cases 13-16 (the
         * node is (2k + case) mod 6, the offsets and globalInverse follow
         * the case's parity and remainder by 3) on node 1 (four palette
         * entries: it and its rigid subtree; its offset the identity),
         * node 2 (a projective offset: not prepared), node 3 (two entries,
         * its offset a translation), node 4 (a leaf under fixed nodes and
         * the turned globalInverse, folded). */
        {1, {0}, 1, 0, 1, 0, 0, 0},
        {1, {0}, 1, 0, 1, 0, 0, 0},
        {1, {0}, 1, 0, 1, 0, 0, 0},
        {1, {0}, 1, 0, 1, 0, 0, 0},
        {4, {0, 1, 2, 3}, 0, 0, 1, 4, 0, 0},    /* 21 union keys x 4 > 3 x 24, 13 KB: keyed as one (MERGE_GROUP_BYTES) */
    };
    const char *names[] = {"auto", "portable", "avx2", "avx512", "scalar"};
    unsigned seed = 31;
    int solo_total = 0, folded_total = 0, vector_total = 0, terms_total = 0, weighted_total = 0, rows_total = 0, dirty_frames = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int parents[NODES] = {-1, 0, 1, 1, 3, 0}, bone_node[NODES], node_channel[NODES];
        mat4 rest[NODES], offsets[NODES];
        skv_channel channels[MAX_CH];
        memset(channels, 0, sizeof channels);
        for (int n = 0; n < NODES; n++) {
            random_node(rest[n], offsets[n], &seed);
            /* In the odd cases, node 1's offset the identity and node 3's
             * a translation (vector_palette's translations). */
            if (ci % 2 && (n == 1 || n == 3)) {
                glm_mat4_identity(offsets[n]);
                if (n == 3) offsets[n][3][0] = 0.5f, offsets[n][3][1] = -1.25f, offsets[n][3][2] = 2.0f;
            }
            bone_node[n] = n;
            node_channel[n] = -1;
        }
        int count = cases[ci].channels;
        for (int k = 0; k < count; k++) {
            skv_channel *ch = &channels[k];
            int line = cases[ci].lines[k];
            ch->node = k < NODES ? (k * 2 + (int)ci) % NODES : k; /* different nodes, root included for some */
            for (int j = 0; j < k; j++)
                if (channels[j].node == ch->node) ch->node = (ch->node + 1) % NODES;
            node_channel[ch->node] = k;
            /* Line L: 3 + 2L keys from 0.5 + 0.1L to 4, unevenly spaced. */
            int keys = 3 + 2 * line;
            ch->position_count = ch->rotation_count = ch->scale_count = keys;
            if (cases[ci].t_once) ch->position_count = 1;
            ch->positions = calloc((size_t)keys, sizeof *ch->positions);
            ch->rotations = calloc((size_t)keys, sizeof *ch->rotations);
            ch->scales = calloc((size_t)keys, sizeof *ch->scales);
            for (int i = 0; i < keys; i++) {
                double t = 0.5 + 0.1 * line + (4.0 - 0.5 - 0.1 * line) * pow((double)i / (keys - 1), 1.3);
                ch->positions[i].time = ch->rotations[i].time = ch->scales[i].time = t;
                for (int a = 0; a < 3; a++) {
                    ch->positions[i].value[a] = frand(&seed);
                    ch->scales[i].value[a] = 1.0f + 0.4f * frand(&seed);
                }
                /* Rotations far apart (the acos branch) and near (the
                 * short series), not all of unit length. */
                for (int a = 0; a < 4; a++)
                    ch->rotations[i].value[a] = i % 2 ? frand(&seed)
                                                      : ch->rotations[i > 0 ? i - 1 : 0].value[a] + 0.05f * frand(&seed);
                float *q = ch->rotations[i].value, len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                for (int a = 0; cases[ci].unit && a < 4; a++) q[a] /= len; /* by hand: cglm's wants alignment */
            }
        }
        /* Every third case, the first moving bone's offset with a bottom
         * row that is not 0 0 0 1: the walk must keep the general products
         * (run, not run_affine). */
        int projective = ci % 3 == 2, moved = channels[0].node;
        if (projective) offsets[moved][0][3] = 0.25f, offsets[moved][3][3] = 1.5f;
        skv_clip clip = {.duration_ticks = 4.5, .ticks_per_second = 1.0, .channel_count = count, .channels = channels,
                         .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
        /* globalInverse: a similarity (turned, scaled, moved: a moving root
         * under it takes it into its keys), the identity (odd cases), or
         * with a non-uniform scale (case 4 and the uneven ones: the general product). */
        glm_translate_make(model.global_inverse, (vec3){0.3f, -1.0f, 2.0f});
        glm_rotate(model.global_inverse, 0.9f, (vec3){0.267261f, 0.534522f, 0.801784f});
        int uneven = ci == 4 || cases[ci].uneven;
        glm_scale(model.global_inverse, uneven ? (vec3){0.5f, 0.7f, 0.5f} : (vec3){0.5f, 0.5f, 0.5f});
        if (ci % 2 && !uneven) glm_mat4_identity(model.global_inverse); /* moving roots under an identity too */
        int root_moves = 0;
        for (int k = 0; k < count; k++) root_moves |= parents[channels[k].node] < 0;
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        CHECK(st.moving == count && st.loose == 0);
        CHECK(st.solo == cases[ci].solo);
        CHECK(st.each == cases[ci].each);
        CHECK(st.merged == cases[ci].merged);
        if (st.merged) CHECK(st.groups == 1);
        CHECK(st.affine == !projective);
        CHECK(!(projective && st.rows_prepared)); /* run_rows takes a bottom row that is not 0 0 0 1 */
        rows_total += st.rows_prepared;
        /* One channel, folded under the similarity or under the identity,
         * affine products: its frame is one kernel call (solo_palette),
         * which the evaluations below then run on every kernel. */
        CHECK(st.solo_palette == (count == 1 && st.globals == 0 && st.affine));
        if (ci == 0) CHECK(st.solo_palette);
        /* One time group of 3-4 channels in one 4-lane vector, affine
         * products: its frame is one kernel call too (vector_palette),
         * here on one line (case 3) and on two keyed as one (case 9). */
        if (st.vector_palette) CHECK(st.groups == 1 && st.solo == 0 && st.each == 0 && count <= 4 && st.affine);
        if (ci == 3 || ci == 9) CHECK(st.vector_palette && st.translations == 2);
        CHECK(st.t_fixed == cases[ci].t_once);
        if (cases[ci].uneven) CHECK(!st.vector_palette && st.groups == 1 && st.solo == 0 && st.affine);
        vector_total += st.vector_palette;
        if (st.leaves) CHECK(st.vector_palette && st.deferred >= st.leaves);
        /* Its key pairs prepared: the frame kernels.h's solo_frame where
         * the rotation keys are of unit length, solo_frame_weighted where
         * they are not. */
        CHECK(st.solo_terms == (!st.solo_palette ? 0 : cases[ci].unit ? 1 : 2));
        terms_total += st.solo_terms == 1, weighted_total += st.solo_terms == 2;
        /* Folded: moving nodes whose parent is constant and a similarity
         * (a moving root under the turned globalInverse, and nodes under
         * fixed ones: rest locals are rotations); none where the
         * globalInverse scales unevenly (case 4: every constant parent
         * inherits it). */
        if (uneven) CHECK(st.folded == 0);
        else if (ci % 2 == 0 && root_moves) CHECK(st.folded >= 1);
        folded_total += st.folded;
        solo_total += st.solo;
        double worst = 0.0, worst_global = 0.0;
        for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
            skv_pose fast, ref;
            if (!kernel_poses(&model.skeleton, kernel, &fast, &ref)) continue;
            unsigned tseed = 3;
            for (int i = 0; i < 1000; i++) {
                double t = i < 700 ? i / 60.0                            /* playback, 2.6 loops */
                         : i < 800 ? 3.0 - (i - 700) / 60.0              /* backwards */
                         : i < 900 ? 9.0 * (frand(&tseed) + 1.0) / 2.0   /* seeks, loops */
                         : (i % 3 == 0 ? 0.2 : i % 3 == 1 ? 4.2 : 4.0); /* before the first key, after the last */
                pose_evaluate(&fast, walks, 0, t);
                dirty_frames += vex_upper_dirty() == 1; /* every frame function's last kernel (test_kernels_leave_upper_clean) */
                pose_evaluate_reference(&ref, &model, 0, t);
                for (int b = 0; b < NODES; b++)
                    for (int c = 0; c < 4; c++)
                        for (int r = 0; r < 4; r++)
                            worst = fmax(worst, fabs(fast.palette[b][c][r] - ref.palette[b][c][r]));
            }
            /* The same pose on: the rest pose between frames, the kernels
             * switched under it, and every node's global (pose_globals
             * forms the ones the frame skipped) against the reference's:
             * pose_evaluate's playback path (walk_frame) must hand back to
             * the settling one whenever any of those changes. */
            for (int i = 0; i < 120; i++) {
                double t = 0.3 + i / 45.0;
                int clip = i % 17 == 16 ? -1 : 0;
                if (i % 10 == 9) fast.walk_kernel = (fast.walk_kernel + 1) % SKV_WALK_KERNEL_COUNT;
                pose_evaluate(&fast, walks, clip, t);
                pose_evaluate_reference(&ref, &model, clip, t);
                for (int b = 0; b < NODES; b++)
                    for (int c = 0; c < 4; c++)
                        for (int r = 0; r < 4; r++)
                            worst = fmax(worst, fabs(fast.palette[b][c][r] - ref.palette[b][c][r]));
                if (i % 3 == 0) {
                    const mat4 *g = pose_globals(&fast);
                    for (int n = 0; n < NODES; n++) {
                        mat4 expect;
                        glm_mat4_mul(model.global_inverse, ref.global[n], expect);
                        for (int c = 0; c < 4; c++)
                            for (int r = 0; r < 4; r++)
                                worst_global = fmax(worst_global, fabs(g[n][c][r] - expect[c][r]));
                    }
                }
            }
            /* A crowd's pose (3x4 rows, streamed by run_rows): a walk of
             * one channel takes the general products there, not
             * solo_palette. */
            _Alignas(64) mat4 lent_work[2 * NODES];
            _Alignas(16) float rows[NODES * SKV_ROWS_FLOATS];
            skv_pose lent;
            CHECK(pose_create_lent(&lent, &model.skeleton, rows) == SKV_OK);
            lent.walk_kernel = kernel;
            for (int i = 0; i < 60; i++) {
                double t = 0.25 + i / 30.0;
                pose_evaluate_lent(&lent, walks, 0, t, (float *)lent_work);
                dirty_frames += vex_upper_dirty() == 1;
                pose_evaluate_reference(&ref, &model, 0, t);
                for (int b = 0; b < NODES; b++)
                    for (int c = 0; c < 4; c++)
                        for (int r = 0; r < 3; r++)
                            worst = fmax(worst, fabs(rows[b * SKV_ROWS_FLOATS + 4 * r + c] - ref.palette[b][c][r]));
            }
            pose_destroy(&lent);
            pose_destroy(&fast);
            pose_destroy(&ref);
            if (worst >= 1e-5) printf("small clip %zu, %s kernels: %.2g\n", ci, names[kernel], worst);
        }
        printf("small clip %zu (%d channels, %d without lanes, %d in shared vectors, %d time lines keyed as one, %s "
               "products%s, %d under a similarity folded, %d palette entries (%d leaves)%s, crowd rows %s): max abs "
               "palette difference %.2g over 1120 evaluations and 60 crowd rows per kernel, globals %.2g\n",
               ci, count, st.solo, st.each, st.merged, st.affine ? "affine" : "general",
               st.vector_palette ? ", one kernel call" : "", st.folded, st.palette, st.leaves,
               st.solo_terms == 1 ? ", pairs prepared" : st.solo_terms == 2 ? ", pairs prepared, weighted" : "",
               st.rows_prepared ? "prepared" : "transposed", worst, worst_global);
        CHECK(worst < 1e-5);
        CHECK(worst_global < 1e-5);
        walks_destroy(walks);
        for (int k = 0; k < count; k++) free(channels[k].positions), free(channels[k].rotations), free(channels[k].scales);
    }
    CHECK(solo_total > 0);
    CHECK(folded_total >= 2);
    CHECK(vector_total >= 2);
    CHECK(terms_total >= 3);
    CHECK(weighted_total >= 1);
    CHECK(rows_total >= 3);
    printf("small clips: %d frames left the upper register halves dirty\n", dirty_frames);
    CHECK(dirty_frames == 0);
}

/* Key times of the seek cases' time lines (test_seeks). */
enum {
    LINE_TICKS,       /* 3, 4, 5, ...: BVH's frames, evenly spaced */
    LINE_ROUNDED,     /* glTF: float seconds times 1000, even to rounding */
    LINE_NUDGED,      /* 1/30 s apart, one key 0.2 spacing off the grid: still even, the grid's pair off by one there */
    LINE_EARLY,       /* the same, the key 0.2 spacing early: the grid's pair one short there */
    LINE_OFF,         /* one key 0.4 spacing off the grid: searched */
    LINE_JITTER,      /* uneven, one time twice (an empty span): searched */
    LINE_FAR,         /* 1e6 + 0.01 i: floats round several keys together */
    LINE_FAR_JITTER,  /* the same, uneven: the float search's ties settled on the exact times */
    LINE_HUGE,        /* 3e14 + 0.3125 i, every seventh key nudged: the one-channel seek's estimate far from 0 */
    LINE_VERYHUGE,    /* 1e15 + 0.25 i: keys 2 ulps apart */
    LINE_LATE,        /* 1e6 + i / 30, one key nudged: a 30 Hz clip starting late */
    LINE_GRID,        /* 0, 1, 2, ...: whole ticks from 0 (HL1 MDL, BVH, MD5): the x86 kernels' solo_grid */
    LINE_GRID_QUARTER, /* 0.25 i: a power-of-two span, the same path */
    LINE_GRID_NUDGED, /* whole ticks, one key 0.2 off: not a grid, kernels_solo_seek */
    LINE_BURST,       /* 40 keys 0.001 apart, then a gap of ~3: the seek index's buckets (walk_internal.h)
                       * hold a burst each, more keys than the seek looks past its guess */
};

static double seek_line_time(int kind, int i, unsigned *seed)
{
    switch (kind) {
    case LINE_TICKS: return 3.0 + i;
    case LINE_ROUNDED: return (double)(float)((i + 1) / 24.0) * 1000.0;
    case LINE_NUDGED: return 0.5 + i / 30.0 + (i == 7 ? 0.2 / 30.0 : 0.0);
    case LINE_EARLY: return 0.5 + i / 30.0 - (i == 7 ? 0.2 / 30.0 : 0.0);
    case LINE_OFF: return 0.5 + i / 30.0 + (i == 7 ? 0.4 / 30.0 : 0.0);
    case LINE_JITTER: return 0.5 + (i + 0.45 * frand(seed)) / 30.0; /* key 5 is set to key 4's time */
    case LINE_FAR: return 1e6 + 0.01 * i;
    case LINE_HUGE: return 3e14 + 0.3125 * i + (i % 7 == 3 ? 0.0625 : 0.0);
    case LINE_VERYHUGE: return 1e15 + 0.25 * i;
    case LINE_LATE: return 1e6 + i / 30.0 + (i == 7 ? 0.2 / 30.0 : 0.0);
    case LINE_GRID: return (double)i;
    case LINE_GRID_QUARTER: return 0.25 * i;
    case LINE_GRID_NUDGED: return i + (i == 7 ? 0.2 : 0.0);
    case LINE_BURST: return 1.0 + (i / 40) * 3.0 + (i % 40) * 0.001;
    default: return 1e6 + 0.01 * (i + 0.4 * frand(seed));
    }
}

/* Seeks against the reference where the walk computes a group's key pair
 * from evenly spaced times (walk_compile.c, even_key_rate) or searches the float
 * times without branches, then settles it on the exact times: every
 * kernel, the one-channel frame (solo_palette), one vector group and the
 * general loop with small groups; times at every key, one ulp either
 * side, between keys, before the first and after the last, at random,
 * and playback stepping over two or more keys a frame, forwards and
 * backwards. Each case says how many of its groups are even. */
static void test_seeks(void)
{
    enum { NODES = 8, MAX_CH = 6, MAX_TIMES = 60000 };
    static const struct {
        int channels, line_of[MAX_CH], kinds[4], keys[4], even, loose;
    } cases[] = {
        {1, {0}, {LINE_TICKS}, {50000}, 1, 0},                                       /* a huge clip, one channel */
        {5, {0, 0, 0, 0, 0}, {LINE_ROUNDED}, {2000}, 1, 0},                          /* one vector group */
        {6, {0, 0, 0, 0, 0, 1}, {LINE_NUDGED, LINE_JITTER}, {40, 12}, 1, 0},         /* a vector and a solo group */
        /* Four shared-vector groups: keyed as one, their union (2,070
         * times) would take 1.3 MB, over 3x their keys and over
         * walk_compile.c's MERGE_GROUP_BYTES. */
        {4, {0, 1, 2, 3}, {LINE_OFF, LINE_FAR, LINE_FAR_JITTER, LINE_TICKS}, {30, 1000, 1000, 40}, 2, 0},
        /* Two lines of unit keys: keyed as one (walk_compile.c, merge_time_lines),
         * an uneven group of two solo channels. */
        {2, {0, 1}, {LINE_FAR_JITTER, LINE_TICKS}, {500, 2}, 0, 0},
        {1, {0}, {LINE_JITTER, LINE_TICKS, LINE_FAR_JITTER}, {33, 300, 200}, 0, 1},  /* T, R, S apart: loose */
        /* One channel (its frame kernels.h's solo_frame, its seeks
         * kernels_solo_seek) on even times off the grid by 0.2 spacing,
         * late and early, and on glTF's rounded times. */
        {1, {0}, {LINE_NUDGED}, {40}, 1, 0},
        {1, {0}, {LINE_EARLY}, {40}, 1, 0},
        {1, {0}, {LINE_ROUNDED}, {300}, 1, 0},
        {1, {0}, {LINE_HUGE}, {300}, 1, 0},
        {1, {0}, {LINE_VERYHUGE}, {300}, 1, 0},
        {1, {0}, {LINE_LATE}, {300}, 1, 0},
        {1, {0}, {LINE_FAR}, {300}, 1, 0},
        {1, {0}, {LINE_GRID}, {221}, 1, 0},
        {1, {0}, {LINE_GRID}, {2000}, 1, 0},
        {1, {0}, {LINE_GRID_QUARTER}, {300}, 1, 0},
        {1, {0}, {LINE_GRID_NUDGED}, {40}, 1, 0},
        /* Uneven times seeking through their index (walk_internal.h,
         * walk_seek_index), bursts of keys past its look-ahead: a vector
         * group, and one channel (kernels' solo_search). */
        {5, {0, 0, 0, 0, 0}, {LINE_BURST}, {400}, 0, 0},
        {1, {0}, {LINE_BURST}, {300}, 0, 0},
        /* A vector group on an exact grid (walk_internal.h, walk_group's
         * grid): its seeks read no key time. */
        {5, {0, 0, 0, 0, 0}, {LINE_GRID}, {2000}, 1, 0},
        {5, {0, 0, 0, 0, 0}, {LINE_GRID_QUARTER}, {300}, 1, 0},
    };
    const char *names[] = {"auto", "portable", "avx2", "avx512", "scalar"};
    unsigned seed = 77;
    double *times = malloc(MAX_TIMES * sizeof *times);
    CHECK(times != NULL);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        int parents[NODES] = {-1, 0, 1, 2, 1, 0, 5, 6}, bone_node[NODES], node_channel[NODES];
        mat4 rest[NODES], offsets[NODES];
        for (int n = 0; n < NODES; n++) {
            float q[4] = {frand(&seed), frand(&seed), frand(&seed), frand(&seed)};
            keys_quat_mat4(q, rest[n]);
            rest[n][3][1] = frand(&seed);
            glm_mat4_identity(offsets[n]);
            offsets[n][3][0] = frand(&seed);
            bone_node[n] = n;
            node_channel[n] = -1;
        }
        skv_channel channels[MAX_CH];
        memset(channels, 0, sizeof channels);
        int count = cases[ci].channels, lines = 0;
        double first = 1e300, last = -1e300;
        for (int k = 0; k < count; k++) {
            skv_channel *ch = &channels[k];
            /* A loose case keys T, R and S on lines 0, 1 and 2: sampled one
             * array at a time (walk.c, key_at). */
            int line = cases[ci].line_of[k], loose = cases[ci].loose, n[3];
            lines = line + 1 > lines ? line + 1 : lines;
            for (int a = 0; a < 3; a++) n[a] = cases[ci].keys[loose ? a : line];
            ch->node = (k * 3 + 1) % NODES;
            node_channel[ch->node] = k;
            ch->position_count = n[0], ch->rotation_count = n[1], ch->scale_count = n[2];
            ch->positions = calloc((size_t)n[0], sizeof *ch->positions);
            ch->rotations = calloc((size_t)n[1], sizeof *ch->rotations);
            ch->scales = calloc((size_t)n[2], sizeof *ch->scales);
            CHECK(ch->positions && ch->rotations && ch->scales);
            for (int a = 0; a < 3; a++) {
                int kind = cases[ci].kinds[loose ? a : line];
                unsigned tseed = 1000u + (unsigned)(loose ? a : line); /* one line, one set of times */
                for (int i = 0; i < n[a]; i++) {
                    double *t = a == 0 ? &ch->positions[i].time : a == 1 ? &ch->rotations[i].time : &ch->scales[i].time;
                    *t = seek_line_time(kind, i, &tseed);
                    if (kind == LINE_JITTER && i == 5) /* key 4's time twice: an empty span */
                        *t = a == 0 ? ch->positions[4].time : a == 1 ? ch->rotations[4].time : ch->scales[4].time;
                    first = fmin(first, *t), last = fmax(last, *t);
                }
            }
            for (int i = 0; i < n[0]; i++)
                for (int a = 0; a < 3; a++) ch->positions[i].value[a] = frand(&seed);
            for (int i = 0; i < n[2]; i++)
                for (int a = 0; a < 3; a++) ch->scales[i].value[a] = 1.0f + 0.2f * frand(&seed);
            /* Unit rotations, as importers give them: this is about which
             * key pair, not the slerp of odd keys. */
            for (int i = 0; i < n[1]; i++) {
                float *q = ch->rotations[i].value, len = 0.0f;
                for (int a = 0; a < 4; a++) q[a] = frand(&seed), len += q[a] * q[a];
                for (int a = 0; a < 4; a++) q[a] /= sqrtf(len);
            }
        }
        /* Seek times: each line's every key (or every 7th of a huge one), an
         * ulp either side, the middle of each pair, before the first key
         * and after the last; random times; shuffled, so that the cursors
         * come from anywhere. */
        int n_times = 0;
        for (int k = 0; k < count; k++) {
            const skv_channel *ch = &channels[k];
            if (k > 0 && cases[ci].line_of[k] == cases[ci].line_of[k - 1]) continue;
            for (int a = 0; a < (cases[ci].loose ? 3 : 1); a++) {
                const double *at = a == 0   ? &ch->positions[0].time
                                   : a == 1 ? &ch->rotations[0].time
                                            : &ch->scales[0].time;
                size_t stride = a == 1 ? sizeof ch->rotations[0] : sizeof ch->positions[0];
                int keys = a == 0 ? ch->position_count : a == 1 ? ch->rotation_count : ch->scale_count;
                int step = keys > 5000 ? 7 : 1;
#define SEEK_KEY_TIME(i) (*(const double *)((const char *)at + (size_t)(i) * stride))
                for (int i = 0; i < keys && n_times + 4 < MAX_TIMES / 2; i += step) {
                    double t = SEEK_KEY_TIME(i);
                    times[n_times++] = t;
                    times[n_times++] = nextafter(t, -INFINITY);
                    times[n_times++] = nextafter(t, INFINITY);
                    if (i + 1 < keys) times[n_times++] = 0.5 * (t + SEEK_KEY_TIME(i + 1));
                }
                double span = (SEEK_KEY_TIME(keys - 1) - SEEK_KEY_TIME(0)) / (keys - 1);
                times[n_times++] = SEEK_KEY_TIME(0) - 0.5 * span;
                times[n_times++] = SEEK_KEY_TIME(keys - 1) + 0.5 * span;
#undef SEEK_KEY_TIME
            }
        }
        double duration = last + 0.75 * (last - first) / 10.0;
        while (n_times < MAX_TIMES / 2 + 2000) times[n_times++] = duration * (0.5 * frand(&seed) + 0.5);
        for (int i = n_times - 1; i > 0; i--) { /* Fisher-Yates */
            int j = (int)((frand(&seed) * 0.5f + 0.5f) * (float)i);
            double swap = times[i];
            times[i] = times[j], times[j] = swap;
        }
        /* Playback stepping 2.4 keys of the first line a frame, then back. */
        double step = 2.4 * (channels[0].positions[1].time - channels[0].positions[0].time);
        for (int i = 0; i < 3000 && n_times < MAX_TIMES; i++)
            times[n_times++] = first + step * (i < 2000 ? i : 3999 - i);
        skv_clip clip = {.duration_ticks = duration, .ticks_per_second = 1.0, .channel_count = count,
                         .channels = channels, .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        CHECK(st.moving == count && st.loose == cases[ci].loose &&
              st.groups == (cases[ci].loose ? 0 : st.merged ? 1 : lines));
        CHECK(st.even == cases[ci].even);
        CHECK((st.merged != 0) == (ci == 4)); /* others: over 3x the keys, a repeated time, one line */
        /* The one-channel frames' seeks too: case 0's 50,000 pairs exceed
         * what a walk prepares (walk_compile.c, SOLO_TERMS_BYTES), cases 6-8 are
         * prepared (kernels.h, kernels_solo_seek). */
        if (ci == 0 || (ci >= 6 && ci <= 16) || ci == 18) CHECK(st.solo_palette && st.solo_terms == (ci >= 6));
        double worst = 0.0;
        for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
            skv_pose fast, ref;
            if (!kernel_poses(&model.skeleton, kernel, &fast, &ref)) continue;
            double worst_kernel = 0.0;
            for (int i = 0; i < n_times; i++) {
                pose_evaluate(&fast, walks, 0, times[i]);
                pose_evaluate_reference(&ref, &model, 0, times[i]);
                for (int b = 0; b < NODES; b++)
                    for (int c = 0; c < 4; c++)
                        for (int r = 0; r < 4; r++)
                            worst_kernel = fmax(worst_kernel, fabs(fast.palette[b][c][r] - ref.palette[b][c][r]));
            }
            if (worst_kernel >= 1e-5) printf("seek case %zu, %s kernels: %.2g\n", ci, names[kernel], worst_kernel);
            worst = fmax(worst, worst_kernel);
            pose_destroy(&fast);
            pose_destroy(&ref);
        }
        printf("seek case %zu (%d channels on %d time lines, %d even, %d without lanes, %d in shared vectors, "
               "solo_palette %d, pairs prepared %d): max abs palette difference %.2g over %d evaluations per kernel\n",
               ci, count, lines, st.even, st.solo, st.each, st.solo_palette, st.solo_terms, worst, n_times);
        CHECK(worst < 1e-5);
        walks_destroy(walks);
        for (int k = 0; k < count; k++)
            free(channels[k].positions), free(channels[k].rotations), free(channels[k].scales);
    }
    free(times);
}

/* The largest palette difference between pose_evaluate on every kernel
 * this CPU runs and the reference (a NaN counts as infinite), posing
 * clip 0 at time_at(i) for i = 0 .. last (i / 64 where time_at is NULL),
 * each kernel on a pose of its own from the start. With worst_global,
 * also the largest difference of every node's global (pose_globals, which
 * forms the ones the frame left to it) every 7th frame. */
static double worst_on_every_kernel_globals(skv_walks *walks, int last, double (*time_at)(int),
                                            double *worst_global)
{
    const skv_model *model = walks_model(walks);
    double worst = 0.0;
    for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        skv_pose fast, ref;
        if (!kernel_poses(&model->skeleton, kernel, &fast, &ref)) continue;
        for (int i = 0; i <= last; i++) {
            double t = time_at ? time_at(i) : i / 64.0;
            pose_evaluate(&fast, walks, 0, t);
            pose_evaluate_reference(&ref, model, 0, t);
            for (int b = 0; b < model->skeleton.bone_count; b++)
                for (int k = 0; k < 16; k++) {
                    double e = fabs(fast.palette[b][k / 4][k % 4] - ref.palette[b][k / 4][k % 4]);
                    worst = fmax(worst, isnan(e) ? INFINITY : e);
                }
            if (worst_global && i % 7 == 0) {
                const mat4 *g = pose_globals(&fast);
                for (int n = 0; n < model->skeleton.node_count; n++) {
                    mat4 expect;
                    glm_mat4_mul((vec4 *)model->global_inverse, ref.global[n], expect);
                    for (int k = 0; k < 16; k++) {
                        double e = fabs(g[n][k / 4][k % 4] - expect[k / 4][k % 4]);
                        *worst_global = fmax(*worst_global, isnan(e) ? INFINITY : e);
                    }
                }
            }
        }
        pose_destroy(&fast), pose_destroy(&ref);
    }
    return worst;
}

static double worst_on_every_kernel(skv_walks *walks, int last, double (*time_at)(int))
{
    return worst_on_every_kernel_globals(walks, last, time_at, NULL);
}

/* worst_on_every_kernel within 1e-5 (what: the case, printed if not),
 * then the walks destroyed. */
static void expect_every_kernel(skv_walks *walks, int last, double (*time_at)(int), const char *what)
{
    double worst = worst_on_every_kernel(walks, last, time_at);
    if (!(worst < 1e-5)) printf("%s: max abs difference %.2g\n", what, worst);
    CHECK(worst < 1e-5);
    walks_destroy(walks);
}

/* A chain's rest transforms 0.5 apart along x, its bones' offsets 0.25
 * apart along -y (the hand-built models' skeleton). */
static void chain_rest(int nodes, mat4 *rest, mat4 *offsets)
{
    for (int n = 0; n < nodes; n++) {
        glm_mat4_identity(rest[n]);
        rest[n][3][0] = 0.5f * (float)n;
        glm_mat4_identity(offsets[n]);
        offsets[n][3][1] = -0.25f * (float)n;
    }
}

/* Channel n keyed `keys` times 0.5 apart, r a fresh frand each: T (sway
 * r, 0.3 + 0.05 r, 0) (no draw for x where sway is 0), S (1, 1 + 0.1 r,
 * 1), R turning about the unit `axis` by turn r radians. */
static skv_channel keyed_channel(int n, int keys, skv_vec3_key *positions, skv_vec3_key *scales,
                                 skv_quat_key *rotations, float sway, const float axis[3], double turn,
                                 unsigned *seed)
{
    for (int k = 0; k < keys; k++) {
        float x = sway != 0.0f ? sway * frand(seed) : 0.0f;
        positions[k] = (skv_vec3_key){k * 0.5, {x, 0.3f + 0.05f * frand(seed), 0.0f}, 0.0f};
        scales[k] = (skv_vec3_key){k * 0.5, {1.0f, 1.0f + 0.1f * frand(seed), 1.0f}, 0.0f};
        rotations[k].time = k * 0.5;
        axis_angle(axis[0], axis[1], axis[2], turn * frand(seed), rotations[k].value);
    }
    return (skv_channel){.node = n, .position_count = keys, .rotation_count = keys, .scale_count = keys,
                         .positions = positions, .rotations = rotations, .scales = scales};
}

/* A chain of moving nodes (a tentacle): after by_depth every global
 * step reads the step before's product, and the walk takes run_chain (on
 * AVX2 that operand comes from registers); two chains side by side take
 * run_affine. Either way every kernel gives the reference's palette, at
 * playback across the loop. */
static void test_chain(void)
{
    enum { NODES = 14, KEYS = 5 };
    /* 14 nodes, and a chain of 4 under an identity globalInverse: one
     * 4-lane vector, vector_palette's frame (whose own loop forms the
     * globals: run_chain there made worm.dae 1.4 ns a bone faster but 15
     * instructions a frame dearer, over 150 a bone). */
    for (int nodes = NODES; nodes >= 4; nodes -= 10)
    for (int branches = 1; branches <= (nodes == NODES ? 2 : 1); branches++) {
        int parents[NODES], bone_node[NODES], node_channel[NODES];
        mat4 rest[NODES], offsets[NODES];
        skv_channel channels[NODES];
        skv_vec3_key positions[NODES][KEYS], scales[NODES][KEYS];
        skv_quat_key rotations[NODES][KEYS];
        unsigned seed = 77;
        for (int n = 0; n < NODES; n++) {
            /* one chain 0-1-...-13, or two (0-...-6 and 7-...-13) under node 0 */
            parents[n] = n == 0 ? -1 : branches == 2 && n == NODES / 2 ? 0 : n - 1;
            bone_node[n] = n, node_channel[n] = n;
            glm_mat4_identity(rest[n]);
            glm_mat4_identity(offsets[n]);
            offsets[n][3][1] = -0.3f * (float)n;
            channels[n] = keyed_channel(n, KEYS, positions[n], scales[n], rotations[n], 0.0f, (const float[3]){0, 0, 1},
                                        0.4, &seed);
        }
        skv_clip clip = {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = nodes, .channels = channels,
                         .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, nodes, parents, rest, bone_node, offsets);
        if (nodes == NODES) {
            glm_translate_make(model.global_inverse, (vec3){0.0f, 0.5f, 0.0f}); /* the root's global a product too */
            glm_scale(model.global_inverse, (vec3){0.5f, 0.7f, 0.5f});            /* not a similarity: not folded */
        } /* else the identity: every global's operands in the work block, as vector_palette wants */
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        double worst = worst_on_every_kernel(walks, 400, NULL);
        printf("%s of %d moving nodes: %d global products, %s%s; max abs palette difference %.2g on every kernel\n",
               branches == 1 ? "one chain" : "two chains", nodes, st.globals, st.chain ? "run_chain" : "run_affine",
               st.vector_palette ? " (the walk's; vector_palette's own loop runs)" : "", worst);
        CHECK(st.affine);
        CHECK(st.chain == (branches == 1));
        CHECK(st.vector_palette == (nodes <= 4));
        CHECK(worst < 1e-5);
        walks_destroy(walks);
    }
}

/* test_vector_leaves' times: playback across two loops, then times
 * before the clip and seeks spread over three loops. */
static double leaves_time(int i)
{
    return i < 300 ? i / 60.0 : i % 3 == 0 ? -0.3 : fmod(i * 0.618034, 1.0) * 6.0;
}

/* vector_palette's leaves (walk_compile.c, vector_leaves): a palette entry G b
 * whose global G = A L is read by nothing else and whose A is a product
 * of the frame is formed as A (L b), and G by pose_globals only. Five
 * small rigs under an identity globalInverse (one 4-lane vector each),
 * every node a moving bone unless said: a chain of 4 with offsets that
 * only translate (a leaf by translate), the same with the last offset
 * turned (a leaf by the general product), a chain of 3 whose last node
 * has a rigid child (its global read twice: no leaf), a fork, two leaves
 * under one product, and a chain of 4 whose leaf has a rigid child
 * without a bone (G read by a deferred step only). Palettes and every
 * global (pose_globals) against the reference on every kernel, over
 * playback, seeks and times off the keys. Associating the other way
 * (L (A b)), leaving G out of the deferred list, or putting it at the
 * list's end (a helper's review), fails it. */
static void test_vector_leaves(void)
{
    enum { NODES = 5, KEYS = 5 };
    static const struct {
        int nodes, bones, parents[NODES], moving, leaves, translations, turned;
        const char *what;
    } rigs[] = {
        {4, 4, {-1, 0, 1, 2}, 4, 1, 1, 0, "a chain of 4"},
        {4, 4, {-1, 0, 1, 2}, 4, 1, 0, 1, "a chain of 4, the last offset turned"},
        {4, 4, {-1, 0, 1, 2}, 3, 0, 0, 0, "a chain of 3 and a rigid child"},
        {4, 4, {-1, 0, 1, 1}, 4, 2, 2, 0, "a fork"},
        /* The leaf's global read by a deferred step only (a rigid child
         * without a bone): G must be formed before that step. */
        {5, 4, {-1, 0, 1, 2, 3}, 4, 1, 1, 0, "a chain of 4 and a rigid child without a bone"},
    };
    for (size_t ri = 0; ri < sizeof rigs / sizeof rigs[0]; ri++) {
        int parents[NODES], bone_node[NODES], node_channel[NODES];
        mat4 rest[NODES], offsets[NODES];
        skv_channel channels[NODES];
        skv_vec3_key positions[NODES][KEYS], scales[NODES][KEYS];
        skv_quat_key rotations[NODES][KEYS];
        unsigned seed = 91 + (unsigned)ri;
        int nodes = rigs[ri].nodes, bones = rigs[ri].bones, moving = rigs[ri].moving;
        chain_rest(nodes, rest, offsets);
        if (rigs[ri].turned) {
            float q[4];
            axis_angle(0.6f, 0.0f, 0.8f, 0.7, q);
            keys_quat_mat4(q, offsets[bones - 1]);
            offsets[bones - 1][3][0] = 0.2f, offsets[bones - 1][3][1] = -0.9f;
        }
        for (int n = 0; n < nodes; n++) {
            parents[n] = rigs[ri].parents[n];
            bone_node[n] = n, node_channel[n] = n < moving ? n : -1;
            channels[n] = keyed_channel(n, KEYS, positions[n], scales[n], rotations[n], 0.1f,
                                        (const float[3]){0.48f, 0.6f, 0.64f}, 0.9, &seed);
        }
        skv_clip clip = {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = moving, .channels = channels,
                         .node_channel = node_channel};
        skv_model model;
        model_of_clips(&model, &clip, 1, nodes, parents, rest, bones, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        double worst_global = 0.0;
        double worst = worst_on_every_kernel_globals(walks, 399, leaves_time, &worst_global);
        printf("vector leaves, %s: %d leaves (%d by translate), %d deferred globals; max abs palette difference %.2g, "
               "globals %.2g on every kernel\n",
               rigs[ri].what, st.leaves, st.leaf_translations, st.deferred, worst, worst_global);
        CHECK(st.vector_palette);
        CHECK(st.leaves == rigs[ri].leaves);
        CHECK(st.leaf_translations == rigs[ri].translations);
        CHECK(st.deferred >= st.leaves);
        CHECK(worst < 1e-5);
        CHECK(worst_global < 1e-5);
        walks_destroy(walks);
    }
}

/* test_first_key_twice's times: playback through 0.5 and 0.625, then
 * seeks to them. */
static double first_key_twice_time(int i)
{
    return i < 160 ? i / 64.0 : i % 2 ? 0.5 : i % 4 ? 0.625 : 0.25;
}

/* A one-channel walk whose rotation keys are not of unit length takes
 * solo_frame_weighted, whose weights square the keys' lengths: keys far
 * from unit length (a file may key 4e-20 or 1e-23: only non-finite and
 * over-1e15 values are dropped at import) must still give the
 * reference's palette, not NaN (1 / (u^2 + v^2) overflowed to infinity
 * below ~5e-20), on every kernel; keys of 2e-9 and 1e15 keep the prepared
 * pairs. The same keys on two and three channels of one time line (the
 * lanes: 2 r_i r_j / |r|^2 formed as a product of 2 / |r|^2 overflowed
 * for the 4e-20 keys), on all of them or on the first only (the other
 * lanes' keys of unit length); keys of 1e19 and 2e19 (|r|^2 formed from
 * the keys' lengths overflowed, where the reference's from r does not
 * for 1e19; for 2e19 both give the identity at the key). */
static void test_solo_key_lengths(void)
{
    enum { NODES = 3 };
    static const float lengths[] = {4e-20f, 1e-23f, 2e-9f, 1e15f, 1e19f, 2e19f};
    int parents[NODES] = {-1, 0, 1}, bone_node[NODES] = {0, 1, 2};
    mat4 rest[NODES], offsets[NODES];
    chain_rest(NODES, rest, offsets);
    for (int channels = 1; channels <= NODES; channels++)
        for (int first_only = 0; first_only <= (channels > 1); first_only++)
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
            for (int which = 0; which < 3; which++) {
                skv_vec3_key positions[3], scales[3];
                skv_quat_key rotations[3], unit[3];
                for (int k = 0; k < 3; k++) {
                    positions[k] = (skv_vec3_key){k, {0.1f * (float)k, 1.0f, 0.0f}, 0.0f};
                    scales[k] = (skv_vec3_key){k, {1.0f + 0.1f * (float)k, 1.0f, 1.0f}, 0.0f};
                    rotations[k].time = k;
                }
                axis_angle(0.707107f, 0.0f, 0.707107f, 0.3, rotations[0].value);
                axis_angle(0.0f, 0.707107f, 0.707107f, 2.9, rotations[1].value);
                axis_angle(0.707107f, 0.707107f, 0.0f, -1.0, rotations[2].value);
                memcpy(unit, rotations, sizeof unit);
                for (int c = 0; c < 4; c++) rotations[which].value[c] *= lengths[li];
                skv_channel ch[NODES];
                int node_channel[NODES];
                for (int n = 0; n < NODES; n++) {
                    ch[n] = (skv_channel){.node = n, .position_count = 3, .rotation_count = 3, .scale_count = 3,
                                          .positions = positions, .rotations = first_only && n > 0 ? unit : rotations,
                                          .scales = scales};
                    node_channel[n] = n < channels ? n : -1;
                }
                skv_clip clip = {.duration_ticks = 2.5, .ticks_per_second = 1.0, .channel_count = channels,
                                 .channels = ch, .node_channel = node_channel};
                skv_model model;
                model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
                skv_walks *walks = compiled_walks(&model);
                skv_walk_stats st;
                walk_stats(walks_clip(walks, 0), &st);
                CHECK(st.solo_palette == (channels == 1));
                if (channels == 1 && lengths[li] >= 2e-9f && lengths[li] <= 1e15f) CHECK(st.solo_terms == 2);
                char what[96];
                snprintf(what, sizeof what, "key lengths, %d channels%s: key %d x %g", channels,
                         first_only ? " (the first's keys)" : "", which, (double)lengths[li]);
                expect_every_kernel(walks, 160, NULL, what); /* every key time exactly, and between */
            }
}

/* tiny_blend's times: 1e-16 apart just after the zero key, then on. */
static double tiny_blend_time(int i)
{
    return i < 64 ? i * 1e-16 : (i - 64) / 32.0;
}

/* A zero rotation key, then one 1e-5 long: just after the zero key the
 * blend is ~1e-20 long, its squares subnormal (inexact), and one
 * normalisation by them left the matrix's columns up to 8e-5 from unit
 * length (found by a random probe, 4.3e-4 off the reference, which
 * normalises twice); the samplers (rotation_rescue; the scalar kernel's
 * sample_one) take such blends 2^64 times larger first. One channel and
 * three (the lanes). */
static void test_tiny_blend(void)
{
    enum { NODES = 3 };
    int parents[NODES] = {-1, 0, 1}, bone_node[NODES] = {0, 1, 2};
    mat4 rest[NODES], offsets[NODES];
    chain_rest(NODES, rest, offsets);
    for (int channels = 1; channels <= NODES; channels += 2) {
        skv_vec3_key positions[1] = {{0, {0.0f, 1.0f, 0.0f}, 0.0f}}, scales[1] = {{0, {1.0f, 1.0f, 1.0f}, 0.0f}};
        skv_quat_key rotations[3] = {{0, {0.0f, 0.0f, 0.0f, 0.0f}}, {1, {0}}, {2, {0}}};
        axis_angle(0.6f, 0.0f, 0.8f, 0.7, rotations[1].value);
        axis_angle(0.0f, 0.6f, 0.8f, 1.9, rotations[2].value);
        for (int c = 0; c < 4; c++) rotations[1].value[c] *= 1e-5f;
        skv_channel ch[NODES];
        int node_channel[NODES];
        for (int n = 0; n < NODES; n++) {
            ch[n] = (skv_channel){.node = n, .position_count = 1, .rotation_count = 3, .scale_count = 1,
                                  .positions = positions, .rotations = rotations, .scales = scales};
            node_channel[n] = n < channels ? n : -1;
        }
        skv_clip clip = {.duration_ticks = 2.5, .ticks_per_second = 1.0, .channel_count = channels, .channels = ch,
                         .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        char what[64];
        snprintf(what, sizeof what, "a blend 1e-20 long, %d channels", channels);
        expect_every_kernel(walks, 64 + 80, tiny_blend_time, what);
    }
}

/* Keys whose float dot product is exactly 0 or within rounding of it
 * (keys half a turn apart): the reference turns a pair's second key
 * only where that sum is < 0. The group's copy must give each pair that
 * arc: after a key it turned (q, -q, then a key at dot 0: the turned key
 * gives -0, which turned nothing, the other arc, 2.6 off) and under a
 * folded parent (the turned globalInverse moved a sum of +4e-8 below 0).
 * On one channel (the prepared pairs), a 4-lane vector of three and two
 * time lines keyed as one, folded (a root under the turned
 * globalInverse) or not, every kernel. */
static void test_key_signs(void)
{
    enum { NODES = 4, KEYS = 4 };
    float chains[3][KEYS][4] = {
        {{0, 0, 0, 1}, {0, 0, 0, -1}, {1, 0, 0, 0}, {0, 0.6f, 0, 0.8f}},       /* turned, then dot exactly 0 */
        {{0, 0, 0, 1}, {0, 0.6f, 0, -0.8f}, {1, 0, 0, 0}, {0, 0, 0.6f, 0.8f}}, /* the same after a turned pair */
        {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}},             /* half a turn apart: filled below */
    };
    axis_angle(1, 0, 0, 0.2, chains[2][0]);
    axis_angle(1, 0, 0, 0.2 + M_PI, chains[2][1]);
    axis_angle(0, 1, 0, 0.7, chains[2][2]);
    axis_angle(0, 1, 0, 0.7 + M_PI, chains[2][3]);
    int parents[NODES] = {-1, 0, 1, 2}, bone_node[NODES] = {0, 1, 2, 3};
    mat4 rest[NODES], offsets[NODES];
    chain_rest(NODES, rest, offsets);
    for (int chain = 0; chain < 3; chain++)
        for (int shape = 0; shape < 3; shape++) /* one channel, a vector of three, two lines as one */
            for (int turned = 0; turned < 2; turned++) {
                int count = shape == 0 ? 1 : shape == 1 ? 3 : 2, node_channel[NODES] = {-1, -1, -1, -1};
                skv_vec3_key positions[3][KEYS], scales[3][KEYS];
                skv_quat_key rotations[3][KEYS];
                skv_channel ch[3];
                for (int c = 0; c < count; c++) {
                    for (int k = 0; k < KEYS; k++) {
                        /* two lines: the second's keys a quarter tick later (the union: 7 keys) */
                        double t = k + (shape == 2 && c == 1 ? 0.25 : 0.0);
                        positions[c][k] = (skv_vec3_key){t, {0.1f * (float)k, 1.0f, 0.0f}, 0.0f};
                        scales[c][k] = (skv_vec3_key){t, {1.0f, 1.0f + 0.1f * (float)k, 1.0f}, 0.0f};
                        rotations[c][k].time = t;
                        memcpy(rotations[c][k].value, chains[chain][k], sizeof rotations[c][k].value);
                    }
                    ch[c] = (skv_channel){.node = c, .position_count = KEYS, .rotation_count = KEYS,
                                          .scale_count = KEYS, .positions = positions[c],
                                          .rotations = rotations[c], .scales = scales[c]};
                    node_channel[c] = c;
                }
                skv_clip clip = {.duration_ticks = 3.5, .ticks_per_second = 1.0, .channel_count = count,
                                 .channels = ch, .node_channel = node_channel};
                skv_model model;
                model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
                if (turned) glm_rotate(model.global_inverse, 0.9f, (vec3){0.267261f, 0.534522f, 0.801784f});
                skv_walks *walks = compiled_walks(&model);
                skv_walk_stats st;
                walk_stats(walks_clip(walks, 0), &st);
                CHECK(st.folded == turned);
                if (shape == 0) CHECK(st.solo_terms == 1);
                if (shape == 1) CHECK(st.vector_palette);
                if (shape == 2) CHECK(st.merged == 2);
                char what[64];
                snprintf(what, sizeof what, "key signs: chain %d, shape %d, turned %d", chain, shape, turned);
                expect_every_kernel(walks, 224, NULL, what);
            }
}

/* The largest difference between pose_evaluate's palette and the
 * reference's over `frames` times i * step of clip c, each entry
 * relative to max(1, |the reference's|). */
static double palette_gap(skv_walks *walks, int c, int frames, double step)
{
    const skv_model *model = walks_model(walks);
    double worst = 0.0;
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &model->skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &model->skeleton) == SKV_OK);
    for (int i = 0; i < frames; i++) {
        pose_evaluate(&fast, walks, c, i * step);
        pose_evaluate_reference(&ref, model, c, i * step);
        for (int b = 0; b < model->skeleton.bone_count; b++)
            for (int k = 0; k < 16; k++)
                worst = fmax(worst, fabs(fast.palette[b][k / 4][k % 4] - ref.palette[b][k / 4][k % 4]) /
                                        fmax(1.0, fabs(ref.palette[b][k / 4][k % 4])));
    }
    pose_destroy(&fast), pose_destroy(&ref);
    return worst;
}

/* A one-channel walk's prepared pairs take up to 4 MiB (SOLO_TERMS_BYTES)
 * from a hundred keys where 100 palette entries hang on the moving node
 * (38.8 KB a pair, ~1500 times the keys' bytes); every clip of a file
 * has a walk of its own (a crowd with mixed clips compiles them all): 40
 * such clips took 154 MB, 300 took 1.16 GB (the walks before the
 * prepared pairs: 4.9 MB). The model's walks hold 32 MiB of pairs at
 * most (SOLO_MODEL_BYTES): 8 of these; the other clips' frames are
 * solo_palette's, as exact. */
static void test_solo_terms_budget(void)
{
    enum { NODES = 2, BONES = 100, KEYS = 100, CLIPS = 40 };
    int parents[NODES] = {-1, 0}, node_channel[NODES] = {-1, 0}, bone_node[BONES];
    mat4 rest[NODES];
    static mat4 offsets[BONES];
    for (int n = 0; n < NODES; n++) glm_mat4_identity(rest[n]);
    for (int b = 0; b < BONES; b++) {
        bone_node[b] = 1;
        glm_mat4_identity(offsets[b]);
        offsets[b][3][0] = (float)b;
    }
    static skv_vec3_key positions[1], scales[1];
    static skv_quat_key rotations[KEYS];
    positions[0] = (skv_vec3_key){0.0, {0.0f, 1.0f, 0.0f}, 0.0f};
    scales[0] = (skv_vec3_key){0.0, {1.0f, 1.0f, 1.0f}, 0.0f};
    for (int k = 0; k < KEYS; k++) {
        rotations[k].time = k;
        axis_angle(0.0f, 0.0f, 1.0f, 0.02 * k, rotations[k].value);
    }
    skv_channel ch = {.node = 1, .position_count = 1, .rotation_count = KEYS, .scale_count = 1,
                      .positions = positions, .rotations = rotations, .scales = scales};
    static skv_clip clips[CLIPS];
    for (int c = 0; c < CLIPS; c++)
        clips[c] = (skv_clip){.duration_ticks = KEYS, .ticks_per_second = 1.0, .channel_count = 1, .channels = &ch,
                              .node_channel = node_channel};
    skv_model model;
    model_of_clips(&model, clips, CLIPS, NODES, parents, rest, BONES, bone_node, offsets);
    skv_walks *walks = compiled_walks(&model);
    int prepared = 0;
    for (int c = 0; c < CLIPS; c++) {
        skv_walk_stats st;
        walk_stats(walks_clip(walks, c), &st);
        CHECK(st.solo_palette);
        prepared += st.solo_terms != 0;
    }
    printf("solo terms budget: %d of %d clips with prepared pairs (3.85 MB each)\n", prepared, CLIPS);
    CHECK(prepared >= 1 && prepared <= 8);
    /* The first clip (pairs prepared) and the last (none): the reference's palette. */
    CHECK(palette_gap(walks, 0, 200, 0.37) < 1e-5);
    CHECK(palette_gap(walks, CLIPS - 1, 200, 0.37) < 1e-5);
    walks_destroy(walks);
}

/* Groups whose rotation keys are all of unit length take prepared arcs
 * (walk_compile.c, prepare_arcs): one 4-lane vector (vector_palette) and a tree
 * of 20 (8 lanes and a tail); a key 1.01 long keeps the lanes' sampler.
 * Every case against the reference, on every kernel. */
/* test_walk_arcs' times: playback, then seeks. */
static double arc_test_time(int i)
{
    return i < 200 ? i * 0.13 : (i * 7919 % 230) * 0.1;
}

static void test_walk_arcs(void)
{
    enum { NODES = 21, KEYS = 24 };
    int parents[NODES], node_channel[NODES], bone_node[NODES];
    mat4 rest[NODES];
    static mat4 offsets[NODES];
    static skv_vec3_key positions[NODES - 1][KEYS], scales[NODES - 1][KEYS];
    static skv_quat_key rotations[NODES - 1][KEYS];
    skv_channel channels[NODES - 1];
    unsigned seed = 5;
    for (int n = 0; n < NODES; n++) {
        parents[n] = n == 0 ? -1 : (n - 1) / 2, node_channel[n] = n - 1; /* a tree 5 deep */
        bone_node[n] = n;
        glm_mat4_identity(rest[n]);
        glm_mat4_identity(offsets[n]);
        offsets[n][3][1] = -0.5f * (float)((n + 3) % 4);
    }
    for (int c = 0; c < NODES - 1; c++) {
        for (int k = 0; k < KEYS; k++) {
            positions[c][k] = (skv_vec3_key){k, {0.1f * frand(&seed), 0.5f, 0.1f * frand(&seed)}, 0.0f};
            scales[c][k] = (skv_vec3_key){k, {1.0f + 0.1f * frand(&seed), 1.0f, 1.0f}, 0.0f};
            rotations[c][k].time = k;
            axis_angle(0.6f, 0.0f, 0.8f, 0.4 * frand(&seed) + (c % 3 == 0 ? 0.9 * k : 0.0), rotations[c][k].value);
        }
        channels[c] = (skv_channel){.node = c + 1, .position_count = KEYS, .rotation_count = KEYS,
                                    .scale_count = KEYS, .positions = positions[c], .rotations = rotations[c],
                                    .scales = scales[c]};
    }
    /* 5-9 channels: vector_wide's 8 lanes and its tails (a helper's
     * review: sending 5-8 to vector_palette failed no test here). */
    static const int channel_counts[] = {3, 5, 8, 9, NODES - 1};
    for (int use = 0; use < 10; use++) {
        int moving = channel_counts[use / 2], longer = use % 2; /* a key 1.01 long */
        if (longer)
            for (int k = 0; k < 4; k++) rotations[1][7].value[k] *= 1.01f;
        skv_clip clip = {.duration_ticks = KEYS - 1, .ticks_per_second = 1.0, .channel_count = moving,
                         .channels = channels, .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, moving + 1, parents, rest, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        CHECK(st.grouped == moving && st.arc == (longer ? 0 : moving));
        /* Every count takes vector_palette or vector_wide, whatever this
         * CPU's sampler width (walk_compile.c, vector_frame_fits). */
        CHECK(st.vector_palette);
        double worst_global = 0.0, worst_crowd = 0.0;
        double worst = worst_on_every_kernel_globals(walks, 299, arc_test_time, &worst_global);
        /* A crowd's rows: frame_one on the walk's own lists. */
        skv_crowd crowd;
        skv_pose ref;
        CHECK(crowd_create(&crowd, walks, 11, 0, 0, 2) == SKV_OK);
        CHECK(pose_create(&ref, &model.skeleton) == SKV_OK);
        for (int f = 0; f < 30; f++) worst_crowd = fmax(worst_crowd, crowd_worst_at(&crowd, &model, &ref, f * 0.91));
        pose_destroy(&ref);
        crowd_destroy(&crowd);
        printf("walk arcs: %d channels%s, %d on arcs, %d leaves, max palette difference from the reference %.2g, "
               "globals %.2g, a crowd's %.2g\n",
               moving, longer ? " (a key 1.01 long)" : "", st.arc, st.leaves, worst, worst_global, worst_crowd);
        CHECK(worst < 1e-5 && worst_global < 1e-5 && worst_crowd < 1e-5);
        if (longer)
            for (int k = 0; k < 4; k++) rotations[1][7].value[k] /= 1.01f;
        walks_destroy(walks);
    }
}

/* One channel's prepared pairs (kernels.h, solo_frame) take keys as
 * unit to KERNELS_UNIT_KEY, as the arcs do (kernels_arc_pair): the
 * reference blends keys at their lengths. Keys 1.4 rad apart and 1 -+
 * 8e-7 long, taken as unit (to 1e-6 until 2026-11-25), were 4.9e-6 from
 * it on this palette (offsets of 3); solo_frame_weighted, which follows
 * them, is 1.7e-6 from it, solo_frame on keys 1 -+ 3e-7 long 2.3e-6 and
 * on unit keys 1.4e-6. */
static void test_solo_unit_tolerance(void)
{
    enum { NODES = 2, KEYS = 12 };
    /* model_of_clip makes every node a bone: the bone of node 0 has no
     * node (-1). */
    int parents[NODES] = {-1, 0}, node_channel[NODES] = {-1, 0}, bone_node[NODES] = {1, -1};
    mat4 rest[NODES], offsets[NODES];
    static skv_vec3_key positions[KEYS], scales[KEYS];
    static skv_quat_key rotations[KEYS];
    for (int n = 0; n < NODES; n++) glm_mat4_identity(rest[n]), glm_mat4_identity(offsets[n]);
    offsets[0][3][0] = 3.0f, offsets[0][3][1] = -3.0f, offsets[0][3][2] = 3.0f;
    for (int use = 0; use < 3; use++) {
        /* 1 - 8e-7 and 1 + 8e-7 alternately; 3e-7 (unit); exactly unit */
        float off = use == 0 ? 8e-7f : use == 1 ? 3e-7f : 0.0f;
        for (int k = 0; k < KEYS; k++) {
            positions[k] = (skv_vec3_key){k, {0.0f, 1.0f, 0.0f}, 0.0f};
            scales[k] = (skv_vec3_key){k, {1.0f, 1.0f, 1.0f}, 0.0f};
            rotations[k].time = k;
            axis_angle(0.6f, 0.0f, 0.8f, 2.8 * k, rotations[k].value);
            double len = 0.0;
            for (int c = 0; c < 4; c++) len += (double)rotations[k].value[c] * rotations[k].value[c];
            float scale = (float)((k % 2 ? 1.0 + off : 1.0 - off) / sqrt(len));
            for (int c = 0; c < 4; c++) rotations[k].value[c] *= scale;
        }
        skv_channel channel = {.node = 1, .position_count = KEYS, .rotation_count = KEYS, .scale_count = KEYS,
                               .positions = positions, .rotations = rotations, .scales = scales};
        skv_clip clip = {.duration_ticks = KEYS - 1, .ticks_per_second = 1.0, .channel_count = 1,
                         .channels = &channel, .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        double worst = worst_on_every_kernel(walks, 299, arc_test_time);
        printf("one channel, keys 1 -+ %.1g long: solo_frame%s, max palette difference from the reference %.2g\n",
               off, st.solo_terms == 2 ? "_weighted" : "", worst);
        CHECK(st.solo_terms == (use == 0 ? 2 : 1));
        CHECK(worst < 3e-6);
        walks_destroy(walks);
    }
}

/* Prepared arcs have a budget of their own per model (walk_compile.c,
 * ARC_MODEL_BYTES): clips of 16 channels and 2,900 keys (3.9 MB of arcs
 * each) get arcs until it is spent, and a one-channel clip compiled
 * after them still gets its prepared pairs (when arcs were charged to
 * the pairs' budget, it did not: a helper's review). Their T and S never
 * move: the arcs are compacted (1.7 MB each), counted at the full size
 * (which clips get arcs is what it was before compaction), and the
 * clips past the budget have their keys compacted instead. */
static void test_arc_budget(void)
{
    enum { NODES = 17, KEYS = 2900, BIG = 10, BONES = 16 };
    static int parents[NODES], node_channel[NODES], solo_channel[NODES], bone_node[BONES];
    static mat4 rest[NODES], offsets[BONES];
    static skv_vec3_key positions[BONES][KEYS], scales[BONES][KEYS];
    static skv_quat_key rotations[BONES][KEYS];
    static skv_channel channels[BONES], solo;
    static skv_clip clips[BIG + 1];
    for (int n = 0; n < NODES; n++) {
        parents[n] = n ? 0 : -1, node_channel[n] = n - 1, solo_channel[n] = n == 1 ? 0 : -1;
        glm_mat4_identity(rest[n]);
    }
    for (int b = 0; b < BONES; b++) {
        bone_node[b] = 1 + b;
        glm_mat4_identity(offsets[b]);
        for (int k = 0; k < KEYS; k++) {
            positions[b][k] = (skv_vec3_key){k, {0.0f, 1.0f, 0.0f}, 0.0f};
            scales[b][k] = (skv_vec3_key){k, {1.0f, 1.0f, 1.0f}, 0.0f};
            rotations[b][k].time = k;
            axis_angle(0.0f, 0.0f, 1.0f, 0.01 * k + b, rotations[b][k].value);
        }
        channels[b] = (skv_channel){.node = b + 1, .position_count = KEYS, .rotation_count = KEYS, .scale_count = KEYS,
                                    .positions = positions[b], .rotations = rotations[b], .scales = scales[b]};
    }
    for (int c = 0; c < BIG; c++)
        clips[c] = (skv_clip){.duration_ticks = KEYS - 1, .ticks_per_second = 1.0, .channel_count = BONES,
                              .channels = channels, .node_channel = node_channel};
    /* 2,900 keys: 2.4 MB of pairs, more than the 2.4 MB the arcs of 8
     * clips would leave of the pairs' budget if they were charged to it. */
    solo = channels[0];
    solo.position_count = solo.scale_count = 1;
    clips[BIG] = (skv_clip){.duration_ticks = KEYS - 1, .ticks_per_second = 1.0, .channel_count = 1,
                            .channels = &solo, .node_channel = solo_channel};
    skv_model model;
    model_of_clips(&model, clips, BIG + 1, NODES, parents, rest, BONES, bone_node, offsets);
    skv_walks *walks = compiled_walks(&model);
    int with_arcs = 0;
    for (int c = 0; c < BIG; c++) {
        skv_walk_stats st;
        walk_stats(walks_clip(walks, c), &st);
        CHECK(st.arc == 0 || st.arc == BONES);
        CHECK(st.arc == 0 || c == with_arcs); /* the first clips, while the budget lasts */
        CHECK(st.compact == BONES); /* arcs or keys */
        /* compacted arcs: 9 floats a lane a pair, 16 lanes */
        CHECK(st.arc == 0 || (st.key_bytes > (KEYS - 1) * 9 * BONES * sizeof(float) &&
                              st.key_bytes < (KEYS - 1) * (9 * BONES + 8) * sizeof(float) + KEYS * 20 + 1024));
        with_arcs += st.arc == BONES;
    }
    skv_walk_stats st;
    walk_stats(walks_clip(walks, BIG), &st);
    printf("arc budget: %d of %d clips with prepared arcs (3.9 MB each), %zu bytes; the one-channel clip's pairs %s\n",
           with_arcs, BIG, walks->held.arcs, st.solo_terms ? "prepared" : "not prepared");
    CHECK(with_arcs >= 1 && with_arcs < BIG && walks->held.arcs <= (size_t)32 << 20);
    CHECK(walks->held.arcs == (size_t)with_arcs * (KEYS - 1) * SKV_ARC_FLOATS(1) * sizeof(float));
    CHECK(st.solo_palette && st.solo_terms == 1);
    /* A clip past the budget samples its keys, one with arcs its arcs: both the reference's poses. */
    CHECK(palette_gap(walks, 0, 100, 27.3) < 1e-5);
    CHECK(palette_gap(walks, BIG - 1, 100, 27.3) < 1e-5);
    CHECK(walks_forget(walks) == SKV_OK);
    CHECK(walks->held.arcs == 0 && walks->held.terms == 0);
    walks_destroy(walks);
}

/* Time lines keyed as one past three times their keys (walk_compile.c,
 * merge_time_lines): 4 channels on 4 lines that share no time, 400 keys
 * each, are one group of 1,600 keys (1,024,000 bytes, within
 * MERGE_GROUP_BYTES); 500 keys each (1.28 MB, the first clip, while the
 * model's budget is whole) stay 4 groups; a model's such merges stop at
 * MERGE_MODEL_BYTES (32 of the next 33 clips), and every clip poses as
 * the reference does either way. */
static void test_merge_budget(void)
{
    enum { NODES = 5, CH = 4, KEYS = 400, MORE = 500, CLIPS = 33 };
    static int parents[NODES], node_channel[NODES], bone_node[CH];
    static mat4 rest[NODES], offsets[CH];
    static skv_vec3_key positions[CH][MORE], scales[CH][MORE];
    static skv_quat_key rotations[CH][MORE];
    static skv_channel channels[CH], longer[CH];
    static skv_clip clips[CLIPS + 1];
    for (int n = 0; n < NODES; n++) {
        parents[n] = n ? n - 1 : -1, node_channel[n] = n - 1;
        glm_mat4_identity(rest[n]);
        rest[n][3][1] = 0.5f;
    }
    for (int b = 0; b < CH; b++) {
        bone_node[b] = 1 + b;
        glm_mat4_identity(offsets[b]);
        offsets[b][3][1] = -0.5f * (float)(b + 1);
        for (int k = 0; k < MORE; k++) {
            double t = k + 0.25 * b; /* line b: its own times */
            positions[b][k] = (skv_vec3_key){t, {0.1f * (float)(k % 3), 0.5f, 0.0f}, 0.0f};
            scales[b][k] = (skv_vec3_key){t, {1.0f, 1.0f + 0.01f * (float)(k % 5), 1.0f}, 0.0f};
            rotations[b][k].time = t;
            axis_angle(0.6f, 0.0f, 0.8f, 0.3 * sin(0.1 * k + b), rotations[b][k].value);
        }
        channels[b] = (skv_channel){.node = b + 1, .position_count = KEYS, .rotation_count = KEYS, .scale_count = KEYS,
                                    .positions = positions[b], .rotations = rotations[b], .scales = scales[b]};
        longer[b] = channels[b];
        longer[b].position_count = longer[b].rotation_count = longer[b].scale_count = MORE;
    }
    clips[0] = (skv_clip){.duration_ticks = MORE, .ticks_per_second = 1.0, .channel_count = CH,
                          .channels = longer, .node_channel = node_channel};
    for (int c = 1; c <= CLIPS; c++)
        clips[c] = (skv_clip){.duration_ticks = KEYS, .ticks_per_second = 1.0, .channel_count = CH,
                              .channels = channels, .node_channel = node_channel};
    skv_model model;
    model_of_clips(&model, clips, CLIPS + 1, NODES, parents, rest, CH, bone_node, offsets);
    skv_walks *walks = compiled_walks(&model);
    skv_walk_stats st;
    walk_stats(walks_clip(walks, 0), &st);
    int merged = 0;
    for (int c = 1; c <= CLIPS; c++) {
        skv_walk_stats clip_st;
        walk_stats(walks_clip(walks, c), &clip_st);
        CHECK(clip_st.merged == 0 || (clip_st.merged == CH && clip_st.groups == 1 && c == merged + 1)); /* the first, while it lasts */
        merged += clip_st.merged == CH;
    }
    printf("merge budget: %d of %d clips keyed as one (4 lines, 1,600 times, 1,024,000 bytes each), %zu bytes; "
           "1,280,000 bytes: %d groups\n", merged, CLIPS, walks->held.merges, st.groups);
    CHECK(merged == 32 && walks->held.merges == (size_t)32 * 1600 * SKV_KEY_FLOATS(1) * sizeof(float));
    CHECK(st.merged == 0 && st.groups == CH);
    CHECK(palette_gap(walks, 0, 200, 2.3) < 1e-5);
    CHECK(palette_gap(walks, 1, 200, 1.7) < 1e-5);
    CHECK(palette_gap(walks, CLIPS, 200, 1.7) < 1e-5);
    CHECK(walks_forget(walks) == SKV_OK);
    CHECK(walks->held.merges == 0);
    walks_destroy(walks);
}

/* Time lines keyed as one where rotation keys are written to six decimals
 * (the X exporters': Testwuson.X, BCN_Epileptic.X), |q|^2 up to 2e-6 off
 * 1, which merge_time_lines took as not unit until 2026-11-26 (Wuson_Walk
 * stayed 11 groups: seeks 1.5x playback); keys further off (|q|^2 1 +
 * 4e-6) stay on their lines. And the lane blocks: one channel on a line
 * of its own beside a line of 16 stays apart (BCN: a second block of 15
 * padding lanes cost more than the one-channel sampler), two such
 * channels (on one line or two) are keyed with it, and one beside 15
 * channels joins their block. Every clip poses as the reference does. */
static void test_merge_six_decimals(void)
{
    enum { CH = 18, NODES = CH + 1, KEYS = 40, CLIPS = 6 };
    static int parents[NODES], bone_node[CH];
    static mat4 rest[NODES], offsets[CH];
    static skv_vec3_key positions[CH][KEYS], scales[CH][KEYS];
    static skv_quat_key rotations[CH][KEYS], longer[CH][KEYS];
    static skv_channel channels[CLIPS][CH];
    static int node_channel[CLIPS][NODES];
    static skv_clip clips[CLIPS];
    /* Per clip: its channels, and the line of each (the rest on line 0). */
    static const struct {
        int count, lines[3], longer, merged, groups;
    } cases[CLIPS] = {
        {3, {0, 1, 2}, 0, 3, 1},  /* six decimals: keyed as one */
        {3, {0, 1, 2}, 1, 0, 3},  /* |q|^2 1 + 4e-6: three lines */
        {17, {0, 1, -1}, 0, 0, 2}, /* 16 + 1: stays apart */
        {18, {0, 1, 2}, 0, 3, 1}, /* 16 + 1 + 1: one group */
        {16, {0, 1, -1}, 0, 2, 1}, /* 15 + 1: one block */
        {18, {0, 1, 1}, 0, 2, 1}, /* 16 + 2: one group (two lines, neither of one channel) */
    };
    for (int n = 0; n < NODES; n++) { /* every bone on the root: a bone's gap is its own channel's */
        parents[n] = n ? 0 : -1;
        glm_mat4_identity(rest[n]);
        rest[n][3][1] = 0.5f;
    }
    double worst_len2 = 0.0;
    for (int b = 0; b < CH; b++) {
        bone_node[b] = 1 + b;
        glm_mat4_identity(offsets[b]);
        offsets[b][3][1] = -1.0f;
        for (int k = 0; k < KEYS; k++) {
            positions[b][k] = (skv_vec3_key){k, {0.1f * (float)(k % 3), 0.5f, 0.0f}, 0.0f};
            scales[b][k] = (skv_vec3_key){k, {1.0f, 1.0f + 0.01f * (float)(k % 5), 1.0f}, 0.0f};
            rotations[b][k].time = longer[b][k].time = k;
            /* Up to 0.7 rad from one key to the next (the reference's acos
             * branch), each component then written to six decimals. */
            axis_angle(0.48f, 0.6f, 0.64f, 0.8 * sin(0.9 * k + b) + 0.1 * b, rotations[b][k].value);
            double len2 = 0.0;
            for (int c = 0; c < 4; c++) {
                float *v = &rotations[b][k].value[c];
                *v = (float)(nearbyint(*v * 1e6) / 1e6);
                len2 += (double)*v * *v;
            }
            worst_len2 = fmax(worst_len2, fabs(len2 - 1.0));
            for (int c = 0; c < 4; c++)
                longer[b][k].value[c] = (float)(rotations[b][k].value[c] * sqrt((1.0 + 4e-6) / len2));
        }
    }
    for (int c = 0; c < CLIPS; c++) {
        for (int n = 0; n < NODES; n++) node_channel[c][n] = n - 1 < cases[c].count ? n - 1 : -1;
        for (int b = 0; b < cases[c].count; b++) {
            /* Three channels: the lines given; more: the last on lines[1],
             * the one before it on lines[2] where that is a line. */
            int line = cases[c].count == 3 ? cases[c].lines[b]
                     : b == cases[c].count - 1 ? cases[c].lines[1]
                     : b == cases[c].count - 2 && cases[c].lines[2] > 0 ? cases[c].lines[2] : 0;
            /* Line L > 0 leaves out the keys k = 1 mod (2 + L): times of its
             * own, on line 0's grid (as Wuson_Walk's lines). */
            static skv_vec3_key lpos[CLIPS][CH][KEYS], lscale[CLIPS][CH][KEYS];
            static skv_quat_key lrot[CLIPS][CH][KEYS];
            int keys = 0;
            for (int k = 0; k < KEYS; k++) {
                if (line > 0 && k % (2 + line) == 1) continue;
                lpos[c][b][keys] = positions[b][k], lscale[c][b][keys] = scales[b][k];
                lrot[c][b][keys] = cases[c].longer ? longer[b][k] : rotations[b][k];
                keys++;
            }
            channels[c][b] = (skv_channel){.node = b + 1, .position_count = keys, .rotation_count = keys,
                                           .scale_count = keys, .positions = lpos[c][b], .rotations = lrot[c][b],
                                           .scales = lscale[c][b]};
        }
        clips[c] = (skv_clip){.duration_ticks = KEYS - 1, .ticks_per_second = 1.0, .channel_count = cases[c].count,
                              .channels = channels[c], .node_channel = node_channel[c]};
    }
    skv_model model;
    model_of_clips(&model, clips, CLIPS, NODES, parents, rest, CH, bone_node, offsets);
    skv_walks *walks = compiled_walks(&model);
    printf("six decimals: keys' |q|^2 up to %.2g off 1\n", worst_len2);
    CHECK(worst_len2 > 1e-6 && worst_len2 <= 2e-6); /* past the old bound, within six decimals' */
    for (int c = 0; c < CLIPS; c++) {
        skv_walk_stats st;
        walk_stats(walks_clip(walks, c), &st);
        double gap = palette_gap(walks, c, 400, 0.1);
        printf("six decimals clip %d: %d channels, %d lines keyed as one, %d groups; palette gap %.2g\n", c,
               cases[c].count, st.merged, st.groups, gap);
        CHECK(st.merged == cases[c].merged && st.groups == cases[c].groups);
        CHECK(gap < 1e-5);
    }
    walks_destroy(walks);
}

/* A chain of `chain` bones about one axis, each key `step` radians of
 * rotation from the last, |q|^2 alternately 1 - off and 1 + off, and a
 * channel on the root keyed `shift` ticks after each of their keys (2
 * apart): keyed as one, every chain bone takes a key in every segment.
 * The same chain is posed again with that channel's keys 1e-5 off unit,
 * which keeps the lines apart. Returns the palette's gap from the
 * reference merged, and sets *apart to the lines-apart gap. */
static double merge_chain_gap(int chain, double step, double off, double shift, double *apart)
{
    enum { MAX_CHAIN = 8, CH = MAX_CHAIN + 1, NODES = CH + 1, KEYS = 21 };
    static int parents[NODES], bone_node[CH], node_channel[NODES];
    static mat4 rest[NODES], offsets[CH];
    static skv_vec3_key positions[CH][KEYS], scales[CH][KEYS];
    static skv_quat_key rotations[CH][KEYS];
    static skv_channel channels[CH];
    int ch_count = chain + 1, nodes = ch_count + 1;
    double gaps[2];
    for (int pass = 0; pass < 2; pass++) {
        for (int n = 0; n < nodes; n++) {
            parents[n] = n == 0 ? -1 : n <= chain ? n - 1 : 0; /* nodes 1..chain a chain, the last on the root */
            glm_mat4_identity(rest[n]);
            rest[n][3][1] = 0.5f;
            node_channel[n] = n - 1;
        }
        for (int b = 0; b < ch_count; b++) {
            bone_node[b] = b + 1;
            glm_mat4_identity(offsets[b]);
            offsets[b][3][0] = 1.0f;
            int other = b == chain; /* the root's channel: keyed between the chain's keys */
            for (int k = 0; k < KEYS; k++) {
                double t = 2 * k + (other ? shift : 0.0);
                positions[b][k] = (skv_vec3_key){t, {0.0f, 0.5f, 0.0f}, 0.0f};
                scales[b][k] = (skv_vec3_key){t, {1.0f, 1.0f, 1.0f}, 0.0f};
                rotations[b][k].time = t;
                axis_angle(0.0f, 0.0f, 1.0f, other ? 0.1 * k : k * step, rotations[b][k].value);
                double want = other ? (pass ? 1.0 + 1e-5 : 1.0) : k % 2 ? 1.0 + off : 1.0 - off;
                float *q = rotations[b][k].value;
                double len2 = 0.0;
                for (int c = 0; c < 4; c++) len2 += (double)q[c] * q[c];
                for (int c = 0; c < 4; c++) q[c] = (float)(q[c] * sqrt(want / len2));
            }
            channels[b] = (skv_channel){.node = b + 1, .position_count = KEYS, .rotation_count = KEYS,
                                        .scale_count = KEYS, .positions = positions[b], .rotations = rotations[b],
                                        .scales = scales[b]};
        }
        skv_clip clip = {.duration_ticks = 2 * KEYS, .ticks_per_second = 1.0, .channel_count = ch_count,
                         .channels = channels, .node_channel = node_channel};
        skv_model model;
        model_of_clips(&model, &clip, 1, nodes, parents, rest, ch_count, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        CHECK(pass ? st.merged == 0 && st.groups == 2 : st.merged == 2 && st.groups == 1);
        gaps[pass] = fmax(palette_gap(walks, 0, 8 * KEYS, 0.25), palette_gap(walks, 0, 400, 0.1));
        walks_destroy(walks);
    }
    *apart = gaps[1];
    return gaps[0];
}

/* Keys a merge adds, on a chain where each one counts (merge_chain_gap):
 * - Keys within UNIT_LEN2_OFF of unit, 170 degrees apart (|q|^2 1 -+
 *   2.3e-6), a key added midway: the reference's curve is up to ~tau
 *   radians off the unit keys' arc there. Added on the arc (as until the
 *   review of 2026-11-26) six bones were 2.3e-5 from the reference; on
 *   the reference's own curve (quat_value_at) 3.5e-6, as apart (3.9e-6).
 * - Unit keys 3.6 degrees apart (dot product 0.9995008, just inside the
 *   reference's nlerp), a key added a quarter of the way: on the nlerp
 *   curve eight bones were 2.4e-5 from the reference (the lanes slerp
 *   into and out of it); on the slerp arc 1.8e-5, as apart. (That 1.8e-5
 *   is the reference's nlerp against the lanes' slerp, summed along the
 *   chain: the reference's own approximation.)
 * - Keys a quarter turn apart as quaternions (a half turn of rotation)
 *   whose float dot product is 1.5e-8, a key added 1e-9 after the first:
 *   its dot product with the second key falls on the other side of 0, and
 *   signing the added key by it sent the lane the long way round (1.67 of
 *   the palette); fill_group_keys signs it by its segment's first key. */
static void test_merge_near_keys(void)
{
    double apart, gap = merge_chain_gap(6, 170.0 * M_PI / 180.0, 2.3e-6, 1.0, &apart);
    printf("merge, half turns: palette gap %.2g keyed as one, %.2g apart (6 bones, keys 170 degrees apart at 1 -+ "
           "2.3e-6)\n", gap, apart);
    CHECK(gap < 8e-6 && gap <= 1.05 * apart + 1e-7);
    gap = merge_chain_gap(8, 2.0 * acos(0.9995008), 0.0, 0.5, &apart);
    printf("merge, near keys: palette gap %.2g keyed as one, %.2g apart (8 bones, keys 3.6 degrees apart)\n", gap,
           apart);
    CHECK(gap <= 1.05 * apart + 1e-7);

    int parents[3] = {-1, 0, 0}, node_channel[3] = {-1, 0, 1}, bone_node[3] = {0, 1, 2};
    mat4 rest[3], offsets[3];
    for (int n = 0; n < 3; n++) glm_mat4_identity(rest[n]), glm_mat4_identity(offsets[n]), offsets[n][3][0] = 1.0f;
    const float a[4] = {0.034514229744672775f, 0.5080028176307678f, 0.6790691614151001f, -0.5287788510322571f};
    const float b[4] = {-0.32721543312072754f, -0.7984181642532349f, 0.4708543121814728f, -0.18372449278831482f};
    skv_vec3_key t0[3], s0[3], t1[3], s1[3];
    skv_quat_key r0[3], r1[3];
    const double times0[3] = {0.0, 1.0, 2.0}, times1[3] = {0.0, 1e-9, 2.0};
    for (int k = 0; k < 3; k++) {
        t0[k] = (skv_vec3_key){times0[k], {0.0f, 1.0f, 0.0f}, 0.0f}, s0[k] = (skv_vec3_key){times0[k], {1, 1, 1}, 0.0f};
        t1[k] = (skv_vec3_key){times1[k], {0.0f, 1.0f, 0.0f}, 0.0f}, s1[k] = (skv_vec3_key){times1[k], {1, 1, 1}, 0.0f};
        r0[k].time = times0[k];
        memcpy(r0[k].value, k == 0 ? a : b, sizeof a);
        r1[k].time = times1[k];
        axis_angle(0.0f, 0.0f, 1.0f, 0.2 * k, r1[k].value);
    }
    skv_channel channels[2] = {
        {.node = 1, .position_count = 3, .rotation_count = 3, .scale_count = 3, .positions = t0, .rotations = r0,
         .scales = s0},
        {.node = 2, .position_count = 3, .rotation_count = 3, .scale_count = 3, .positions = t1, .rotations = r1,
         .scales = s1}};
    skv_clip clip = {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = 2, .channels = channels,
                     .node_channel = node_channel};
    skv_model model;
    model_of_clips(&model, &clip, 1, 3, parents, rest, 3, bone_node, offsets);
    skv_walks *walks = compiled_walks(&model);
    skv_walk_stats st;
    walk_stats(walks_clip(walks, 0), &st);
    float fd = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    gap = palette_gap(walks, 0, 200, 0.01);
    printf("merge, a quarter turn apart: keys' float dot product %.2g, %d lines keyed as one; palette gap %.2g\n",
           (double)fd, st.merged, gap);
    CHECK(fabsf(fd) < 1e-7f && st.merged == 2);
    CHECK(gap < 1e-5);
    walks_destroy(walks);
}

/* A clip where nothing moves (every channel keyed once: Testwuson's
 * Wuson_Bind, the HL1 idles): its frame forms nothing (walk.c,
 * frame_still; 31 Ir a frame against the general frame's 92-97), its
 * palette is the fixed entries, its globals pose_globals' deferred ones;
 * every kernel, a crowd's rows too, switching to a moving clip and back. */
static void test_still_clip(void)
{
    enum { NODES = 4 };
    int parents[NODES] = {-1, 0, 1, 1}, bone_node[NODES] = {0, 1, 2, 3}, node_channel[NODES] = {0, 1, 2, -1};
    mat4 rest[NODES], offsets[NODES];
    unsigned seed = 4242;
    for (int n = 0; n < NODES; n++) random_node(rest[n], offsets[n], &seed);
    skv_vec3_key t[3][2], sc[3][2];
    skv_quat_key r[3][2];
    skv_channel still[3], moving[3];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 2; i++) {
            t[k][i] = (skv_vec3_key){i * 2.0, {frand(&seed), frand(&seed), frand(&seed)}, 0.0f};
            sc[k][i] = (skv_vec3_key){i * 2.0, {1.0f + 0.3f * frand(&seed), 1.0f, 1.0f}, 0.0f};
            r[k][i].time = i * 2.0;
            axis_angle(0.0f, 0.6f, 0.8f, 0.7 * frand(&seed), r[k][i].value);
        }
        still[k] = (skv_channel){.node = k, .position_count = 1, .rotation_count = 1, .scale_count = 1,
                                 .positions = t[k], .rotations = r[k], .scales = sc[k]};
        moving[k] = still[k];
        moving[k].position_count = moving[k].rotation_count = moving[k].scale_count = 2;
    }
    skv_clip clips[2] = {
        {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = 3, .channels = still, .node_channel = node_channel},
        {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = 3, .channels = moving, .node_channel = node_channel},
    };
    skv_model model;
    model_of_clips(&model, clips, 2, NODES, parents, rest, NODES, bone_node, offsets);
    glm_translate_make(model.global_inverse, (vec3){0.2f, 0.5f, -1.0f});
    skv_walks *walks = compiled_walks(&model);
    skv_walk_stats st, st_moving;
    walk_stats(walks_clip(walks, 0), &st);
    walk_stats(walks_clip(walks, 1), &st_moving);
    CHECK(st.still && st.moving == 0 && !st_moving.still);
    double worst = 0.0, worst_global = 0.0;
    for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        skv_pose fast, ref;
        if (!kernel_poses(&model.skeleton, kernel, &fast, &ref)) continue;
        for (int i = 0; i < 60; i++) {
            int clip = i % 20 < 15 ? 0 : 1; /* the still clip, a moving one, the still one again */
            double time = 0.05 + i * 0.137;
            pose_evaluate(&fast, walks, clip, time);
            pose_evaluate_reference(&ref, &model, clip, time);
            for (int b = 0; b < NODES; b++)
                for (int k = 0; k < 16; k++)
                    worst = fmax(worst, fabs(fast.palette[b][k / 4][k % 4] - ref.palette[b][k / 4][k % 4]));
            if (i % 2 == 0) {
                const mat4 *g = pose_globals(&fast);
                for (int n = 0; n < NODES; n++) {
                    mat4 expect;
                    glm_mat4_mul(model.global_inverse, ref.global[n], expect);
                    for (int k = 0; k < 16; k++) worst_global = fmax(worst_global, fabs(g[n][k / 4][k % 4] - expect[k / 4][k % 4]));
                }
            }
        }
        pose_destroy(&fast), pose_destroy(&ref);
    }
    printf("still clip: palettes %.2g, globals %.2g from the reference\n", worst, worst_global);
    CHECK(worst < 1e-5 && worst_global < 1e-5);
    walks_destroy(walks);
}

/* Channels whose keys never change (every key of T, R and S bitwise the
 * first, as many exporters write joints that hold still): posed once per
 * clip like a channel of one key, none of them sampled a frame, their
 * keys not stored; linear, step and cubic (tangents 0) arrays, a
 * rotation not of unit length (the reference normalises it), beside a
 * channel that moves and one whose tangents make it move. */
static void test_held_channels(void)
{
    enum { NODES = 4, KEYS = 5 };
    int parents[NODES] = {-1, 0, 1, 1}, bone_node[NODES] = {0, 1, 2, 3}, node_channel[NODES] = {0, 1, 2, 3};
    mat4 rest[NODES], offsets[NODES];
    unsigned seed = 5151;
    for (int n = 0; n < NODES; n++) random_node(rest[n], offsets[n], &seed);
    skv_vec3_key t[NODES][KEYS], sc[NODES][KEYS];
    skv_quat_key r[NODES][KEYS];
    float zero_tangents[KEYS * 8] = {0}, tangents[KEYS * 8];
    for (int k = 0; k < KEYS * 8; k++) tangents[k] = 0.25f;
    skv_channel held[NODES], mixed[NODES];
    for (int n = 0; n < NODES; n++) {
        float tv[3] = {frand(&seed), frand(&seed), frand(&seed)}, sv[3] = {1.0f + 0.3f * frand(&seed), 1.0f, 0.8f};
        float q[4];
        axis_angle(0.6f, 0.0f, 0.8f, 0.9 * frand(&seed), q);
        for (int c = 0; c < 4; c++) q[c] *= n == 1 ? 1.3f : 1.0f; /* not unit: the reference normalises it */
        for (int i = 0; i < KEYS; i++) {
            t[n][i] = (skv_vec3_key){i * 0.5, {tv[0], tv[1], tv[2]}, 0.0f};
            sc[n][i] = (skv_vec3_key){i * 0.5, {sv[0], sv[1], sv[2]}, 0.0f};
            r[n][i].time = i * 0.5;
            memcpy(r[n][i].value, q, sizeof q);
        }
        held[n] = (skv_channel){.node = n, .position_count = KEYS, .rotation_count = KEYS, .scale_count = KEYS,
                                .positions = t[n], .rotations = r[n], .scales = sc[n]};
    }
    held[2].rotation_mode = 1;       /* step */
    held[3].position_mode = held[3].rotation_mode = held[3].scale_mode = 2; /* cubic, tangents 0 */
    held[3].position_tangents = held[3].scale_tangents = held[3].rotation_tangents = zero_tangents;
    memcpy(mixed, held, sizeof held);
    static skv_quat_key turning[KEYS];
    for (int i = 0; i < KEYS; i++) {
        turning[i].time = i * 0.5;
        axis_angle(0.0f, 1.0f, 0.0f, 0.4 * i, turning[i].value);
    }
    mixed[0].rotations = turning;           /* moves */
    mixed[3].rotation_tangents = tangents;  /* equal keys, but the tangents move it */
    skv_clip clips[2] = {
        {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = NODES, .channels = held, .node_channel = node_channel},
        {.duration_ticks = 2.0, .ticks_per_second = 1.0, .channel_count = NODES, .channels = mixed, .node_channel = node_channel},
    };
    skv_model model;
    model_of_clips(&model, clips, 2, NODES, parents, rest, NODES, bone_node, offsets);
    skv_walks *walks = compiled_walks(&model);
    skv_walk_stats st, st_mixed;
    walk_stats(walks_clip(walks, 0), &st);
    walk_stats(walks_clip(walks, 1), &st_mixed);
    printf("held channels: %d moving (%zu bytes of keys), mixed: %d moving\n", st.moving, st.key_bytes,
           st_mixed.moving);
    CHECK(st.still && st.moving == 0 && st.key_bytes == 0);
    CHECK(st_mixed.moving == 2);
    double worst = 0.0;
    for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        skv_pose fast, ref;
        if (!kernel_poses(&model.skeleton, kernel, &fast, &ref)) continue;
        for (int i = 0; i < 80; i++) {
            int clip = (i / 10) % 2;
            double time = -0.3 + i * 0.071;
            pose_evaluate(&fast, walks, clip, time);
            pose_evaluate_reference(&ref, &model, clip, time);
            for (int b = 0; b < NODES; b++)
                for (int k = 0; k < 16; k++)
                    worst = fmax(worst, fabs(fast.palette[b][k / 4][k % 4] - ref.palette[b][k / 4][k % 4]));
        }
        pose_destroy(&fast), pose_destroy(&ref);
    }
    printf("held channels: palettes %.2g from the reference\n", worst);
    CHECK(worst < 1e-5);
    walks_destroy(walks);
}

/* Compacted keys (kernels.h, skv_compact): groups past 4 channels whose
 * S never changes and whose T does in at most a few channels keep only
 * their rotations per key, the moving T's patched in after the lanes;
 * every kernel against the reference, on lane counts that end a vector,
 * fill it, and leave AVX-512's last 8 lanes to AVX2 (21: stride 24), the
 * moving T on the first channel, the last (the padding lanes repeat it),
 * both, a middle one, or none; one group (vector_wide) and two time
 * lines (the general frame, rotations not of unit length: neither arcs
 * nor a merge). A channel whose S moves keeps the full keys. With unit
 * rotation keys the group goes on arcs, compacted the same way (kernels.h,
 * SKV_CARC_M: sample_arc_compact) where the keys would be past 8
 * channels, else full; a crowd's rows too (frame_one, pose_group_at). */
static double compact_time(int i)
{
    return i < 40 ? i / 16.0 : (double)((i * 7919) % 997) / 997.0 * 3.3 - 0.1; /* playback, then seeks */
}

static void test_compact_keys(void)
{
    enum { MOST = 33, KEYS = 7 };
    static const int sizes[] = {5, 8, 9, 17, 21, 24, 33};
    for (int size = 0; size < (int)(sizeof sizes / sizeof *sizes); size++)
        for (int use = 0; use < 7; use++)
            for (int unit = 0; unit < 2; unit++) {
            int n = sizes[size];
            /* use 0: T moves on the first channel; 1: on the last; 2: on
             * both; 3: S moves on one; 4: two time lines, T on the first
             * (not unit: unit keys would merge); 5: T on a middle
             * channel; 6: no T moves. */
            if (use == 4 && unit) continue;
            int parents[MOST], bone_node[MOST], node_channel[MOST];
            mat4 rest[MOST], offsets[MOST];
            static skv_vec3_key t[MOST][KEYS], sc[MOST][KEYS];
            static skv_quat_key r[MOST][KEYS];
            skv_channel channels[MOST];
            unsigned seed = 900u + 7u * (unsigned)n + (unsigned)use;
            int two_lines = use == 4 && n >= 10;
            for (int c = 0; c < n; c++) {
                parents[c] = c == 0 ? -1 : (int)((frand(&seed) * 0.5f + 0.5f) * (c - 1) + 0.5f);
                random_node(rest[c], offsets[c], &seed);
                bone_node[c] = c, node_channel[c] = c;
                float tv[3] = {frand(&seed), frand(&seed), frand(&seed)};
                float sv[3] = {1.1f, 0.9f + 0.1f * frand(&seed), 1.2f};
                int t_moves = (c == 0 && (use == 0 || use == 2 || use == 4)) || (c == n - 1 && (use == 1 || use == 2)) ||
                              (c == n / 2 && use == 5);
                int s_moves = use == 3 && c == n / 2;
                double shift = two_lines && c % 2 ? 0.2 : 0.0;
                for (int k = 0; k < KEYS; k++) {
                    double time = k * 0.5 + (k > 0 ? shift : 0.0);
                    t[c][k] = (skv_vec3_key){time, {tv[0] + (t_moves ? 0.3f * k : 0.0f), tv[1], tv[2] - (t_moves ? 0.1f * k : 0.0f)}, 0.0f};
                    sc[c][k] = (skv_vec3_key){time, {sv[0] + (s_moves ? 0.05f * k : 0.0f), sv[1], sv[2]}, 0.0f};
                    r[c][k].time = time;
                    axis_angle(0.6f, frand(&seed), 0.8f, 0.5 * frand(&seed) + 0.2 * k, r[c][k].value);
                    double len = 0.0;
                    for (int a = 0; a < 4; a++) len += (double)r[c][k].value[a] * r[c][k].value[a];
                    /* unit: arcs; else 1.25 long: no arcs, no merge */
                    for (int a = 0; a < 4; a++) r[c][k].value[a] = (float)(r[c][k].value[a] * (unit ? 1.0 : 1.25) / sqrt(len));
                }
                channels[c] = (skv_channel){.node = c, .position_count = KEYS, .rotation_count = KEYS,
                                            .scale_count = KEYS, .positions = t[c], .rotations = r[c],
                                            .scales = sc[c]};
            }
            skv_clip clip = {.duration_ticks = 3.2, .ticks_per_second = 1.0, .channel_count = n, .channels = channels,
                             .node_channel = node_channel};
            skv_model model;
            model_of_clip(&model, &clip, n, parents, rest, bone_node, offsets);
            skv_walks *walks = compiled_walks(&model);
            skv_walk_stats st;
            walk_stats(walks_clip(walks, 0), &st);
            int t_count = use == 2 ? 2 : use == 6 ? 0 : 1, most = n / 8 > 1 ? n / 8 : 1;
            int expect = use == 3 || t_count > most || (unit && n <= 8) ? 0 : n;
            if (st.compact != expect || st.groups != (two_lines ? 2 : 1) || st.arc != (unit ? n : 0))
                printf("compact keys, %d channels, case %d%s: %d compacted, %d on arcs, in %d groups\n", n, use,
                       unit ? " (unit keys)" : "", st.compact, st.arc, st.groups);
            CHECK(st.compact == expect && st.groups == (two_lines ? 2 : 1) && st.arc == (unit ? n : 0));
            if (unit) {
                skv_crowd crowd;
                skv_pose ref;
                double worst_crowd = 0.0;
                CHECK(crowd_create(&crowd, walks, 3, 0, 0, 1) == SKV_OK);
                CHECK(pose_create(&ref, &model.skeleton) == SKV_OK);
                for (int f = 0; f < 12; f++) worst_crowd = fmax(worst_crowd, crowd_worst_at(&crowd, &model, &ref, f * 0.29));
                pose_destroy(&ref);
                crowd_destroy(&crowd);
                if (!(worst_crowd < 1e-5)) printf("compact arcs, %d channels, case %d: a crowd's rows %.2g off\n", n, use, worst_crowd);
                CHECK(worst_crowd < 1e-5);
            }
            char what[64];
            snprintf(what, sizeof what, "compact keys, %d channels, case %d%s", n, use, unit ? " (unit)" : "");
            expect_every_kernel(walks, 80, compact_time, what);
        }
}

/* Two keys at the first key's time (a step at the start; the importer
 * keeps keys of equal times): at exactly that time the reference takes
 * the first key (keys_sample_quat: t not after keys[0]), just after it
 * the pair from the second. Playback's step from the first pair took
 * the next pair there, the second key: 2.9-3.4 off on one channel (the
 * prepared pairs), a 4-lane vector and the general loop, every kernel. */
static void test_first_key_twice(void)
{
    enum { NODES = 5, KEYS = 4 };
    static const double times[KEYS] = {0.5, 0.5, 1.0, 2.0};
    int parents[NODES] = {-1, 0, 1, 2, 3}, bone_node[NODES] = {0, 1, 2, 3, 4};
    mat4 rest[NODES], offsets[NODES];
    chain_rest(NODES, rest, offsets);
    for (int shape = 0; shape < 3; shape++) { /* one channel, a vector of three, five (the general loop) */
        int count = shape == 0 ? 1 : shape == 1 ? 3 : 5, node_channel[NODES] = {-1, -1, -1, -1, -1};
        skv_vec3_key positions[NODES][KEYS], scales[NODES][KEYS];
        skv_quat_key rotations[NODES][KEYS];
        skv_channel ch[NODES];
        for (int c = 0; c < count; c++) {
            for (int k = 0; k < KEYS; k++) {
                positions[c][k] = (skv_vec3_key){times[k], {0.1f * (float)k, 1.0f, (float)c}, 0.0f};
                scales[c][k] = (skv_vec3_key){times[k], {1.0f, 1.0f + 0.1f * (float)k, 1.0f}, 0.0f};
                rotations[c][k].time = times[k];
                axis_angle(k % 2 ? 1.0f : 0.0f, k % 2 ? 0.0f : 1.0f, 0.0f, 0.4 + 0.9 * k + 0.1 * c, rotations[c][k].value);
            }
            /* the fifth channel's line apart: five channels, two groups */
            for (int k = 0; c == 4 && k < KEYS; k++)
                positions[c][k].time = rotations[c][k].time = scales[c][k].time = times[k] + 0.125;
            ch[c] = (skv_channel){.node = c, .position_count = KEYS, .rotation_count = KEYS, .scale_count = KEYS,
                                  .positions = positions[c], .rotations = rotations[c], .scales = scales[c]};
            node_channel[c] = c;
        }
        skv_clip clip = {.duration_ticks = 2.5, .ticks_per_second = 1.0, .channel_count = count, .channels = ch,
                         .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        if (shape == 0) CHECK(st.solo_terms == 1);
        if (shape == 1) CHECK(st.vector_palette);
        if (shape == 2) CHECK(!st.vector_palette && st.groups == 2);
        char what[64];
        snprintf(what, sizeof what, "first key twice: shape %d", shape);
        /* playback through 0.5 and 0.625, then seeks to them */
        expect_every_kernel(walks, 200, first_key_twice_time, what);
    }
}

/* A rotation key of length 0 (the importer keeps it): the reference
 * poses its node with an identity rotation at that key's time, under its
 * parent. Under a constant parent taken into the keys (a root under the
 * turned globalInverse, a node under fixed ones) the copy held parent *
 * 0 = 0, and the parent's rotation was lost there: 1.0 off at exactly the
 * key's time, every kernel; such a channel keeps its parent's product. */
static void test_zero_key_folded(void)
{
    enum { NODES = 3 };
    int parents[NODES] = {-1, 0, 1}, bone_node[NODES] = {0, 1, 2};
    mat4 rest[NODES], offsets[NODES];
    chain_rest(NODES, rest, offsets);
    for (int n = 0; n < NODES; n++) glm_rotate(rest[n], 0.4f, (vec3){0.6f, 0.0f, 0.8f}); /* column 3 kept */
    for (int node = 0; node < 2; node++) {
        int node_channel[NODES] = {-1, -1, -1};
        skv_vec3_key positions[3], scales[3];
        skv_quat_key rotations[3] = {{0.0, {0, 0, 0, 1}}, {1.0, {0, 0, 0, 0}}, {2.0, {0, 0.6f, 0, 0.8f}}};
        for (int k = 0; k < 3; k++) {
            positions[k] = (skv_vec3_key){k, {0.1f * (float)k, 1.0f, 0.0f}, 0.0f};
            scales[k] = (skv_vec3_key){k, {1.0f, 1.0f + 0.1f * (float)k, 1.0f}, 0.0f};
        }
        skv_channel ch = {.node = node, .position_count = 3, .rotation_count = 3, .scale_count = 3,
                          .positions = positions, .rotations = rotations, .scales = scales};
        node_channel[node] = 0;
        skv_clip clip = {.duration_ticks = 2.5, .ticks_per_second = 1.0, .channel_count = 1, .channels = &ch,
                         .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, NODES, parents, rest, bone_node, offsets);
        glm_rotate(model.global_inverse, 0.9f, (vec3){0.267261f, 0.534522f, 0.801784f});
        skv_walks *walks = compiled_walks(&model);
        char what[64];
        snprintf(what, sizeof what, "zero key folded: node %d", node);
        expect_every_kernel(walks, 160, NULL, what); /* the zero key's time, 1.0, among them */
    }
}

/* Frames that take no number under float's normal range (a subnormal
 * result or operand is an Intel CPU's microcode assist, ~100+ cycles an
 * instruction: bench/NOTES.md v7r). Rotation keys as files have them:
 * held keys (an arc of angle ~1e-16 from double rounding: twist.dae),
 * keys 1e-6 and 1e-3 rad apart, components of 1e-20 (ozz's FBX clips, Fox.glb), on the lanes' arc
 * sampler, on keys the walk cannot prepare (one key 1.01 long: the
 * lanes' slerp weights), and on one channel's prepared pairs; sampled at
 * factors a float step from 0, 1/2 and 1, where the sines' arguments and
 * the weights' squares are smallest. Checks the CPU's sticky underflow
 * and denormal-operand flags around every kernel's pose_evaluate, and
 * the poses against the reference. */
static double subnormal_test_time(int i)
{
    static const double at[] = {0.0, 0x1p-23, 0.25, 0.5 - 0x1p-24, 0.5, 0.5 + 0x1p-24, 0.75, 1.0 - 0x1p-24};
    return (double)(i / 8 % 4) + at[i % 8];
}

static void test_no_subnormal_frames(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    enum { NODES = 7, KEYS = 5, CASES = 4 };
    int parents[NODES] = {-1, 0, 1, 2, 0, 4, 5}, bone_node[NODES], node_channel[NODES];
    mat4 rest[NODES], offsets[NODES];
    static skv_vec3_key positions[NODES - 1][KEYS], scales[NODES - 1][KEYS];
    static skv_quat_key rotations[NODES - 1][KEYS];
    skv_channel channels[NODES - 1];
    unsigned seed = 41;
    for (int n = 0; n < NODES; n++) {
        random_node(rest[n], offsets[n], &seed);
        bone_node[n] = n, node_channel[n] = n - 1;
    }
    for (int c = 0; c < NODES - 1; c++) {
        for (int k = 0; k < KEYS; k++) {
            /* The held rotation's channel moves its T: a channel whose
             * keys never change is posed once, not sampled. */
            positions[c][k] = (skv_vec3_key){.time = k, .value = {0.1f * (float)c, 1.0f, c == 3 ? 0.01f * (float)k : 0.0f}};
            scales[c][k] = (skv_vec3_key){.time = k, .value = {1.0f, 1.0f, 1.0f}};
            float *q = rotations[c][k].value;
            rotations[c][k].time = k;
            if (c == 3) /* held: one key throughout */
                q[0] = 0.0f, q[1] = 0.6f, q[2] = 0.0f, q[3] = 0.8f;
            else if (c == 0 || c == 5) /* creeping: 1e-6 and 1e-3 rad a key */
                axis_angle(0.0f, 0.6f, 0.8f, (c == 0 ? 1e-6 : 1e-3) * k, q);
            else if (c % 3 == 1) /* turning about y, x and z at 1e-20 */
                q[0] = 1e-20f, q[1] = sinf(0.1f * (float)k), q[2] = -1e-20f, q[3] = cosf(0.1f * (float)k);
            else /* 0.7 rad a key: the lanes' slerp takes its far branch */
                axis_angle(0.6f, 0.0f, 0.8f, 0.7 * k, q);
        }
        channels[c] = (skv_channel){.node = c + 1, .position_count = KEYS, .rotation_count = KEYS,
                                    .scale_count = KEYS, .positions = positions[c], .rotations = rotations[c],
                                    .scales = scales[c]};
    }
    /* 0: six channels on the lanes' arc sampler; 1: the same with a key
     * 1.01 long (no arcs: the lanes' slerp); 2, 3: the creeping channel
     * and the held one alone (prepared pairs, solo_frame). */
    for (int use = 0; use < CASES; use++) {
        if (use == 1)
            for (int k = 0; k < 4; k++) rotations[2][3].value[k] *= 1.01f;
        int solo = use >= 2;
        skv_channel alone = channels[use == 3 ? 3 : 0];
        alone.node = 1;
        skv_clip clip = {.duration_ticks = KEYS - 1, .ticks_per_second = 1.0, .channel_count = solo ? 1 : NODES - 1,
                         .channels = solo ? &alone : channels, .node_channel = node_channel};
        skv_model model;
        model_of_clip(&model, &clip, solo ? 2 : NODES, parents, rest, bone_node, offsets);
        skv_walks *walks = compiled_walks(&model);
        skv_walk_stats st;
        walk_stats(walks_clip(walks, 0), &st);
        CHECK(solo ? st.solo_palette && st.solo_terms : st.arc == (use == 0 ? NODES - 1 : 0));
        int flagged = 0;
        for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
            skv_pose fast;
            if (!kernel_poses(&model.skeleton, kernel, &fast, NULL)) continue;
            for (int i = 0; i < 8 * 4; i++) {
                unsigned csr = _mm_getcsr();
                _mm_setcsr(csr & ~0x3Fu); /* the sticky flags cleared */
                pose_evaluate(&fast, walks, 0, subnormal_test_time(i));
                unsigned after = _mm_getcsr();
                _mm_setcsr(csr);
                if (after & 0x12u) { /* underflow, denormal operand */
                    if (!flagged++)
                        printf("subnormal case %d, kernel %d, t = %.9g: MXCSR flags 0x%x\n", use, kernel,
                               subnormal_test_time(i), after & 0x3Fu);
                }
            }
            pose_destroy(&fast);
        }
        CHECK(flagged == 0);
        double worst = worst_on_every_kernel(walks, 8 * 4 - 1, subnormal_test_time);
        CHECK(worst < 1e-5);
        walks_destroy(walks);
    }
#endif
}

int main(void)
{
    test_no_subnormal_frames();
    test_small_clips();
    test_seeks();
    test_tiny_blend();
    test_solo_key_lengths();
    test_key_signs();
    test_solo_terms_budget();
    test_walk_arcs();
    test_solo_unit_tolerance();
    test_arc_budget();
    test_merge_budget();
    test_merge_six_decimals();
    test_merge_near_keys();
    test_still_clip();
    test_held_channels();
    test_compact_keys();
    test_first_key_twice();
    test_chain();
    test_vector_leaves();
    test_zero_key_folded();
    return check_summary();
}
