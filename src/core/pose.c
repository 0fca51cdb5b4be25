/* pose.c - a character's pose (skv_pose): the fast evaluation through the
 * clip's compiled walk (walk.h) and its kernels (kernels.h), the key
 * cursors, blends of two clips, and layers (layers.h). */
#include "anim.h"
#include "layer_lanes.h"
#include "layers.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void layer_plan_free(struct skv_layer_plan *plan);
static void layer_plan_owed(skv_pose *pose);

/* skv_pose walk_clip after a layered frame: the palette holds the base
 * walk's fixed entries but for the bones its plan formed again (so a
 * plain frame, seeing another value, writes them all again). */
enum { WALK_CLIP_LAYERED = -3 };

skv_result pose_create(skv_pose *pose, const skv_skeleton *skeleton)
{
    return pose_create_into(pose, skeleton, NULL);
}

static skv_result pose_setup(skv_pose *pose, const skv_skeleton *skeleton, mat4 *palette, int own_work)
{
    memset(pose, 0, sizeof *pose);
    pose->node_count = skeleton->node_count;
    pose->bone_count = skeleton->bone_count;
    size_t nodes = skeleton->node_count > 0 ? (size_t)skeleton->node_count : 1;
    size_t bones = skeleton->bone_count > 0 ? (size_t)skeleton->bone_count : 1;
    /* 64-byte aligned: a 4x4 float matrix is one cache line, and one
     * AVX-512 register. */
    pose->work = own_work ? aligned_alloc(64, 2 * nodes * sizeof(mat4)) : NULL;
    pose->palette = palette ? palette : aligned_alloc(64, bones * sizeof(mat4));
    pose->palette_borrowed = palette != NULL;
    pose->walk_clip = -2;
    if ((own_work && !pose->work) || !pose->palette) {
        pose_destroy(pose);
        return SKV_ERR_MEMORY;
    }
    if (own_work) {
        pose->global = (mat4 *)pose->work;
        pose->local = pose->global + skeleton->node_count;
    }
    return SKV_OK;
}

skv_result pose_create_into(skv_pose *pose, const skv_skeleton *skeleton, mat4 *palette)
{
    return pose_setup(pose, skeleton, palette, 1);
}

skv_result pose_create_lent(skv_pose *pose, const skv_skeleton *skeleton, float *rows)
{
    if (pose_setup(pose, skeleton, (mat4 *)(void *)rows, 0) != 0) return SKV_ERR_MEMORY;
    pose->palette_rows = 1;
    return SKV_OK;
}

void pose_destroy(skv_pose *pose)
{
    free(pose->work);
    if (!pose->palette_borrowed) free(pose->palette);
    free(pose->cursors);
    free(pose->rest_trs);
    layer_plan_free(pose->layer_plan);
    memset(pose, 0, sizeof *pose);
}

void pose_evaluate_reference(skv_pose *pose, const skv_model *model, int clip, double seconds)
{
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    double ticks = c ? keys_clip_ticks(c, seconds) : 0.0;
    pose->walk_clip = -2; /* every palette entry is rewritten here */
    pose->playing_walks = NULL;
    pose->globals_owed = NULL;
    anim_sample(&model->skeleton, c, ticks, pose->local);
    skeleton_pose(&model->skeleton, pose->local, pose->global);
    skin_palette(&model->skeleton, pose->global, model->global_inverse, pose->palette);
}

/* local = T * R * S from a unit quaternion, written straight into the
 * columns (the product keys_local would form). */
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

/* out = a * b for affine matrices (bottom row 0 0 0 1): the bottom row is
 * not computed, it comes out of the columns' w by itself. */
static inline void affine_mul(const mat4 a, const mat4 b, mat4 out)
{
    mat4 r;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
            r[j][i] = a[0][i] * b[j][0] + a[1][i] * b[j][1] + a[2][i] * b[j][2] + (j == 3 ? a[3][i] : 0.0f);
    memcpy(out, r, sizeof r);
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
        /* A clip of no node channel (morph weights only) on a pose that
         * has no cursors yet: nothing to reset, and no null to memset. */
        if (channels > 0) memset(pose->cursors, 0, (size_t)channels * 3 * sizeof *pose->cursors);
        pose->cursor_clip = clip;
    }
    return pose->cursors;
}

/* pose_evaluate when something is to settle first: the clip's walk
 * compiled, the kernels looked up, the fixed palette entries written, the
 * cursors made; or the reference's path. Out of line: the frame of
 * playback (pose_evaluate) keeps no frame of its own. */
static __attribute__((noinline)) void pose_evaluate_settle(skv_pose *pose, skv_walks *walks, int clip,
                                                          double seconds)
{
    const skv_model *model = walks->model;
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    const skv_walk *w = walks_clip(walks, c ? clip : -1);
    pose->playing_walks = NULL;
    if (!w && pose->palette_rows) {
        /* No walk (memory ran out) and no room for the reference's 4x4
         * palette: the bind pose, identity rows. */
        float *rows = (float *)(void *)pose->palette;
        for (int b = 0; b < pose->bone_count; b++)
            for (int k = 0; k < SKV_ROWS_FLOATS; k++) rows[b * SKV_ROWS_FLOATS + k] = k % 5 == 0 ? 1.0f : 0.0f;
        pose->walk_clip = -2; /* every entry rewritten, fixed ones included */
        return;
    }
    if (!w) {
        pose_evaluate_reference(pose, model, clip, seconds);
        return;
    }
    const skv_kernels *kernels = pose->kernels;
    if (!kernels || pose->kernels_for != pose->walk_kernel) {
        kernels = kernels_get((skv_walk_kernel)pose->walk_kernel);
        if (!kernels) kernels = kernels_get(SKV_WALK_AUTO); /* not on this CPU */
        pose->kernels = kernels, pose->kernels_for = pose->walk_kernel;
    }
    double ticks = c ? keys_clip_ticks(c, seconds) : 0.0;
    int clip_key = c ? clip : -1;
    if (pose->walk_clip != clip_key || pose->walk_generation != walks->generation) {
        walk_fixed(w, pose->work, (float *)pose->palette, kernels, pose->palette_rows);
        pose->walk_clip = clip_key, pose->walk_generation = walks->generation;
    }
    /* The same clip as last frame: its cursors as they are (pose_cursors' own test, inline). */
    int *cursors = !c ? NULL
                 : pose->cursor_clip == clip && c->channel_count <= pose->cursor_capacity
                     ? pose->cursors
                     : pose_cursors(pose, clip, c->channel_count);
    int deferred = walk_pose(w, c, ticks, cursors, pose->work, (float *)pose->palette, kernels, pose->palette_rows);
    pose->globals_owed = deferred ? w : NULL;
    /* Settled for playback: this clip's fixed entries in the palette, the
     * kernels looked up, the cursors this clip's. The rest pose (no clip)
     * too: its walk is still, and its frame reads no clip. */
    if (c ? cursors != NULL : walk_is_still(w)) {
        pose->playing_walks = walks, pose->playing_c = c, pose->playing_walk = w;
        pose->playing_clip = clip;
    }
}

void pose_evaluate(skv_pose *pose, skv_walks *walks, int clip, double seconds)
{
    /* Playback: the clip settled last (its walk ready, its fixed entries
     * in the palette, the cursors its own; the reference and blends unset
     * it), the walks not dropped since, the kernels still the ones asked
     * for. Then one jump to walk_frame; anything else settles first. */
    if (pose->playing_walks == walks && pose->playing_clip == clip && pose->walk_generation == walks->generation &&
        pose->kernels_for == pose->walk_kernel) {
        walk_frame(pose->playing_walk, pose->playing_c, seconds, pose);
        return;
    }
    pose_evaluate_settle(pose, walks, clip, seconds);
}

void pose_evaluate_lent(skv_pose *pose, skv_walks *walks, int clip, double seconds, float *work)
{
    pose->work = work;
    pose->global = (mat4 *)work;
    pose->local = pose->global + pose->node_count;
    pose_evaluate(pose, walks, clip, seconds);
    pose->work = NULL, pose->global = pose->local = NULL;
    pose->globals_owed = NULL;
}

const mat4 *pose_globals(skv_pose *pose)
{
    const skv_walk *w = pose->globals_owed;
    if (w) walk_deferred(w, pose->work, kernels_get(SKV_WALK_AUTO));
    pose->globals_owed = NULL;
    if (pose->layer_plan) layer_plan_owed(pose);
    return (const mat4 *)pose->global;
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

/* A channel's T, R, S at `ticks`, as the reference samples them (two
 * clips at once: no cursors). */
static void channel_trs(const skv_channel *ch, double ticks, skv_trs *out)
{
    keys_channel_trs(ch, ticks, out->t, out->r, out->s);
}

void pose_evaluate_blend(skv_pose *pose, const skv_model *model, int clip_a, double seconds_a, int clip_b,
                         double seconds_b, float weight)
{
    const skv_skeleton *sk = &model->skeleton;
    const skv_clip *a = clip_a >= 0 && clip_a < model->clip_count ? &model->clips[clip_a] : NULL;
    const skv_clip *b = clip_b >= 0 && clip_b < model->clip_count ? &model->clips[clip_b] : NULL;
    double ticks_a = a ? keys_clip_ticks(a, seconds_a) : 0.0, ticks_b = b ? keys_clip_ticks(b, seconds_b) : 0.0;
    float w = weight > 0.0f ? (weight < 1.0f ? weight : 1.0f) : 0.0f;
    pose->walk_clip = -2; /* every global and palette entry is rewritten here */
    pose->playing_walks = NULL;
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
            keys_slerp(ta.r, tb.r, w, out.r);
            trs_mat4(out.t, out.r, out.s, pose->local[n]);
            local = (const float *)pose->local[n];
        }
        node_global(pose, model, n, local);
    }
    bone_palette(pose, sk);
}


/* The palette as a crowd's 3x4 rows (kernels.h, SKV_ROWS_FLOATS): rows 0-2
 * of global(node of b) * offset[b]. */
static void bone_rows(skv_pose *pose, const skv_skeleton *sk)
{
    float *rows = (float *)(void *)pose->palette;
    for (int b = 0; b < sk->bone_count; b++) {
        mat4 m;
        int n = sk->bone_node[b];
        if (n < 0) glm_mat4_identity(m);
        else affine_mul(pose->global[n], sk->bone_offset[b], m);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) rows[b * SKV_ROWS_FLOATS + 4 * r + c] = m[c][r];
    }
}

/* The layers that move anything in a frame, in the order they apply,
 * each with its clip, clip time and weight; `any` their bits. Settled
 * once per frame. */
typedef struct active_layers {
    int count;
    int layer[SKV_LAYERS_MAX];
    const skv_clip *clip[SKV_LAYERS_MAX];
    double ticks[SKV_LAYERS_MAX];
    float weight[SKV_LAYERS_MAX];
    uint32_t any;
} active_layers;

static void active_layers_at(const skv_model *model, const skv_layers *layers, double seconds, active_layers *a)
{
    a->count = 0, a->any = 0;
    for (int k = 0; k < layers->count; k++) {
        int i = layers->order[k];
        float w = layers_effective_weight(layers, i);
        if (w == 0.0f) continue;
        a->layer[a->count] = i;
        a->clip[a->count] = &model->clips[layers->clip[i]];
        a->ticks[a->count] = keys_clip_ticks(a->clip[a->count], seconds);
        a->weight[a->count] = w;
        a->count++;
        a->any |= (uint32_t)1 << i;
    }
}

/* The layered frame in one scalar pass over every node (memory for the
 * plan, or the base's walk, ran out): the same pose. */
static void layers_scalar(skv_pose *pose, const skv_model *model, int base, double seconds, const skv_layers *layers)
{
    const skv_skeleton *sk = &model->skeleton;
    const skv_clip *c = base >= 0 && base < model->clip_count ? &model->clips[base] : NULL;
    double ticks = c ? keys_clip_ticks(c, seconds) : 0.0;
    pose->walk_clip = -2; /* every global and palette entry is rewritten here */
    pose->playing_walks = NULL;
    pose->globals_owed = NULL;
    active_layers act;
    active_layers_at(model, layers, seconds, &act);
    const int n_active = act.count, *active = act.layer;
    const skv_clip *const *clip_of = act.clip;
    const double *ticks_of = act.ticks;
    const float *weight_of = act.weight;
    uint32_t any = act.any;
    size_t nodes = (size_t)layers->node_count;
    for (int n = 0; n < sk->node_count; n++) {
        int cb = c ? c->node_channel[n] : -1;
        const float *local;
        if (cb < 0 && !layers->animated[n]) {
            local = (const float *)sk->rest_local[n];
        } else {
            skv_trs cur;
            if (cb >= 0) channel_trs(&c->channels[cb], ticks, &cur);
            else cur = layers->rest[n];
            uint32_t bits = layers->node_layers[n] & any;
            for (int k = 0; bits && k < n_active; k++) {
                int i = active[k];
                if (!(bits >> i & 1u)) continue;
                int ch = clip_of[k]->node_channel[n];
                skv_trs v;
                if (ch >= 0) channel_trs(&clip_of[k]->channels[ch], ticks_of[k], &v);
                else v = layers->rest[n];
                if (layers->additive[i]) layer_additive(&cur, &v, &layers->reference[(size_t)i * nodes + (size_t)n], weight_of[k]);
                else layer_override(&cur, &v, weight_of[k]);
            }
            keys_local(cur.t, cur.r, cur.s, pose->local[n]);
            local = (const float *)pose->local[n];
        }
        node_global(pose, model, n, local);
    }
    if (pose->palette_rows) bone_rows(pose, sk);
    else bone_palette(pose, sk);
}

/* A pose's plan for layered frames of one base clip under one set of
 * layers that move anything (pose_evaluate_layers): the nodes formed
 * again after the base's walk, parents first, and their locals' lanes
 * (layer_lanes.h); the products of their globals, then of their bones'
 * palette entries. Where every node the base moves is formed again (a
 * layer over the whole body, or over half of it or more: the nodes left
 * are the model's still roots and mesh nodes), the base's walk would only
 * be overwritten: the frame then poses the nodes left from their rest
 * locals (`still` steps) and takes the base's fixed palette entries
 * alone. */
typedef struct skv_layer_plan {
    unsigned generation; /* the layers' (layers.h); 0: nothing planned */
    unsigned walks_generation; /* the walks' (the lanes hold their prepared keys) */
    int base;
    uint32_t active;     /* bits of the layers that move anything */
    int node_count, bone_count;
    int count;           /* nodes formed again */
    unsigned char *layered; /* per node of the skeleton: a layer mixes its local */
    unsigned char *dirty;   /* per node: formed again (layered, or below one) */
    unsigned char *posed;   /* per node: dirty, and its local made by the lanes (a clip read moves it); the
                             * other dirty nodes' globals take their rest locals (layers.h constants) */
    int palette_count;
    int base_walk;        /* a node the base moves is not formed again: the base's walk runs */
    int still_count;      /* without the base's walk: the other nodes' globals */
    skv_walk_step *steps; /* count globals, palette_count palette entries, then still_count globals */
    /* With the base's walk, its deferred globals of nodes not formed
     * again: those the frame's products read (and those their steps
     * read), run by the frame, and the others, owed to pose_globals as
     * the walk's frame owes them (owed_pending: by the last layered
     * frame, of a work block the pose keeps). */
    int deferred_count;
    skv_walk_step *deferred;
    int owed_count;
    skv_walk_step *owed;
    int owed_pending;
    const skv_walk *walk; /* the base's, whose steps those are */
    /* The base walk's fixed palette entries were written by a layered
     * frame of this plan, and the pose's walk_clip still says so
     * (WALK_CLIP_LAYERED): every other frame kind writes walk_clip. */
    int fixed_written;
    /* Without the base's walk, the still nodes' globals (constants'
     * products) are in the pose's own work block from a layered frame of
     * this plan, under the same rule (a lent block is not kept). */
    int still_written;
    skv_layer_lanes *lanes;
} skv_layer_plan;

/* pose_globals' part for a layered frame: the globals it owes, if no
 * other frame came after it (each writes walk_clip). */
static void layer_plan_owed(skv_pose *pose)
{
    skv_layer_plan *plan = pose->layer_plan;
    if (plan->owed_pending && pose->walk_clip == WALK_CLIP_LAYERED)
        walk_deferred_run(plan->walk, plan->owed, plan->owed_count, pose->work, kernels_get(SKV_WALK_AUTO));
    plan->owed_pending = 0;
}

static void layer_plan_free(skv_layer_plan *plan)
{
    if (!plan) return;
    free(plan->layered);
    free(plan->dirty);
    free(plan->posed);
    free(plan->steps);
    free(plan->deferred);
    free(plan->owed);
    layer_lanes_destroy(plan->lanes);
    free(plan);
}

/* The pose's plan for `layers` over clip c (`base`) with the layers of
 * `active` moving anything, made again when any of those or the walks
 * changed; NULL if memory runs out. A node is layered when an active
 * layer's mask holds it and a clip it reads there (base, layer,
 * reference) has keys for it; it is formed again when it is layered or
 * its parent is formed again, or, where those are at least half the
 * nodes the base moves, when the base moves it. */
static skv_layer_plan *layer_plan_for(skv_pose *pose, skv_walks *walks, const skv_walk *w, const skv_clip *c,
                                      int base, const skv_layers *layers, uint32_t active)
{
    const skv_model *model = walks_model(walks);
    const skv_skeleton *sk = &model->skeleton;
    skv_layer_plan *plan = pose->layer_plan;
    if (plan && plan->generation == layers->generation && plan->walks_generation == walks->generation &&
        plan->base == base && plan->active == active && plan->node_count == sk->node_count &&
        plan->bone_count == sk->bone_count)
        return plan;
    if (!plan || plan->node_count != sk->node_count || plan->bone_count != sk->bone_count) {
        layer_plan_free(plan);
        pose->layer_plan = plan = calloc(1, sizeof *plan);
        if (!plan) return NULL;
        size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1;
        size_t bones = sk->bone_count > 0 ? (size_t)sk->bone_count : 0;
        plan->node_count = sk->node_count, plan->bone_count = sk->bone_count;
        plan->layered = malloc(nodes);
        plan->dirty = malloc(nodes);
        plan->posed = malloc(nodes);
        plan->steps = malloc((nodes + bones) * sizeof *plan->steps);
        if (!plan->layered || !plan->dirty || !plan->posed || !plan->steps) {
            layer_plan_free(plan);
            pose->layer_plan = NULL;
            return NULL;
        }
    }
    plan->generation = 0; /* planned below, or not at all */
    plan->fixed_written = 0; /* others may be formed again: the fixed entries and still globals are owed */
    layer_lanes_destroy(plan->lanes);
    plan->lanes = NULL;
    int32_t local0 = (int32_t)((size_t)sk->node_count * sizeof(mat4)); /* the work block's locals */
    unsigned char *moves = c ? calloc(sk->node_count > 0 ? (size_t)sk->node_count : 1, 1) : NULL;
    if (c && !moves) return NULL;
    int dirty_count = 0, moving_count = 0;
    for (int n = 0; n < sk->node_count; n++) {
        int p = sk->parents[n];
        int layered = (layers->node_layers[n] & active) && (layers->animated[n] || (c && c->node_channel[n] >= 0));
        plan->layered[n] = (unsigned char)layered;
        plan->dirty[n] = (unsigned char)(layered || (p >= 0 && plan->dirty[p]));
        if (moves) moves[n] = (unsigned char)(c->node_channel[n] >= 0 || (p >= 0 && moves[p]));
        dirty_count += plan->dirty[n] && moves && moves[n]; /* the walk's work the lanes would redo */
        moving_count += moves && moves[n];
    }
    /* Where the layers form again at least half the nodes the base moves
     * (an upper-body mask), the base's walk would mostly be overwritten:
     * the lanes then sample the base for every node it moves, and the
     * frame runs no walk (as over the whole body; cheaper from about half
     * on: bench --layers' sweep). */
    if (moves && dirty_count * 2 >= moving_count)
        for (int n = 0; n < sk->node_count; n++) {
            int p = sk->parents[n];
            plan->dirty[n] = (unsigned char)(plan->dirty[n] || moves[n] || (p >= 0 && plan->dirty[p]));
        }
    plan->count = 0;
    for (int n = 0; n < sk->node_count; n++) {
        int p = sk->parents[n];
        int layered = plan->layered[n];
        plan->posed[n] = (unsigned char)(plan->dirty[n] && (layered || (c && c->node_channel[n] >= 0)));
        if (!plan->dirty[n]) continue;
        plan->steps[plan->count] = (skv_walk_step){
            .a = p < 0 ? ~0 : (int32_t)((size_t)p * sizeof(mat4)), /* a root's: globalInverse, constant 0 (byte offsets) */
            .b = plan->posed[n] ? local0 + (int32_t)((size_t)n * sizeof(mat4))
                                : ~(int32_t)((size_t)(1 + sk->bone_count + n) * sizeof(mat4)), /* its rest local */
            .out = (int32_t)((size_t)n * sizeof(mat4)),
        };
        plan->count++;
    }
    /* Whether the base moves a node not formed again: one with a channel
     * in the base clip, or below one (never below a node formed again). */
    plan->base_walk = 0;
    for (int n = 0; n < sk->node_count && moves; n++)
        if (moves[n] && !plan->dirty[n]) plan->base_walk = 1;
    free(moves);
    /* With it, the globals it defers but of nodes formed again (those
     * would only be overwritten): now those the frame's products read
     * (`needed`: the parent of a node formed again whose parent is not,
     * and, where the walk defers a needed global, the globals its step
     * reads; the walk forms the others, and a deferred step reads only
     * globals above its node, so one pass from the last step back finds
     * them), owed the others. Needed nodes are above the nodes formed
     * again and have only needed or walk-formed globals above them, so
     * the steps run now read no owed global. Often none: Fox's walk forms
     * the globals of every node above a joint but its still roots. */
    free(plan->deferred);
    free(plan->owed);
    plan->deferred = plan->owed = NULL, plan->deferred_count = plan->owed_count = 0;
    plan->owed_pending = 0, plan->walk = w;
    if (plan->base_walk) {
        int deferred = walk_deferred_count(w);
        size_t room = (size_t)(deferred > 0 ? deferred : 1) * sizeof *plan->deferred;
        plan->deferred = malloc(room);
        plan->owed = malloc(room);
        size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1;
        unsigned char *skip = calloc(nodes, 1), *needed = calloc(nodes, 1);
        if (!plan->deferred || !plan->owed || !skip || !needed) {
            free(skip), free(needed);
            return NULL;
        }
        for (int n = 0; n < sk->node_count; n++) {
            int p = sk->parents[n];
            if (plan->dirty[n] && p >= 0 && !plan->dirty[p]) needed[p] = 1;
        }
        int all = walk_deferred_except(w, skip, sk->node_count, plan->owed); /* every step (skip all 0) */
        for (int k = all - 1; k >= 0; k--) {
            const skv_walk_step *step = &plan->owed[k];
            size_t out = (size_t)step->out / sizeof(mat4);
            if (step->out < 0 || out >= nodes || !needed[out]) continue;
            for (int operand = 0; operand < 2; operand++) { /* a global it reads (a local lies past them) */
                int32_t at = operand ? step->b : step->a;
                if (at >= 0 && (size_t)at / sizeof(mat4) < nodes) needed[(size_t)at / sizeof(mat4)] = 1;
            }
        }
        for (int n = 0; n < sk->node_count; n++) skip[n] = (unsigned char)(plan->dirty[n] || needed[n]);
        plan->owed_count = walk_deferred_except(w, skip, sk->node_count, plan->owed);
        for (int n = 0; n < sk->node_count; n++) skip[n] = (unsigned char)!needed[n];
        plan->deferred_count = walk_deferred_except(w, skip, sk->node_count, plan->deferred);
        free(skip), free(needed);
    }
    plan->palette_count = 0;
    for (int b = 0; b < sk->bone_count; b++) {
        int n = sk->bone_node[b];
        if (n < 0 || !plan->dirty[n]) continue;
        plan->steps[plan->count + plan->palette_count++] = (skv_walk_step){
            .a = (int32_t)((size_t)n * sizeof(mat4)),
            .b = ~(int32_t)((size_t)(1 + b) * sizeof(mat4)), /* bone b's offset, constant 1 + b */
            .out = (int32_t)((size_t)b * sizeof(mat4))};
    }
    /* Without the base's walk, every node not formed again is still: its
     * global from its parent's (never formed again) and its rest local
     * (layers.h: constant 1 + bones + node). */
    plan->still_count = 0;
    skv_walk_step *still = plan->steps + plan->count + plan->palette_count;
    for (int n = 0; n < sk->node_count && !plan->base_walk; n++) {
        int p = sk->parents[n];
        if (plan->dirty[n]) continue;
        still[plan->still_count++] = (skv_walk_step){
            .a = p < 0 ? ~0 : (int32_t)((size_t)p * sizeof(mat4)),
            .b = ~(int32_t)((size_t)(1 + sk->bone_count + n) * sizeof(mat4)),
            .out = (int32_t)((size_t)n * sizeof(mat4))};
    }
    /* The clips read: the base's, then each active layer's in the order
     * they apply. */
    const skv_clip_lanes *clips[1 + SKV_LAYERS_MAX];
    int reads = 0;
    clips[reads++] = c ? walks_clip_lanes(walks, base) : NULL;
    if (c && !clips[0]) return NULL;
    for (int k = 0; k < layers->count; k++) {
        int i = layers->order[k];
        if (!(active >> i & 1u)) continue;
        clips[reads] = layers->additive[i] ? layers->delta_lanes[i] : walks_clip_lanes(walks, layers->clip[i]);
        if (!clips[reads++]) return NULL;
    }
    if (layer_lanes_create(&plan->lanes, model, clips, layers, active, plan->posed, plan->layered) != SKV_OK)
        return NULL;
    plan->generation = layers->generation, plan->walks_generation = walks->generation;
    plan->base = base, plan->active = active;
    return plan;
}

void pose_evaluate_layers(skv_pose *pose, skv_walks *walks, int base, double seconds, const skv_layers *layers)
{
    const skv_model *model = walks_model(walks);
    const skv_skeleton *sk = &model->skeleton;
    const skv_clip *c = base >= 0 && base < model->clip_count ? &model->clips[base] : NULL;
    active_layers act;
    active_layers_at(model, layers, seconds, &act);
    if (act.count == 0) { /* nothing over the base: its walk's frame */
        pose_evaluate(pose, walks, c ? base : -1, seconds);
        return;
    }
    const skv_walk *w = walks_clip(walks, c ? base : -1);
    skv_layer_plan *plan = w ? layer_plan_for(pose, walks, w, c, c ? base : -1, layers, act.any) : NULL;
    if (!plan) {
        layers_scalar(pose, model, base, seconds, layers);
        return;
    }
    const skv_kernels *kernels = pose->kernels;
    if (!kernels || pose->kernels_for != pose->walk_kernel) {
        kernels = kernels_get((skv_walk_kernel)pose->walk_kernel);
        if (!kernels) kernels = kernels_get(SKV_WALK_AUTO); /* not on this CPU */
        pose->kernels = kernels, pose->kernels_for = pose->walk_kernel;
    }
    double ticks = c ? keys_clip_ticks(c, seconds) : 0.0;
    float *palette = (float *)pose->palette;
    /* The base's frame as playback runs it: its fixed entries when the
     * plan is new or another kind of frame wrote the palette (a layered
     * frame overwrites some; it leaves the pose unsettled, so the next
     * plain frame writes them all again), the moving ones, and the
     * globals of the nodes not formed again (those formed again read
     * their parents'). Not where the layers form every node the base
     * moves again (a layer over the whole body, or half of it: the plan's
     * rule): the walk would be overwritten; the nodes left are still
     * (their globals formed once, while nothing else writes the block). */
    const mat4 *constants = (const mat4 *)layers->constants;
    void (*run)(const skv_walk_step *, int, float *, const mat4 *, float *) =
        layers->affine ? kernels->run_affine : kernels->run;
    if (pose->walk_clip != WALK_CLIP_LAYERED || pose->walk_generation != walks->generation || !plan->fixed_written) {
        if (plan->base_walk || plan->palette_count < sk->bone_count)
            walk_fixed(w, pose->work, palette, kernels, pose->palette_rows);
        plan->fixed_written = 1;
        plan->still_written = 0; /* the other frame may have written globals too */
        pose->walk_clip = WALK_CLIP_LAYERED, pose->walk_generation = walks->generation;
    }
    if (plan->base_walk) {
        /* The walk's own frame (walk.h, walk_frame: one kernel call for
         * most files), as playback runs it: the cursors the base's, the
         * kernels looked up above, the fixed entries written. */
        int *cursors = pose_cursors(pose, base, c->channel_count);
        pose->globals_owed = NULL;
        if (cursors) walk_frame(w, c, seconds, pose);
        else if (walk_pose(w, c, ticks, NULL, pose->work, palette, kernels, pose->palette_rows))
            pose->globals_owed = w;
        if (pose->globals_owed) {
            walk_deferred_run(w, plan->deferred, plan->deferred_count, pose->work, kernels);
            plan->owed_pending = plan->owed_count > 0;
        }
    } else if (!plan->still_written) {
        run(plan->steps + plan->count + plan->palette_count, plan->still_count, pose->work, constants, pose->work);
        plan->still_written = 1;
    }
    pose->playing_walks = NULL;
    pose->globals_owed = NULL;
    /* The nodes formed again: their locals by the lanes (the build the
     * pose's kernels name: tests that run every kernel run both), then
     * their globals and their bones' entries by the kernels. */
    layer_lanes_locals(plan->lanes, kernels->layer_lanes_avx2, ticks, act.ticks, act.weight, pose->local);
    run(plan->steps, plan->count, pose->work, constants, pose->work);
    const skv_walk_step *entries = plan->steps + plan->count;
    if (pose->palette_rows) {
        kernels->fence(); /* the walk's streamed rows land before these overwrite some */
        kernels->run_rows(entries, plan->palette_count, pose->work, constants, palette);
    } else {
        (layers->affine ? kernels->run_palette : kernels->run)(entries, plan->palette_count, pose->work, constants,
                                                                palette);
    }
}

void pose_evaluate_layers_lent(skv_pose *pose, skv_walks *walks, int base, double seconds,
                               const skv_layers *layers, float *work)
{
    pose->work = work;
    pose->global = (mat4 *)work;
    pose->local = pose->global + pose->node_count;
    pose_evaluate_layers(pose, walks, base, seconds, layers);
    pose->work = NULL, pose->global = pose->local = NULL;
    pose->globals_owed = NULL;
    if (pose->layer_plan) /* the block goes back with them */
        pose->layer_plan->owed_pending = 0, pose->layer_plan->still_written = 0;
}
