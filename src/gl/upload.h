/* upload.h - what render_create puts on the GPU from the model, one
 * resource per pair of calls: the vertex buffers, the morph targets and
 * the influence lists as buffer textures, the material textures.
 *
 * Each *_create fills its fields of the skv_renderer (render.h) and may
 * leave them half made when it fails: its *_destroy releases whatever
 * is there (and is a no-op on zeroed fields), as render_destroy does.
 * Needs the renderer's draw set (draws.h: split mode draws copies of
 * model vertices) and a current GL context. */
#ifndef SKV_UPLOAD_H
#define SKV_UPLOAD_H

#include "render.h"

/* Vertices the GPU holds: the model's, or in split mode the draw set's
 * copies. */
int upload_vertex_count(const skv_renderer *renderer, const skv_model *model);

/* The vertex array: positions, normals, UVs, bone IDs, weights, tangents
 * (where the model has them) as attributes, and the index buffer. */
skv_result vertex_buffers_create(skv_renderer *renderer, const skv_model *model, skv_error *err);
void vertex_buffers_destroy(skv_renderer *renderer);

/* Models with morph targets: every (target, vertex) delta pair and every
 * target's weight as buffer textures, each GPU vertex's model vertex as
 * an attribute of the vertex array (vertex_buffers_create first). */
skv_result morph_buffers_create(skv_renderer *renderer, const skv_model *model, skv_error *err);
void morph_buffers_destroy(skv_renderer *renderer);

/* model->influence_lists (--influences all): per GPU vertex where its
 * list starts, and every (bone, weight) pair, as buffer textures. Refuses
 * (SKV_ERR_GPU, renderer->lists_too_large set) lists past the driver's
 * buffer-texture size. */
skv_result influence_lists_create(skv_renderer *renderer, const skv_model *model, skv_error *err);
void influence_lists_destroy(skv_renderer *renderer);

/* Every texture a material uses, as colour (sRGB) and/or as data
 * (linear); those past the driver's GL_MAX_TEXTURE_SIZE are left out
 * (renderer->textures_too_large counts them). */
skv_result material_textures_create(skv_renderer *renderer, const skv_model *model, skv_error *err);
void material_textures_destroy(skv_renderer *renderer);

#endif
