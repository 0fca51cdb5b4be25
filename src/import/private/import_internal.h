/* import_internal.h - what the importer's files share; private to
 * src/import/ (Assimp types appear here and nowhere outside src/import/).
 *
 *   import.c        orchestration: check the path, read (guarded or not),
 *                   convert, add clips of other files; version reporting
 *   guard.c         the guarded import in a child process, memory bounds
 *   sandbox.c       the child's sandbox: Landlock, seccomp, limits
 *   blob.c          the model as one flat block, checked on arrival
 *   convert.c       aiScene -> skv_model: the steps' order, shared helpers
 *   skeleton.c      the node tree, bone map, FBX pivots, stick figures
 *   meshes.c        meshes and skins: vertices, influences, normals
 *   materials.c     materials onto metal-rough, their texture slots
 *   morphs.c        morph targets and the clips' weight channels
 *   clips.c         clips; binding another file's clips to a model
 *   assimp_fixes.c  repairs of known Assimp defects, one table row each
 *   textures.c      texture files and embedded images; parallel decoding */
#ifndef SKV_IMPORT_INTERNAL_H
#define SKV_IMPORT_INTERNAL_H

#include <limits.h> /* assimp/material.h uses INT_MAX */
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <assimp/cimport.h> /* aiLogStream */
#include <assimp/scene.h>

#include "error.h"
#include "import.h"
#include "model.h"

/* Assimp 5.4 renamed aiString's capacity MAXLEN to AI_MAXLEN. */
#ifndef AI_MAXLEN
#define AI_MAXLEN MAXLEN
#endif

/* A texture's image until textures_decode: the file's bytes and what its
 * header says, or texels already (Assimp's raw embedded images). */
typedef struct texture_source {
    unsigned char *bytes; /* the image file's, malloc'd */
    size_t size;
    int width, height;
    uint64_t working_bytes; /* images.h: memory its decoding takes besides the texels */
    unsigned char *texels;  /* malloc'd RGBA8, where it came as texels */
} texture_source;

/* What the conversion's last step, decoding textures, may take: one
 * budget with the model's own bytes (the guarded child's block holds
 * both), and the time the parent allows. */
typedef struct import_budget {
    uint64_t memory_bytes; /* 0: no bound */
    double deadline;       /* CLOCK_MONOTONIC seconds; 0: none */
    /* In the guarded child: an image outside the model's folder, which
     * its sandbox cannot read, is left to the parent (skv_texture.file). */
    int guarded;
} import_budget;

/* Name -> index map (stb_ds string hash map). */
typedef struct name_index {
    char *key;
    int value;
} name_index;

/* State of one import; everything here is freed before returning. */
typedef struct importer {
    const struct aiScene *scene;
    const struct aiScene *anim_scene; /* where the clips come from: scene, or an .md5anim's */
    const double *file_durations;     /* per clip, the duration the file gave if read_scene extended it; or NULL */
    skv_model *model;
    skv_error *err;
    char *folder; /* the model's folder, for external textures */

    const struct aiNode **nodes; /* flattened, parallel to skeleton nodes */
    name_index *node_by_name;  /* first node of each name */
    int name_clashes;          /* nodes whose name an earlier node has too */
    name_index *joint_by_name; /* for a name several nodes share: the node its bone resolved to */
    unsigned char *folded;     /* per node: FBX pivot helpers folded into it (fold_fbx_pivots) */
    /* import_add_clips: channels may also name a node without its
     * namespace prefix; `existing` holds the clips already there. */
    name_index *node_by_bare;
    const skv_model *existing;
    name_index *bone_by_name; /* first palette entry of that name */
    int *node_bone;           /* per node: its node bone, or -1 */
    int bone_capacity;

    char **texture_keys; /* per model texture: where it came from */
    texture_source *texture_sources; /* per model texture: what textures_decode decodes */
    /* A glTF's samplers as the file has them (gltf_prep.h), read at the
     * first clip that asks (assimp_fixes.c): state 0 unread, 1 read, -1
     * not readable. */
    struct gltf_curves *gltf_curves;
    int gltf_curves_state;
    /* A Collada file's curves likewise (dae_curves.h): state 0 unread, 1
     * read, -1 not readable (dae_unread says why); the keys baked from
     * them so far, against one bound for the import; whether the model
     * has said that some curves stay linear. */
    struct dae_curves *dae_curves;
    int dae_curves_state;
    char dae_unread[200];
    long dae_baked_keys;
    int dae_told;
    const import_budget *budget;     /* NULL: no bound */
    char texture_refused[400]; /* why resolve_texture refused one, for its warning; "" if it says nothing */
    const char *path; /* the file read (not the user's spelling): Assimp fixes match their format against it */
    unsigned char *hidden_meshes; /* per node: its meshes are not drawn (hl1_default_body); NULL: none */
    int huge_offsets;    /* bone offsets beyond SKV_MAX_MAGNITUDE, replaced by identity */
} importer;

/* Beyond this a transform entry or key value is no model's: a scale or
 * offset of 1e30 is finite, but a float overflows to inf once two such
 * are multiplied down the hierarchy or with a vertex (issue #21). */
#define SKV_MAX_MAGNITUDE 1e15f

/* While this process itself runs Assimp on a file (after the guarded read,
 * or with --trust), its address space may grow by the same budget as the
 * guarded child's: a file that only half-reads in the child, or that is
 * read unguarded, fails with one line instead of taking the machine's
 * memory. The limit is set from what the process already maps (a GL
 * driver may hold much) and put back afterwards. Not under the sanitizers,
 * which reserve terabytes of address space up front. */
typedef struct memory_bound {
    struct rlimit saved;
    int active;
    /* Set where Assimp logged an allocation it could not make and went on
     * (memory_bound_begin watches its log): FBX's reader drops the object
     * it was building (a mesh, a skin) and returns the rest as if whole. */
    int ran_out;
    struct aiLogStream watch;
} memory_bound;

/* --- convert.c --- */
void to_mat4(const struct aiMatrix4x4 *m, mat4 out);
int mat4_finite(const mat4 m);
/* Every entry within SKV_MAX_MAGNITUDE (NaN fails too). */
int mat4_usable(const mat4 m);
/* A malloc'd copy of `s`, or of `fallback_fmt` with `n` where it is empty. */
char *dup_name(const struct aiString *s, const char *fallback_fmt, int n);
/* The index `name` maps to, or -1; takes the map's address (stb_ds). */
int name_lookup(name_index **map, const char *name);
void importer_free(importer *im);
int too_many_bones(const struct aiScene *scene);
/* import_scene, with the clips taken from `anim_scene`. */
skv_result convert_scene(const struct aiScene *scene, const struct aiScene *anim_scene, const double *file_durations,
                         const char *path, const skv_import_desc *desc, const import_budget *budget,
                         skv_model *model, skv_error *err);

/* --- retarget_load.c --- */
struct skv_bone_map;
/* The bone map's JSON: SKV_ERR_FILE where it cannot be read,
 * SKV_ERR_ARGUMENT where it is not an object of strings. */
skv_result import_bone_map_read(const char *path, struct skv_bone_map *map, skv_error *err);

/* --- skeleton.c --- */
skv_result flatten_nodes(importer *im);
const char *bare_name(const char *name);
/* A clip channel's node by its name, or -1. */
int channel_node(importer *im, const char *name);
skv_result fold_fbx_pivots(importer *im);
/* The palette entry of a file's bone, its offset `file_offset` times
 * `correction`; -1: out of memory. */
int file_bone_index(importer *im, const struct aiBone *bone, const mat4 file_offset, const mat4 correction,
                    int mesh_node);
/* The palette entry that carries node `node` rigidly; -1: out of memory. */
int node_bone_index(importer *im, int node);
skv_result convert_skeleton_only(importer *im);

/* --- meshes.c --- */
int is_triangle_mesh(const struct aiMesh *m);
/* The meshes node `node` draws: its own, or none where they are hidden. */
unsigned node_mesh_count(const importer *im, int node);
skv_result convert_meshes(importer *im);
int has_triangle_meshes(const struct aiScene *scene);
int has_own_meshes(const struct aiScene *scene);

/* --- materials.c --- */
skv_result convert_materials(importer *im);

/* --- morphs.c --- */
skv_result convert_morph_targets(importer *im);
/* A clip's morph weight channels; -1: out of memory. */
int convert_morph_channels(importer *im, const struct aiAnimation *src, skv_clip *clip, double *last_key);

/* --- clips.c --- */
skv_result convert_clips(importer *im);
skv_result merge_single_channel_clips(importer *im);
/* Another file's clips converted against `model`'s skeleton into
 * `scratch` (import_add_clips moves them over). */
skv_result bind_clips(skv_model *model, const struct aiScene *scene, const struct aiScene *anim_scene,
                      const double *file_durations, const char *read_path, skv_model *scratch, skv_error *err);

/* --- assimp_fixes.c --- */
/* Where in an import a repair of an Assimp defect runs. Each row of
 * assimp_fixes[] names one stage; the importer calls assimp_fixes_run at
 * each stage's one point, which runs every row of that stage, in table
 * order, on the stage's part of a fix_context. */
typedef enum fix_stage {
    FIX_BEFORE_READ, /* the file's bytes, before Assimp reads them (import.c: read_model_file, import_md5anim) */
    FIX_READ_SCENE,  /* the scene as read, before validation and post-processing (import.c: read_scene; only
                        where it reads in two steps: big files, and after an error a row answers) */
    FIX_CLIP_FILE,   /* an .md5mesh without clips: the file they are read from (import.c: md5anim_beside) */
    FIX_NODES,       /* the node tree flattened (convert.c: convert_scene) */
    FIX_MESH_BONES,  /* a mesh's bone offsets, before they enter the palette (meshes.c: pack_mesh_influences;
                        meshes with bones only) */
    FIX_CLIP,        /* a clip, its channels converted, before its duration is checked (clips.c: convert_clips) */
    FIX_MODEL,       /* the model complete (import.c: import_in_process; not for an animation file's clips) */
    FIX_STAGES
} fix_stage;

/* What one stage of one import hands its rows: `path` always, and the
 * part of its stage. A row's detect and repair read and write there. */
typedef struct fix_context {
    const char *path; /* the file read: a row's formats are matched against it */
    int clips_only;   /* the file is read for its clips (an animation file), not as the model */
    uint64_t fired;   /* rows that repaired (bit: the row's index), so far in this context */
    uint64_t told;    /* rows whose warning the model has */

    /* FIX_BEFORE_READ: what Assimp reads instead of the file (malloc'd,
     * the caller frees), as a file of type `hint`; or NULL. A repair that
     * fails says why in `unread`. */
    unsigned char *bytes;
    long size;
    const char *hint;
    const char *unread;
    skv_error reader_error; /* where a rewrite for Assimp (an .m3d, a web glTF) says why not: `unread` points here */

    /* FIX_READ_SCENE: the scene (a row may edit it through its pointers),
     * the post-processing it will get, whether a row edited it (it is
     * then post-processed as it is, not read again), and the durations
     * the file gave where a row extended one (malloc'd, per clip; NULL). */
    const struct aiScene *scene;
    unsigned flags;
    int scene_edited;
    double *durations;

    /* FIX_CLIP_FILE: the file the clips are read from, "" where none has
     * the exact name Assimp would look for; `clip_file_size` bytes. */
    char *clip_file;
    size_t clip_file_size;

    /* The conversion's stages: the importer (its model, scene, nodes). */
    importer *im;
    /* FIX_MESH_BONES: the mesh, its name and node; per bone its offset,
     * and `correction` (identity), multiplied into every offset after. */
    const struct aiMesh *mesh;
    const char *mesh_name;
    int mesh_node;
    mat4 *offsets;
    mat4 correction;
    /* FIX_CLIP: the clip as the file has it, as converted, and its
     * duration in ticks (the file's; a row may change it). */
    const struct aiAnimation *anim;
    int anim_index; /* its index among the scene's animations (the file's order) */
    skv_clip *clip;
    double duration;

    /* FIX_MODEL: the model, and whether its clips came from clip_file. */
    skv_model *model;
    int clips_from_clip_file;
} fix_context;

/* One known Assimp defect and its repair: a row of assimp_fixes[]. */
typedef struct assimp_fix {
    unsigned major, minor; /* the series it is in; 0, 0: every series */
    const char *formats;   /* file name endings, space-separated, any letter case; NULL: every format */
    const char *defect;    /* what Assimp does wrong */
    fix_stage stage;       /* where detect and repair run */
    /* Is the defect there? NULL: wherever the series and format match. */
    int (*detect)(fix_context *c);
    /* Repairs it. Not SKV_OK: the import fails, and the stage's other
     * rows do not run; at FIX_BEFORE_READ the file could not be read
     * (`unread` says why), elsewhere memory ran out. */
    skv_result (*repair)(fix_context *c);
    /* Once the model exists (at once at the conversion's stages; at
     * FIX_MODEL for a row that repaired before), the model's warning:
     * `report` words it, else `warning` is it; both NULL: none, or the
     * repair words its own. */
    const char *warning;
    void (*report)(fix_context *c, skv_model *model);
    /* An Assimp error this row answers: a read that fails with it (a
     * substring) is read again in two steps, so that FIX_READ_SCENE runs. */
    const char *read_error;
    /* At FIX_READ_SCENE: the repair changes only fix_context.flags by
     * clearing these (it leaves the scene as read), and its detect gives
     * the same answer on the scene processed without them (read_scene's
     * one read of a big glTF, assimp_fixes_as_peek). */
    unsigned clears_flags;
} assimp_fix;

/* A skinned mesh past this many vertices, indexed already, is not joined
 * (assimp_fixes.c: big_indexed_skin). */
enum { JOIN_SKINNED_VERTEX_LIMIT = 50000 };

extern const assimp_fix assimp_fixes[];
extern const int assimp_fix_count;
/* Does the row match this Assimp and this file's format? */
int assimp_fix_applies(const assimp_fix *fix, const char *path);
/* Runs the stage's rows that apply to c->path, in table order; then, once
 * the model exists, adds the warnings of the rows that repaired. */
skv_result assimp_fixes_run(fix_stage stage, fix_context *c);
/* Does a row that applies to `path` answer Assimp's `error`? */
int assimp_fixes_answer(const char *path, const char *error);
/* Whether FIX_READ_SCENE, run on the scene as read unprocessed, would
 * have cleared exactly `cleared` from the flags and left the scene as it
 * was, judged on `c->scene` read with those flags cleared (the rows that
 * clear flags must fire, no other row may): then that scene is what the
 * two steps would have read, and their rows are marked fired as if they
 * had run. 0 where it cannot be told so. */
int assimp_fixes_as_peek(fix_context *c, unsigned cleared);
/* The same on another table (the unit tests'; at most 64 rows). */
skv_result assimp_fix_table_run(const assimp_fix *table, int count, fix_stage stage, fix_context *c);
int assimp_fix_table_answers(const assimp_fix *table, int count, const char *path, const char *error);
int ends_with_nocase(const char *s, const char *suffix);
/* A scene of Assimp's HL1 MDL reader. */
int hl1_scene(const struct aiScene *scene);

/* --- textures.c --- */
unsigned char *read_whole_file(const char *path, long *size);
const char *base_name(const char *path);
int resolve_texture(importer *im, const char *reference);
/* The texels of the scene's embedded images, by their headers: the part
 * of the block's size (scene_block_estimate) that images take. Files the
 * materials name are not counted (not read yet). */
uint64_t scene_texel_estimate(const struct aiScene *scene);
/* Decodes every texture the conversion collected (texture_sources) into
 * the model, within im->budget, on a pool of threads; one that fails or
 * does not fit is a warning and stays undecoded. Errors: memory only. */
skv_result textures_decode(importer *im);
/* After a guarded import: reads the images the child left to this
 * process (skv_texture.file), each judged again and checked to be an
 * image by its header, and has them decoded in a second sandboxed child
 * within `seconds_left` and the import's memory budget. What fails is a
 * warning; errors: memory only. */
skv_result outside_textures_decode(const char *path, const skv_import_desc *desc, double seconds_left,
                                   skv_model *model, skv_error *err);

/* --- import.c --- */
/* The post-processing every model is read with (read_scene's `flags`). */
unsigned import_read_flags(void);
/* Assimp's scene of fix->path (or of fix->bytes, of type fix->hint), with
 * the FIX_READ_SCENE repairs; fix->durations: the file's durations where
 * one was extended (the caller frees). NULL: Assimp's error. */
const struct aiScene *read_scene(fix_context *fix, unsigned flags);
/* read_scene's one read of a big glTF (a file it would read in two steps):
 * 1 with the scene in fix->scene (the caller's to take) where it stands
 * for the two steps; 0, nothing kept, where they must run. */
int read_big_gltf_at_once(fix_context *fix, unsigned flags);
/* Why read_whole_file gave nothing for `path`, in words. */
const char *unread_why(const char *path);
/* An .md5mesh's "<base>.md5anim" beside it into `out`: by its exact name,
 * or with `any_case` also by one that differs in letter case. */
int find_md5anim(const char *mesh_path, char *out, size_t size, int any_case);

/* --- guard.c --- */
/* The bytes one import may take (--import-memory, or the default for a
 * file of that size): the guarded child's address space past what it
 * maps already, its block, and the texels within it. */
uint64_t import_memory_budget(const char *path, const skv_import_desc *desc);
void memory_bound_begin(memory_bound *bound, const char *path, const skv_import_desc *desc);
void memory_bound_end(memory_bound *bound);
/* 1 if Assimp's message (`length` bytes) is its words for a
 * std::bad_alloc it caught, and nothing else. */
int is_bad_alloc_message(const char *message, size_t length);
/* "cannot import: " and that Assimp ran out of the memory budget. */
skv_result fail_ran_out(skv_error *err);
/* "cannot import: " and Assimp's message, cut and escaped to one line. */
skv_result fail_import(skv_error *err, const char *message);
/* Checks the guarded child makes on a scene before converting it: NULL
 * if it may, else why not (an empty incomplete scene, a decompression
 * bomb). `size`: the file's size, or -1 to stat `path`. */
const char *scene_refused(const struct aiScene *scene, const char *path, long size);

/* Where an import runs: with --trust in this process, or inside the
 * guarded child (which also applies scene_refused). */
typedef enum import_mode { IMPORT_TRUSTED, IMPORT_IN_CHILD } import_mode;

/* The guarded child's line to its parent while it works (guard.c). */
typedef struct guard_channel guard_channel;
/* Tells the parent about how many bytes the model block will take, so
 * that it sets that memory aside while the child is still converting and
 * the block's write finds it ready. Once; NULL `channel` (--trust):
 * nothing to tell. */
void guard_expect(guard_channel *channel, uint64_t bytes);
/* About the model block's size for `scene` with `slots` influence slots
 * per vertex: what guard_expect is told once the scene is read. */
uint64_t scene_block_estimate(const struct aiScene *scene, int slots);

/* The work a guarded child does: fills `model` (and `extra`, a number for
 * the caller) or returns an error with its line; `channel` for
 * guard_expect. */
typedef skv_result (*guarded_work)(void *arg, guard_channel *channel, skv_model *model, int64_t *extra,
                                   skv_error *err);

/* Runs `work` in a child process under limits and hands its model back
 * checked (blob_read) into `model`, with its `extra`. A crash, hang or
 * refused block is an error with one line; the child's own error comes
 * back with its code and line. `carried`: bytes of the block that are
 * not the file's (a clip job hands back the host's model with the new
 * clips), allowed on top of the file's budget. */
skv_result guarded_import(const char *path, const skv_import_desc *desc, guarded_work work, void *arg,
                          uint64_t carried, skv_model *model, int64_t *extra, skv_error *err);

/* A model of nothing but what blob_check asks of any (a root node named
 * "holder", a material, the influence lists' start, identity root
 * transforms) with `nodes` nodes in all, those after the root under it
 * and unnamed (NULL: the caller names them), and `textures` empty
 * textures: how a guarded child hands back what is not a model (the
 * texels of import_image, a bone map's names). model_free frees it.
 * SKV_ERR_MEMORY when memory runs out. */
skv_result guard_holder_create(skv_model *model, int nodes, int textures, skv_error *err);

#endif
