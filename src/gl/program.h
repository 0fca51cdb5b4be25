/* program.h - the GL programs: skinned.vert/.frag built per variant,
 * lines.vert/.frag, with the shared limits prepended (skv_limits.h), and
 * the uniform locations the renderer sets.
 *
 * Needs a current GL 3.3 core context with glad loaded. */
#ifndef SKV_PROGRAM_H
#define SKV_PROGRAM_H

#include <glad/gl.h>

#include "error.h"

/* Which build of skinned.vert. */
typedef struct skv_shader_variant {
    int influence_slots; /* 4 or 8 */
    int instanced;       /* crowd: palettes from a texture buffer */
    int dual_quaternion;
    int morph;           /* morph targets before skinning (models that have them) */
    int influence_lists; /* every influence from buffer textures (--influences all) */
    int split;           /* instanced only: draw-local bone IDs, mapped by u_crowd_bones (draws.h split mode) */
} skv_shader_variant;

/* Uniform locations of one program (-1 where it has none). */
typedef struct skv_uniforms {
    GLint model, view, projection, view_normal, diffuse, has_texture, texture;
    GLint palettes, bones_per_instance, grid_columns, grid_spacing, crowd_bones; /* crowd program */
    GLint shade_mode, selected_bone;
    GLint metallic, roughness, emissive, normal_scale, occlusion_strength, alpha_mode, alpha_cutoff, maps,
        metal_rough_map, normal_map, occlusion_map, emissive_map, view_up, uv_maps; /* the material (skinned.frag) */
    GLint morph_deltas, morph_weights, morph_first_target, morph_count, morph_base, morph_vertices,
        morph_first_vertex; /* programs with morph targets */
    GLint influence_starts, influence_pairs; /* programs with influence lists */
    GLint slot_ids, slot_weights;            /* the crowd's program: the slots as buffer textures */
} skv_uniforms;

/* How the model's surface is coloured (skinned.frag). The shaders get
 * these as SKV_SHADE_* from the preamble (program.c: shader_preamble). */
typedef enum skv_shade {
    SKV_SHADE_MATERIAL = 0,   /* materials and textures, lit */
    SKV_SHADE_WEIGHTS = 1,    /* weight of the selected bone, colour map */
    SKV_SHADE_INFLUENCES = 2, /* number of influences per vertex */
    SKV_SHADE_SOLID = 3,      /* one colour, lit (the bind-pose ghost) */
    SKV_SHADE_FLAT = 4,       /* one colour, unlit (wireframe edges) */
} skv_shade;

/* Builds a program from two embedded shader files (see shaders/), with
 * the skv_limits.h preamble. Returns 0 and fills err on failure. */
GLuint render_program(const char *vertex_name, const char *fragment_name, skv_error *err);
/* Same, linked to capture `varyings` (interleaved) by transform feedback. */
GLuint render_program_feedback(const char *vertex_name, const char *fragment_name, const char *const *varyings,
                               int varying_count, int influence_slots, skv_error *err);
/* Same, for any variant. */
GLuint render_program_variant(const char *vertex_name, const char *fragment_name, const char *const *varyings,
                              int varying_count, const skv_shader_variant *variant, skv_error *err);

/* The programs of one GL context, each linked the first time it is asked
 * for and kept for the context's life, so that the models of a run (or
 * the files dropped on a window) draw with the same ones instead of
 * compiling their own. A renderer borrows them (render_create_from). */
typedef struct skv_program_entry {
    char vertex[32], fragment[32]; /* the embedded shader files */
    skv_shader_variant variant;
    GLuint program;
} skv_program_entry;

typedef struct skv_program_set {
    skv_program_entry *entries;
    int count, capacity;
} skv_program_set;

/* An empty set (nothing on the GPU yet). */
void program_set_create(skv_program_set *set);
/* The program of these two shader files built as `variant`: linked now
 * the first time (0 and err filled when it fails: a shader that does not
 * compile, no memory), the same one after that. The set owns it. */
GLuint program_set_get(skv_program_set *set, const char *vertex_name, const char *fragment_name,
                       const skv_shader_variant *variant, skv_error *err);
/* Is `program` one of the set's (which its borrowers must not delete)? */
int program_set_holds(const skv_program_set *set, GLuint program);
/* Deletes every program of the set; its context must be current. */
void program_set_destroy(skv_program_set *set);

/* The uniform locations of program `p` (-1 for those it lacks). */
void program_find_uniforms(GLuint p, skv_uniforms *u);
/* Binds p's Bones uniform block to SKV_BONES_BINDING; 0, or -1 when the
 * program has no Bones block. */
int program_bind_bones(GLuint p);

#endif
