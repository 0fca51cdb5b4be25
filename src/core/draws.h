/* draws.h - draw batches whose bones fit the shader's palette.
 *
 * The vertex shader holds SKV_MAX_BONES matrices per draw. A model with
 * that many bones or fewer is drawn one draw per mesh from one shared
 * palette, with the model's own vertex data ("shared" mode). A model with
 * more is split ("split" mode): each mesh's triangles are gathered greedily
 * into draws that touch at most SKV_MAX_BONES distinct bones, the vertices
 * of each draw are copied with bone IDs local to that draw, and before each
 * draw its palette is gathered from the full one. The full palette, the CPU
 * blend and pose export keep the model's global bone IDs either way.
 *
 * Why splitting rather than a bigger palette: it keeps the one 100-bone
 * shader path for every model (GL 3.3's guaranteed 16 KB uniform block
 * would stop at 256 bones anyway) and has no limit on the bone count. */
#ifndef SKV_DRAWS_H
#define SKV_DRAWS_H

#include <stdint.h>

#include "error.h"
#include "model.h"

typedef struct skv_draw {
    int mesh;                     /* the mesh its triangles come from */
    int base_vertex;              /* into the draw set's vertices */
    int vertex_count;
    int first_index, index_count; /* into the draw set's indices */
    int bone_count;               /* palette slots used (split mode) */
    int *bones;                   /* slot -> model bone (split mode), else NULL */
} skv_draw;

typedef struct skv_draw_set {
    int split; /* 0: shared palette, model vertex data as is */
    int draw_count;
    skv_draw *draws;
    /* Split mode only: the GPU's vertices, each a copy of a model vertex. */
    int vertex_count;
    int *source_vertex;  /* model vertex of each GPU vertex */
    uint16_t *bone_ids;  /* model->influence_slots per GPU vertex, draw-local */
    uint32_t *indices;   /* relative to the draw's base_vertex */
    int index_count;
    /* Split mode with model->influence_lists (--influences all): GPU vertex
     * g's whole list, bones draw-local, at list_pairs[list_start[g] ..
     * list_start[g + 1]) (vertex_count + 1 starts); else NULL. A draw then
     * holds every bone of its vertices' lists, not only their slots'. */
    int *list_start;
    skv_influence *list_pairs;
} skv_draw_set;

/* Builds the draws for `model` with at most `max_bones` per draw (the
 * shader's SKV_MAX_BONES; tests pass smaller numbers). Fails (one line)
 * where one triangle's vertices have more than `max_bones` bones among
 * them (at the shader's 100 only with --influences all: 3 vertices of at
 * most 8 slots hold 24). */
skv_result draws_build(const skv_model *model, int max_bones, skv_draw_set *set, skv_error *err);
/* Whether draws_build would refuse the model's influence lists for a
 * triangle naming more than `max_bones` bones (SKV_ERR_ARGUMENT, its
 * message), without building anything: SKV_OK where the model has no
 * lists or no more bones than a draw holds; SKV_ERR_MEMORY. */
skv_result draws_check_lists(const skv_model *model, int max_bones, skv_error *err);
void draws_free(skv_draw_set *set);

/* Gathers draw `d`'s palette (split mode) from the model's full palette. */
void draws_gather_palette(const skv_draw *d, const mat4 *full, mat4 *out);

#endif
