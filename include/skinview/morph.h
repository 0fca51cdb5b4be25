/* morph.h - morph targets (blend shapes): the weights at a clip time and
 * the morphed vertex, before skinning. No GL.
 *
 * A vertex of a mesh with targets is base + sum over targets of
 * weight * delta (positions and normals alike; the normal renormalised),
 * and is then skinned as usual. Targets of weight 0 are skipped, in the
 * CPU blends and the shader alike, in target order, so both add the same
 * floats. */
#ifndef SKV_MORPH_H
#define SKV_MORPH_H

#include "model.h"

/* Every target's weight (model->morph_target_count floats) for clip
 * `clip` (-1: none) at `seconds` on the clip's loop: a mesh with a
 * channel in the clip takes its keys (linear between keys, clamped at
 * the first and last), the others their default weights. */
void morph_weights(const skv_model *model, int clip, double seconds, float *out);

/* Channel `ch`'s weights at `ticks` into out (the mesh's target count). */
void morph_sample(const skv_morph_channel *ch, int target_count, double ticks, float *out);

/* Vertex v (model index) of mesh `mesh` morphed with `weights` (per model
 * target; NULL: the default weights): position and unit normal. */
void morph_vertex(const skv_model *model, const float *weights, int mesh, int v, float position[3],
                  float normal[3]);

/* Index of the target called `name` (or its number, counting over all
 * meshes); -1 if none. */
int morph_find_target(const skv_model *model, const char *name_or_index);

/* Every target called `name`, over all meshes (a character split into
 * head, teeth and eyes names "blink" on each), into `targets` (at most
 * `capacity`); else the one its number names. Returns how many there
 * are (possibly more than `capacity`). */
int morph_find_targets(const skv_model *model, const char *name_or_index, int *targets, int capacity);

/* The mesh target `target` belongs to; -1 if none. */
int morph_mesh_of_target(const skv_model *model, int target);

/* The mesh owning model vertex v, walking `cursor` (start it at 0; vertex
 * order is fastest); -1 when no mesh holds it. */
int morph_mesh_of_vertex(const skv_model *model, int v, int *cursor);

#endif
