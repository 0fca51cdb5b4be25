/* layer_lanes.h - a layered frame's locals a vector of nodes at a time
 * (pose.c's plan for pose_evaluate_layers owns one): every clip a layered
 * frame reads (the base, each layer that moves anything) sampled in
 * groups of channels keyed at the same times (time lines of unit keys
 * keyed as one at their union where that costs little memory: keys added
 * on a curve leave it as it is), their key pairs prepared as
 * arcs once, so that a frame does one key search per group and no
 * trigonometry per key; the layers mixed into the base eight nodes at a
 * time (layers.h's rules: override lerps and slerps, additive products
 * against the reference); the locals formed T * R * S. Channels that do
 * not fit a group (step or cubic keys, T, R and S keyed at different
 * times, values not finite, rotation keys further from unit length than
 * |q|^2 within 1e-5 of 1, and time lines past the model's budget) are
 * sampled one by one as the reference samples them; keys within that but
 * not unit to float's rounding are grouped, sampled as keys_slerp weighs
 * them (layer_lanes.c, weighted). Private to src/core. */
#ifndef SKV_LAYER_LANES_H
#define SKV_LAYER_LANES_H

#include "error.h"
#include "layers.h"
#include "model.h"

#include <stddef.h>
#include <stdint.h>

/* One clip's keys prepared for lanes (shared by every pose: skv_walks
 * keeps them, walks_clip_lanes): its channels in groups keyed at the same
 * times, each key pair as an arc; the channels that fit no group, and
 * those that never move. `held`: what the model's other clips' lanes
 * hold (bytes; a budget per model: past it a group's channels are
 * sampled one by one), this clip's added. NULL if memory runs out. */
typedef struct skv_clip_lanes skv_clip_lanes;
skv_clip_lanes *clip_lanes_prepare(const skv_model *model, const skv_clip *clip, size_t *held);
/* An additive layer's clip prepared as its differences from a reference
 * pose (per node T, conj R, S: layers.h, skv_layers.reference), as
 * three.js's makeClipAdditive rewrites a clip's keys: T - T_ref, conj(R_ref)
 * * R, S - S_ref, so that a frame mixes the layer without forming the
 * difference (layers.h's rules give the same values: left products and
 * differences commute with the keys' lerps and slerps). Nodes the clip
 * has no channel for hold their rest transform's difference; channels
 * sampled one by one take theirs when sampled. `reference` must outlive
 * the lanes. */
skv_clip_lanes *clip_lanes_prepare_delta(const skv_model *model, const skv_clip *clip, const skv_trs *reference,
                                         size_t *held);
void clip_lanes_free(skv_clip_lanes *lanes); /* NULL is fine */
/* How a clip was prepared: its time lines (groups), the channels sampled
 * one by one, those that never move (tests, benchmark). */
void clip_lanes_counts(const skv_clip_lanes *lanes, int *groups, int *loose, int *constant);
/* The bytes its groups' pairs take (charged to `held`; NULL: 0). */
size_t clip_lanes_bytes(const skv_clip_lanes *lanes);

/* A pose's lanes for layered frames (pose.c's plan owns them): clips[0]
 * the base's prepared keys (NULL: the rest pose), clips[1 + j] those of
 * the j-th layer of `active` (bits of `layers`' layers) in the order they
 * apply (layers->order), an additive layer's as its differences
 * (clip_lanes_prepare_delta: skv_layers.delta_lanes). Per node: posed,
 * its local made here (a node formed again that a clip read moves);
 * layered, mixed by each active layer whose mask holds it. The clips'
 * values are sampled only where a frame reads them. SKV_ERR_MEMORY when
 * memory runs out, or an additive layer's keys are not its differences.
 * The model, the prepared keys and the layers must outlive the lanes. */
typedef struct skv_layer_lanes skv_layer_lanes;
skv_result layer_lanes_create(skv_layer_lanes **out, const skv_model *model, const skv_clip_lanes *const *clips,
                              const skv_layers *layers, uint32_t active, const unsigned char *posed,
                              const unsigned char *layered);
void layer_lanes_destroy(skv_layer_lanes *lanes); /* NULL is fine */

/* Every posed node's local at the base's clip time `base_ticks` and the
 * active layers' times and weights (in the order they apply), into
 * local[node]: T * R * S. `wide`: with AVX2 and FMA (the caller knows
 * the CPU has them), else the portable build. */
void layer_lanes_locals(skv_layer_lanes *lanes, int wide, double base_ticks, const double *layer_ticks,
                        const float *layer_weight, mat4 *local);

#endif
