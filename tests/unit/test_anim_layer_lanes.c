/* test_anim_layer_lanes.c - the layered frame's lanes (layer_lanes.c)
 * against the reference (pose_evaluate_layers_reference) on a model made
 * for them: 37 nodes (a last block of 5 lanes), unit rotation keys whose
 * neighbours lie up to a half turn apart (arcs on both sides of the
 * shorter-arc test), clips whose channels share one time line, two time
 * lines, or none (step keys, T and R keyed apart, a rotation key not of
 * unit length: sampled one by one), channels that never move, nodes
 * without a channel; times before the first key, on keys, between them,
 * after the last and past the clip's end; override and additive layers,
 * masked and whole-body, at weights between 0 and 1; on every kernel
 * (the AVX2 build of the lanes where the kernel is AVX2's or AVX-512's,
 * the portable one otherwise). How each clip was prepared is checked too,
 * so that a change sending every channel down the one-by-one path fails
 * here rather than passing slowly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"
#include "layer_lanes.h"
#include "layers.h"
#include "walk.h"

enum { LN_NODES = 37, LN_CLIPS = 3, LN_KEYS = 12 };

static struct {
    int parents[LN_NODES], bone_node[LN_NODES];
    mat4 rest[LN_NODES], offsets[LN_NODES];
    skv_channel channels[LN_CLIPS][LN_NODES];
    int node_channel[LN_CLIPS][LN_NODES];
    skv_clip clips[LN_CLIPS];
    skv_model model;
} ln;

static void unit_random(unsigned *seed, float q[4])
{
    double v[4], len = 0.0;
    for (int a = 0; a < 4; a++) v[a] = frand(seed), len += v[a] * v[a];
    len = sqrt(len);
    for (int a = 0; a < 4; a++) q[a] = (float)(v[a] / len);
}

/* One array of `count` keys at times[k] (NULL: time 0, one key). */
static skv_vec3_key *vec3_keys(unsigned *seed, const double *times, int count, float base, float spread)
{
    skv_vec3_key *keys = calloc((size_t)count, sizeof *keys);
    for (int k = 0; k < count; k++) {
        keys[k].time = times ? times[k] : 0.0;
        for (int a = 0; a < 3; a++) keys[k].value[a] = base + spread * frand(seed);
    }
    return keys;
}

static skv_quat_key *quat_keys(unsigned *seed, const double *times, int count)
{
    skv_quat_key *keys = calloc((size_t)count, sizeof *keys);
    for (int k = 0; k < count; k++) {
        keys[k].time = times ? times[k] : 0.0;
        unit_random(seed, keys[k].value);
    }
    return keys;
}

static void build(void)
{
    memset(&ln, 0, sizeof ln);
    unsigned seed = 7;
    for (int n = 0; n < LN_NODES; n++) {
        ln.parents[n] = n == 0 ? -1 : (n - 1) / 2;
        float q[4];
        unit_random(&seed, q);
        keys_quat_mat4(q, ln.rest[n]);
        ln.rest[n][3][0] = frand(&seed), ln.rest[n][3][1] = 1.0f + frand(&seed), ln.rest[n][3][2] = frand(&seed);
        unit_random(&seed, q);
        keys_quat_mat4(q, ln.offsets[n]);
        ln.offsets[n][3][1] = frand(&seed);
        ln.bone_node[n] = n;
    }
    /* Time lines: clip 0 keys 1, 3, ..., 23 (duration 30: before the
     * first key and after the last both happen); clip 1 two lines; clip 2
     * one more. */
    double line0[LN_KEYS], line1[LN_KEYS], line2[5], line3[LN_KEYS];
    for (int k = 0; k < LN_KEYS; k++) {
        line0[k] = 1.0 + 2.0 * k;
        line1[k] = 0.5 + 1.7 * k + 0.05 * k * k;
        line3[k] = 2.0 * k;
    }
    for (int k = 0; k < 5; k++) line2[k] = 4.0 * k + 0.25;
    for (int c = 0; c < LN_CLIPS; c++) {
        int count = 0;
        for (int n = 0; n < LN_NODES; n++) {
            ln.node_channel[c][n] = -1;
            if (c == 0 && n % 9 == 4) continue; /* rest in the base */
            skv_channel *ch = &ln.channels[c][count];
            ch->node = n;
            const double *line = c == 0 ? line0 : c == 2 ? line3 : n % 2 ? line1 : line2;
            int keys = line == line2 ? 5 : LN_KEYS;
            ch->position_count = ch->rotation_count = ch->scale_count = keys;
            ch->positions = vec3_keys(&seed, line, keys, 0.0f, 0.5f);
            ch->rotations = quat_keys(&seed, line, keys);
            ch->scales = vec3_keys(&seed, line, keys, 1.0f, 0.2f);
            if (c == 1 && n % 4 == 0) { /* T never moves: one key */
                free(ch->positions);
                ch->position_count = 1;
                ch->positions = vec3_keys(&seed, NULL, 1, 0.0f, 0.5f);
            }
            if (c == 1 && n % 7 == 3) ch->rotation_mode = SKV_KEY_STEP; /* one by one */
            if (c == 1 && n % 11 == 5) { /* T on its own times: one by one */
                free(ch->positions);
                ch->position_count = 3;
                static const double apart[3] = {0.0, 7.0, 9.5};
                ch->positions = vec3_keys(&seed, apart, 3, 0.0f, 0.5f);
            }
            if (c == 1 && n == 20) /* a key not of unit length: one by one */
                for (int a = 0; a < 4; a++) ch->rotations[2].value[a] *= 1.7f;
            if (c == 2 && n % 13 == 6) { /* never moves */
                free(ch->positions), free(ch->rotations), free(ch->scales);
                ch->position_count = ch->rotation_count = ch->scale_count = 1;
                ch->positions = vec3_keys(&seed, NULL, 1, 0.0f, 0.5f);
                ch->rotations = quat_keys(&seed, NULL, 1);
                ch->scales = vec3_keys(&seed, NULL, 1, 1.0f, 0.2f);
            }
            ln.node_channel[c][n] = count++;
        }
        ln.clips[c] = (skv_clip){.duration_ticks = 30.0, .ticks_per_second = 1.0 + 0.5 * c, .channel_count = count,
                                 .channels = ln.channels[c], .node_channel = ln.node_channel[c]};
    }
    ln.model = (skv_model){.clip_count = LN_CLIPS, .clips = ln.clips};
    ln.model.skeleton = (skv_skeleton){.node_count = LN_NODES, .parents = ln.parents, .rest_local = ln.rest,
                                       .bone_count = LN_NODES, .bone_node = ln.bone_node, .bone_offset = ln.offsets};
    glm_mat4_identity(ln.model.global_inverse);
    ln.model.global_inverse[3][0] = 0.25f;
}

static void release(void)
{
    for (int c = 0; c < LN_CLIPS; c++)
        for (int k = 0; k < ln.clips[c].channel_count; k++) {
            free(ln.channels[c][k].positions);
            free(ln.channels[c][k].rotations);
            free(ln.channels[c][k].scales);
        }
}

int main(void)
{
    build();
    /* How the clips were prepared: clip 0 one time line, clip 1 two
     * keyed as one (layer_lanes.c, merge_lines) and its odd channels one
     * by one, clip 2 one line and channels that never move. */
    int expect_groups[LN_CLIPS] = {1, 1, 1};
    for (int c = 0; c < LN_CLIPS; c++) {
        size_t held = 0;
        skv_clip_lanes *cl = clip_lanes_prepare(&ln.model, &ln.clips[c], &held);
        CHECK(cl != NULL);
        int groups = -1, loose = -1, constant = -1;
        clip_lanes_counts(cl, &groups, &loose, &constant);
        printf("clip %d: %d time lines, %d channels one by one, %d that never move\n", c, groups, loose, constant);
        CHECK(groups == expect_groups[c]);
        CHECK(c == 1 ? loose >= 6 : loose == 0);
        CHECK(c == 2 ? constant == 3 : constant == 0);
        clip_lanes_free(cl);
    }

    int mask_two[] = {2}, mask_one[] = {1};
    const skv_layer_desc sets[][3] = {
        {{.clip = 1, .weight = 0.6f, .reference_clip = -1}},
        {{.clip = 2, .mask = mask_two, .mask_count = 1, .additive = 1, .weight = 0.35f, .reference_clip = -1}},
        {{.clip = 1, .mask = mask_one, .mask_count = 1, .weight = 1.0f, .reference_clip = -1},
         {.clip = 1, .additive = 1, .weight = 1.0f, .reference_clip = 2},
         {.clip = 2, .additive = 1, .weight = 0.8f, .reference_clip = -1}},
    };
    const int set_count[] = {1, 1, 3};
    /* Seconds: before the first key, on keys, between, after the last,
     * past the end (each clip loops on its own rate). */
    const double seconds[] = {0.3, 1.0, 2.2, 3.0, 7.77, 12.5, 23.0, 26.0, 29.9, 31.5, 44.4, 0.0};
    skv_walks *walks = NULL;
    CHECK(walks_create(&walks, &ln.model) == SKV_OK);
    skv_pose fast, ref, plain;
    CHECK(pose_create(&fast, &ln.model.skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &ln.model.skeleton) == SKV_OK);
    CHECK(pose_create(&plain, &ln.model.skeleton) == SKV_OK);
    double worst = 0.0, moved = 0.0;
    int kernels = 0;
    for (int kernel = SKV_WALK_AUTO + 1; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        if (!kernels_get((skv_walk_kernel)kernel)) continue;
        kernels++;
        fast.walk_kernel = kernel;
        for (int s = 0; s < 3; s++) {
            skv_layers *layers = NULL;
            CHECK(layers_create(&layers, &ln.model, sets[s], set_count[s], NULL) == SKV_OK);
            for (size_t f = 0; f < sizeof seconds / sizeof seconds[0]; f++) {
                int base = f % 4 == 3 ? -1 : 0;
                pose_evaluate_layers(&fast, walks, base, seconds[f], layers);
                pose_evaluate_layers_reference(&ref, &ln.model, base, seconds[f], sets[s], set_count[s]);
                double off = palettes_apart(&fast, &ref, LN_NODES);
                if (off > worst) worst = off;
                pose_evaluate_reference(&plain, &ln.model, base, seconds[f]);
                moved = fmax(moved, palettes_apart(&plain, &ref, LN_NODES));
            }
            layers_destroy(layers);
        }
    }
    printf("lanes vs reference on %d kernels, 3 layer sets, %zu times: %.2g (the layers moved the pose by up to "
           "%.2g)\n", kernels, sizeof seconds / sizeof seconds[0], worst, moved);
    CHECK(worst < 1e-4);
    CHECK(moved > 0.5);
    pose_destroy(&fast);
    pose_destroy(&ref);
    pose_destroy(&plain);
    walks_destroy(walks);
    release();
    return check_summary();
}
