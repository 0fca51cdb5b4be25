/* skin.h - per-vertex influences and the CPU reference blend.
 *
 * Packing turns a vertex's list of (bone, weight) pairs, as a file gives
 * them, into the fixed slots (4 or 8) the shader reads. The CPU
 * blend applies a bone palette to the packed slots (or, with
 * --influences all, the whole lists) exactly the way the vertex shader
 * does; pose export and camera framing use it. */
#ifndef SKV_SKIN_H
#define SKV_SKIN_H

#include <stdint.h>

#include "model.h"

/* Packs `list` (modified: sorted, merged in place) into `ids`/`weights`.
 * Weights that are NaN, infinite or <= 0 are dropped; the same bone twice
 * is merged into one influence; the largest `slots` are kept
 * and renormalised to sum 1; unused slots get bone 0, weight 0.
 * Returns the number of distinct usable influences before truncation
 * (0: nothing usable, the slots are all zero). */
int skin_pack_influences(skv_influence *list, int count, int slots, uint16_t *ids, float *weights);

/* Blends every vertex of `model` with `palette` (bone_count matrices):
 * its packed slots, or with model->influence_lists (--influences all) its
 * whole list, as the linear-blend shader reads them.
 * Writes 3 floats per vertex to `positions`, and to `normals` when it is
 * not NULL (normalised, using the inverse transpose of the blended 3x3).
 * Results are in model space (apply model->upright for the scene). */
void skin_blend(const skv_model *model, const mat4 *palette,
                float *positions, float *normals);

/* skin_blend with the meshes' morph targets at `morph_weights` (one per
 * model target, morph.h; NULL: their default weights) applied first. */
void skin_blend_morph(const skv_model *model, const mat4 *palette, const float *morph_weights,
                      float *positions, float *normals);

/* Vertex v of `model` at `position` (its rest position, morphs applied:
 * morph_vertex) blended with `palette` as skin_blend does: the same
 * position, bit for bit, into `out` (model space). */
void skin_blend_vertex(const skv_model *model, const mat4 *palette, int v, const float position[3], float out[3]);

/* Blends every vertex with all its influences (model->influences), not
 * only the packed slots: the reference for what the 4-slot cut loses. */
void skin_blend_all(const skv_model *model, const mat4 *palette, float *positions);
void skin_blend_all_morph(const skv_model *model, const mat4 *palette, const float *morph_weights, float *positions);

/* --- dual-quaternion skinning ---------------------------------------------
 *
 * Each palette matrix M becomes a unit dual quaternion (the rotation R and
 * translation of M) plus a "stretch" S = R^T * M3, the scale and shear M
 * has beyond its rotation (R from the polar decomposition of M's 3x3; a
 * mirroring M keeps its reflection in S). A vertex blends the stretches
 * linearly and applies that first, then the blended, normalised dual
 * quaternion (each influence's sign taken against the first influence,
 * q and -q being one rotation). For bones without scale S = identity and
 * this is plain dual-quaternion skinning; with scale it is exact for one
 * influence and blends scale linearly, never silently wrong (the shader
 * does the same, see shaders/skinned.vert). */
typedef struct skv_dq_bone {
    float real[4];  /* rotation quaternion x, y, z, w (unit) */
    float dual[4];  /* 0.5 * (t, 0) * real */
    mat4 stretch;   /* 3x3 in the upper left, last column (0, 0, 0, 1) */
} skv_dq_bone;

/* Converts `count` palette matrices. Returns how many carry a stretch
 * (scale, shear or mirroring beyond 1e-4). */
int skin_dq_palette(const mat4 *palette, int count, skv_dq_bone *out);

/* skin_blend with dual quaternions (same slots, or lists with
 * model->influence_lists; same outputs). */
void skin_blend_dq(const skv_model *model, const skv_dq_bone *bones, float *positions, float *normals);
void skin_blend_dq_morph(const skv_model *model, const skv_dq_bone *bones, const float *morph_weights,
                         float *positions, float *normals);

/* Axis-aligned bounds of `count` points (3 floats each) after `transform`. */
void skin_bounds(const float *points, int count, const mat4 transform,
                 float lo[3], float hi[3]);

#endif
