/* assimp_fixes.c - repairs of known Assimp defects, one table row each.
 *
 * A row of assimp_fixes[] (at the end of this file) is the whole fix: the
 * Assimp series the defect is in, the file formats, what goes wrong, the
 * stage of the import it is repaired at (fix_stage), the functions that
 * detect and repair it there, and the model's warning. The importer calls
 * assimp_fixes_run at each stage's one point, and that runs the stage's
 * rows on a fix_context holding what the stage has: the file's bytes
 * before Assimp reads them, the scene before Assimp processes it, the
 * bone offsets of a mesh, a converted clip, the finished model. So a new
 * fix is a row here, its functions beside it, and its test; nothing else
 * names it. README ("Which Assimp") lists the defects for users. */
#define _GNU_SOURCE /* memmem */
#include "private/import_internal.h"
#include "private/fbx_scan.h"
#include "keys.h"
#include "private/gltf_prep.h"
#include "private/dae_curves.h"
#include "anim.h"

#include <assimp/postprocess.h>
#include <assimp/version.h>
#include <stb_ds.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ends_with_nocase(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* A scene of Assimp's HL1 MDL reader: its root is "<MDL_root>" (the
 * other .mdl formats' readers name theirs otherwise). */
int hl1_scene(const struct aiScene *scene)
{
    return scene && scene->mRootNode && strcmp(scene->mRootNode->mName.data, "<MDL_root>") == 0;
}

/* The latest key time of a clip, over every kind of channel. */
static double last_key_time(const struct aiAnimation *anim)
{
    double last = 0.0;
    for (unsigned c = 0; c < anim->mNumChannels; c++) {
        const struct aiNodeAnim *na = anim->mChannels[c];
        if (!na) continue;
        if (na->mPositionKeys)
            for (unsigned k = 0; k < na->mNumPositionKeys; k++) last = fmax(last, na->mPositionKeys[k].mTime);
        if (na->mRotationKeys)
            for (unsigned k = 0; k < na->mNumRotationKeys; k++) last = fmax(last, na->mRotationKeys[k].mTime);
        if (na->mScalingKeys)
            for (unsigned k = 0; k < na->mNumScalingKeys; k++) last = fmax(last, na->mScalingKeys[k].mTime);
    }
    for (unsigned c = 0; c < anim->mNumMeshChannels; c++) {
        const struct aiMeshAnim *ma = anim->mMeshChannels[c];
        if (ma && ma->mKeys)
            for (unsigned k = 0; k < ma->mNumKeys; k++) last = fmax(last, ma->mKeys[k].mTime);
    }
    for (unsigned c = 0; c < anim->mNumMorphMeshChannels; c++) {
        const struct aiMeshMorphAnim *ma = anim->mMorphMeshChannels[c];
        if (ma && ma->mKeys)
            for (unsigned k = 0; k < ma->mNumKeys; k++) last = fmax(last, ma->mKeys[k].mTime);
    }
    return last;
}

/* --- FBX: bone offsets ------------------------------------------------------ */

/* Assimp 5.2.4-5.2.5's FBX importer sets each bone's offset to the
 * cluster's Transform (assimp PR #4490). Blender writes the whole offset
 * there, and those files come out right; Autodesk exporters (Mixamo) write
 * the mesh's global bind matrix, the same for every bone of the mesh, and
 * the character twists (assimp #4487, #4620, #5131). That signature -- two
 * or more bones, one offset -- cannot come from a sound rig, so such
 * offsets are rebuilt as inverse(bone's rest global) * that matrix, taking
 * the node tree's rest pose as the bind pose (as such exports have it). */
static int offsets_all_equal(fix_context *c)
{
    if (c->mesh->mNumBones < 2) return 0;
    const vec4 *first = c->offsets[0];
    for (unsigned b = 1; b < c->mesh->mNumBones; b++) {
        const vec4 *other = c->offsets[b];
        for (int i = 0; i < 4; i++)
            for (int r = 0; r < 4; r++)
                if (fabsf(first[i][r] - other[i][r]) > 1e-6f * (1.0f + fabsf(first[i][r]))) return 0;
    }
    return 1;
}

/* inverse(rest global of node) * m, the offset a bone of that node should
 * have had. */
static void offset_from_rest(const importer *im, int node, const mat4 m, mat4 out)
{
    const skv_skeleton *sk = &im->model->skeleton;
    mat4 global = GLM_MAT4_IDENTITY_INIT;
    for (int n = node; n >= 0; n = sk->parents[n]) glm_mat4_mul(sk->rest_local[n], global, global);
    anim_inverse(global, global);
    mat4 result;
    glm_mat4_mul(global, (vec4 *)m, result);
    glm_mat4_copy(result, out);
}

/* Each bone's offset rebuilt on the rest pose of the node of its name
 * (the first of that name); a bone without one keeps its offset. */
static skv_result offsets_from_rest(fix_context *c)
{
    model_warn(c->im->model, "mesh '%s': every bone has the same offset (Assimp 5.2's FBX defect, assimp #4620); "
               "offsets rebuilt from the rest pose", c->mesh_name);
    for (unsigned b = 0; b < c->mesh->mNumBones; b++) {
        const struct aiBone *bone = c->mesh->mBones[b];
        char name[AI_MAXLEN + 1];
        snprintf(name, sizeof name, "%.*s", (int)bone->mName.length, bone->mName.data);
        int node = name_lookup(&c->im->node_by_name, name);
        if (node >= 0) offset_from_rest(c->im, node, c->offsets[b], c->offsets[b]);
    }
    return SKV_OK;
}

/* Assimp 5.4.x's FBX importer builds a bone's offset as
 *   inverse(bone's bind transform) * (local transform of the mesh node's parent)
 * where it should use the mesh node's *global* bind transform (assimp PR
 * #5349 restored the offset without the fix of commit 8a1dc87; issue #5642,
 * fixed after 5.4.3). A skinned mesh whose node is not at the origin then
 * comes out with that node's transform missing (huesitos.fbx: 100x too
 * small, and torn apart once animated). The mesh's `correction` turns the
 * 5.4 offset into the right one:  inverse(parent local) * global(mesh node).
 * The "parent" is the parent of the mesh node's chain of $AssimpFbx$ pivot
 * helpers, which Assimp creates in front of the node itself. */
static skv_result fbx_mesh_correction(fix_context *c)
{
    const skv_skeleton *sk = &c->im->model->skeleton;
    int mesh_node = c->mesh_node;
    mat4 global = GLM_MAT4_IDENTITY_INIT;
    for (int n = mesh_node; n >= 0; n = sk->parents[n]) glm_mat4_mul(sk->rest_local[n], global, global);

    const char *name = sk->node_names[mesh_node];
    size_t len = strlen(name);
    int chain_top = mesh_node;
    for (int p = sk->parents[mesh_node]; p >= 0; p = sk->parents[p]) {
        const char *pn = sk->node_names[p];
        if (strncmp(pn, name, len) != 0 || strncmp(pn + len, "_$AssimpFbx$", 12) != 0) break;
        chain_top = p;
    }
    int parent = sk->parents[chain_top];
    mat4 parent_inverse = GLM_MAT4_IDENTITY_INIT;
    if (parent >= 0) anim_inverse(sk->rest_local[parent], parent_inverse);
    glm_mat4_mul(parent_inverse, global, c->correction);
    return SKV_OK;
}

/* --- MD5 ------------------------------------------------------------------- */

/* Assimp's MD5 reader would read an .md5mesh's "<base>.md5anim" itself;
 * the importer does (import.c, md5anim_beside), looking for the exact
 * name first, as Assimp would. Where none has it, one whose name differs
 * only in letter case is taken, and the warning names it. */
static int no_exact_md5anim(fix_context *c)
{
    return c->clip_file[0] == '\0';
}

static skv_result md5anim_any_case(fix_context *c)
{
    if (!find_md5anim(c->path, c->clip_file, c->clip_file_size, 1)) c->clip_file[0] = '\0';
    return SKV_OK;
}

static void md5anim_report(fix_context *c, skv_model *model)
{
    if (c->clips_from_clip_file)
        model_warn(model, "clip read from %s (Assimp looks for the exact name only)", c->clip_file);
}

/* Assimp's MD5 reader opens the file a second time by its base name and a
 * lower-case extension: BOB.MD5MESH becomes BOB.md5mesh, Walk.Md5Anim
 * Walk.md5anim, which is another file or none where the name's case
 * differs. Handed over from memory, with the type as a hint, the second
 * opening reads the same bytes. A file that cannot be read into memory is
 * not read by its path instead: the import fails, saying why. */
static int not_in_memory(fix_context *c)
{
    /* (An .md5anim opened as the model itself is read by its name, as it
     * always was.) */
    return c->bytes == NULL && (c->clips_only || !ends_with_nocase(c->path, ".md5anim"));
}

static skv_result md5_from_memory(fix_context *c)
{
    c->bytes = read_whole_file(c->path, &c->size);
    if (!c->bytes) {
        c->unread = unread_why(c->path);
        return SKV_ERR_IMPORT;
    }
    c->hint = ends_with_nocase(c->path, ".md5anim") ? "md5anim" : "md5mesh";
    return SKV_OK;
}

/* MD5 stores no scale, yet Assimp's MD5 reader gives scale keys such as
 * 1.0000006, 1.00000131, 1.0000006 (its own decomposition's rounding; and
 * other values again when it reads the .md5anim with the mesh than alone).
 * Slightly uneven, they make a constant node no similarity, and the walk
 * then keeps Bob.md5mesh's four channels under it out of their parent's
 * fold and off vector_palette (66.3 -> 78.0 Ir a bone, bench/NOTES.md
 * v7r). The clips of .md5mesh and .md5anim files are given exact 1s. */
static skv_result md5_unit_scales(fix_context *c)
{
    for (int k = 0; k < c->clip->channel_count; k++) {
        skv_channel *ch = &c->clip->channels[k];
        for (int s = 0; s < ch->scale_count; s++)
            for (int i = 0; i < 3; i++) ch->scales[s].value[i] = 1.0f;
    }
    return SKV_OK;
}

/* --- Collada --------------------------------------------------------------- */

/* Assimp's Collada reader (5.2 and 5.4) keeps a sampler's keys and plays
 * every curve as LINEAR between them: STEP curves slide, BEZIER and
 * HERMITE ones lose their tangents (Seymour 3.3% of its size off the
 * spec's curves mid-segment). The curves are read from the file itself
 * (dae_curves.h, libxml2, in the sandboxed child like the rest), once for
 * the import, and each converted channel of a node that a non-linear
 * curve moves is replaced by keys baked from the node's whole transform
 * stack (its T, R and S at every key time and, on segments that bend or
 * jump, between them until T lerped, R slerped and S lerped stay within
 * 1e-4 of the curves; a jump is two keys at one time). Baked rather than
 * carried as cubic keys: a 2-D Bezier is cubic in its parameter, not in
 * time, and a node's rotation comes from angle curves composed into a
 * matrix, neither of which the Hermite mode of keys.h can say. Past
 * DAE_BAKE_KEYS keys for the import, and for a file the parse refuses,
 * a channel keeps Assimp's linear keys, and its clip and the model say
 * so. */
enum { DAE_BAKE_KEYS = 1 << 20 };

static dae_curves *collada_curves(fix_context *c)
{
    importer *im = c->im;
    if (!im) return NULL;
    if (im->dae_curves_state == 0) {
        im->dae_curves_state = -1;
        long size = 0;
        unsigned char *bytes = read_whole_file(c->path, &size);
        skv_error why = {0};
        /* Only a file that names a curve is parsed; a stray match costs
         * just the read. */
        if (bytes && dae_curves_wanted(bytes, (size_t)size)) {
            if (dae_curves_read(bytes, (size_t)size, &im->dae_curves, &why) == SKV_OK) im->dae_curves_state = 1;
            else snprintf(im->dae_unread, sizeof im->dae_unread, "%.180s", why.message);
        }
        free(bytes);
    }
    return im->dae_curves_state == 1 ? im->dae_curves : NULL;
}

/* The dae node of a channel's node, or -1. */
static int collada_node(fix_context *c, const dae_curves *d, const skv_channel *ch)
{
    return dae_curves_node(d, c->im->model->skeleton.node_names[ch->node]);
}

static int collada_curved(fix_context *c)
{
    dae_curves *d = collada_curves(c);
    if (!d) return c->im && c->im->dae_unread[0]; /* named curves it could not read: said so */
    int clip = dae_curves_clip(d, c->clip->name);
    for (int k = 0; k < c->clip->channel_count; k++)
        if (dae_curves_node_curved(d, collada_node(c, d, &c->clip->channels[k]), clip)) return 1;
    return 0;
}

static void collada_linear(fix_context *c, const char *why)
{
    c->clip->notes |= SKV_CLIP_LINEAR_NOT_CURVE;
    if (!c->im->dae_told) {
        c->im->dae_told = 1;
        model_warn(c->im->model, "the file's Bezier/Hermite/step curves %s; between keys the motion is linear", why);
    }
}

static skv_result collada_bake_curves(fix_context *c)
{
    importer *im = c->im;
    dae_curves *d = collada_curves(c);
    if (!d) {
        char why[260];
        snprintf(why, sizeof why, "were not read (%s)", im->dae_unread);
        collada_linear(c, why);
        return SKV_OK;
    }
    skv_clip *clip = c->clip;
    int dae_clip = dae_curves_clip(d, clip->name);
    double tps = clip->ticks_per_second;
    for (int k = 0; k < clip->channel_count; k++) {
        skv_channel *ch = &clip->channels[k];
        int node = collada_node(c, d, ch);
        if (!dae_curves_node_curved(d, node, dae_clip)) continue;
        dae_baked baked;
        skv_error why;
        long room = DAE_BAKE_KEYS - im->dae_baked_keys;
        skv_result r = dae_curves_bake(d, node, dae_clip, room > 0 ? (int)room : 0, &baked, &why);
        if (r == SKV_ERR_MEMORY) return r;
        if (r != SKV_OK) {
            char line[300];
            snprintf(line, sizeof line, "were not all sampled (%.240s)", why.message);
            collada_linear(c, line);
            continue;
        }
        int n = baked.count;
        skv_vec3_key *positions = malloc((size_t)n * sizeof *positions), *scales = malloc((size_t)n * sizeof *scales);
        skv_quat_key *rotations = malloc((size_t)n * sizeof *rotations);
        if (!positions || !scales || !rotations) {
            free(positions), free(scales), free(rotations);
            dae_baked_free(&baked);
            return SKV_ERR_MEMORY;
        }
        for (int i = 0; i < n; i++) {
            double t = baked.times[i] * tps;
            positions[i] = (skv_vec3_key){t, {baked.t[i][0], baked.t[i][1], baked.t[i][2]}, 0.0f};
            scales[i] = (skv_vec3_key){t, {baked.s[i][0], baked.s[i][1], baked.s[i][2]}, 0.0f};
            rotations[i] = (skv_quat_key){t, {baked.q[i][0], baked.q[i][1], baked.q[i][2], baked.q[i][3]}};
        }
        dae_baked_free(&baked);
        free(ch->positions), free(ch->rotations), free(ch->scales);
        free(ch->position_tangents), free(ch->rotation_tangents), free(ch->scale_tangents);
        *ch = (skv_channel){.node = ch->node, .position_count = n, .rotation_count = n, .scale_count = n,
                            .positions = positions, .rotations = rotations, .scales = scales};
        im->dae_baked_keys += n;
        clip->notes |= SKV_CLIP_CURVES_SAMPLED;
    }
    return SKV_OK;
}

/* Assimp's FBX reader gives every blend shape weight 1, dropping each
 * channel's DeformPercent, the weight its shape rests at: a shape at 0%
 * showed in full, where three.js and Blender show the rest shape. The
 * percents are read from the file (fbx_scan.h) and matched to the targets
 * by name: a channel's (5.2), or "channel.shape" (5.4). */
static int has_morph_targets(fix_context *c)
{
    return c->model->morph_target_count > 0;
}

static skv_result deform_percents(fix_context *c)
{
    skv_model *model = c->model;
    long size = 0;
    unsigned char *bytes = read_whole_file(c->path, &size);
    if (!bytes) return SKV_OK; /* Assimp read it: only memory could stop this, and then 1 stays */
    enum { MAX_CHANNELS = 4096 };
    fbx_percent *percents = malloc(MAX_CHANNELS * sizeof *percents);
    int count = percents ? fbx_deform_percents(bytes, (size_t)size, percents, MAX_CHANNELS) : 0;
    free(bytes);
    if (count > MAX_CHANNELS) count = MAX_CHANNELS;
    for (int t = 0; t < model->morph_target_count; t++) {
        const char *name = model->morph_target_names[t];
        int match = -1;
        for (int i = 0; name && i < count && match < 0; i++)
            if (strcmp(percents[i].name, name) == 0) match = i;
        for (int i = 0; name && i < count && match < 0; i++) {
            size_t n = strlen(percents[i].name);
            if (n && strncmp(percents[i].name, name, n) == 0 && name[n] == '.') match = i;
        }
        if (match >= 0 && isfinite(percents[match].percent))
            model->morph_default_weights[t] = (float)(percents[match].percent / 100.0);
    }
    free(percents);
    return SKV_OK;
}

/* Both Assimp builds drop a glTF sampler's interpolation: STEP and
 * CUBICSPLINE were played as LINEAR (a public interpolation sample's cube
 * 1.5 units off mid-segment; a spline's tangents lost). The samplers are
 * read from the file itself (gltf_prep.h), once for the import, and each
 * such track replaces the key array Assimp made for its node and path,
 * with its mode and its tangents (per tick). Assimp keeps the file's
 * order of animations; a named one must match by name too. */
static const gltf_clip *gltf_clip_of(fix_context *c)
{
    importer *im = c->im;
    if (!im) return NULL;
    if (im->gltf_curves_state == 0) {
        im->gltf_curves_state = -1;
        /* Only a file whose JSON names a curve is read whole and parsed;
         * the others cost a read of their JSON. */
        size_t json_size = 0;
        unsigned char *json = gltf_read_json(c->path, &json_size);
        int named = json && (gltf_json_names(json, json_size, "STEP") || gltf_json_names(json, json_size, "CUBICSPLINE"));
        free(json);
        long size = 0;
        unsigned char *bytes = named ? read_whole_file(c->path, &size) : NULL;
        gltf_curves *curves = bytes ? calloc(1, sizeof *curves) : NULL;
        skv_error ignored; /* a file Assimp read: what this cannot read stays as Assimp made it */
        if (curves && gltf_curves_read(c->path, bytes, (size_t)size, curves, &ignored) == SKV_OK) {
            im->gltf_curves = curves;
            im->gltf_curves_state = 1;
        } else {
            free(curves);
        }
        free(bytes);
    }
    if (im->gltf_curves_state != 1 || c->anim_index < 0 || c->anim_index >= im->gltf_curves->clip_count) return NULL;
    const gltf_clip *g = &im->gltf_curves->clips[c->anim_index];
    if (g->name[0] && c->clip->name && strcmp(g->name, c->clip->name) != 0) return NULL;
    return g;
}

static int gltf_curved(fix_context *c)
{
    const gltf_clip *g = gltf_clip_of(c);
    for (int t = 0; g && t < g->track_count; t++)
        if (g->tracks[t].mode != GLTF_LINEAR) return 1;
    return 0;
}

/* A track's times as ticks, its tangents per tick. */
static int gltf_track_times(const gltf_track *tr, double tps, double **times)
{
    *times = malloc((size_t)tr->count * sizeof **times);
    if (!*times) return -1;
    for (int k = 0; k < tr->count; k++) (*times)[k] = tr->times[k] * tps;
    return 0;
}

static float *gltf_track_tangents(const gltf_track *tr, double tps)
{
    if (tr->mode != GLTF_CUBIC) return NULL;
    size_t n = (size_t)tr->count * 2 * (size_t)tr->width;
    float *out = malloc(n * sizeof *out);
    for (size_t i = 0; out && i < n; i++) out[i] = (float)(tr->tangents[i] / tps);
    return out;
}

static int gltf_mode(const gltf_track *tr)
{
    return tr->mode == GLTF_STEP ? SKV_KEY_STEP : tr->mode == GLTF_CUBIC ? SKV_KEY_CUBIC : SKV_KEY_LINEAR;
}

static skv_result gltf_join_curves(fix_context *c)
{
    const gltf_clip *g = gltf_clip_of(c);
    skv_clip *clip = c->clip;
    const skv_model *owner = c->im->existing ? c->im->existing : c->im->model;
    const skv_skeleton *sk = &c->im->model->skeleton;
    double tps = clip->ticks_per_second;
    for (int t = 0; g && t < g->track_count; t++) {
        const gltf_track *tr = &g->tracks[t];
        if (tr->mode == GLTF_LINEAR || !tr->node[0]) continue;
        if (tr->path < 3) {
            skv_channel *ch = NULL;
            for (int k = 0; k < clip->channel_count && !ch; k++)
                if (strcmp(sk->node_names[clip->channels[k].node], tr->node) == 0) ch = &clip->channels[k];
            if (!ch) continue;
            double *times;
            if (gltf_track_times(tr, tps, &times) != 0) return SKV_ERR_MEMORY;
            float *tangents = gltf_track_tangents(tr, tps);
            void *keys = tr->path == 1 ? malloc((size_t)tr->count * sizeof(skv_quat_key))
                                       : calloc((size_t)tr->count, sizeof(skv_vec3_key));
            if (!keys || (tr->mode == GLTF_CUBIC && !tangents)) {
                free(times), free(tangents), free(keys);
                return SKV_ERR_MEMORY;
            }
            for (int k = 0; k < tr->count; k++) {
                if (tr->path == 1) {
                    skv_quat_key *q = (skv_quat_key *)keys + k;
                    q->time = times[k];
                    memcpy(q->value, tr->values + (size_t)k * 4, 4 * sizeof(float));
                } else {
                    skv_vec3_key *v = (skv_vec3_key *)keys + k;
                    v->time = times[k];
                    memcpy(v->value, tr->values + (size_t)k * 3, 3 * sizeof(float));
                }
            }
            free(times);
            if (tr->path == 0) {
                free(ch->positions), free(ch->position_tangents);
                ch->positions = keys, ch->position_count = tr->count, ch->position_tangents = tangents;
                ch->position_mode = gltf_mode(tr);
            } else if (tr->path == 1) {
                free(ch->rotations), free(ch->rotation_tangents);
                ch->rotations = keys, ch->rotation_count = tr->count, ch->rotation_tangents = tangents;
                ch->rotation_mode = gltf_mode(tr);
            } else {
                free(ch->scales), free(ch->scale_tangents);
                ch->scales = keys, ch->scale_count = tr->count, ch->scale_tangents = tangents;
                ch->scale_mode = gltf_mode(tr);
            }
            continue;
        }
        /* Weights: every morph channel of a mesh under that node (a glTF
         * mesh of several primitives is several meshes). */
        for (int k = 0; k < clip->morph_channel_count; k++) {
            skv_morph_channel *mc = &clip->morph_channels[k];
            const skv_mesh *mesh = &owner->meshes[mc->mesh];
            if (mesh->node < 0 || strcmp(sk->node_names[mesh->node], tr->node) != 0 ||
                mesh->morph_target_count != tr->width)
                continue;
            double *times;
            if (gltf_track_times(tr, tps, &times) != 0) return SKV_ERR_MEMORY;
            float *tangents = gltf_track_tangents(tr, tps);
            float *weights = malloc((size_t)tr->count * (size_t)tr->width * sizeof *weights);
            if (!weights || (tr->mode == GLTF_CUBIC && !tangents)) {
                free(times), free(tangents), free(weights);
                return SKV_ERR_MEMORY;
            }
            memcpy(weights, tr->values, (size_t)tr->count * (size_t)tr->width * sizeof *weights);
            free(mc->times), free(mc->weights), free(mc->tangents);
            mc->times = times, mc->weights = weights, mc->tangents = tangents;
            mc->key_count = tr->count, mc->mode = gltf_mode(tr);
        }
    }
    return SKV_OK;
}

/* Assimp 5.4's Collada parser reads each <vcount> number with no whitespace
 * skipped before the first one: a list that starts with a space (as
 * library_animation_clips.dae's does) reads as 0 weights for vertex 0 and
 * then gives every vertex the count of the one before it, so all weights
 * land on the wrong vertices, silently. Whitespace in an XML list means
 * nothing; such a model is read from a copy with it removed. (An
 * animation file is read as it is: its weights are not used.) */
static const char vcount_tag[] = "<vcount>";

static int is_space(unsigned char b)
{
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
}

/* Reads the file; keeps its bytes (c->bytes) where a list starts with whitespace. */
static int vcount_space(fix_context *c)
{
    if (c->clips_only || c->bytes) return 0;
    long size = 0;
    unsigned char *bytes = read_whole_file(c->path, &size);
    if (!bytes) return 0;
    const long tag_len = (long)sizeof vcount_tag - 1;
    int found = 0;
    for (long r = 0; r + tag_len < size && !found; r++)
        found = bytes[r] == '<' && memcmp(bytes + r, vcount_tag, (size_t)tag_len) == 0 && is_space(bytes[r + tag_len]);
    if (!found) {
        free(bytes);
        return 0;
    }
    c->bytes = bytes, c->size = size;
    return 1;
}

static skv_result vcount_trim(fix_context *c)
{
    unsigned char *bytes = c->bytes;
    long size = c->size;
    const size_t tag_len = sizeof vcount_tag - 1;
    long w = 0;
    for (long r = 0; r < size;) {
        if (bytes[r] == '<' && size - r >= (long)tag_len && memcmp(bytes + r, vcount_tag, tag_len) == 0) {
            memmove(bytes + w, bytes + r, tag_len);
            w += (long)tag_len, r += (long)tag_len;
            while (r < size && is_space(bytes[r])) r++;
            continue;
        }
        bytes[w++] = bytes[r++];
    }
    c->size = w;
    c->hint = "dae";
    return SKV_OK;
}

/* --- Half-Life 1 MDL ------------------------------------------------------- */

/* Assimp 5.2's HL1 MDL reader lists every bone as a child of <MDL_bones>
 * (assimp #5002, fixed by PR #5007 in 5.3), though each bone's transform
 * is relative to its real parent, which its mParent names: man.mdl's legs,
 * arms and neck came out of their pelvis and spine, 0.3 of the diagonal
 * from Irrlicht's pose. In a scene of Assimp's HL1 reader, a node whose
 * mParent is an earlier node (nodes are parent first: Half-Life orders
 * bones so) that is not already one of its ancestors is moved under it. */
static int hl1_nodes(fix_context *c)
{
    return hl1_scene(c->im->scene);
}

static skv_result hl1_bone_parents(fix_context *c)
{
    const struct aiNode *const *nodes = c->im->nodes;
    int *parents = c->im->model->skeleton.parents, count = c->im->model->skeleton.node_count;
    struct { const struct aiNode *key; int value; } *index = NULL;
    for (int i = 0; i < count; i++) hmput(index, nodes[i], i);
    for (int i = 1; i < count; i++) {
        ptrdiff_t at = hmgeti(index, nodes[i]->mParent);
        int want = at < 0 ? -1 : index[at].value;
        if (want < 0 || want >= i || want == parents[i]) continue;
        int ancestor = parents[i];
        while (ancestor >= 0 && ancestor != want) ancestor = parents[ancestor];
        if (ancestor == want) continue; /* a level skipped (the root bone's mParent is the scene root) */
        parents[i] = want;
    }
    hmfree(index);
    return SKV_OK;
}

/* Assimp's HL1 MDL reader (5.2 and 5.4 alike) keys a sequence's frames at
 * ticks 0 .. numframes - 1, ticks per second the sequence's fps, and gives
 * the clip a duration of fps x numframes ticks: a second for every frame.
 * man.mdl's walk, 26 frames at 30 fps, lasts 26 s, of which 0.83 s move
 * (chrome_sphere's idle: 221 s, 8.8 s moving). A Half-Life sequence loops
 * over numframes - 1 frames at fps (its last frame is its first again),
 * as Irrlicht's reader also plays it, so that is the clip's duration: its
 * last key. Only a clip of that exact signature, in a scene of Assimp's
 * HL1 reader, is changed; 0 stays 0 (the conversion's rule for a clip
 * without a duration then holds its one frame). */
static int hl1_second_a_frame(fix_context *c)
{
    return hl1_scene(c->im->anim_scene) && c->duration > 0.0 &&
           c->duration == c->anim->mTicksPerSecond * (last_key_time(c->anim) + 1.0);
}

static skv_result hl1_duration(fix_context *c)
{
    c->duration = last_key_time(c->anim);
    return SKV_OK;
}

/* --- every format ---------------------------------------------------------- */

/* Assimp's validation rejects a clip whose keys run past its duration
 * (B3D files such as Minetest's character.b3d: their ANIM chunk counts
 * frames from 0, their keys from 1), although every engine plays them and
 * the conversion handles exactly that (it plays such a clip to its last
 * key, and warns). So such durations are extended to the last key before
 * validation, and the file's own are kept for the conversion's warning. */
static int keys_past_duration(fix_context *c)
{
    const struct aiScene *scene = c->scene;
    for (unsigned a = 0; a < scene->mNumAnimations; a++) {
        const struct aiAnimation *anim = scene->mAnimations[a];
        if (anim && anim->mDuration > 0.0 && last_key_time(anim) > anim->mDuration) return 1;
    }
    return 0;
}

static skv_result extend_durations(fix_context *c)
{
    const struct aiScene *scene = c->scene;
    double *file_durations = NULL;
    for (unsigned a = 0; a < scene->mNumAnimations; a++) {
        struct aiAnimation *anim = scene->mAnimations[a]; /* the scene is the importer's until released */
        if (!anim || !(anim->mDuration > 0.0)) continue;   /* the conversion fills those in */
        double last = last_key_time(anim);
        if (!(last > anim->mDuration)) continue;
        if (!file_durations) {
            file_durations = malloc(scene->mNumAnimations * sizeof *file_durations);
            if (!file_durations) break; /* unrepaired: validation then says why */
            for (unsigned i = 0; i < scene->mNumAnimations; i++)
                file_durations[i] = scene->mAnimations[i] ? scene->mAnimations[i]->mDuration : 0.0;
        }
        anim->mDuration = last;
    }
    c->durations = file_durations;
    c->scene_edited = file_durations != NULL;
    return SKV_OK;
}

/* Assimp 5.2's JoinIdenticalVertices compares the bone weights of each
 * vertex it may join by scanning the mesh's bones: quadratic in a skinned
 * mesh's vertices (100,000: 3 s; 200,000: 13 s; 1,000,000: ~10 min),
 * linear without bones (issue #21). It only pays off on geometry the
 * importer unrolled per face corner; a mesh whose faces already share its
 * vertices (glTF keeps the file's indices) has nothing to gain. So a scene
 * with a big skinned mesh that is already indexed skips the join; every
 * other scene is joined as before. */

static int big_indexed_skin(fix_context *c)
{
    const struct aiScene *scene = c->scene;
    for (unsigned m = 0; scene->mMeshes && m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!mesh || !mesh->mNumBones || mesh->mNumVertices <= JOIN_SKINNED_VERTEX_LIMIT || !mesh->mFaces) continue;
        size_t corners = 0;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) corners += mesh->mFaces[f].mNumIndices;
        /* Unrolled geometry has one vertex per corner; a closed indexed
         * triangle mesh about one per six. */
        if (corners >= 2 * (size_t)mesh->mNumVertices) return 1;
    }
    return 0;
}

static skv_result skip_join(fix_context *c)
{
    c->flags &= ~(unsigned)aiProcess_JoinIdenticalVertices;
    return SKV_OK;
}

/* Assimp keeps a glTF texture's KHR_texture_transform only as a material
 * property and draws the UVs as they are: an atlas-packed texture shows
 * the whole atlas. The transforms are read from the file (gltf_prep.h)
 * and each becomes its slot's UV map, as three.js r187 and the
 * extension's sample model have it (the listing in the extension's text
 * rotates the other way; implementations follow the sample): T * R * S
 * with R = [c s; -s c]. The model's UVs are glTF's (Assimp flips V and
 * aiProcess_FlipUVs flips it back), and Assimp keeps the file's order of
 * materials, its default one after them. */
static int gltf_names_texture_transform(fix_context *c)
{
    return c->model && c->model->material_count > 0;
}

static skv_result gltf_texture_transforms(fix_context *c)
{
    skv_model *model = c->model;
    size_t size = 0;
    unsigned char *bytes = gltf_read_json(c->path, &size); /* the JSON is all it reads */
    if (!bytes) return SKV_OK; /* Assimp read it: only memory could stop this, and then the UVs stay */
    gltf_uv_transform *list = NULL;
    int count = 0;
    skv_error ignored; /* a file Assimp read: a transform that is not numbers leaves its UVs */
    if (gltf_json_names(bytes, size, "KHR_texture_transform"))
        (void)gltf_uv_transforms_read(bytes, size, &list, &count, &ignored);
    free(bytes);
    for (int i = 0; i < count; i++) {
        const gltf_uv_transform *t = &list[i];
        if (t->material < 0 || t->material >= model->material_count || t->slot < 0 || t->slot >= SKV_TEX_SLOTS)
            continue;
        skv_material *mat = &model->materials[t->material];
        if (!mat->uv_transformed) {
            for (int k = 0; k < SKV_TEX_SLOTS; k++) {
                float *m = mat->uv_transform[k];
                m[0] = 1.0f, m[1] = 0.0f, m[2] = 0.0f, m[3] = 0.0f, m[4] = 1.0f, m[5] = 0.0f;
            }
            mat->uv_transformed = 1;
        }
        double cs = cos(t->rotation), sn = sin(t->rotation);
        float *m = mat->uv_transform[t->slot];
        m[0] = (float)(t->scale[0] * cs), m[1] = (float)(t->scale[1] * sn), m[2] = t->offset[0];
        m[3] = (float)(-t->scale[0] * sn), m[4] = (float)(t->scale[1] * cs), m[5] = t->offset[1];
    }
    free(list);
    return SKV_OK;
}

/* --- the table --------------------------------------------------------------
 * Within a stage the rows run in this order, and the model's warnings come
 * in it. */
const assimp_fix assimp_fixes[] = {
    {.major = 5, .minor = 2, .formats = ".fbx", .defect = "bone offsets taken from the cluster's Transform",
     .stage = FIX_MESH_BONES, .detect = offsets_all_equal, .repair = offsets_from_rest},
    {.major = 5, .minor = 4, .formats = ".fbx", .defect = "bone offsets miss the mesh node's global transform",
     .stage = FIX_MESH_BONES, .repair = fbx_mesh_correction},
    {.formats = ".md5mesh", .defect = ".md5anim found by its exact name only",
     .stage = FIX_CLIP_FILE, .detect = no_exact_md5anim, .repair = md5anim_any_case, .report = md5anim_report},
    {.formats = ".md5mesh .md5anim", .defect = "reopens BOB.MD5MESH as BOB.md5mesh",
     .stage = FIX_BEFORE_READ, .detect = not_in_memory, .repair = md5_from_memory},
    {.formats = ".md5mesh .md5anim", .defect = "scale keys of 1 +- 1.3e-6 in a format without scale",
     .stage = FIX_CLIP, .repair = md5_unit_scales},
    {.formats = ".dae", .defect = "STEP, BEZIER and HERMITE curves played as LINEAR (tangents dropped)",
     .stage = FIX_CLIP, .detect = collada_curved, .repair = collada_bake_curves},
    {.major = 5, .minor = 4, .formats = ".dae", .defect = "<vcount> lists starting with whitespace misread",
     .stage = FIX_BEFORE_READ, .detect = vcount_space, .repair = vcount_trim,
     .warning = "<vcount> lists start with whitespace, which Assimp 5.4 misreads; read without it"},
    {.major = 5, .minor = 2, .formats = ".mdl", .defect = "HL1 bones listed flat, each under <MDL_bones> (assimp #5002)",
     .stage = FIX_NODES, .detect = hl1_nodes, .repair = hl1_bone_parents},
    {.formats = ".mdl", .defect = "HL1 clips last fps x frames ticks: a second a frame",
     .stage = FIX_CLIP, .detect = hl1_second_a_frame, .repair = hl1_duration},
    {.defect = "validation rejects keys past a clip's duration",
     .stage = FIX_READ_SCENE, .detect = keys_past_duration, .repair = extend_durations,
     .read_error = "is larger than aiAnimation::mDuration"},
    {.formats = ".fbx", .defect = "FBX blend shapes all rest at weight 1 (DeformPercent dropped)",
     .stage = FIX_MODEL, .detect = has_morph_targets, .repair = deform_percents},
    {.formats = ".gltf .glb", .defect = "glTF STEP and CUBICSPLINE samplers played as LINEAR (interpolation dropped)",
     .stage = FIX_CLIP, .detect = gltf_curved, .repair = gltf_join_curves},
    {.formats = ".gltf .glb", .defect = "KHR_texture_transform kept as a material property, not applied to the UVs",
     .stage = FIX_MODEL, .detect = gltf_names_texture_transform, .repair = gltf_texture_transforms},
    {.defect = "JoinIdenticalVertices quadratic on big skinned meshes",
     .stage = FIX_READ_SCENE, .detect = big_indexed_skin, .repair = skip_join,
     .clears_flags = aiProcess_JoinIdenticalVertices},
};
const int assimp_fix_count = (int)(sizeof assimp_fixes / sizeof assimp_fixes[0]);
/* fix_context's `fired` and `told` hold a bit per row. */
_Static_assert(sizeof assimp_fixes / sizeof assimp_fixes[0] <= 64, "more rows than fix_context.fired has bits");

/* --- running the rows ------------------------------------------------------ */

/* Does `path` end in one of `formats` (space-separated), any letter case? */
static int format_matches(const char *formats, const char *path)
{
    size_t len = strlen(path);
    for (const char *f = formats; *f;) {
        size_t n = strcspn(f, " ");
        if (n > 0 && len >= n && strncasecmp(path + len - n, f, n) == 0) return 1;
        f += n;
        while (*f == ' ') f++;
    }
    return 0;
}

int assimp_fix_applies(const assimp_fix *fix, const char *path)
{
    if (fix->major && !(aiGetVersionMajor() == fix->major && aiGetVersionMinor() == fix->minor)) return 0;
    return !fix->formats || (path && format_matches(fix->formats, path));
}

skv_result assimp_fix_table_run(const assimp_fix *table, int count, fix_stage stage, fix_context *c)
{
    skv_model *model = c->model ? c->model : c->im ? c->im->model : NULL;
    for (int i = 0; i < count && i < 64; i++) {
        const assimp_fix *fix = &table[i];
        uint64_t bit = (uint64_t)1 << i;
        if (fix->stage == stage && assimp_fix_applies(fix, c->path) && (!fix->detect || fix->detect(c))) {
            skv_result r = fix->repair(c);
            if (r != SKV_OK) return r;
            c->fired |= bit;
        }
        if (model && (c->fired & bit) && !(c->told & bit)) {
            c->told |= bit;
            if (fix->report) fix->report(c, model);
            else if (fix->warning) model_warn(model, "%s", fix->warning);
        }
    }
    return SKV_OK;
}

skv_result assimp_fixes_run(fix_stage stage, fix_context *c)
{
    return assimp_fix_table_run(assimp_fixes, assimp_fix_count, stage, c);
}

int assimp_fix_table_answers(const assimp_fix *table, int count, const char *path, const char *error)
{
    for (int i = 0; error && i < count; i++) {
        const assimp_fix *fix = &table[i];
        if (fix->read_error && assimp_fix_applies(fix, path) && strstr(error, fix->read_error)) return 1;
    }
    return 0;
}

int assimp_fixes_answer(const char *path, const char *error)
{
    return assimp_fix_table_answers(assimp_fixes, assimp_fix_count, path, error);
}

int assimp_fixes_as_peek(fix_context *c, unsigned cleared)
{
    uint64_t fires = 0;
    unsigned clears = 0;
    for (int i = 0; i < assimp_fix_count && i < 64; i++) {
        const assimp_fix *fix = &assimp_fixes[i];
        if (fix->stage != FIX_READ_SCENE || !assimp_fix_applies(fix, c->path)) continue;
        if (fix->detect && !fix->detect(c)) continue;
        if (!fix->clears_flags) return 0; /* it would edit the scene as read */
        fires |= (uint64_t)1 << i;
        clears |= fix->clears_flags;
    }
    if (clears != cleared) return 0;
    c->fired |= fires;
    return 1;
}
