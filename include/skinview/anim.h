/* anim.h - sampling clips and walking the node hierarchy: the reference
 * evaluator (anim_ref.c) and a character's pose (pose.c).
 *
 * The per-frame data flow, each step its own function with explicit
 * inputs and outputs, on the ground floor both evaluators share (keys.h:
 * a clip's time, a channel's keys at a time):
 *   anim_sample    clip keys at time t      -> local transform per node
 *   skeleton_pose  local transforms          -> global transform per node
 *   skin_palette   global transforms         -> final[b] = globalInverse *
 *                                               global(node of b) * offset[b]
 * All names were resolved to indices at import: nothing here compares
 * strings or looks anything up in a map. Those three, run in order, are
 * pose_evaluate_reference: the specification. pose_evaluate computes the
 * same palette from the clip's walk, compiled on first use into the
 * model's walks (walks.h: model -> walks -> pose): only
 * the channels whose keys move are sampled (a SIMD vector of channels at
 * a time where they share key times, kernels.h), then a flat list of
 * matrix products forms the globals the palette needs and the palette. */
#ifndef SKV_ANIM_H
#define SKV_ANIM_H

#include "error.h"
#include "keys.h"
#include "model.h"
#include "walks.h"

/* The inverse of m (cglm's glm_mat4_inv). Where m's bottom row is exactly
 * 0 0 0 1 (an affine transform) the inverse's is set to exactly that, as
 * the exact inverse has it: the general formula leaves it an ulp off
 * (0.99999994, 1.00000012), and a walk takes its affine products
 * (kernels.h, run_affine) only where every constant's bottom row is
 * exact. */
void anim_inverse(const mat4 m, mat4 out);

/* T, R (unit quaternion) and S of an affine matrix; a mirroring matrix
 * keeps its reflection in s[0]. */
void anim_decompose(const mat4 m, float t[3], float q[4], float s[3]);

/* Local transform of every node at `ticks` (keys_clip_ticks): animated
 * nodes from the clip's keys (keys_sample_vec3, keys_sample_quat,
 * keys_local: T * R * S), the rest from their rest transform. clip may be
 * NULL (rest pose). */
void anim_sample(const skv_skeleton *skeleton, const skv_clip *clip,
                 double ticks, mat4 *local);

/* global[i] = global[parent[i]] * local[i], one forward pass. */
void skeleton_pose(const skv_skeleton *skeleton, const mat4 *local, mat4 *global);

/* Final bone matrices for the shader. A bone whose node is missing gets
 * identity (it stays in bind pose). */
void skin_palette(const skv_skeleton *skeleton, const mat4 *global,
                  const mat4 global_inverse, mat4 *palette);

/* A local transform split into T, R (unit quaternion x, y, z, w), S. */
typedef struct skv_trs {
    float t[3], r[4], s[3];
} skv_trs;

/* Working buffers for one pose of one model (one character). */
typedef struct skv_pose {
    int node_count, bone_count;
    /* One block, 64-byte aligned: node_count globals, then node_count
     * locals (skv_walk_step's operands are byte offsets into it). */
    float *work;
    mat4 *local;
    mat4 *global;  /* model space (globalInverse folded in); after pose_evaluate read it through pose_globals */
    mat4 *palette;
    /* Playback state: per channel of `cursor_clip`, the key last used for
     * position, rotation and scale. Consecutive frames step a key at most,
     * so most lookups are one comparison; jumps fall back to binary search. */
    int cursor_clip;
    int cursor_capacity; /* channels */
    int *cursors;        /* 3 per channel */
    /* Whole loops of the clip before the last frame's time (kernels.h,
     * keys_ticks_from): a hint, any integer value is safe. */
    double clip_loops;
    /* The clip (-1: rest pose) whose never-moving palette entries
     * (walk_fixed) are in the palette; -2: none; -3: a layered frame's
     * (pose.c: some of them overwritten). walk_generation: the
     * walks' (walk.h) when they were written; walks compiled again after
     * walks_forget (a rest pose change) fix other entries. */
    int walk_clip;
    unsigned walk_generation;
    /* Playback's state, settled (pose_evaluate_settle): while
     * pose_evaluate is asked for `playing_clip` of `playing_walks`, still
     * of walk_generation, with the same walk_kernel, it goes straight to
     * `playing_walk`'s frame (walk.h, walk_frame). playing_walks NULL:
     * not settled. */
    const struct skv_walks *playing_walks;
    const struct skv_clip *playing_c;
    const struct skv_walk *playing_walk;
    int playing_clip;
    /* The walk whose deferred globals the last pose_evaluate skipped. */
    const struct skv_walk *globals_owed;
    int walk_kernel;      /* skv_walk_kernel (kernels.h): 0 = the best the CPU has; tests and the benchmark compare them */
    /* kernels_get(walk_kernel) as last looked up (NULL: not yet), for
     * kernels_for: a lookup per frame is a pthread_once and a call. */
    const struct skv_kernels *kernels;
    int kernels_for;
    int palette_borrowed; /* pose_create_into */
    /* A crowd's pose (pose_create_lent): `palette` holds bone_count 3x4
     * row-major matrices (SKV_ROWS_FLOATS floats each, kernels.h), written
     * with streaming stores; the caller fences. */
    int palette_rows;
    skv_trs *rest_trs;    /* pose_evaluate_blend: every node's rest T, R, S, made once */
    /* pose_evaluate_layers' plan (pose.c): which nodes a layered frame
     * forms again, and their products, for one base clip and one set of
     * layers that move anything; NULL until the first layered frame. */
    struct skv_layer_plan *layer_plan;
} skv_pose;

/* A pose belongs to the model whose skeleton it was created for. It
 * keeps pointers into the model's clips and the walks it played last
 * (playing_c, playing_walk), and settles again on its next pose_evaluate
 * when those walks changed (walks_forget) or are others (walks_destroy,
 * walks_create: their generation tells them apart, at one address too). */
skv_result pose_create(skv_pose *pose, const skv_skeleton *skeleton); /* SKV_ERR_MEMORY when memory runs out */
/* Same, with the palette written to the caller's `palette` (bone_count
 * matrices, e.g. one character's slice of a crowd's buffer), which the
 * pose does not own. */
skv_result pose_create_into(skv_pose *pose, const skv_skeleton *skeleton, mat4 *palette);
void pose_destroy(skv_pose *pose);

/* A crowd character's pose: no work block of its own (pose_evaluate_lent
 * lends it one per evaluation: a crowd keeps one per thread, which stays
 * in the cache, instead of one per character, 7.4 KB for BCN_Epileptic.X),
 * and its palette written as 3x4 rows into `rows` (bone_count *
 * SKV_ROWS_FLOATS floats, 16-byte aligned, the caller's). Poses only
 * through clips' compiled walks: the walks must have given one for every
 * clip it plays (crowd_create checks), else its palette holds identity. */
skv_result pose_create_lent(skv_pose *pose, const skv_skeleton *skeleton, float *rows);

/* pose_evaluate with `work` (2 * node_count matrices, 64-byte aligned)
 * lent for this call; pose_globals has nothing to give after it. */
void pose_evaluate_lent(skv_pose *pose, skv_walks *walks, int clip, double seconds, float *work);

/* Clip `clip` (-1: rest pose) of the walks' model at `seconds`, into
 * pose->palette. The fast path: key cursors, then the clip's walk,
 * compiled on first use into `walks` (walk.h: globalInverse folded into
 * the root, rigid chains multiplied out, nodes that never move posed
 * once). Same result as pose_evaluate_reference. A clip whose walk could
 * not be compiled (memory) takes the reference path. */
void pose_evaluate(skv_pose *pose, skv_walks *walks, int clip, double seconds);

/* Every node's global (model space) for the pose last evaluated: the walk
 * forms only the globals the palette needs, this forms the rest, with
 * that walk (so not after walks_forget dropped it: evaluate again first). */
const mat4 *pose_globals(skv_pose *pose);

/* Two clips mixed: clip_a at seconds_a and clip_b at seconds_b (each
 * looped over its own duration), weight 0 = A, 1 = B. Per node, both
 * clips' local T, R, S are sampled (a node a clip does not animate takes
 * its rest transform there), T and S lerped, R slerped, then one walk. */
void pose_evaluate_blend(skv_pose *pose, const skv_model *model, int clip_a, double seconds_a, int clip_b,
                         double seconds_b, float weight);

/* The three steps above, one after the other, as written (anim_sample,
 * skeleton_pose, skin_palette): the reference pose_evaluate is tested
 * against, and the benchmark's previous version. */
void pose_evaluate_reference(skv_pose *pose, const skv_model *model, int clip, double seconds);

#endif
