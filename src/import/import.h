/* import.h - Assimp scene -> skv_model.
 *
 * The only module that includes Assimp (src/import/). It imports the
 * file, converts everything Skinview needs into skv_model (model.h), and
 * releases the aiScene before returning. Unless trusted, all of that runs
 * once, in a sandboxed child process, and this process adopts the model
 * after checking it (src/import/guard.c, blob.c): it never runs Assimp on
 * an untrusted file.
 *
 * Order of calls: import_model (zero desc: guarded, 4 influence slots,
 * 60 s, the default memory budget), then import_add_clips for each file
 * of clips; model_free (model.h) releases the model. The model's
 * textures come decoded (in the guarded child, within the same budget);
 * one that could not be is a warning and has no texels. */
#ifndef SKV_IMPORT_H
#define SKV_IMPORT_H

#include "error.h"
#include "model.h"

/* skv_import_desc.influences: the default slots, and the linear-blend
 * shader blends every influence of every vertex from the model's lists
 * (--influences all). The default (0) does that too where some vertex has
 * more influences than 4 slots hold (model.h, influence_lists_auto); 4
 * keeps the 4 largest. */
enum { SKV_INFLUENCES_ALL = -1 };

/* Load options; zero-initialised means the defaults. */
typedef struct skv_import_desc {
    int influences; /* 0 (default: 4 slots, lists where a vertex has more), 4 or 8 slots, or SKV_INFLUENCES_ALL */
    /* Assimp's parsers can crash, hang or allocate without bound on broken
     * files. Unless `trusted`, the file is imported and converted in a
     * child process under a memory limit and `timeout_seconds` (0: 60),
     * which hands back the finished model; `trusted` imports it here. */
    int trusted;
    double timeout_seconds;
    /* Address space Assimp may take to read a file, in the guarded child
     * or (with `trusted`) in this process; also the most the child's model
     * block may take; 0: the default, 768 MiB or 16 times the file,
     * whichever is more. */
    int memory_limit_mb;
    /* Files whose clips are added to the model (import_add_clips), in
     * order, after its own. */
    const char *const *anim_files;
    int anim_file_count;
    /* The files' clips (and import_add_clips') are retargeted onto the
     * model's skeleton (retarget.h) instead of bound to its nodes by name;
     * `bone_map`, a JSON file {"targetNode": "sourceNode", ...}, comes
     * before the automatic matches (NULL: none). */
    int retarget;
    const char *bone_map;
    /* Work for this process while a guarded child reads (called in each
     * guarded import once the child has started; never with `trusted`):
     * what does not need the model runs beside the read instead of after
     * it. It must not fail the import, and may be called more than once.
     * NULL: none. */
    void (*while_reading)(void *user);
    void *while_reading_user;
} skv_import_desc;

/* Loads `path` into `model` (zeroed first). `desc` may be NULL. On failure
 * returns a code from error.h, fills `err` with one line, and leaves
 * `model` empty. */
skv_result import_model(const char *path, const skv_import_desc *desc, skv_model *model, skv_error *err);

/* Adds the clips of another file (animations kept apart from the mesh:
 * walk.fbx, run.fbx beside character.fbx; several .md5anim for one
 * .md5mesh) to `model`. Each channel is bound to the model's node of the
 * same name, else of the same name without a namespace prefix
 * ("mixamorig:Hips", "Armature|Hips" -> "Hips"), on either side. A clip
 * none of whose channels binds is left out with a warning; a file none of
 * whose clips binds is an error (SKV_ERR_ANIM). With `only_without_mesh`,
 * a file that has triangle meshes is left alone (*added = -1): a file
 * dropped on the window is either a model or clips. Sets *added to the
 * number of clips added. The model's clips move and its rest pose may
 * change (folded FBX pivots), whatever the result: walks made from it
 * need walks_forget (walks.h) before they pose again. */
skv_result import_add_clips(skv_model *model, const char *path, const skv_import_desc *desc, int only_without_mesh,
                            int *added, skv_error *err);

/* With `retarget` (skv_import_desc): `path`'s clips retargeted onto the
 * model's skeleton. The file is imported as a model of its own; each model
 * node follows the file's node the bone map names for it, else the one
 * of its name (exactly, ignoring case, without namespace prefixes), else
 * the one in its place in a common humanoid naming scheme (retarget.h).
 * Errors: the bone map missing (SKV_ERR_FILE), not JSON or naming a node
 * either side lacks (SKV_ERR_ARGUMENT); no node matched (SKV_ERR_ANIM).
 * import_add_clips takes this path where `retarget` is set; the viewer
 * takes it for a dropped file of clips that bind to no node by name. */
skv_result import_retarget_clips(skv_model *model, const char *path, const skv_import_desc *desc,
                                 int only_without_mesh, int *added, skv_error *err);

/* The bone map at `path` read and its target names checked against the
 * model, so that a bad map fails without an animation file too. */
skv_result import_bone_map_check(const skv_model *model, const char *path, skv_error *err);

/* An image file (PNG, JPEG, ... as textures are read: images.h) decoded
 * to RGBA8 in a sandboxed child that reads no file, within `desc`'s time
 * and memory (NULL: the defaults); *rgba malloc'd, the caller frees it.
 * SKV_ERR_FILE with one line naming the file when it cannot be read or
 * decoded. The --ref images: every decoder that sees a file's bytes runs
 * sandboxed. */
skv_result import_image(const char *path, const skv_import_desc *desc, int *width, int *height, unsigned char **rgba,
                        skv_error *err);

/* Version of the Assimp library in use, e.g. "5.2.5". */
const char *import_assimp_version(void);

#endif
