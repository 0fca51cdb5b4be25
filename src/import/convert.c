/* convert.c - aiScene -> skv_model: the order of the conversion's steps,
 * and what the steps share.
 *
 * convert_scene runs them in order: flatten the node tree parent-first
 * and fold FBX pivot helpers (skeleton.c); gather the triangle meshes into
 * one vertex/index set, building the shared bone map and packing
 * influences (meshes.c); morph targets (morphs.c); materials (materials.c,
 * their textures through textures.c); clips (clips.c: names resolved to
 * node indices there, once); last, the textures' decoding. Here too: the
 * matrix and name helpers the steps share, and the importer's cleanup.
 * The aiScene is only read. */
#include "private/import_internal.h"
#include "private/dae_curves.h"
#include "private/gltf_prep.h"
#include "private/import_scene.h"
#include "anim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_ds.h>

#include "draws.h"
#include "tangents.h"

void to_mat4(const struct aiMatrix4x4 *m, mat4 out)
{
    /* aiMatrix4x4 is row-major (a4, b4, c4 = translation); cglm is
     * column-major: column c holds row entries a..d of that column. */
    const float rows[4][4] = {
        {m->a1, m->a2, m->a3, m->a4},
        {m->b1, m->b2, m->b3, m->b4},
        {m->c1, m->c2, m->c3, m->c4},
        {m->d1, m->d2, m->d3, m->d4},
    };
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) out[c][r] = rows[r][c];
    /* A bottom row within rounding of 0 0 0 1 (Assimp's MD5 loader gives
     * some of Bob's offsets and node transforms 1.19e-7 off: inverses and
     * products computed in float) is made exact: the walk then takes the
     * affine products for the whole clip instead of the general ones. */
    const float near = 1e-6f;
    if (fabsf(out[0][3]) <= near && fabsf(out[1][3]) <= near && fabsf(out[2][3]) <= near &&
        fabsf(out[3][3] - 1.0f) <= near)
        out[0][3] = out[1][3] = out[2][3] = 0.0f, out[3][3] = 1.0f;
}

int mat4_finite(const mat4 m)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!isfinite(m[c][r])) return 0;
    return 1;
}

int mat4_usable(const mat4 m)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!(fabsf(m[c][r]) <= SKV_MAX_MAGNITUDE)) return 0; /* NaN fails too */
    return 1;
}

char *dup_name(const struct aiString *s, const char *fallback_fmt, int n)
{
    char buf[64];
    if (s && s->length > 0) return strndup(s->data, s->length);
    snprintf(buf, sizeof buf, fallback_fmt, n);
    return strdup(buf);
}

/* Takes the map's address: stb_ds's shgeti allocates an empty map when
 * given NULL, and that allocation must land in the importer's pointer. */
int name_lookup(name_index **map, const char *name)
{
    ptrdiff_t i = shgeti(*map, name);
    return i < 0 ? -1 : (*map)[i].value;
}

void importer_free(importer *im)
{
    gltf_curves_free(im->gltf_curves);
    free(im->gltf_curves);
    dae_curves_destroy(im->dae_curves);
    free(im->folder);
    free(im->nodes);
    free(im->node_bone);
    free(im->hidden_meshes);
    shfree(im->node_by_name);
    shfree(im->joint_by_name);
    shfree(im->node_by_bare);
    free(im->folded);
    shfree(im->bone_by_name);
    if (im->texture_keys) {
        for (int t = 0; t < im->model->texture_count; t++) free(im->texture_keys[t]);
        free(im->texture_keys);
    }
    if (im->texture_sources) { /* what textures_decode did not reach (an error before it) */
        for (int t = 0; t < im->model->texture_count; t++) {
            free(im->texture_sources[t].bytes);
            free(im->texture_sources[t].texels);
        }
        free(im->texture_sources);
    }
}

/* More distinct bone names over the scene's meshes than 16-bit palette
 * indices reach: each is at least one palette entry. Asked before any
 * work on the bones, and before Assimp's validation, which compares every
 * bone name of a mesh with every other (70,000 bones: tens of seconds). */
int too_many_bones(const struct aiScene *scene)
{
    size_t total = 0;
    for (unsigned m = 0; scene->mMeshes && m < scene->mNumMeshes; m++)
        if (scene->mMeshes[m] && scene->mMeshes[m]->mBones) total += scene->mMeshes[m]->mNumBones;
    if (total <= UINT16_MAX) return 0;
    name_index *names = NULL;
    sh_new_strdup(names);
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        for (unsigned b = 0; mesh && mesh->mBones && b < mesh->mNumBones; b++) {
            if (!mesh->mBones[b]) continue;
            char name[AI_MAXLEN + 1];
            snprintf(name, sizeof name, "%.*s", (int)mesh->mBones[b]->mName.length, mesh->mBones[b]->mName.data);
            if (shgeti(names, name) < 0) shput(names, name, 1);
        }
    }
    int over = shlen(names) > UINT16_MAX;
    shfree(names);
    return over;
}

/* import_scene, with the clips taken from `anim_scene`. */
skv_result convert_scene(const struct aiScene *scene, const struct aiScene *anim_scene,
                                const double *file_durations, const char *path,
                                const skv_import_desc *desc, const import_budget *budget, skv_model *model,
                                skv_error *err)
{
    memset(model, 0, sizeof *model);
    model->influence_slots = desc && desc->influences == 8 ? 8 : SKV_DEFAULT_INFLUENCES;
    model->influence_lists = desc && desc->influences == SKV_INFLUENCES_ALL;
    importer im = {.scene = scene, .anim_scene = anim_scene, .file_durations = file_durations,
                   .model = model, .err = err, .budget = budget, .path = path};
    model->path = strdup(path);
    im.folder = strdup(path);
    if (!model->path || !im.folder) {
        free(im.folder);
        model_free(model);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    char *slash = strrchr(im.folder, '/');
    if (slash) *slash = '\0';
    else strcpy(im.folder, ".");

    skv_result r = SKV_OK;
    if (!scene->mRootNode) r = skv_fail(err, SKV_ERR_CONTENT, "no scene hierarchy");
    else if (too_many_bones(scene)) r = skv_fail(err, SKV_ERR_CONTENT, "more than %d bones", UINT16_MAX);
    if (r == SKV_OK) r = flatten_nodes(&im);
    if (r == SKV_OK && assimp_fixes_run(FIX_NODES, &(fix_context){.path = path, .im = &im}) != SKV_OK)
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    if (r == SKV_OK) r = fold_fbx_pivots(&im);
    if (r == SKV_OK) r = has_triangle_meshes(scene) ? convert_meshes(&im) : convert_skeleton_only(&im);
    /* The default blends every influence where a vertex has more than the
     * slots hold: it is the file's pose (three.js's bones blended from
     * every influence agree, the 4 largest do not: tests/CMakeLists.txt,
     * reference_*_all), and the lists cost about what 4 slots do
     * (bench/NOTES.md v7v). A model within the slots keeps them: the same
     * blend, and nothing to read per vertex but its attributes. */
    if (r == SKV_OK && !(desc && desc->influences) && model_over_limit_vertices(model) > 0) {
        model->influence_lists = model->influence_lists_auto = 1;
        /* Past 100 bones the draws hold whole lists, and a triangle whose
         * lists name more bones than a draw holds cannot be drawn: the
         * default then keeps the 4 largest (as before it, rather than
         * refuse the model). Out of memory is an error, not that. */
        skv_error why;
        skv_result fit = draws_check_lists(model, SKV_MAX_BONES, &why);
        if (fit == SKV_ERR_ARGUMENT) {
            model->influence_lists = 0;
            model_warn(model, "every influence cannot be drawn (%s); the 4 largest of each vertex are blended",
                       why.message);
        } else if (fit != SKV_OK) {
            r = skv_fail(err, fit, "%s", why.message);
        }
    }
    if (r == SKV_OK && im.huge_offsets)
        model_warn(model, "%d bone bind matrix(es) hold values beyond 1e15 (they overflow when multiplied); "
                   "replaced by identity", im.huge_offsets);
    if (r == SKV_OK && has_triangle_meshes(scene)) r = convert_morph_targets(&im);
    if (r == SKV_OK) r = convert_materials(&im);
    if (r == SKV_OK && model_compute_tangents(model) != SKV_OK) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    if (r == SKV_OK) r = convert_clips(&im);
    if (r == SKV_OK) r = merge_single_channel_clips(&im);
    /* Last: the budget left for texels is what the rest did not take. */
    if (r == SKV_OK) r = textures_decode(&im);
    if (r == SKV_OK && im.joint_by_name)
        model_warn(model, "%d node name(s) belong to more than one node; bones and their channels bound to the "
                   "nodes that match their bind pose", (int)shlen(im.joint_by_name));
    if (r == SKV_OK) {
        for (int m = 0; m < model->mesh_count; m++)
            if (model->meshes[m].material < 0 || model->meshes[m].material >= model->material_count)
                model->meshes[m].material = 0;
    }
    importer_free(&im);
    if (r != SKV_OK) model_free(model);
    return r;
}

skv_result import_scene(const struct aiScene *scene, const char *path, const skv_import_desc *desc,
                        skv_model *model, skv_error *err)
{
    return convert_scene(scene, scene, NULL, path, desc, NULL, model, err);
}

