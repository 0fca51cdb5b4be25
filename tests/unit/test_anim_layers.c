/* test_anim_layers.c - layers over a base clip (layers.h, layers.c, the
 * layered frame in pose.c, the reference in anim_ref.c): hand-computed
 * local transforms on a three-node chain (override at a weight on a
 * masked subtree, additive with its own and another reference clip, the
 * order of multiplication, a node a clip has no channel for), then on the
 * random model: weight 0 = the base, a whole-body override at weight 1 =
 * the layer's clip alone, an additive layer at its reference time = the
 * base, the fast path against the reference for several layer sets and
 * times, a pose going back to its walk on every kernel, a crowd, and
 * layers_create's checks; a mask below globals the walk defers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"
#include "layers.h"

/* --- a three-node chain with hand-made clips ------------------------------ */

enum { CH_NODES = 3, CH_CLIPS = 4 };
static struct {
    int parents[CH_NODES], bone_node[CH_NODES];
    mat4 rest[CH_NODES], offsets[CH_NODES];
    skv_vec3_key t_keys[CH_CLIPS][CH_NODES][2], s_keys[CH_CLIPS][CH_NODES][2];
    skv_quat_key r_keys[CH_CLIPS][CH_NODES][2];
    skv_channel channels[CH_CLIPS][CH_NODES];
    int node_channel[CH_CLIPS][CH_NODES];
    skv_clip clips[CH_CLIPS];
    skv_model model;
} ch;

static void quat_axis(float x, float y, float z, double degrees, float q[4])
{
    axis_angle(x, y, z, degrees * M_PI / 180.0, q);
}

/* Node n of clip c: two keys (ticks 0 and 10) of T, R, S. */
static void chain_channel(int c, int n, const float t0[3], const float t1[3], const float r0[4], const float r1[4],
                          const float s0[3], const float s1[3])
{
    skv_channel *x = &ch.channels[c][ch.clips[c].channel_count];
    ch.node_channel[c][n] = ch.clips[c].channel_count++;
    x->node = n;
    x->position_count = x->rotation_count = x->scale_count = 2;
    x->positions = ch.t_keys[c][n], x->rotations = ch.r_keys[c][n], x->scales = ch.s_keys[c][n];
    for (int k = 0; k < 2; k++) {
        ch.t_keys[c][n][k].time = ch.r_keys[c][n][k].time = ch.s_keys[c][n][k].time = 10.0 * k;
        memcpy(ch.t_keys[c][n][k].value, k ? t1 : t0, 3 * sizeof(float));
        memcpy(ch.r_keys[c][n][k].value, k ? r1 : r0, 4 * sizeof(float));
        memcpy(ch.s_keys[c][n][k].value, k ? s1 : s0, 3 * sizeof(float));
    }
}

/* Clip 0 (base): node 0 at T (1 2 3) turned 90 degrees about x, node 1
 * still at T 0, node 2 unanimated. Clip 1 (override): node 1 at T (2 0 0),
 * turned 90 about z, scale 3. Clip 2 (additive): node 1 from 30 to 90
 * degrees about z and from T (0 0 0) to (4 0 0) over ticks 0..10. Clip 3
 * (another reference): node 1 at T (1 0 0), 10 degrees about z. All clips
 * 20 ticks long at 10 ticks a second. */
static void chain_build(void)
{
    memset(&ch, 0, sizeof ch);
    for (int n = 0; n < CH_NODES; n++) {
        ch.parents[n] = n - 1;
        ch.bone_node[n] = n;
        glm_translate_make(ch.rest[n], (vec3){0.0f, 1.0f, 0.0f});
        glm_mat4_identity(ch.offsets[n]);
        for (int c = 0; c < CH_CLIPS; c++) ch.node_channel[c][n] = -1;
    }
    for (int c = 0; c < CH_CLIPS; c++)
        ch.clips[c] = (skv_clip){.duration_ticks = 20.0, .ticks_per_second = 10.0, .channels = ch.channels[c],
                                 .node_channel = ch.node_channel[c]};
    float rx90[4], rz90[4], rz30[4], rz10[4], id[4] = {0, 0, 0, 1};
    quat_axis(1, 0, 0, 90, rx90), quat_axis(0, 0, 1, 90, rz90), quat_axis(0, 0, 1, 30, rz30);
    quat_axis(0, 0, 1, 10, rz10);
    float zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    chain_channel(0, 0, (float[]){1, 2, 3}, (float[]){1, 2, 3}, rx90, rx90, one, one);
    chain_channel(0, 1, zero, zero, id, id, one, one);
    chain_channel(1, 1, (float[]){2, 0, 0}, (float[]){2, 0, 0}, rz90, rz90, (float[]){3, 3, 3}, (float[]){3, 3, 3});
    chain_channel(2, 1, zero, (float[]){4, 0, 0}, rz30, rz90, one, one);
    chain_channel(3, 1, (float[]){1, 0, 0}, (float[]){1, 0, 0}, rz10, rz10, one, one);
    ch.model = (skv_model){.clip_count = CH_CLIPS, .clips = ch.clips};
    ch.model.skeleton = (skv_skeleton){.node_count = CH_NODES, .parents = ch.parents, .rest_local = ch.rest,
                                       .bone_count = CH_NODES, .bone_node = ch.bone_node, .bone_offset = ch.offsets};
    glm_mat4_identity(ch.model.global_inverse);
}

/* The largest difference between a local and T * R * S. */
static double local_off(const mat4 local, const float t[3], const float q[4], const float s[3])
{
    mat4 expect;
    keys_local(t, q, s, expect);
    double worst = 0.0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(local[c][r] - expect[c][r]));
    return worst;
}

/* Both evaluators' local of node n (the fast path's from its globals,
 * parent's inverse times its own: the chain's globalInverse is the
 * identity, and the walk forms some locals folded into others). */
static void both_locals(const skv_layer_desc *desc, int count, double seconds, int n, mat4 ref_local, mat4 fast_local)
{
    skv_pose ref, fast;
    skv_layers *layers = NULL;
    skv_walks *walks = NULL;
    CHECK(pose_create(&ref, &ch.model.skeleton) == SKV_OK);
    CHECK(pose_create(&fast, &ch.model.skeleton) == SKV_OK);
    CHECK(walks_create(&walks, &ch.model) == SKV_OK);
    CHECK(layers_create(&layers, &ch.model, desc, count, NULL) == SKV_OK);
    pose_evaluate_layers_reference(&ref, &ch.model, 0, seconds, desc, count);
    pose_evaluate_layers(&fast, walks, 0, seconds, layers);
    glm_mat4_copy(ref.local[n], ref_local);
    const mat4 *globals = pose_globals(&fast);
    int p = ch.model.skeleton.parents[n];
    if (p < 0) {
        glm_mat4_copy((vec4 *)globals[n], fast_local);
    } else {
        mat4 inv;
        glm_mat4_inv((vec4 *)globals[p], inv);
        glm_mat4_mul(inv, (vec4 *)globals[n], fast_local);
    }
    layers_destroy(layers);
    walks_destroy(walks);
    pose_destroy(&ref);
    pose_destroy(&fast);
}

static void test_hand_computed(void)
{
    chain_build();
    int mask1[] = {1};
    mat4 ref, fast;
    float rx90[4], want_q[4], rz30[4], rz45[4], rz60[4], rz10[4], id[4] = {0, 0, 0, 1};
    quat_axis(1, 0, 0, 90, rx90), quat_axis(0, 0, 1, 30, rz30), quat_axis(0, 0, 1, 45, rz45);
    quat_axis(0, 0, 1, 60, rz60), quat_axis(0, 0, 1, 10, rz10);

    /* Override at 0.5 on node 1 and below: T (1 0 0), 45 degrees, scale 2;
     * node 0 above the mask keeps the base; node 2 (no channel anywhere
     * in the base, rest in the layer) keeps its rest. */
    skv_layer_desc over = {.clip = 1, .mask = mask1, .mask_count = 1, .weight = 0.5f, .reference_clip = -1};
    both_locals(&over, 1, 0.5, 1, ref, fast);
    double off_ref = local_off(ref, (float[]){1, 0, 0}, rz45, (float[]){2, 2, 2});
    double off_fast = local_off(fast, (float[]){1, 0, 0}, rz45, (float[]){2, 2, 2});
    both_locals(&over, 1, 0.5, 0, ref, fast);
    double off_above = fmax(local_off(ref, (float[]){1, 2, 3}, rx90, (float[]){1, 1, 1}),
                            local_off(fast, (float[]){1, 2, 3}, rx90, (float[]){1, 1, 1}));
    printf("override 0.5 on node 1: reference off %.2g, fast off %.2g; node above the mask off %.2g\n", off_ref,
           off_fast, off_above);
    CHECK(off_ref < 1e-6 && off_fast < 1e-6 && off_above < 1e-6);

    /* Additive at 0.5, its own reference (t = 0: T 0, 30 degrees), at
     * ticks 5 (T (2 0 0), 60 degrees: 30 more): node 1 = base (T 0,
     * identity) + 0.5 * ((2 0 0) - 0), rotation identity * 15 degrees. */
    float rz15[4];
    quat_axis(0, 0, 1, 15, rz15);
    skv_layer_desc add = {.clip = 2, .additive = 1, .weight = 0.5f, .reference_clip = -1};
    both_locals(&add, 1, 0.5, 1, ref, fast);
    double off_add = fmax(local_off(ref, (float[]){1, 0, 0}, rz15, (float[]){1, 1, 1}),
                          local_off(fast, (float[]){1, 0, 0}, rz15, (float[]){1, 1, 1}));
    /* Another reference clip (clip 3: T (1 0 0), 10 degrees), weight 1:
     * T 0 + (2 - 1), rotation 60 - 10 = 50 degrees. */
    float rz50[4];
    quat_axis(0, 0, 1, 50, rz50);
    skv_layer_desc add_ref = {.clip = 2, .additive = 1, .weight = 1.0f, .reference_clip = 3};
    both_locals(&add_ref, 1, 0.5, 1, ref, fast);
    double off_add_ref = fmax(local_off(ref, (float[]){1, 0, 0}, rz50, (float[]){1, 1, 1}),
                              local_off(fast, (float[]){1, 0, 0}, rz50, (float[]){1, 1, 1}));
    /* An additive clip equal to its reference (clip 3 holds still) adds
     * nothing, at any time. */
    skv_layer_desc still = {.clip = 3, .additive = 1, .weight = 1.0f, .reference_clip = -1};
    double off_still = 0.0;
    for (int f = 0; f < 6; f++) {
        both_locals(&still, 1, 0.45 * f, 1, ref, fast);
        off_still = fmax(off_still, fmax(local_off(ref, (float[]){0, 0, 0}, id, (float[]){1, 1, 1}),
                                         local_off(fast, (float[]){0, 0, 0}, id, (float[]){1, 1, 1})));
    }
    printf("additive 0.5 (own reference) off %.2g; additive 1 over reference clip 3 off %.2g; a still additive "
           "clip off the base %.2g\n", off_add, off_add_ref, off_still);
    CHECK(off_add < 1e-6 && off_add_ref < 1e-6 && off_still < 1e-6);

    /* The order of multiplication: over node 0 (base turned 90 about x),
     * the additive's 30 more degrees about z go on the right:
     * R = Rx(90) * Rz(30), not Rz(30) * Rx(90). */
    int mask0[] = {0};
    ch.node_channel[2][0] = -1; /* clip 2's node-1 keys moved to node 0 */
    ch.channels[2][0].node = 0;
    ch.node_channel[2][0] = 0, ch.node_channel[2][1] = -1;
    skv_layer_desc add0 = {.clip = 2, .mask = mask0, .mask_count = 1, .additive = 1, .weight = 1.0f, .reference_clip = -1};
    both_locals(&add0, 1, 0.5, 0, ref, fast);
    layer_quat_mul(rx90, rz30, want_q);
    double off_right = fmax(local_off(ref, (float[]){3, 2, 3}, want_q, (float[]){1, 1, 1}),
                            local_off(fast, (float[]){3, 2, 3}, want_q, (float[]){1, 1, 1}));
    float wrong_q[4];
    layer_quat_mul(rz30, rx90, wrong_q);
    double off_wrong = local_off(ref, (float[]){3, 2, 3}, wrong_q, (float[]){1, 1, 1});
    printf("additive over a turned node: R = base * delta off %.2g (delta * base would be %.2g off)\n", off_right,
           off_wrong);
    CHECK(off_right < 1e-6 && off_wrong > 0.1);

    /* A node the layer's clip has no channel for holds its rest there:
     * a whole-body override at weight 1 by clip 3 (only node 1 keyed)
     * puts node 0 at its rest transform (T (0 1 0)). */
    skv_layer_desc rest = {.clip = 3, .weight = 1.0f, .reference_clip = -1};
    both_locals(&rest, 1, 0.5, 0, ref, fast);
    double off_rest = fmax(local_off(ref, (float[]){0, 1, 0}, id, (float[]){1, 1, 1}),
                           local_off(fast, (float[]){0, 1, 0}, id, (float[]){1, 1, 1}));
    /* Overrides apply before additives whatever the order given: the
     * additive (own reference, node 0, weight 1: 30 degrees more about z)
     * after the override by clip 3 (node 0 at rest). */
    skv_layer_desc two[2] = {add0, rest};
    both_locals(two, 2, 0.5, 0, ref, fast);
    double off_order = fmax(local_off(ref, (float[]){2, 1, 0}, rz30, (float[]){1, 1, 1}),
                            local_off(fast, (float[]){2, 1, 0}, rz30, (float[]){1, 1, 1}));
    printf("rest where the layer has no channel off %.2g; additive after override off %.2g\n", off_rest, off_order);
    CHECK(off_rest < 1e-6 && off_order < 1e-6);
    (void)rz60, (void)rz10;
}

/* --- the random model ------------------------------------------------------ */

static void test_random_model(void)
{
    random_model_build();
    const skv_model *model = &rm.model;
    skv_pose fast, ref, plain;
    CHECK(pose_create(&fast, &model->skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &model->skeleton) == SKV_OK);
    CHECK(pose_create(&plain, &model->skeleton) == SKV_OK);
    int mask_a[] = {3, 17}, mask_b[] = {1};
    const skv_layer_desc sets[][3] = {
        {{.clip = 1, .mask = mask_a, .mask_count = 2, .weight = 0.3f, .reference_clip = -1}},
        {{.clip = 1, .additive = 1, .weight = 0.7f, .reference_clip = -1}},
        {{.clip = 0, .mask = mask_b, .mask_count = 1, .weight = 1.0f, .reference_clip = -1},
         {.clip = 1, .mask = mask_a, .mask_count = 2, .additive = 1, .weight = 0.5f, .reference_clip = 0}},
        {{.clip = 1, .additive = 1, .weight = 0.4f, .reference_clip = -1},
         {.clip = 1, .mask = mask_b, .mask_count = 1, .weight = 0.6f, .reference_clip = -1},
         {.clip = 0, .mask = mask_a, .mask_count = 2, .additive = 1, .weight = 1.0f, .reference_clip = 1}},
    };
    const int set_count[] = {1, 1, 2, 3};
    double worst_fast = 0.0, worst_globals = 0.0, worst_zero = 0.0, worst_whole = 0.0, worst_additive_zero = 0.0, moved = 0.0;
    for (int s = 0; s < 4; s++) {
        skv_layers *layers = NULL;
        CHECK(layers_create(&layers, model, sets[s], set_count[s], NULL) == SKV_OK);
        for (int f = 0; f < 40; f++) {
            double t = f < 20 ? f * 0.11 : 3.0 + f * 0.37; /* past both clips' ends: each loops on its own */
            int base = f % 3 == 2 ? -1 : f % 2;
            pose_evaluate_layers(&fast, rm.walks, base, t, layers);
            pose_evaluate_layers_reference(&ref, model, base, t, sets[s], set_count[s]);
            worst_fast = fmax(worst_fast, palettes_apart(&fast, &ref, RM_NODES));
            if (f % 2) worst_globals = fmax(worst_globals, globals_apart(&fast, &ref, model));
            pose_evaluate_reference(&plain, model, base, t);
            moved = fmax(moved, palettes_apart(&plain, &ref, RM_NODES));
        }
        layers_destroy(layers);
    }
    /* Weight 0 is the base; muted likewise. */
    skv_layer_desc zero = {.clip = 1, .mask = mask_a, .mask_count = 2, .weight = 0.0f, .reference_clip = -1};
    skv_layer_desc whole = {.clip = 1, .weight = 1.0f, .reference_clip = -1};
    skv_layer_desc additive = {.clip = 1, .additive = 1, .weight = 1.0f, .reference_clip = -1};
    skv_layers *muted = NULL;
    CHECK(layers_create(&muted, model, &whole, 1, NULL) == SKV_OK);
    muted->muted[0] = 1;
    for (int f = 0; f < 30; f++) {
        double t = f * 0.23;
        pose_evaluate_reference(&plain, model, 0, t);
        pose_evaluate_layers_reference(&ref, model, 0, t, &zero, 1);
        pose_evaluate_layers(&fast, rm.walks, 0, t, muted);
        worst_zero = fmax(worst_zero, fmax(palettes_apart(&plain, &ref, RM_NODES), palettes_apart(&plain, &fast, RM_NODES)));
        /* A whole-body override at weight 1 is the layer's clip alone. */
        pose_evaluate_reference(&plain, model, 1, t);
        pose_evaluate_layers_reference(&ref, model, 0, t, &whole, 1);
        worst_whole = fmax(worst_whole, palettes_apart(&plain, &ref, RM_NODES));
        /* An additive layer where its clip is at its reference (time 0)
         * is the base. */
        double at_ref = f % 2 ? 0.0 : -0.0;
        pose_evaluate_reference(&plain, model, 0, at_ref);
        pose_evaluate_layers_reference(&ref, model, 0, at_ref, &additive, 1);
        worst_additive_zero = fmax(worst_additive_zero, palettes_apart(&plain, &ref, RM_NODES));
    }
    layers_destroy(muted);
    printf("random model: fast vs reference %.2g over 4 layer sets (globals %.2g; layers moved the pose by up to %.2g); weight 0 / "
           "muted vs base %.2g; whole-body weight 1 vs the layer's clip %.2g; additive at its reference vs base %.2g\n",
           worst_fast, worst_globals, moved, worst_zero, worst_whole, worst_additive_zero);
    CHECK(worst_fast < 1e-4 && worst_globals < 1e-4);
    CHECK(moved > 0.1);
    CHECK(worst_zero < 1e-5 && worst_whole < 1e-5 && worst_additive_zero < 1e-5);

    /* A pose that played layers goes back to its walk on every kernel:
     * layered frames of a masked layer (the base's walk runs under it)
     * and of a whole-body one in turn with the walk's. */
    skv_layers *layers = NULL, *masked = NULL;
    CHECK(layers_create(&layers, model, sets[3], set_count[3], NULL) == SKV_OK);
    CHECK(layers_create(&masked, model, sets[0], set_count[0], NULL) == SKV_OK);
    double worst_back = 0.0, worst_back_globals = 0.0;
    for (int kernel = SKV_WALK_AUTO; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        if (!kernels_get((skv_walk_kernel)kernel)) continue;
        fast.walk_kernel = kernel;
        for (int f = 0; f < 12; f++) {
            double t = f * 0.21;
            int clip = f % 4 == 0 ? -1 : f % 2; /* the rest pose: its walk writes no local */
            int set = f / 3 % 2 ? 3 : 0;
            if (f % 3 == 1) {
                pose_evaluate_layers(&fast, rm.walks, f % 2, t, set ? layers : masked);
                pose_evaluate_layers_reference(&ref, model, f % 2, t, sets[set], set_count[set]);
            } else {
                pose_evaluate(&fast, rm.walks, clip, t);
                pose_evaluate_reference(&ref, model, clip, t);
            }
            worst_back = fmax(worst_back, palettes_apart(&fast, &ref, RM_NODES));
            /* Globals after a layered frame, and after a walk's frame
             * that followed one (what the layered frame owed is not the
             * walk's to form). */
            if (f % 4 == 0) worst_back_globals = fmax(worst_back_globals, globals_apart(&fast, &ref, model));
        }
    }
    layers_destroy(masked);
    printf("layers and walks in turn on every kernel vs reference: %.2g (globals %.2g)\n", worst_back,
           worst_back_globals);
    CHECK(worst_back < 1e-4 && worst_back_globals < 1e-4);

    /* A crowd with layers: each character's rows against the reference. */
    skv_crowd crowd;
    CHECK(crowd_create(&crowd, rm.walks, 7, 0, 1, 2) == SKV_OK);
    crowd_set_layers(&crowd, layers);
    double worst_crowd = 0.0;
    for (int f = 0; f < 5; f++)
        worst_crowd = fmax(worst_crowd, crowd_layers_worst_at(&crowd, model, &ref, 0.4 * f, sets[3], set_count[3]));
    printf("crowd of 7 with 3 layers vs reference: %.2g\n", worst_crowd);
    CHECK(worst_crowd < 1e-4);
    crowd_destroy(&crowd);
    layers_destroy(layers);


    /* A pose keeps its plan for a set of layers; layers made again
     * (malloc often hands back the same address) with another mask, a
     * weight brought to 0 and back, and a base clip that changes each
     * frame are each planned anew: every frame against the reference. */
    double worst_replan = 0.0;
    int same_address = 0;
    const void *last = NULL;
    for (int round = 0; round < 6; round++) {
        const skv_layer_desc *set = sets[round % 4];
        skv_layers *again = NULL;
        CHECK(layers_create(&again, model, set, set_count[round % 4], NULL) == SKV_OK);
        same_address += (const void *)again == last;
        last = again;
        for (int f = 0; f < 8; f++) {
            double t = 0.17 * f + 0.05 * round;
            int base = (f + round) % 3 - 1; /* -1: the rest pose */
            again->weight[0] = f == 3 ? 0.0f : set[0].weight;
            skv_layer_desc now[3];
            for (int k = 0; k < set_count[round % 4]; k++) now[k] = set[k];
            now[0].weight = again->weight[0];
            pose_evaluate_layers(&fast, rm.walks, base, t, again);
            pose_evaluate_layers_reference(&ref, model, base, t, now, set_count[round % 4]);
            worst_replan = fmax(worst_replan, palettes_apart(&fast, &ref, RM_NODES));
        }
        layers_destroy(again);
    }
    printf("layers made again (%d times at the last one's address), weights and base clips changing: %.2g\n",
           same_address, worst_replan);
    CHECK(worst_replan < 1e-4);

    /* layers_create's checks: one line, SKV_ERR_ARGUMENT. */
    skv_error err;
    skv_layers *bad = NULL;
    int no_node[] = {RM_NODES};
    skv_layer_desc wrong[] = {
        {.clip = 2, .weight = 1.0f, .reference_clip = -1},
        {.clip = 0, .additive = 1, .weight = 1.0f, .reference_clip = 5},
        {.clip = 0, .mask = no_node, .mask_count = 1, .weight = 1.0f, .reference_clip = -1},
        {.clip = 0, .weight = NAN, .reference_clip = -1},
        {.clip = 0, .weight = 1.5f, .reference_clip = -1},
    };
    for (int k = 0; k < 5; k++) {
        err.message[0] = '\0';
        CHECK(layers_create(&bad, model, &wrong[k], 1, &err) == SKV_ERR_ARGUMENT && !bad && err.message[0]);
    }
    CHECK(layers_create(&bad, model, wrong, SKV_LAYERS_MAX + 1, &err) == SKV_ERR_ARGUMENT && !bad);
    pose_destroy(&fast);
    pose_destroy(&ref);
    pose_destroy(&plain);
    random_model_free();
}

/* A whole-body layer of clip 0 on a model of several roots: over base 0
 * the roots only clip 1 moves are still (their globals formed once per
 * plan while nothing else writes the pose's block; nodes below them that
 * clip 0 moves read them), over base 1 they are formed again. One pose
 * with walk frames of clip 1 between its layered frames, and a crowd of
 * one thread whose characters play both bases in one lent block. */
static void test_still_roots(void)
{
    rm_identity_roots = 1;
    random_model_build();
    const skv_model *model = &rm.model;
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &model->skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &model->skeleton) == SKV_OK);
    skv_layer_desc whole = {.clip = 0, .additive = 1, .weight = 0.7f, .reference_clip = -1};
    skv_layers *whole_zero = NULL;
    CHECK(layers_create(&whole_zero, model, &whole, 1, NULL) == SKV_OK);
    double worst_still = 0.0;
    for (int f = 0; f < 12; f++) {
        double t = 0.19 * f;
        if (f % 3 == 2) {
            pose_evaluate(&fast, rm.walks, 1, t);
            pose_evaluate_reference(&ref, model, 1, t);
        } else {
            pose_evaluate_layers(&fast, rm.walks, 0, t, whole_zero);
            pose_evaluate_layers_reference(&ref, model, 0, t, &whole, 1);
        }
        worst_still = fmax(worst_still, fmax(palettes_apart(&fast, &ref, RM_NODES), globals_apart(&fast, &ref, model)));
    }
    skv_crowd one_thread;
    CHECK(crowd_create(&one_thread, rm.walks, 6, 0, 1, 1) == SKV_OK);
    crowd_set_layers(&one_thread, whole_zero);
    int bases[2] = {0, 0};
    for (int i = 0; i < one_thread.count; i++) bases[one_thread.clips[i] & 1] = 1;
    for (int f = 0; f < 4; f++)
        worst_still = fmax(worst_still, crowd_layers_worst_at(&one_thread, model, &ref, 0.3 * f, &whole, 1));
    printf("whole-body layer over both clips, walk frames and a one-thread crowd between: %.2g\n", worst_still);
    CHECK(bases[0] && bases[1]);
    CHECK(worst_still < 1e-4);
    crowd_destroy(&one_thread);
    layers_destroy(whole_zero);
    pose_destroy(&fast);
    pose_destroy(&ref);
    random_model_free();
    rm_identity_roots = 0;
}

/* A mask under globals the walk defers, one read by another's step: node
 * 0 a still root; nodes 1 to 9 bones the base moves, keyed at the same
 * times (a vector walk, walk_compile.c's vector_palette), 2 to 8 below 1
 * and 9 below 8, 9 a leaf of the walk (its global deferred: its palette
 * entry takes the product another way, vector_leaves); node 10 still
 * below 9 (deferred: its step reads 9's global); node 11 below 10, moved
 * only by the layer's clip, not a bone. The layer masked to node 11 forms it again; its product
 * reads 10's global, whose step reads 9's: the frame forms both first
 * (pose.c, `needed`), the rest stays owed to pose_globals. Palettes and
 * pose_globals against the reference on every kernel, at times between
 * keys, with plain frames between. */
enum { DC_NODES = 12, DC_BONES = 9, DC_CLIPS = 2, DC_KEYS = 5 };

static void test_deferred_chain(void)
{
    int parents[DC_NODES], bone_node[DC_BONES];
    for (int n = 0; n < DC_NODES; n++) parents[n] = n < 2 ? n - 1 : n < 9 ? 1 : n - 1;
    for (int b = 0; b < DC_BONES; b++) bone_node[b] = 1 + b;
    mat4 rest[DC_NODES], offsets[DC_BONES];
    skv_vec3_key t[DC_CLIPS][DC_NODES][DC_KEYS], sc[DC_CLIPS][DC_NODES][DC_KEYS];
    skv_quat_key r[DC_CLIPS][DC_NODES][DC_KEYS];
    skv_channel channels[DC_CLIPS][DC_NODES];
    int node_channel[DC_CLIPS][DC_NODES];
    skv_clip clips[DC_CLIPS];
    unsigned seed = 99;
    for (int n = 0; n < DC_NODES; n++) {
        glm_mat4_identity(rest[n]);
        rest[n][3][0] = 0.3f * n, rest[n][3][1] = 1.0f;
    }
    for (int b = 0; b < DC_BONES; b++) glm_mat4_identity(offsets[b]), offsets[b][3][2] = 0.1f * b;
    for (int c = 0; c < DC_CLIPS; c++) {
        int count = 0;
        for (int n = 0; n < DC_NODES; n++) {
            node_channel[c][n] = -1;
            if (n == 0 || n == 10 || (n == 11 && c == 0)) continue; /* still in that clip */
            for (int k = 0; k < DC_KEYS; k++) {
                double time = 2.0 * k;
                t[c][n][k] = (skv_vec3_key){time, {frand(&seed), 1.0f + frand(&seed), frand(&seed)}, 0.0f};
                sc[c][n][k] = (skv_vec3_key){time, {1.0f + 0.2f * frand(&seed), 1.0f, 1.0f}, 0.0f};
                r[c][n][k].time = time;
                axis_angle(frand(&seed), 1.0f, frand(&seed), 0.4 * k + c + 0.3 * n, r[c][n][k].value);
            }
            channels[c][count] = (skv_channel){.node = n, .position_count = DC_KEYS, .rotation_count = DC_KEYS,
                                               .scale_count = DC_KEYS, .positions = t[c][n], .rotations = r[c][n],
                                               .scales = sc[c][n]};
            node_channel[c][n] = count++;
        }
        clips[c] = (skv_clip){.duration_ticks = 8.0, .ticks_per_second = 1.0 + 0.25 * c, .channel_count = count,
                              .channels = channels[c], .node_channel = node_channel[c]};
    }
    skv_model model = {.clip_count = DC_CLIPS, .clips = clips};
    model.skeleton = (skv_skeleton){.node_count = DC_NODES, .parents = parents, .rest_local = rest,
                                    .bone_count = DC_BONES, .bone_node = bone_node, .bone_offset = offsets};
    glm_mat4_identity(model.global_inverse);
    model.global_inverse[3][2] = 0.5f;
    skv_walks *walks = NULL;
    CHECK(walks_create(&walks, &model) == SKV_OK);
    int mask[1] = {11};
    skv_layer_desc desc = {.clip = 1, .mask = mask, .mask_count = 1, .weight = 0.6f, .reference_clip = -1};
    skv_layers *layers = NULL;
    CHECK(layers_create(&layers, &model, &desc, 1, NULL) == SKV_OK);
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &model.skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &model.skeleton) == SKV_OK);
    double worst = 0.0;
    int kernels = 0;
    for (int kernel = SKV_WALK_AUTO + 1; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        if (!kernels_get((skv_walk_kernel)kernel)) continue;
        kernels++;
        fast.walk_kernel = kernel;
        for (int f = 0; f < 9; f++) {
            double time = 0.77 * f;
            if (f % 4 == 3) {
                pose_evaluate(&fast, walks, 0, time);
                pose_evaluate_reference(&ref, &model, 0, time);
            } else {
                pose_evaluate_layers(&fast, walks, 0, time, layers);
                pose_evaluate_layers_reference(&ref, &model, 0, time, &desc, 1);
            }
            worst = fmax(worst, fmax(palettes_apart(&fast, &ref, DC_BONES), globals_apart(&fast, &ref, &model)));
        }
    }
    const skv_walk *w = walks_clip(walks, 0);
    skv_walk_stats stats;
    walk_stats(w, &stats);
    printf("a mask under deferred globals (a vector walk, %d leaves; it defers %d), %d kernels: %.2g\n",
           stats.leaves, stats.deferred, kernels, worst);
    CHECK(stats.vector_palette && stats.leaves >= 1 && stats.deferred >= 4);
    CHECK(worst < 1e-4);
    layers_destroy(layers);
    pose_destroy(&fast);
    pose_destroy(&ref);
    walks_destroy(walks);
}

int main(void)
{
    test_hand_computed();
    test_random_model();
    test_still_roots();
    test_deferred_chain();
    return check_summary();
}
