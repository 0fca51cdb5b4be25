/* test_anim_layer_lanes_edges.c - the layered frame's lanes (layer_lanes.c)
 * against the reference (pose_evaluate_layers_reference) on keys at the
 * edges of what the lanes prepare: keys at one time (empty spans), a
 * rotation's keys q and -q in turn (the shorter-arc sign), keys a quarter
 * turn apart as quaternions (a . b exactly 0, or just under or over it),
 * identical keys, huge and tiny values, values not finite, rotation keys
 * of no length, one key everywhere, cubic and step keys, skeletons of 0,
 * 1, 8 and 9 nodes, times far past the end and negative; every kernel
 * (both builds of the lanes). The palettes agree within RELATIVE of the
 * reference's magnitude (a component's error over max(1, the matrix's
 * largest component)); where the reference's local has a value that is
 * not finite, the fast path's has one there too. Then what the lanes
 * cost: memory within the model's budget, the time to sort many time
 * lines; and a crowd's threads making them in their first frame. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anim.h"
#include "crowd.h"
#include "check.h"
#include "anim_fixtures.h"
#include "layer_lanes.h"
#include "layers.h"
#include "walk.h"

#define RELATIVE 1e-5

enum { E_CLIPS = 3, E_KEYS_MAX = 16 };

/* A model of `nodes` nodes (a binary tree), E_CLIPS clips with a channel
 * on every node, each filled by the scenario. */
typedef struct edge_model {
    int nodes;
    int *parents, *bone_node;
    mat4 *rest, *offsets;
    skv_channel *channels[E_CLIPS];
    int *node_channel[E_CLIPS];
    skv_clip clips[E_CLIPS];
    skv_model model;
} edge_model;

/* A scenario fills clip c's channel for node n (its keys, counts, modes). */
typedef void (*fill_fn)(int c, int n, skv_channel *ch, unsigned *seed);

static void unit_random(unsigned *seed, float q[4])
{
    double v[4], len = 0.0;
    for (int a = 0; a < 4; a++) v[a] = frand(seed), len += v[a] * v[a];
    len = sqrt(len);
    for (int a = 0; a < 4; a++) q[a] = (float)(v[a] / len);
}

static void edge_build(edge_model *em, int nodes, fill_fn fill, double duration)
{
    memset(em, 0, sizeof *em);
    em->nodes = nodes;
    size_t n1 = nodes > 0 ? (size_t)nodes : 1;
    em->parents = calloc(n1, sizeof(int));
    em->bone_node = calloc(n1, sizeof(int));
    em->rest = calloc(n1, sizeof(mat4));
    em->offsets = calloc(n1, sizeof(mat4));
    unsigned seed = 5;
    for (int n = 0; n < nodes; n++) {
        em->parents[n] = n == 0 ? -1 : (n - 1) / 2;
        float q[4];
        unit_random(&seed, q);
        keys_quat_mat4(q, em->rest[n]);
        em->rest[n][3][0] = frand(&seed), em->rest[n][3][1] = 1.0f + frand(&seed);
        unit_random(&seed, q);
        keys_quat_mat4(q, em->offsets[n]);
        em->offsets[n][3][1] = frand(&seed);
        em->bone_node[n] = n;
    }
    for (int c = 0; c < E_CLIPS; c++) {
        em->channels[c] = calloc(n1, sizeof(skv_channel));
        em->node_channel[c] = calloc(n1, sizeof(int));
        for (int n = 0; n < nodes; n++) {
            skv_channel *ch = &em->channels[c][n];
            ch->node = n;
            fill(c, n, ch, &seed);
            em->node_channel[c][n] = n;
        }
        em->clips[c] = (skv_clip){.duration_ticks = duration, .ticks_per_second = 1.0 + 0.25 * c,
                                  .channel_count = nodes, .channels = em->channels[c],
                                  .node_channel = em->node_channel[c]};
    }
    em->model = (skv_model){.clip_count = E_CLIPS, .clips = em->clips};
    em->model.skeleton = (skv_skeleton){.node_count = nodes, .parents = em->parents, .rest_local = em->rest,
                                        .bone_count = nodes, .bone_node = em->bone_node,
                                        .bone_offset = em->offsets};
    glm_mat4_identity(em->model.global_inverse);
}

static void edge_free(edge_model *em)
{
    for (int c = 0; c < E_CLIPS; c++) {
        for (int n = 0; n < em->nodes; n++) {
            free(em->channels[c][n].positions);
            free(em->channels[c][n].rotations);
            free(em->channels[c][n].scales);
            free(em->channels[c][n].position_tangents);
            free(em->channels[c][n].rotation_tangents);
        }
        free(em->channels[c]);
        free(em->node_channel[c]);
    }
    free(em->parents), free(em->bone_node), free(em->rest), free(em->offsets);
}

/* Arrays of `count` keys at `times`, values random around base. */
static void channel_keys(skv_channel *ch, const double *times, int count, unsigned *seed, float t_scale,
                         float s_base, float s_spread)
{
    ch->position_count = ch->rotation_count = ch->scale_count = count;
    ch->positions = calloc((size_t)count, sizeof *ch->positions);
    ch->rotations = calloc((size_t)count, sizeof *ch->rotations);
    ch->scales = calloc((size_t)count, sizeof *ch->scales);
    for (int k = 0; k < count; k++) {
        ch->positions[k].time = ch->rotations[k].time = ch->scales[k].time = times[k];
        for (int a = 0; a < 3; a++) {
            ch->positions[k].value[a] = t_scale * frand(seed);
            ch->scales[k].value[a] = s_base + s_spread * frand(seed);
        }
        unit_random(seed, ch->rotations[k].value);
    }
}

static const double grid8[8] = {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0};

/* --- the scenarios ---------------------------------------------------- */

static void fill_zero_spans(int c, int n, skv_channel *ch, unsigned *seed)
{
    static const double times[8] = {0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 5.0};
    channel_keys(ch, n % 2 || c == 1 ? times : grid8, 8, seed, 1.0f, 1.0f, 0.2f);
}

/* Neighbouring keys up to ~60 degrees apart, every other one negated. */
static void fill_sign_flips(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c, (void)n;
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    float q[4];
    unit_random(seed, q);
    for (int k = 0; k < 8; k++) {
        float d[4];
        unit_random(seed, d);
        float s = k % 2 ? -1.0f : 1.0f, len = 0.0f;
        for (int a = 0; a < 4; a++) q[a] = q[a] + 0.5f * d[a], len += q[a] * q[a];
        for (int a = 0; a < 4; a++) q[a] /= sqrtf(len), ch->rotations[k].value[a] = s * q[a];
    }
}

/* Keys a quarter turn apart as quaternions: a . b exactly 0, just under
 * and just over it (1e-7, float's noise), and exactly opposite (q, -q). */
static void opposite_keys(skv_channel *ch, float eps)
{
    for (int k = 0; k < 8; k++) {
        float *q = ch->rotations[k].value, r = sqrtf(1.0f - eps * eps);
        switch (k % 4) {
        case 0: q[0] = 0, q[1] = 0, q[2] = 0, q[3] = 1; break;
        case 1: q[0] = r, q[1] = 0, q[2] = 0, q[3] = eps; break;
        case 2: q[0] = 0, q[1] = -r, q[2] = 0, q[3] = -eps; break;
        case 3: q[0] = 0, q[1] = r, q[2] = 0, q[3] = eps; break; /* -key 2 */
        }
    }
}

/* The ties in the base's keys (the prepared pairs' sign), layers keyed
 * at random: a layer's mixing is then far from a tie of its own. */
static void fill_opposite(int c, int n, skv_channel *ch, unsigned *seed)
{
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    static const float e[4] = {0.0f, 1e-7f, 1e-4f, 3e-3f};
    if (c == 0) opposite_keys(ch, e[n % 4] * (n % 3 == 0 ? -1.0f : 1.0f));
}

/* Every clip so, at a margin the sampling's rounding cannot cross: the
 * mixing's shorter arc settled as the reference settles it. */
static void fill_opposite_mixed(int c, int n, skv_channel *ch, unsigned *seed)
{
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    static const float e[2] = {1e-4f, 3e-3f};
    opposite_keys(ch, e[(n + c) % 2] * (n % 3 == 0 ? -1.0f : 1.0f));
}

/* Rotation keys a little off unit length, as files written to a few
 * decimals have them (|q|^2 within 1e-5 of 1, what the lanes prepare):
 * the reference slerps them as they are, and its arc's pace between two
 * keys depends on their lengths. */
static void fill_near_unit(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c;
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    for (int k = 0; k < 8; k++) {
        float f = 1.0f + ((k + n) % 2 ? 4.9e-6f : -4.9e-6f);
        for (int a = 0; a < 4; a++) ch->rotations[k].value[a] *= f;
    }
}

/* Channels on five time lines, spaced and offset apart (each curve's
 * keys reduced on its own, as ozz's run.fbx has them), keyed as one at
 * their union (layer_lanes.c, merge_lines); the base's keys with the
 * shorter-arc ties of fill_opposite and sign flips, so that keys added
 * between them take the side the reference's turns give. */
static void lines_keys(int c, int n, skv_channel *ch, unsigned *seed)
{
    int line = n % 5;
    double times[8];
    for (int k = 0; k < 8; k++) times[k] = 0.37 * line + k * (0.7 + 0.13 * line);
    channel_keys(ch, times, 8, seed, 1.0f, 1.0f, 0.2f);
    static const float e[4] = {0.0f, 1e-7f, 1e-4f, 3e-3f};
    if (c == 0 && n % 3 == 0) opposite_keys(ch, e[n % 4] * (n % 2 ? -1.0f : 1.0f));
    if (n % 3 == 1)
        for (int k = 1; k < 8; k += 2)
            for (int a = 0; a < 4; a++) ch->rotations[k].value[a] = -ch->rotations[k].value[a];
}

static void fill_lines(int c, int n, skv_channel *ch, unsigned *seed)
{
    lines_keys(c, n, ch, seed);
}

/* The same, lines 3 and 4 with keys a little off unit length: those
 * stay apart (weighted), the others are keyed as one. */
static void fill_lines_weighted(int c, int n, skv_channel *ch, unsigned *seed)
{
    lines_keys(c, n, ch, seed);
    if (n % 5 < 3) return;
    for (int k = 0; k < 8; k++) {
        float f = 1.0f + ((k + n) % 2 ? 4.9e-6f : -4.9e-6f);
        for (int a = 0; a < 4; a++) ch->rotations[k].value[a] *= f;
    }
}

/* Rotation keys a quarter turn apart as quaternions whose float dot
 * product is 1.5e-8 (the pair test_anim_walk.c's test_merge_near_keys
 * found), on the odd nodes; the even nodes keyed 1e-9 after the first
 * key, so that a merge adds a key there: its own float dot product with
 * the second key falls on the other side of 0, and a pair signed by it
 * would go the long way round. */
static void fill_tie(int c, int n, skv_channel *ch, unsigned *seed)
{
    static const double odd[3] = {0.0, 1.0, 2.0}, even[3] = {0.0, 1e-9, 2.0};
    static const float a[4] = {0.034514229744672775f, 0.5080028176307678f, 0.6790691614151001f,
                               -0.5287788510322571f};
    static const float b[4] = {-0.32721543312072754f, -0.7984181642532349f, 0.4708543121814728f,
                               -0.18372449278831482f};
    channel_keys(ch, n % 2 ? odd : even, 3, seed, 1.0f, 1.0f, 0.2f);
    if (c == 0 && n % 2)
        for (int k = 0; k < 3; k++) memcpy(ch->rotations[k].value, k == 0 ? a : b, sizeof a);
}

static void fill_identical(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c;
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    for (int k = 1; k < 8; k++)
        if (k % 2 || n % 2) {
            ch->positions[k] = (skv_vec3_key){.time = grid8[k], .value = {ch->positions[k - 1].value[0],
                                              ch->positions[k - 1].value[1], ch->positions[k - 1].value[2]}};
            memcpy(ch->rotations[k].value, ch->rotations[k - 1].value, sizeof(float[4]));
        }
}

static void fill_huge(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c, (void)n;
    channel_keys(ch, grid8, 8, seed, 1e6f, 1e6f, 3e5f);
}

static void fill_tiny(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c, (void)n;
    channel_keys(ch, grid8, 8, seed, 1e-30f, 1.0f, 0.2f);
    for (int k = 0; k < 8; k++) /* rotations a hair from the identity */
        for (int a = 0; a < 4; a++) ch->rotations[k].value[a] = a == 3 ? 1.0f : 1e-30f * frand(seed);
}

static void fill_nonfinite(int c, int n, skv_channel *ch, unsigned *seed)
{
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    if (n % 5 == 1) ch->positions[3].value[1] = NAN;
    if (n % 5 == 2) ch->scales[4].value[0] = INFINITY;
    if (n % 5 == 3) ch->rotations[2 + c].value[2] = NAN;
    if (n % 5 == 4) ch->rotations[5].value[0] = -INFINITY;
}

static void fill_zero_quat(int c, int n, skv_channel *ch, unsigned *seed)
{
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    if (n % 3 == c % 3) memset(ch->rotations[n % 8].value, 0, sizeof(float[4]));
}

static void fill_single(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c, (void)n;
    static const double t0[1] = {0.0};
    channel_keys(ch, t0, 1, seed, 1.0f, 1.0f, 0.2f);
}

/* Cubic keys (glTF's CUBICSPLINE) on some channels' T or R, step keys
 * on others': sampled one by one, as the reference samples them. */
static void fill_cubic(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c;
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
    if (n % 3 == 0) {
        ch->rotation_mode = SKV_KEY_CUBIC;
        ch->rotation_tangents = malloc(8 * 8 * sizeof(float));
        for (int k = 0; k < 64; k++) ch->rotation_tangents[k] = 0.3f * frand(seed);
    } else if (n % 3 == 1) {
        ch->position_mode = SKV_KEY_CUBIC;
        ch->position_tangents = malloc(8 * 6 * sizeof(float));
        for (int k = 0; k < 48; k++) ch->position_tangents[k] = frand(seed);
    } else if (n % 6 == 2) {
        ch->scale_mode = SKV_KEY_STEP;
    }
}

static void fill_plain(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c, (void)n;
    channel_keys(ch, grid8, 8, seed, 1.0f, 1.0f, 0.2f);
}

/* --- the comparison --------------------------------------------------- */

typedef struct result {
    double worst;    /* relative */
    int nonfinite_mismatch;
    int frames;
} result;

/* Any argument: the first component past 1e-3, and the first not finite
 * in one only, printed. */
static int edge_verbose;

/* The palettes where both are finite; `locals` (every node formed
 * again: a layer over the whole body), the locals' non-finite components
 * where they are (the palettes' differ by design: the kernels' affine
 * products skip the bottom row's zeros, which times NaN are NaN in the
 * reference's full products). */
static void compare(const skv_pose *fast, const skv_pose *ref, int nodes, int bones, int locals, result *r)
{
    for (int k = 0; k < bones; k++) {
        double size = 1.0; /* the matrix's largest finite component */
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 4; row++)
                if (isfinite(ref->palette[k][c][row])) size = fmax(size, fabs(ref->palette[k][c][row]));
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 4; row++) {
                double a = fast->palette[k][c][row], b = ref->palette[k][c][row];
                if (!isfinite(b) || !isfinite(a)) continue;
                double e = fabs(a - b) / size;
                if (edge_verbose && e > 1e-3 && r->worst <= 1e-3)
                    printf("  bone %d [%d][%d]: fast %g, reference %g (frame %d)\n", k, c, row, a, b, r->frames);
                if (e > r->worst) r->worst = e;
            }
    }
    for (int n = 0; locals && n < nodes; n++)
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 3; row++) { /* the bottom row: 0 0 0 1 (the reference's: 0 times S) */
                double a = fast->local[n][c][row], b = ref->local[n][c][row];
                if (isfinite(a) != isfinite(b)) {
                    if (edge_verbose && !r->nonfinite_mismatch)
                        printf("  local %d [%d][%d]: fast %g, reference %g (frame %d)\n", n, c, row, a, b,
                               r->frames);
                    r->nonfinite_mismatch++;
                }
            }
}

static const double edge_seconds[] = {-3.3, -1e9, 0.0, 0.5, 1.0, 1.5, 2.0, 2.7, 3.0, 4.99, 6.5, 7.0, 7.5,
                                      9.9, 1234.5, 1e7 + 0.37, 3e12, 0.25};

/* Every kernel, three layer sets, bases 0 and -1, every time: fast
 * against the reference. */
static result run_model(const skv_model *model)
{
    int nodes = model->skeleton.node_count;
    int mask_two[] = {2}, mask_one[] = {1};
    int masked = nodes > 2;
    const skv_layer_desc sets[][3] = {
        {{.clip = 1, .weight = 0.6f, .reference_clip = -1}},
        {{.clip = 2, .mask = masked ? mask_two : NULL, .mask_count = masked, .additive = 1, .weight = 0.35f,
          .reference_clip = -1}},
        {{.clip = 1, .mask = masked ? mask_one : NULL, .mask_count = masked, .weight = 1.0f, .reference_clip = -1},
         {.clip = 1, .additive = 1, .weight = 1.0f, .reference_clip = 2},
         {.clip = 2, .additive = 1, .weight = 0.8f, .reference_clip = -1}},
    };
    const int set_count[] = {1, 1, 3};
    result r = {0};
    skv_walks *walks = NULL;
    CHECK(walks_create(&walks, model) == SKV_OK);
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &model->skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &model->skeleton) == SKV_OK);
    for (int kernel = SKV_WALK_AUTO + 1; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        if (!kernels_get((skv_walk_kernel)kernel)) continue;
        fast.walk_kernel = kernel;
        for (int s = 0; s < 3; s++) {
            skv_layers *layers = NULL;
            CHECK(layers_create(&layers, model, sets[s], set_count[s], NULL) == SKV_OK);
            for (size_t f = 0; f < sizeof edge_seconds / sizeof edge_seconds[0]; f++) {
                int base = f % 4 == 3 ? -1 : 0;
                pose_evaluate_layers(&fast, walks, base, edge_seconds[f], layers);
                pose_evaluate_layers_reference(&ref, model, base, edge_seconds[f], sets[s], set_count[s]);
                compare(&fast, &ref, nodes, model->skeleton.bone_count, s == 0, &r);
                r.frames++;
            }
            layers_destroy(layers);
        }
    }
    pose_destroy(&fast);
    pose_destroy(&ref);
    walks_destroy(walks);
    return r;
}

/* How clip 0 of a scenario's model is prepared: its time lines and the
 * channels sampled one by one (-1, -1 unchecked). */
static int expect_lines = -1, expect_loose = -1;

static void scenario(const char *name, int nodes, fill_fn fill, double tolerance)
{
    edge_model em;
    edge_build(&em, nodes, fill, 8.5);
    if (expect_lines >= 0) {
        size_t held = 0;
        skv_clip_lanes *cl = clip_lanes_prepare(&em.model, &em.clips[0], &held);
        int groups = -1, loose = -1, constant = -1;
        if (cl) clip_lanes_counts(cl, &groups, &loose, &constant);
        printf("%s: clip 0 prepared as %d time lines, %d channels one by one\n", name, groups, loose);
        CHECK(groups == expect_lines && loose == expect_loose);
        clip_lanes_free(cl);
        expect_lines = expect_loose = -1;
    }
    result r = run_model(&em.model);
    printf("%-12s %4d nodes: %d frames, worst relative %.3g, non-finite mismatches %d\n", name, nodes, r.frames,
           r.worst, r.nonfinite_mismatch);
    if (!(r.worst <= tolerance) || r.nonfinite_mismatch)
        fprintf(stderr, "scenario %s failed: worst %.3g (tolerance %.3g), %d non-finite mismatches\n", name,
                r.worst, tolerance, r.nonfinite_mismatch);
    CHECK(r.worst <= tolerance);
    CHECK(r.nonfinite_mismatch == 0);
    edge_free(&em);
}

/* A long clip whose channels are each on a time line of their own (key
 * reduction per channel; every key apart, so that their union is 60
 * times the keys, far past what a merge may take): its lanes keep within
 * the model's budget (32 MB, skv_walk_bytes.lanes), and the heap grows by
 * little more when a layered frame prepares them (2.4 GB without a budget
 * for 60 such channels over 2,000 s at 30 Hz); the frame is still the
 * reference's. */
enum { LONG_KEYS = 3000 };

static void fill_long(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c;
    double *times = malloc(LONG_KEYS * sizeof *times);
    for (int k = 0; k < LONG_KEYS; k++) times[k] = k / 30.0 + 1e-4 * n;
    channel_keys(ch, times, LONG_KEYS, seed, 1.0f, 1.0f, 0.2f);
    free(times);
}

static void lanes_budget(void)
{
    edge_model em;
    edge_build(&em, 60, fill_long, LONG_KEYS / 30.0);
    skv_walks *walks = NULL;
    CHECK(walks_create(&walks, &em.model) == SKV_OK);
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &em.model.skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &em.model.skeleton) == SKV_OK);
    skv_layer_desc desc = {.clip = 1, .weight = 0.5f, .reference_clip = -1};
    skv_layers *layers = NULL;
    CHECK(layers_create(&layers, &em.model, &desc, 1, NULL) == SKV_OK);
    CHECK(walks_compile_all(walks) == SKV_OK); /* the walks' own bytes not counted below */
    struct mallinfo2 before = mallinfo2();
    pose_evaluate_layers(&fast, walks, 0, 33.3, layers);
    struct mallinfo2 after = mallinfo2();
    double grown = ((double)after.uordblks + (double)after.hblkhd) - ((double)before.uordblks + (double)before.hblkhd);
    pose_evaluate_layers_reference(&ref, &em.model, 0, 33.3, &desc, 1);
    result r = {0};
    compare(&fast, &ref, em.nodes, em.nodes, 1, &r);
    int groups = 0, loose = 0, constant = 0;
    clip_lanes_counts(walks_clip_lanes(walks, 0), &groups, &loose, &constant);
    printf("60 channels on their own time lines, %d keys: heap grown %.1f MB, lanes hold %.1f MB; "
           "%d time lines, %d channels one by one; relative %.3g\n", LONG_KEYS, grown / 1e6,
           (double)walks->held.lanes / 1e6, groups, loose, r.worst);
    CHECK(grown < 40e6); /* mallinfo2 counts nothing under ASan: 0 there */
    CHECK(walks->held.lanes <= (size_t)32 << 20);
    CHECK(walks->held.lanes == clip_lanes_bytes(walks_clip_lanes(walks, 0)) +
                                   clip_lanes_bytes(walks_clip_lanes(walks, 1)));
    CHECK(groups > 0 && loose > 0 && groups + loose == 60);
    CHECK(r.worst <= RELATIVE);
    CHECK(walks_forget(walks) == SKV_OK);
    CHECK(walks->held.lanes == 0);
    layers_destroy(layers);
    pose_destroy(&fast);
    pose_destroy(&ref);
    walks_destroy(walks);
    edge_free(&em);
}

/* Two unit lines on blocks of their own (nodes 0 and 8, keyed apart:
 * their union is twice the keys on twice the blocks, 10.8 MB) beside a
 * weighted line that takes 26.9 MB of the model's 32 MB: the three fit
 * apart (32.3 MB), the merged line not after the weighted one, which is
 * charged first. The merge is not taken: on d26380e it was, and then
 * did not fit, and both unit channels went one by one. */
enum { SPLIT_UNIT_KEYS = 4000, SPLIT_WEIGHTED_KEYS = 40000 };

static void fill_budget_split(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c;
    int keys = n == 0 || n == 8 ? SPLIT_UNIT_KEYS : n == 16 ? SPLIT_WEIGHTED_KEYS : 1;
    double *times = malloc((size_t)keys * sizeof *times);
    for (int k = 0; k < keys; k++) times[k] = n == 16 ? k : 2.0 * k + (n == 8);
    channel_keys(ch, times, keys, seed, 1.0f, 1.0f, 0.2f);
    free(times);
    for (int k = 0; n == 16 && k < keys; k++) { /* weighted: |q|^2 ~4e-6 off 1 */
        float f = 1.0f + (k % 2 ? 2e-6f : -2e-6f);
        for (int a = 0; a < 4; a++) ch->rotations[k].value[a] *= f;
    }
}

static void merge_after_weighted(void)
{
    edge_model em;
    edge_build(&em, 17, fill_budget_split, SPLIT_WEIGHTED_KEYS);
    size_t held = 0;
    skv_clip_lanes *cl = clip_lanes_prepare(&em.model, &em.clips[0], &held);
    CHECK(cl != NULL);
    int groups = -1, loose = -1, constant = -1;
    if (cl) clip_lanes_counts(cl, &groups, &loose, &constant);
    printf("two unit lines beside a weighted line of %.1f MB: %d time lines, %d channels one by one, %.1f MB\n",
           SPLIT_WEIGHTED_KEYS * 672.0 / 1e6, groups, loose, (double)held / 1e6);
    CHECK(groups == 3 && loose == 0 && constant == 14);
    CHECK(held == clip_lanes_bytes(cl) && held <= (size_t)32 << 20);
    clip_lanes_free(cl);
    edge_free(&em);
}

/* 4,000 channels, each on a time line of its own that differs from the
 * others only at its last key: sorting them into time lines compares
 * each with every line found before it key by key (1.6e9 compares, 2.6 s
 * of CPU on 41ffd70; 0.03 s with the hashes) unless the lines' hashes
 * settle it. */
enum { MANY_NODES = 4000, MANY_KEYS = 200 };

static void fill_many(int c, int n, skv_channel *ch, unsigned *seed)
{
    (void)c;
    double times[MANY_KEYS];
    for (int k = 0; k < MANY_KEYS; k++) times[k] = k + (k == MANY_KEYS - 1 ? 1e-3 * n : 0.0);
    channel_keys(ch, times, MANY_KEYS, seed, 1.0f, 1.0f, 0.2f);
}

static void many_time_lines(void)
{
    edge_model em;
    edge_build(&em, MANY_NODES, fill_many, MANY_KEYS);
    size_t held = 0;
    clock_t t0 = clock();
    skv_clip_lanes *cl = clip_lanes_prepare(&em.model, &em.clips[0], &held);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(cl != NULL);
    int groups = 0, loose = 0, constant = 0;
    clip_lanes_counts(cl, &groups, &loose, &constant);
    printf("%d channels on %d time lines of %d keys: prepared in %.3f s of CPU (%d lines, %d one by one, %.1f MB)\n",
           MANY_NODES, MANY_NODES, MANY_KEYS, cpu, groups, loose, (double)held / 1e6);
    CHECK(groups + loose == MANY_NODES && held == clip_lanes_bytes(cl));
#ifdef SKV_SANITIZE
    CHECK(cpu < 5.0); /* the sanitizers' builds, Debug among them: several times slower */
#else
    CHECK(cpu < 1.0);
#endif
    clip_lanes_free(cl);
    edge_free(&em);
}

/* A crowd's first layered frame on walks compiled on first use, on four
 * threads: the walks and the clips' lanes are made while other threads
 * wait for them (walks.c's lock; the TSan build checks), and every
 * character's rows are the reference's. */
static void crowd_first_frame(void)
{
    edge_model em;
    edge_build(&em, 37, fill_sign_flips, 8.5);
    int mask[] = {2};
    const skv_layer_desc desc[2] = {
        {.clip = 1, .mask = mask, .mask_count = 1, .weight = 0.6f, .reference_clip = -1},
        {.clip = 2, .additive = 1, .weight = 0.5f, .reference_clip = 0},
    };
    skv_layers *layers = NULL;
    CHECK(layers_create(&layers, &em.model, desc, 2, NULL) == SKV_OK);
    double worst = 0.0;
    for (int round = 0; round < 4; round++) {
        skv_walks *walks = NULL;
        CHECK(walks_create(&walks, &em.model) == SKV_OK);
        skv_crowd crowd;
        CHECK(crowd_create(&crowd, walks, 24, 0, 1, 4) == SKV_OK);
        crowd_set_layers(&crowd, layers);
        skv_pose ref;
        CHECK(pose_create(&ref, &em.model.skeleton) == SKV_OK);
        for (int f = 0; f < 3; f++) {
            double t = 0.7 + 2.9 * f + 0.1 * round;
            crowd_evaluate(&crowd, t);
            for (int i = 0; i < crowd.count; i++) {
                pose_evaluate_layers_reference(&ref, &em.model, crowd.clips[i], t + crowd.offsets[i], desc, 2);
                const float *mine = &crowd.palettes[(size_t)i * crowd.bone_count * SKV_ROWS_FLOATS];
                for (int b = 0; b < crowd.bone_count; b++)
                    for (int r = 0; r < 3; r++)
                        for (int c = 0; c < 4; c++)
                            worst = fmax(worst, fabs(mine[b * SKV_ROWS_FLOATS + 4 * r + c] - ref.palette[b][c][r]));
            }
        }
        pose_destroy(&ref);
        crowd_destroy(&crowd);
        walks_destroy(walks);
    }
    printf("crowds of 24 on 4 threads, walks and lanes made in their first frame: %.2g off the reference\n", worst);
    CHECK(worst < 1e-4);
    layers_destroy(layers);
    edge_free(&em);
}

/* The walks forgotten or compiled again between layered frames (their
 * lanes freed under the pose's plan), the base clip changing every frame,
 * the rest pose, layers made again: every frame the reference's (the
 * ASan build sees any read of freed lanes). */
static void lanes_lifetime(void)
{
    edge_model em;
    edge_build(&em, 37, fill_sign_flips, 8.5);
    int mask[] = {1};
    const skv_layer_desc desc[2] = {
        {.clip = 1, .mask = mask, .mask_count = 1, .weight = 0.8f, .reference_clip = -1},
        {.clip = 2, .additive = 1, .weight = 0.5f, .reference_clip = -1},
    };
    skv_walks *walks = NULL;
    CHECK(walks_create(&walks, &em.model) == SKV_OK);
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &em.model.skeleton) == SKV_OK);
    CHECK(pose_create(&ref, &em.model.skeleton) == SKV_OK);
    skv_layers *layers = NULL;
    CHECK(layers_create(&layers, &em.model, desc, 2, NULL) == SKV_OK);
    result r = {0};
    for (int f = 0; f < 40; f++) {
        double t = 0.37 * f;
        int base = f % 4 - 1; /* -1 (the rest pose), 0, 1, 2 */
        if (f % 5 == 2) CHECK(walks_forget(walks) == SKV_OK);
        if (f % 5 == 4) CHECK(walks_compile_all(walks) == SKV_OK);
        if (f % 7 == 6) {
            layers_destroy(layers);
            CHECK(layers_create(&layers, &em.model, desc, 2, NULL) == SKV_OK);
        }
        pose_evaluate_layers(&fast, walks, base, t, layers);
        pose_evaluate_layers_reference(&ref, &em.model, base, t, desc, 2);
        compare(&fast, &ref, em.nodes, em.nodes, 0, &r);
    }
    printf("walks forgotten and compiled again, base clips changing, layers made again: relative %.3g\n", r.worst);
    CHECK(r.worst <= RELATIVE);
    layers_destroy(layers);
    pose_destroy(&fast);
    pose_destroy(&ref);
    walks_destroy(walks);
    edge_free(&em);
}

int main(int argc, char **argv)
{
    edge_verbose = argc > 1;
    (void)argv;
    scenario("zero spans", 37, fill_zero_spans, RELATIVE);
    expect_lines = 1, expect_loose = 0;
    scenario("sign flips", 37, fill_sign_flips, RELATIVE);
    scenario("opposite", 37, fill_opposite, RELATIVE);
    scenario("opposite mix", 37, fill_opposite_mixed, RELATIVE);
    expect_lines = 1, expect_loose = 0; /* in lanes, weighted: not one by one */
    scenario("near unit", 37, fill_near_unit, RELATIVE);
    expect_lines = 1, expect_loose = 0;
    scenario("lines", 37, fill_lines, RELATIVE);
    expect_lines = 3, expect_loose = 0;
    scenario("lines, some weighted", 37, fill_lines_weighted, RELATIVE);
    expect_lines = 1, expect_loose = 0;
    scenario("tie added", 9, fill_tie, RELATIVE);
    scenario("identical", 37, fill_identical, RELATIVE);
    scenario("huge", 37, fill_huge, RELATIVE);
    scenario("tiny", 37, fill_tiny, RELATIVE);
    scenario("non-finite", 37, fill_nonfinite, RELATIVE);
    scenario("zero quat", 37, fill_zero_quat, RELATIVE);
    scenario("single key", 37, fill_single, RELATIVE);
    scenario("cubic, step", 37, fill_cubic, RELATIVE);
    scenario("no nodes", 0, fill_plain, RELATIVE);
    scenario("one node", 1, fill_plain, RELATIVE);
    scenario("eight", 8, fill_plain, RELATIVE);
    scenario("nine", 9, fill_plain, RELATIVE);
    lanes_budget();
    merge_after_weighted();
    many_time_lines();
    crowd_first_frame();
    lanes_lifetime();
    return check_summary();
}
