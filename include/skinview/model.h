/* model.h - Skinview's own model data: what the importer produces and
 * every later stage reads. No Assimp type appears here.
 *
 * Ownership: one skv_model owns everything reachable from it and is freed
 * by model_free(). Arrays are flat, with explicit counts. It is plain
 * data: nothing in it is the evaluator's; what pose_evaluate compiles
 * from it lives apart, in the walks its owner makes (walks.h).
 *
 * Conventions
 * - Matrices are cglm mat4 (column-major), vectors float[3].
 * - Quaternions are stored x, y, z, w (cglm's versor order).
 * - Key times are in ticks; a clip's ticks_per_second is never 0 (the
 *   importer substitutes 25 for files that report 0).
 * - The skeleton's nodes are in parent-first order: parents[i] < i, the
 *   root is node 0 with parent -1. */
#ifndef SKV_MODEL_H
#define SKV_MODEL_H

#include <stdint.h>
#include <cglm/cglm.h>

#include "error.h"
#include "skv_limits.h"

/* One (bone, weight) pair of a vertex. */
typedef struct skv_influence {
    int bone;
    float weight;
} skv_influence;

typedef struct skv_vec3_key {
    double time;
    float value[3];
    float zero; /* 0: the struct's padding made explicit (no uninitialised bytes in a copy) */
} skv_vec3_key;

typedef struct skv_quat_key {
    double time;
    float value[4]; /* x, y, z, w */
} skv_quat_key;

/* The keys that animate one node. Each key array has at least one key.
 * Each is interpolated as the file says (keys.h, skv_key_mode): 0 linear
 * (lerp, rotations slerped on the shorter arc; every format but these),
 * 1 step (a key's value held until the next; glTF STEP), 2 cubic Hermite
 * with each key's own in and out tangents (glTF CUBICSPLINE). */
typedef struct skv_channel {
    int node;
    int position_count, rotation_count, scale_count;
    int position_mode, rotation_mode, scale_mode; /* skv_key_mode */
    skv_vec3_key *positions;
    skv_quat_key *rotations;
    skv_vec3_key *scales;
    /* Cubic arrays' tangents, per key its in-tangent then its out-tangent
     * (3 or 4 floats each), in value units per tick; NULL for other
     * modes. */
    float *position_tangents; /* position_count * 6 */
    float *rotation_tangents; /* rotation_count * 8 */
    float *scale_tangents;    /* scale_count * 6 */
} skv_channel;

/* What the importer repaired or approximated in a clip (skv_clip.notes);
 * --list shows them. */
enum {
    SKV_CLIP_KEYS_PAST_END = 1 << 0,  /* keys past the file's duration: played to the last key */
    SKV_CLIP_PIVOTS_FOLDED = 1 << 1,  /* FBX pivot helper nodes folded into the nodes their channels move */
    SKV_CLIP_LINEAR_NOT_CURVE = 1 << 2, /* the file's Bezier/Hermite/step curves played as straight lines */
    SKV_CLIP_CURVES_SAMPLED = 1 << 3,   /* the file's Bezier/Hermite/step curves sampled into linear keys */
};

/* The weights of one mesh's morph targets over a clip: key k holds all
 * of the mesh's weights at times[k] (ticks, ascending), targets the file
 * leaves out of a key at 0. Sampled by `mode`, clamped at the ends. */
typedef struct skv_morph_channel {
    int mesh;         /* index into skv_model.meshes */
    int key_count;    /* >= 1 */
    int mode;         /* skv_key_mode (keys.h), as skv_channel's arrays */
    double *times;    /* key_count */
    float *weights;   /* key_count * the mesh's morph_target_count */
    float *tangents;  /* cubic: per key, in then out, each a weight per target, per tick; else NULL */
} skv_morph_channel;

typedef struct skv_clip {
    char *name;
    double duration_ticks;   /* >= 0 */
    double ticks_per_second; /* > 0 */
    int channel_count;
    skv_channel *channels;
    int *node_channel; /* per skeleton node: index into channels, or -1 */
    int merged_from;   /* > 1: made of that many one-channel clips of the file */
    int morph_channel_count;
    skv_morph_channel *morph_channels; /* morph target weights over time, per mesh */
    unsigned notes;    /* SKV_CLIP_* */
    char *source;      /* the --anim-file it came from; NULL: the model's own file */
    int file_channels; /* channels the file gave it (channel_count: those that matched a node) */
    /* A clip retargeted from another skeleton (retarget.h): per node of
     * the model (retarget_node_count = its node_count), the name of the
     * source node it follows, NULL where it stays at rest. 0 and NULL for
     * a clip made for this skeleton. */
    int retarget_node_count;
    char **retarget_from;
} skv_clip;

/* Node hierarchy and bone map, flattened parent-first. */
typedef struct skv_skeleton {
    int node_count;
    char **node_names;
    int *parents;     /* -1 for the root */
    mat4 *rest_local; /* node transform relative to its parent */

    /* Palette entries. A bone is either a real bone of the file (name of
     * its node, offset = inverse bind matrix) or a "node bone" the
     * importer adds so that unskinned meshes and unweighted vertices
     * follow their node (offset = identity). */
    int bone_count;
    char **bone_names;
    int *bone_node; /* node index, or -1 when the file names a node it lacks */
    mat4 *bone_offset;
    unsigned char *bone_from_file; /* 1: one of the file's bones, 0: a node bone; NULL: all from the file */
} skv_skeleton;

typedef struct skv_mesh {
    char *name;
    int base_vertex, vertex_count; /* range in the model's vertex arrays */
    int first_index, index_count;  /* range in the model's index array */
    int material;
    int node;                /* node the mesh hangs under */
    int skinned;             /* the file gave it bones */
    int bone_count;          /* bones the file lists for it */
    int max_influences;      /* most non-zero weights on one vertex, in the file */
    int over_limit_vertices; /* vertices with more influences than the slots */
    int unweighted_vertices; /* skinned-mesh vertices without any weight */
    /* Morph targets (blend shapes): targets first_morph_target ..
     * + morph_target_count of the model's; target t's delta for the
     * mesh's vertex v is at (morph_delta_base + t * vertex_count + v) in
     * the model's morph delta arrays. */
    int morph_target_count;
    int first_morph_target;
    int morph_delta_base;
} skv_mesh;

/* A texture's texels, decoded by the importer (in the guarded child,
 * images.h) from the image file or embedded image the material names. */
typedef struct skv_texture {
    int width, height;   /* 0 x 0 until decoded */
    unsigned char *rgba; /* width * height * 4, first row at the top; NULL: not decoded (drawn untextured) */
    /* An image outside the model's folder that the guarded child may not
     * read (beneath the folder's parent: a game pack's ../Textures): its
     * real path, for the importer to read and have decoded in a sandbox
     * of its own (import_model); NULL once it has, or where none. */
    char *file;
} skv_texture;

/* How a material was described in its file. */
typedef enum skv_material_model {
    SKV_MATERIAL_PHONG = 0, /* diffuse/specular/shininess (FBX, Collada, MD5, .X ...): mapped to metal-rough */
    SKV_MATERIAL_PBR = 1,   /* glTF metallic-roughness */
} skv_material_model;

typedef enum skv_alpha_mode {
    SKV_ALPHA_OPAQUE = 0, /* alpha ignored */
    SKV_ALPHA_MASK = 1,   /* fragments under alpha_cutoff discarded */
    SKV_ALPHA_BLEND = 2,  /* blended over what is behind, drawn after the opaque draws, far to near */
} skv_alpha_mode;

/* A material's texture slots (skv_material.textures / texture_paths). */
enum {
    SKV_TEX_BASE_COLOR = 0,     /* sRGB; rgb * base colour, a * alpha */
    SKV_TEX_METAL_ROUGH = 1,    /* linear; glTF packing: g roughness, b metalness */
    SKV_TEX_NORMAL = 2,         /* linear; tangent space */
    SKV_TEX_OCCLUSION = 3,      /* linear; r */
    SKV_TEX_EMISSIVE = 4,       /* sRGB */
    SKV_TEX_SLOTS = 5,
};

/* Colours and factors are linear (the importer decodes colours a Phong
 * file gives in sRGB). */
typedef struct skv_material {
    char *name;
    float diffuse[4]; /* base colour factor, linear RGBA (multiplies the base colour texture) */
    int texture;      /* the base colour texture: index into textures, or -1 (= textures[SKV_TEX_BASE_COLOR]) */
    skv_material_model shading;
    float metallic, roughness; /* 0..1 */
    float emissive[3];         /* linear, multiplies the emissive texture */
    float normal_scale;        /* glTF normalTexture.scale (1) */
    float occlusion_strength;  /* glTF occlusionTexture.strength (1) */
    skv_alpha_mode alpha_mode;
    float alpha_cutoff;        /* SKV_ALPHA_MASK (0.5) */
    int double_sided;          /* 0: back faces culled (glTF materials without doubleSided) */
    int textures[SKV_TEX_SLOTS];       /* index into the model's textures, or -1 */
    char *texture_paths[SKV_TEX_SLOTS]; /* the file's reference per slot; NULL where it names none */
    /* glTF KHR_texture_transform: where uv_transformed, slot k samples at
     * u' = m[0] u + m[1] v + m[2], v' = m[3] u + m[4] v + m[5] (m =
     * uv_transform[k], in the model's UVs); elsewhere at the UVs as
     * they are. */
    int uv_transformed;
    float uv_transform[SKV_TEX_SLOTS][6];
} skv_material;

typedef struct skv_model {
    char *path;

    int vertex_count;
    float *positions;   /* 3 per vertex */
    float *normals;     /* 3 per vertex */
    float *uvs;         /* 2 per vertex */
    float *tangents;    /* 4 per vertex: xyz along +u, w = +-1 the bitangent's side; NULL: none in the model */
    int influence_slots; /* per vertex: 4 (default) or 8 */
    /* --influences all, and the default where a vertex has more than 4:
     * every influence of every vertex is blended, from influence_start /
     * influences below, not the slots (by the shader, crowds and dual
     * quaternions too, and by the CPU: model_influence); the slots stay
     * filled. */
    int influence_lists;
    /* influence_lists by default, not asked for (skv_import_desc's
     * influences 0): some vertex has more influences than the slots. A
     * renderer whose driver cannot hold the lists drops them
     * (scene_renderer_create) where they were not asked for. */
    int influence_lists_auto;
    uint16_t *bone_ids;  /* influence_slots per vertex */
    float *weights;      /* influence_slots per vertex, sum 1 */
    /* Every usable influence of every vertex, before the 4-slot cut (the
     * reference the packed slots are measured against): vertex v owns
     * influences[influence_start[v] .. influence_start[v + 1]), weights
     * normalised to sum 1, largest first. */
    int *influence_start; /* vertex_count + 1 */
    skv_influence *influences;

    int index_count;
    uint32_t *indices; /* relative to the mesh's base_vertex */

    int mesh_count;
    skv_mesh *meshes;
    int material_count;
    skv_material *materials;
    int texture_count;
    skv_texture *textures;

    /* Morph targets of all meshes (skv_mesh says which are whose).
     * Deltas from the base mesh, 3 floats each; normal deltas are 0
     * where the file gives the target no normals. */
    int morph_target_count;
    char **morph_target_names;    /* per target; NULL where the file names none */
    float *morph_default_weights; /* per target: the weight without a clip channel */
    int morph_delta_count;        /* (target, vertex) pairs */
    float *morph_position_deltas; /* 3 per pair */
    float *morph_normal_deltas;   /* 3 per pair */

    skv_skeleton skeleton;
    int file_bone_count; /* real bones (the rest are node bones) */

    int clip_count;
    skv_clip *clips;
    /* The file has a skeleton and clips but no mesh: the one mesh is the
     * importer's stick figure of the joints (stick.h). */
    int skeleton_only;

    /* Inverse of the root node's transform, and the root transform itself.
     * The walker cancels the root transform (globalInverse) so the palette
     * is in model space; the view re-applies `upright` so the model stands
     * the way the file says (up axis, units). */
    mat4 global_inverse;
    mat4 upright;

    /* Things the importer noticed and worked around, one line each. */
    int warning_count;
    char **warnings;

    /* A guarded import's mapped block (blob.h, blob_adopt), or NULL: the
     * big vertex arrays above (positions ... indices, the morph deltas)
     * and the clips' key arrays (skv_channel's positions, rotations and
     * scales, skv_morph_channel's times and weights) may point into it
     * instead of owning memory of their own, so that the checked block is
     * not copied. model_free unmaps it and frees only the arrays outside
     * it; nothing may realloc or free those arrays alone (a clip moved to
     * another model takes copies first: model_clip_own), nor write to
     * them: the block's check does not stop two of them from overlapping. */
    void *block;
    size_t block_size;
} skv_model;

void model_free(skv_model *model);
void model_clip_free(skv_clip *clip); /* one clip's parts (model_free frees them all) */
/* Gives `clip` (of `model`) copies of its key arrays that lie in the
 * model's block, so that it may outlive the model (moved to another):
 * SKV_OK, or SKV_ERR_MEMORY with the arrays not yet copied left as
 * they were. */
skv_result model_clip_own(const skv_model *model, skv_clip *clip);

/* Adds a printf-style warning line to the model. */
void model_warn(skv_model *model, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What one SKV_CLIP_* note says: a short key (for JSON) and a sentence
 * (for --list). NULL for a bit that is not a note. */
const char *model_clip_note_key(unsigned note);
const char *model_clip_note_text(unsigned note);

/* Index of the clip called `name`, or the clip number given as digits;
 * -1 if none matches. */
int model_find_clip(const skv_model *model, const char *name_or_index);

/* Is palette entry `bone` one of the file's bones (not a node bone the
 * importer added)? */
int model_bone_from_file(const skv_model *model, int bone);

/* Palette index of the bone called `name_or_index` (or its number); -1
 * if none. */
int model_find_bone(const skv_model *model, const char *name_or_index);

/* The node called `name`: the only one of that name, or where several
 * nodes share it, the one a file bone binds (the joint; a glTF joint and
 * a mesh node often share a name). Names match byte for byte or, where
 * none does, as --list --json prints them (text.h: text_same_as_json,
 * ill-formed UTF-8 as U+FFFD). -1: none; -2: several, and not exactly
 * one of them a joint. */
int model_find_node(const skv_model *model, const char *name);

/* Total over all meshes. */
int model_over_limit_vertices(const skv_model *model);

/* The influences vertex v is blended with: its whole list with
 * influence_lists (--influences all, largest first), else its slots
 * (unused ones weigh 0). model_influence puts influence i's bone in *bone
 * and returns its weight. */
static inline int model_influence_count(const skv_model *model, int v)
{
    return model->influence_lists ? model->influence_start[v + 1] - model->influence_start[v] : model->influence_slots;
}

static inline float model_influence(const skv_model *model, int v, int i, int *bone)
{
    if (model->influence_lists) {
        const skv_influence *pair = &model->influences[model->influence_start[v] + i];
        *bone = pair->bone;
        return pair->weight;
    }
    *bone = model->bone_ids[(size_t)v * (size_t)model->influence_slots + (size_t)i];
    return model->weights[(size_t)v * (size_t)model->influence_slots + (size_t)i];
}

#endif
