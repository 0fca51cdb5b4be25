/* layers.h - layered animation: clips played over a base clip on part of
 * the body (a mask) or added to it (additive), each at a weight.
 *
 *     skv_layer_desc desc[2] = {
 *         {.clip = wave, .mask = (int[]){torso}, .mask_count = 1, .weight = 1.0f, .reference_clip = -1},
 *         {.clip = nod, .additive = 1, .weight = 0.5f, .reference_clip = -1},
 *     };
 *     skv_layers *layers;
 *     layers_create(&layers, model, desc, 2, &err);      once, at load
 *     pose_evaluate_layers(&pose, walks, clip, seconds, layers);  per frame
 *     layers_destroy(layers);
 *
 * What a layer does to a node's local T, R, S (the rules, one place:
 * layer_override, layer_additive below; three.js r187's AnimationMixer
 * computes the same, tests/e2e reference_layers_* check it):
 * - A node's value in a clip: the clip's keys at the clip time
 *   (keys_clip_ticks: every clip, base and layers, loops on its own
 *   duration at the same seconds), or its rest transform where the clip
 *   has no channel for it.
 * - Override layer on the nodes of its mask (each mask node and every node
 *   below it; no mask: every node): T and S lerped from what is there to
 *   the layer's by the weight, R slerped along the shorter arc.
 * - Additive layer on the nodes of its mask: the layer's difference from
 *   a reference pose (the reference clip at time 0, its first keys; by
 *   default the layer's own clip) added: T and S become T + W (layer -
 *   reference); R becomes R * slerp(identity, conj(reference) * layer, W)
 *   (three.js's makeClipAdditive and PropertyMixer: the difference taken
 *   on the left of the layer's rotation, applied on the right of what is
 *   there).
 * - Override layers apply first, in their order, then additive layers,
 *   in theirs (three.js's mixer accumulates its additive actions last).
 * Nodes no clip involved (base, layers, references) has a channel for
 * keep their rest matrix as it is.
 *
 * Masks are resolved to per-node bits, and the additive references
 * sampled, by layers_create: a frame reads arrays only. */
#ifndef SKV_LAYERS_H
#define SKV_LAYERS_H

#include "anim.h"
#include "error.h"
#include "keys.h"
#include "model.h"
#include "walks.h"

#include <stdint.h>

/* Layers per pose: the bits of a node's mask word. */
#define SKV_LAYERS_MAX 32

/* One layer as asked for (the command line's --layer). Zero is an
 * override of clip 0 on every node at weight 0: set weight, and
 * reference_clip to -1 for an additive layer's own clip. */
typedef struct skv_layer_desc {
    int clip;
    const int *mask; /* node indices, each with every node below it; NULL or mask_count 0: every node */
    int mask_count;
    int additive;
    int reference_clip; /* additive: the clip whose time 0 is the reference pose; < 0: the layer's clip */
    float weight;       /* in [0, 1] (clamped) */
} skv_layer_desc;

/* Layers compiled for one model (layers_create). `weight` and `muted` may
 * be changed between frames (the window's keys): a muted layer, or one
 * at weight 0, is skipped. */
typedef struct skv_layers {
    int count;
    int node_count;
    int clip[SKV_LAYERS_MAX];
    int additive[SKV_LAYERS_MAX];
    int reference_clip[SKV_LAYERS_MAX]; /* the clip whose time 0 is the reference (additive) */
    float weight[SKV_LAYERS_MAX];
    int muted[SKV_LAYERS_MAX];
    int order[SKV_LAYERS_MAX]; /* the order layers apply in: overrides, then additives (indices into the above) */
    uint32_t *node_layers;     /* per node: bit i set = layer i's mask holds the node */
    unsigned char *animated;   /* per node: a layer's clip or reference clip has a channel for it */
    skv_trs *reference;        /* per layer, node_count entries: the reference T, conj(R), S (additive layers only) */
    skv_trs *rest;             /* per node: its rest T, R, S */
    /* Per additive layer: its clip prepared for the layered frame's lanes
     * as differences from its reference (src/core/layer_lanes.h,
     * clip_lanes_prepare_delta), shared by every pose; NULL for override
     * layers, or where memory ran out (the frame then takes the reference
     * code's path). */
    struct skv_clip_lanes *delta_lanes[SKV_LAYERS_MAX];
    /* Never handed out twice (layers at one address after a destroy and
     * a create differ): a pose's plan for a layered frame is for one. */
    unsigned generation;
    /* The layered frame's right-hand operands (kernels.h constants, 64-byte
     * aligned): globalInverse, then every bone's offset, then every node's
     * rest local (for the nodes a layered frame poses without the base's
     * walk: pose.c); and whether they are all affine (bottom row exactly
     * 0 0 0 1), which lets the frame take the kernels' affine products. */
    mat4 *constants;
    int affine;
} skv_layers;

/* Compiles `count` layers (0..SKV_LAYERS_MAX) for `model`: clips and mask
 * nodes checked (SKV_ERR_ARGUMENT, one line naming the layer), masks
 * resolved per node, additive references sampled. SKV_ERR_MEMORY when
 * memory runs out. The model's clips and skeleton must not change while
 * the layers are used (compile them again after they do). */
skv_result layers_create(skv_layers **out, const skv_model *model, const skv_layer_desc *desc, int count,
                         skv_error *err);
void layers_destroy(skv_layers *layers); /* NULL is fine */

/* Layer i's weight as a frame uses it: 0 when muted, else its weight
 * clamped to [0, 1]. */
float layers_effective_weight(const skv_layers *layers, int i);

/* --- the rules, shared by the reference and the fast path -------------- */

/* a * b (Hamilton product; x, y, z, w): b's rotation, then a's. */
static inline void layer_quat_mul(const float a[4], const float b[4], float out[4])
{
    float r[4];
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    for (int k = 0; k < 4; k++) out[k] = r[k];
}

/* An override layer's value `layer` mixed into `cur` at weight w. */
static inline void layer_override(skv_trs *cur, const skv_trs *layer, float w)
{
    for (int k = 0; k < 3; k++) {
        cur->t[k] += w * (layer->t[k] - cur->t[k]);
        cur->s[k] += w * (layer->s[k] - cur->s[k]);
    }
    float r[4];
    keys_slerp(cur->r, layer->r, w, r);
    for (int k = 0; k < 4; k++) cur->r[k] = r[k];
}

/* An additive layer's value `layer` added to `cur` at weight w, against
 * `ref` (T, the conjugate of R, S: layers_create's form of it). */
static inline void layer_additive(skv_trs *cur, const skv_trs *layer, const skv_trs *ref, float w)
{
    for (int k = 0; k < 3; k++) {
        cur->t[k] += w * (layer->t[k] - ref->t[k]);
        cur->s[k] += w * (layer->s[k] - ref->s[k]);
    }
    static const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    float delta[4], part[4];
    layer_quat_mul(ref->r, layer->r, delta);
    keys_slerp(identity, delta, w, part);
    layer_quat_mul(cur->r, part, delta);
    keys_unit_quat(delta, cur->r);
}

/* A reference pose's T, R, S in the form layer_additive takes: R
 * conjugated. */
static inline void layer_reference_form(skv_trs *ref)
{
    for (int k = 0; k < 3; k++) ref->r[k] = -ref->r[k];
}

/* --- evaluation --------------------------------------------------------- */

/* The reference: every node's local transform for clip `base` (-1: the
 * rest pose) at `seconds` with `count` layers `desc` over it, from the
 * model and the descriptions alone (masks found by walking up the
 * parents, references sampled here), node by node, as written above. */
void anim_sample_layers(const skv_model *model, int base, double seconds, const skv_layer_desc *desc, int count,
                        mat4 *local);

/* anim_sample_layers, skeleton_pose, skin_palette: the specification
 * pose_evaluate_layers is tested against. */
void pose_evaluate_layers_reference(skv_pose *pose, const skv_model *model, int base, double seconds,
                                    const skv_layer_desc *desc, int count);

/* The layered pose of clip `base` at `seconds` into pose->palette (a
 * crowd's pose: its rows), from the compiled layers (made for walks'
 * model). The base plays through its walk (pose_evaluate: its lanes, its
 * rigid chains multiplied out) as if there were no layer; then only the
 * nodes a layer moves this frame, and the nodes below them, are formed
 * again: a layered node's local from the base's keys and the layers whose
 * mask holds it, a node below one from the base's keys; their globals and
 * the palette entries of their bones by the walk's kernels, in one list
 * per frame (the pose keeps it while the base clip and the layers that
 * move anything stay the same); where that is every node and every
 * palette entry (a layer over the whole body) the base's walk is skipped.
 * No layer moving anything (all muted or at weight 0): the walk's frame
 * alone. Memory run out: one scalar pass over every node, the same pose. */
void pose_evaluate_layers(skv_pose *pose, skv_walks *walks, int base, double seconds, const skv_layers *layers);

/* Same with `work` (2 * node_count matrices, 64-byte aligned) lent for
 * this call (a crowd's character: pose_create_lent). */
void pose_evaluate_layers_lent(skv_pose *pose, skv_walks *walks, int base, double seconds,
                               const skv_layers *layers, float *work);

#endif
