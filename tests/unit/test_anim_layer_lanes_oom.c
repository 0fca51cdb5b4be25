/* test_anim_layer_lanes_oom.c - a layered frame whose memory runs out
 * (layers.h: "Memory run out: one scalar pass over every node, the same
 * pose"): the n-th allocation of the frame that prepares the clips'
 * lanes and the pose's plan fails (the test links with --wrap for
 * malloc, calloc and aligned_alloc), for every n the frame makes; the
 * pose is the reference's that frame and the next ones, and nothing is
 * lost (the ASan build's leak check). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"
#include "layers.h"
#include "walk.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);

/* Allocations counted while armed; the fail_at-th (from 1) fails, and
 * with fail_rest every one after it. */
static struct {
    int armed, count, fail_at, fail_rest, failed;
} oom;

static int oom_fails(void)
{
    if (!oom.armed) return 0;
    oom.count++;
    int fail = oom.count == oom.fail_at || (oom.fail_rest && oom.count > oom.fail_at);
    oom.failed += fail;
    return fail;
}

void *__wrap_malloc(size_t size)
{
    return oom_fails() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    return oom_fails() ? NULL : __real_calloc(count, size);
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    return oom_fails() ? NULL : __real_aligned_alloc(align, size);
}

enum { M_NODES = 21, M_CLIPS = 3, M_KEYS = 6 };

static struct {
    int parents[M_NODES], bone_node[M_NODES];
    mat4 rest[M_NODES], offsets[M_NODES];
    skv_channel channels[M_CLIPS][M_NODES];
    int node_channel[M_CLIPS][M_NODES];
    skv_vec3_key positions[M_CLIPS][M_NODES][M_KEYS], scales[M_CLIPS][M_NODES][M_KEYS];
    skv_quat_key rotations[M_CLIPS][M_NODES][M_KEYS];
    skv_clip clips[M_CLIPS];
    skv_model model;
} mm;

/* Every node keyed on one of two time lines; some channels with step
 * rotations (sampled one by one), some that never move. */
static void build(void)
{
    unsigned seed = 3;
    for (int n = 0; n < M_NODES; n++) {
        mm.parents[n] = n == 0 ? -1 : (n - 1) / 2;
        float q[4] = {frand(&seed), frand(&seed), frand(&seed), frand(&seed)};
        keys_quat_mat4(q, mm.rest[n]);
        mm.rest[n][3][1] = 1.0f;
        glm_mat4_identity(mm.offsets[n]);
        mm.offsets[n][3][0] = frand(&seed);
        mm.bone_node[n] = n;
    }
    for (int c = 0; c < M_CLIPS; c++) {
        for (int n = 0; n < M_NODES; n++) {
            skv_channel *ch = &mm.channels[c][n];
            int keys = (n + c) % 5 == 2 ? 1 : M_KEYS;
            for (int k = 0; k < keys; k++) {
                double t = k * (n % 2 ? 1.0 : 1.5);
                mm.positions[c][n][k] = (skv_vec3_key){t, {frand(&seed), frand(&seed), frand(&seed)}, 0.0f};
                mm.scales[c][n][k] = (skv_vec3_key){t, {1.0f + 0.2f * frand(&seed), 1.0f, 1.0f}, 0.0f};
                float q[4] = {frand(&seed), frand(&seed), frand(&seed), frand(&seed)};
                float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                mm.rotations[c][n][k].time = t;
                for (int a = 0; a < 4; a++) mm.rotations[c][n][k].value[a] = q[a] / len;
            }
            *ch = (skv_channel){.node = n, .position_count = keys, .rotation_count = keys, .scale_count = keys,
                                .positions = mm.positions[c][n], .rotations = mm.rotations[c][n],
                                .scales = mm.scales[c][n]};
            if (n % 7 == 3) ch->rotation_mode = SKV_KEY_STEP;
            mm.node_channel[c][n] = n % 6 == 5 && c > 0 ? -1 : n;
        }
        mm.clips[c] = (skv_clip){.duration_ticks = 8.0, .ticks_per_second = 1.0 + 0.3 * c, .channel_count = M_NODES,
                                 .channels = mm.channels[c], .node_channel = mm.node_channel[c]};
    }
    mm.model = (skv_model){.clip_count = M_CLIPS, .clips = mm.clips};
    mm.model.skeleton = (skv_skeleton){.node_count = M_NODES, .parents = mm.parents, .rest_local = mm.rest,
                                       .bone_count = M_NODES, .bone_node = mm.bone_node,
                                       .bone_offset = mm.offsets};
    glm_mat4_identity(mm.model.global_inverse);
}

int main(void)
{
    build();
    int mask[] = {1};
    const skv_layer_desc desc[3] = {
        {.clip = 1, .mask = mask, .mask_count = 1, .weight = 0.7f, .reference_clip = -1},
        {.clip = 2, .additive = 1, .weight = 0.4f, .reference_clip = -1},
        {.clip = 0, .additive = 1, .weight = 1.0f, .reference_clip = 1},
    };
    skv_layers *layers = NULL;
    CHECK(layers_create(&layers, &mm.model, desc, 3, NULL) == SKV_OK);
    const double seconds[] = {2.3, 2.4, 7.9};
    double worst = 0.0;
    int frame_allocs = -1, runs = 0;
    for (int rest = 0; rest < 2; rest++)
        for (int at = 1; frame_allocs < 0 || at <= frame_allocs; at++) {
            skv_walks *walks = compiled_walks(&mm.model);
            skv_pose fast, ref;
            CHECK(pose_create(&fast, &mm.model.skeleton) == SKV_OK);
            CHECK(pose_create(&ref, &mm.model.skeleton) == SKV_OK);
            oom = (__typeof__(oom)){.armed = 1, .fail_at = at, .fail_rest = rest};
            pose_evaluate_layers(&fast, walks, 0, seconds[0], layers);
            oom.armed = 0;
            if (!oom.failed) frame_allocs = oom.count; /* the frame made fewer than `at`: every one tried */
            pose_evaluate_layers_reference(&ref, &mm.model, 0, seconds[0], desc, 3);
            worst = fmax(worst, palettes_apart(&fast, &ref, M_NODES));
            for (size_t f = 1; f < sizeof seconds / sizeof seconds[0]; f++) { /* the frames after it */
                pose_evaluate_layers(&fast, walks, f == 2 ? -1 : 0, seconds[f], layers);
                pose_evaluate_layers_reference(&ref, &mm.model, f == 2 ? -1 : 0, seconds[f], desc, 3);
                worst = fmax(worst, palettes_apart(&fast, &ref, M_NODES));
            }
            runs++;
            pose_destroy(&fast);
            pose_destroy(&ref);
            walks_destroy(walks);
            if (!oom.failed) break;
        }
    printf("a layered frame's allocations: %d; each failed in turn, and every one from it (%d runs): %.2g off the "
           "reference\n", frame_allocs, runs, worst);
    CHECK(frame_allocs > 10);
    CHECK(worst < 1e-5);
    layers_destroy(layers);
    return check_summary();
}
