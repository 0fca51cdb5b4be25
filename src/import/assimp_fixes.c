/* assimp_fixes.c - repairs of known Assimp defects.
 *
 * Each defect is one row of assimp_fixes[]: the Assimp series it is in,
 * the file format, how it is detected, how it is repaired, and the
 * warning the model carries when it was. The rows' detect and repair
 * steps run at different stages of the import (file bytes before Assimp,
 * the scene Assimp returns, the bone map during conversion), so they are
 * the functions named in the row's comment; assimp_fix_applies() answers
 * the series and format check for all of them. */
#include "private/import_internal.h"
#include "anim.h"

#include <assimp/version.h>
#include <stb_ds.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const assimp_fix assimp_fixes[ASSIMP_FIX_COUNT] = {
    /* detect: the mesh has bones; repair: fbx_mesh_correction */
    [ASSIMP_FIX_FBX_MESH_NODE_OFFSET] = {5, 4, ".fbx", "bone offsets miss the mesh node's global transform", NULL},
    /* detect: offsets_all_equal; repair: offset_from_rest */
    [ASSIMP_FIX_FBX_CLUSTER_TRANSFORM] = {5, 2, ".fbx", "bone offsets taken from the cluster's Transform", NULL},
    /* detect and repair: collada_trimmed_vcounts, before Assimp reads the file */
    [ASSIMP_FIX_COLLADA_VCOUNT_SPACE] = {5, 4, ".dae", "<vcount> lists starting with whitespace misread",
                                         "<vcount> lists start with whitespace, which Assimp 5.4 misreads; read "
                                         "without it"},
    /* detect: collada_has_curves; repair: none possible, the clips are marked */
    [ASSIMP_FIX_COLLADA_CURVES] = {0, 0, ".dae", "Bezier/Hermite tangents ignored",
                                   "the file animates on Bezier/Hermite curves; Assimp reads only their keys, so "
                                   "between keys the motion is linear (off the curves by up to several % of the "
                                   "model's size)"},
    /* detect and repair: find_md5anim (the warning names the file) */
    [ASSIMP_FIX_MD5ANIM_CASE] = {0, 0, ".md5mesh", ".md5anim found by its exact name only", NULL},
    /* repair: import.c reads both MD5 files from memory (read_model_file,
     * import_md5anim), where the second opening reads the same bytes */
    [ASSIMP_FIX_MD5_EXTENSION_CASE] = {0, 0, ".md5mesh", "reopens BOB.MD5MESH as BOB.md5mesh", NULL},
    /* detect: md5_scale_fix_applies; repair: convert_clips sets the scale keys to 1 */
    [ASSIMP_FIX_MD5_SCALE_NOISE] = {0, 0, ".md5mesh", "scale keys of 1 +- 1.3e-6 in a format without scale", NULL},
    /* detect and repair: hl1_duration, in convert_clips */
    [ASSIMP_FIX_HL1_DURATION] = {0, 0, ".mdl", "HL1 clips last fps x frames ticks: a second a frame", NULL},
    /* detect and repair: hl1_bone_parents, in flatten_nodes */
    [ASSIMP_FIX_HL1_FLAT_BONES] = {5, 2, ".mdl", "HL1 bones listed flat, each under <MDL_bones> (assimp #5002)", NULL},
    /* detect: last_key_time past mDuration; repair: read_scene extends the duration */
    [ASSIMP_FIX_KEYS_PAST_DURATION] = {0, 0, NULL, "validation rejects keys past a clip's duration", NULL},
    /* detect and repair: skip_join */
    [ASSIMP_FIX_JOIN_QUADRATIC] = {0, 0, NULL, "JoinIdenticalVertices quadratic on big skinned meshes", NULL},
};

int assimp_fix_applies(assimp_fix_id id, const char *path)
{
    const assimp_fix *fix = &assimp_fixes[id];
    if (fix->major && !(aiGetVersionMajor() == fix->major && aiGetVersionMinor() == fix->minor)) return 0;
    return !fix->format || ends_with_nocase(path, fix->format);
}

/* Assimp 5.4.x's FBX importer builds a bone's offset as
 *   inverse(bone's bind transform) * (local transform of the mesh node's parent)
 * where it should use the mesh node's *global* bind transform (assimp PR
 * #5349 restored the offset without the fix of commit 8a1dc87; issue #5642,
 * fixed after 5.4.3). A skinned mesh whose node is not at the origin then
 * comes out with that node's transform missing (huesitos.fbx: 100x too
 * small, and torn apart once animated). `correction` turns the 5.4 offset
 * into the right one:  inverse(parent local) * global(mesh node).
 * The "parent" is the parent of the mesh node's chain of $AssimpFbx$ pivot
 * helpers, which Assimp creates in front of the node itself. */
int fbx_offset_fix_applies(const char *path)
{
    return assimp_fix_applies(ASSIMP_FIX_FBX_MESH_NODE_OFFSET, path);
}

/* Assimp 5.2.4-5.2.5's FBX importer sets each bone's offset to the
 * cluster's Transform (assimp PR #4490). Blender writes the whole offset
 * there, and those files come out right; Autodesk exporters (Mixamo) write
 * the mesh's global bind matrix, the same for every bone of the mesh, and
 * the character twists (assimp #4487, #4620, #5131). That signature -- two
 * or more bones, one offset -- cannot come from a sound rig, so such
 * offsets are rebuilt as inverse(bone's rest global) * that matrix, taking
 * the node tree's rest pose as the bind pose (as such exports have it). */
int fbx_bind_fix_applies(const char *path)
{
    return assimp_fix_applies(ASSIMP_FIX_FBX_CLUSTER_TRANSFORM, path);
}

/* MD5 stores no scale, yet Assimp's MD5 reader gives scale keys such as
 * 1.0000006, 1.00000131, 1.0000006 (its own decomposition's rounding; and
 * other values again when it reads the .md5anim with the mesh than alone).
 * Slightly uneven, they make a constant node no similarity, and the walk
 * then keeps Bob.md5mesh's four channels under it out of their parent's
 * fold and off vector_palette (66.3 -> 78.0 Ir a bone, bench/NOTES.md
 * v7r). The clips of .md5mesh and .md5anim files are given exact 1s. */
int md5_scale_fix_applies(const char *path)
{
    return assimp_fix_applies(ASSIMP_FIX_MD5_SCALE_NOISE, path) || (path && ends_with_nocase(path, ".md5anim"));
}

int offsets_all_equal(const struct aiMesh *src)
{
    if (src->mNumBones < 2) return 0;
    mat4 first, other;
    to_mat4(&src->mBones[0]->mOffsetMatrix, first);
    for (unsigned b = 1; b < src->mNumBones; b++) {
        to_mat4(&src->mBones[b]->mOffsetMatrix, other);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++)
                if (fabsf(first[c][r] - other[c][r]) > 1e-6f * (1.0f + fabsf(first[c][r]))) return 0;
    }
    return 1;
}

/* inverse(rest global of node) * m, the offset a bone of that node should
 * have had (see fbx_bind_fix_applies). */
void offset_from_rest(const importer *im, int node, const mat4 m, mat4 out)
{
    const skv_skeleton *sk = &im->model->skeleton;
    mat4 global = GLM_MAT4_IDENTITY_INIT;
    for (int n = node; n >= 0; n = sk->parents[n]) glm_mat4_mul(sk->rest_local[n], global, global);
    anim_inverse(global, global);
    mat4 result;
    glm_mat4_mul(global, (vec4 *)m, result);
    glm_mat4_copy(result, out);
}

void fbx_mesh_correction(const importer *im, int mesh_node, mat4 correction)
{
    const skv_skeleton *sk = &im->model->skeleton;
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
    glm_mat4_mul(parent_inverse, global, correction);
}

int ends_with_nocase(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* An .md5mesh's clip: "<base>.md5anim" beside it, found by a name that
 * may differ in letter case (Assimp would look for the exact name only;
 * the importer reads it itself, import.c import_once), the exact name
 * first where both are there. 0 if none, or if its path does not fit
 * `out`. */
int find_md5anim(const char *mesh_path, char *out, size_t size)
{
    char *folder = strdup(mesh_path);
    if (!folder) return 0;
    char *slash = strrchr(folder, '/');
    const char *file = slash ? mesh_path + (slash - folder) + 1 : mesh_path;
    if (slash) *slash = '\0';
    size_t base_len = strlen(file) - strlen(".md5mesh");
    DIR *dir = opendir(slash ? (*folder ? folder : "/") : "."); /* a model in / */
    int found = 0; /* 1: a case variant, 2: the exact name */
    for (struct dirent *e; dir && found < 2 && (e = readdir(dir));) {
        if (strlen(e->d_name) == base_len + strlen(".md5anim") && strncasecmp(e->d_name, file, base_len) == 0 &&
            ends_with_nocase(e->d_name, ".md5anim")) {
            int exact = strncmp(e->d_name, file, base_len) == 0 && strcmp(e->d_name + base_len, ".md5anim") == 0;
            if (found && !exact) continue;
            int n = snprintf(out, size, "%s/%s", slash ? folder : ".", e->d_name);
            found = n > 0 && (size_t)n < size ? 1 + exact : 0;
        }
    }
    if (dir) closedir(dir);
    free(folder);
    return found > 0;
}

/* Whether find_md5anim's `anim_path` is "<base>.md5anim" spelt as the
 * mesh's base: the name Assimp itself would have read. */
int md5anim_exact(const char *mesh_path, const char *anim_path)
{
    const char *mesh = strrchr(mesh_path, '/'), *anim = strrchr(anim_path, '/');
    mesh = mesh ? mesh + 1 : mesh_path, anim = anim ? anim + 1 : anim_path;
    size_t base_len = strlen(mesh) - strlen(".md5mesh");
    return strlen(anim) == base_len + strlen(".md5anim") && strncmp(anim, mesh, base_len) == 0 &&
           strcmp(anim + base_len, ".md5anim") == 0;
}

/* Assimp 5.4's Collada parser reads each <vcount> number with no whitespace
 * skipped before the first one: a list that starts with a space (as
 * library_animation_clips.dae's does) reads as 0 weights for vertex 0 and
 * then gives every vertex the count of the one before it, so all weights
 * land on the wrong vertices, silently. Whitespace in an XML list means
 * nothing; such a file is read from a copy with it removed. NULL (and
 * nothing to do) when no <vcount> starts with whitespace. */
unsigned char *collada_trimmed_vcounts(const char *path, long *out_size)
{
    if (!assimp_fix_applies(ASSIMP_FIX_COLLADA_VCOUNT_SPACE, path)) return NULL;
    long size = 0;
    unsigned char *bytes = read_whole_file(path, &size);
    if (!bytes) return NULL;
    static const char tag[] = "<vcount>";
    const size_t tag_len = sizeof tag - 1;
    long w = 0, trimmed = 0;
    for (long r = 0; r < size;) {
        if (bytes[r] == '<' && size - r >= (long)tag_len && memcmp(bytes + r, tag, tag_len) == 0) {
            memmove(bytes + w, bytes + r, tag_len);
            w += (long)tag_len, r += (long)tag_len;
            long start = r;
            while (r < size && (bytes[r] == ' ' || bytes[r] == '\t' || bytes[r] == '\n' || bytes[r] == '\r')) r++;
            trimmed += r > start;
            continue;
        }
        bytes[w++] = bytes[r++];
    }
    if (!trimmed) {
        free(bytes);
        return NULL;
    }
    *out_size = w;
    return bytes;
}

/* Does a Collada file interpolate any of its animation on curves
 * (<Name_array> entries BEZIER or HERMITE)? Assimp's Collada loader reads
 * the keys and ignores the tangents. */
int collada_has_curves(const char *path)
{
    if (!assimp_fix_applies(ASSIMP_FIX_COLLADA_CURVES, path)) return 0;
    long size = 0;
    unsigned char *bytes = read_whole_file(path, &size);
    if (!bytes) return 0;
    int found = 0;
    for (long i = 0; i < size && !found; i++)
        found = (bytes[i] == 'B' && size - i >= 6 && memcmp(bytes + i, "BEZIER", 6) == 0) ||
                (bytes[i] == 'H' && size - i >= 7 && memcmp(bytes + i, "HERMITE", 7) == 0);
    free(bytes);
    return found;
}


/* Assimp 5.2's JoinIdenticalVertices compares the bone weights of each
 * vertex it may join by scanning the mesh's bones: quadratic in a skinned
 * mesh's vertices (100,000: 3 s; 200,000: 13 s; 1,000,000: ~10 min),
 * linear without bones (issue #21). It only pays off on geometry the
 * importer unrolled per face corner; a mesh whose faces already share its
 * vertices (glTF keeps the file's indices) has nothing to gain. So a scene
 * with a big skinned mesh that is already indexed skips the join; every
 * other scene is joined as before. */
enum { JOIN_SKINNED_VERTEX_LIMIT = 50000 };

int skip_join(const struct aiScene *scene)
{
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

/* A scene of Assimp's HL1 MDL reader: its root is "<MDL_root>" (the
 * other .mdl formats' readers name theirs otherwise). */
int hl1_scene(const struct aiScene *scene)
{
    return scene && scene->mRootNode && strcmp(scene->mRootNode->mName.data, "<MDL_root>") == 0;
}

/* Assimp's HL1 MDL reader (5.2 and 5.4 alike) keys a sequence's frames at
 * ticks 0 .. numframes - 1, ticks per second the sequence's fps, and gives
 * the clip a duration of fps x numframes ticks: a second for every frame.
 * man.mdl's walk, 26 frames at 30 fps, lasts 26 s, of which 0.83 s move
 * (chrome_sphere's idle: 221 s, 8.8 s moving). A Half-Life sequence loops
 * over numframes - 1 frames at fps (its last frame is its first again),
 * as Irrlicht's reader also plays it, so that is the clip's duration: its
 * last key. Only a clip of that exact signature, in a scene of Assimp's
 * HL1 reader (hl1_scene), is changed; 0 stays 0 (the conversion's
 * rule for a clip without a duration then holds its one frame). Returns
 * the duration to use. */
double hl1_duration(const struct aiScene *scene, double duration, double ticks_per_second, double last_key)
{
    if (!hl1_scene(scene)) return duration;
    return duration > 0.0 && duration == ticks_per_second * (last_key + 1.0) ? last_key : duration;
}

/* Assimp 5.2's HL1 MDL reader lists every bone as a child of <MDL_bones>
 * (assimp #5002, fixed by PR #5007 in 5.3), though each bone's transform
 * is relative to its real parent, which its mParent names: man.mdl's legs,
 * arms and neck came out of their pelvis and spine, 0.3 of the diagonal
 * from Irrlicht's pose. In a scene of Assimp's HL1 reader, a node whose
 * mParent is an earlier node (nodes[] is parent first: Half-Life orders
 * bones so) that is not already one of its ancestors is moved under it.
 * `parents` is the flattened tree's (nodes[i]'s parent index, -1 for the
 * root). Returns how many nodes moved. */
int hl1_bone_parents(const struct aiScene *scene, const struct aiNode *const *nodes, int *parents, int count)
{
    if (!hl1_scene(scene)) return 0;
    struct { const struct aiNode *key; int value; } *index = NULL;
    for (int i = 0; i < count; i++) hmput(index, nodes[i], i);
    int moved = 0;
    for (int i = 1; i < count; i++) {
        ptrdiff_t at = hmgeti(index, nodes[i]->mParent);
        int want = at < 0 ? -1 : index[at].value;
        if (want < 0 || want >= i || want == parents[i]) continue;
        int ancestor = parents[i];
        while (ancestor >= 0 && ancestor != want) ancestor = parents[ancestor];
        if (ancestor == want) continue; /* a level skipped (the root bone's mParent is the scene root) */
        parents[i] = want;
        moved++;
    }
    hmfree(index);
    return moved;
}

/* The latest key time of a clip, over every kind of channel. */
double last_key_time(const struct aiAnimation *anim)
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
