/* import.c - Assimp scene -> skv_model.
 *
 * Steps, in order: check the path, run Assimp with our post-processing,
 * flatten the node tree parent-first, gather triangle meshes into one
 * vertex/index set, build the shared bone map and pack influences, convert
 * materials and textures, convert clips (names resolved to node indices
 * here, once), then release the aiScene. */
#include "import.h"
#include "anim.h"
#include "import_scene.h"

#include <limits.h>
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stb_ds.h>
#include <stb_image.h>

#include "skin.h"
#include "stick.h"
#include "text.h"

/* Assimp 5.4 renamed aiString's capacity MAXLEN to AI_MAXLEN. */
#ifndef AI_MAXLEN
#define AI_MAXLEN MAXLEN
#endif

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
    char texture_refused[160]; /* why resolve_texture refused one, for its warning; "" if it says nothing */
    int fbx_offset_fix;  /* fbx_mesh_correction applies (Assimp 5.4 FBX) */
    int fbx_bind_fix;    /* fbx_offsets_from_rest may apply (Assimp 5.2 FBX) */
    int huge_offsets;    /* bone offsets beyond SKV_MAX_MAGNITUDE, replaced by identity */
} importer;

static void to_mat4(const struct aiMatrix4x4 *m, mat4 out)
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
}

static int mat4_finite(const mat4 m)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!isfinite(m[c][r])) return 0;
    return 1;
}

/* Beyond this a transform entry or key value is no model's: a scale or
 * offset of 1e30 is finite, but a float overflows to inf once two such
 * are multiplied down the hierarchy or with a vertex (issue #21). */
#define SKV_MAX_MAGNITUDE 1e15f

static int mat4_usable(const mat4 m)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!(fabsf(m[c][r]) <= SKV_MAX_MAGNITUDE)) return 0; /* NaN fails too */
    return 1;
}

static char *dup_name(const struct aiString *s, const char *fallback_fmt, int n)
{
    char buf[64];
    if (s && s->length > 0) return strndup(s->data, s->length);
    snprintf(buf, sizeof buf, fallback_fmt, n);
    return strdup(buf);
}

/* Takes the map's address: stb_ds's shgeti allocates an empty map when
 * given NULL, and that allocation must land in the importer's pointer. */
static int lookup(name_index **map, const char *name)
{
    ptrdiff_t i = shgeti(*map, name);
    return i < 0 ? -1 : (*map)[i].value;
}

/* --- path checks --------------------------------------------------------- */

static skv_result check_path(const char *path, skv_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return skv_fail(err, SKV_ERR_FILE, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode)) return skv_fail(err, SKV_ERR_FILE, "is a directory, not a model file");
    if (!S_ISREG(st.st_mode)) return skv_fail(err, SKV_ERR_FILE, "not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f) return skv_fail(err, SKV_ERR_FILE, "cannot open: %s", strerror(errno));
    fclose(f);
    if (st.st_size == 0) return skv_fail(err, SKV_ERR_IMPORT, "file is empty");
    return SKV_OK;
}

/* --- node hierarchy ------------------------------------------------------ */

static int count_nodes(const struct aiNode *root)
{
    int count = 0;
    const struct aiNode **stack = NULL;
    arrput(stack, root);
    while (arrlen(stack) > 0) {
        const struct aiNode *n = arrpop(stack);
        count++;
        for (unsigned i = 0; i < n->mNumChildren; i++) arrput(stack, n->mChildren[i]);
    }
    arrfree(stack);
    return count;
}

/* Depth-first, parent before children, children in file order. */
static skv_result flatten_nodes(importer *im)
{
    skv_skeleton *sk = &im->model->skeleton;
    int total = count_nodes(im->scene->mRootNode);
    sk->node_names = calloc((size_t)total, sizeof *sk->node_names);
    sk->parents = calloc((size_t)total, sizeof *sk->parents);
    sk->rest_local = calloc((size_t)total, sizeof *sk->rest_local);
    im->nodes = calloc((size_t)total, sizeof *im->nodes);
    im->node_bone = malloc((size_t)total * sizeof *im->node_bone);
    if (!sk->node_names || !sk->parents || !sk->rest_local || !im->nodes || !im->node_bone)
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");

    typedef struct pending { const struct aiNode *node; int parent; } pending;
    pending *stack = NULL;
    arrput(stack, ((pending){im->scene->mRootNode, -1}));
    int bad_transforms = 0, huge_transforms = 0;
    while (arrlen(stack) > 0) {
        pending p = arrpop(stack);
        int index = sk->node_count++;
        im->nodes[index] = p.node;
        im->node_bone[index] = -1;
        sk->parents[index] = p.parent;
        sk->node_names[index] = dup_name(&p.node->mName, "node %d", index);
        to_mat4(&p.node->mTransformation, sk->rest_local[index]);
        if (!mat4_finite(sk->rest_local[index])) {
            glm_mat4_identity(sk->rest_local[index]);
            bad_transforms++;
        } else if (!mat4_usable(sk->rest_local[index])) {
            glm_mat4_identity(sk->rest_local[index]);
            huge_transforms++;
        }
        if (shgeti(im->node_by_name, sk->node_names[index]) < 0)
            shput(im->node_by_name, sk->node_names[index], index);
        else
            im->name_clashes++;
        /* Push children in reverse so they pop in file order. */
        for (unsigned i = p.node->mNumChildren; i-- > 0;)
            arrput(stack, ((pending){p.node->mChildren[i], index}));
    }
    arrfree(stack);
    if (bad_transforms)
        model_warn(im->model, "%d node transform(s) contain NaN/Inf; replaced by identity", bad_transforms);
    if (huge_transforms)
        model_warn(im->model, "%d node transform(s) hold values beyond 1e15 (they overflow when multiplied); "
                   "replaced by identity", huge_transforms);

    mat4 root;
    glm_mat4_copy(sk->rest_local[0], root);
    float det = glm_mat4_det(root);
    if (!(fabsf(det) > 1e-12f)) {
        model_warn(im->model, "root transform is singular; showing the model without it");
        glm_mat4_identity(root);
    }
    glm_mat4_copy(root, im->model->upright);
    glm_mat4_inv(root, im->model->global_inverse);
    return SKV_OK;
}

/* Rest-pose global transform of a node (from the root, root included). */
static void rest_global(const skv_skeleton *sk, int node, mat4 out)
{
    glm_mat4_identity(out);
    for (int n = node; n >= 0; n = sk->parents[n]) glm_mat4_mul(sk->rest_local[n], out, out);
}

/* How far `m` is from `target`: the sum of absolute differences. */
static float mat4_distance(const mat4 m, const mat4 target)
{
    float sum = 0.0f;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) sum += fabsf(m[c][r] - target[c][r]);
    return sum;
}

/* The node a bone of the file moves with. Names are labels, not
 * identifiers: a glTF file may call a joint and a mesh node both "Head"
 * (robot.glb has eight such pairs, mesh nodes first), and Assimp ties
 * bones and channels to nodes by name only. Where several nodes share the
 * bone's name, the joint is the one whose rest pose matches the bone's
 * bind matrix: rest global x offset is the identity (glTF: joint world x
 * inverse bind) or the mesh node's global (Assimp's offset convention).
 * The choice is kept for the clips' channels of that name. */
static int resolve_bone_node(importer *im, const char *name, const mat4 offset, int mesh_node)
{
    int first = lookup(&im->node_by_name, name);
    if (first < 0 || im->name_clashes == 0) return first;
    int known = lookup(&im->joint_by_name, name);
    if (known >= 0) return known;
    const skv_skeleton *sk = &im->model->skeleton;
    int count = 0;
    for (int n = first; n < sk->node_count && count < 2; n++) count += strcmp(sk->node_names[n], name) == 0;
    if (count < 2) return first;

    mat4 mesh_global, identity = GLM_MAT4_IDENTITY_INIT;
    rest_global(sk, mesh_node, mesh_global);
    int best = first;
    float best_distance = INFINITY;
    for (int n = first; n < sk->node_count; n++) {
        if (strcmp(sk->node_names[n], name) != 0) continue;
        mat4 global, bound;
        rest_global(sk, n, global);
        glm_mat4_mul(global, (vec4 *)offset, bound);
        float d = fminf(mat4_distance(bound, identity), mat4_distance(bound, mesh_global));
        if (d < best_distance) best_distance = d, best = n; /* ties: the first */
    }
    shput(im->joint_by_name, sk->node_names[best], best);
    return best;
}

/* A name without its namespace prefix: what follows the last ':' or '|'
 * ("mixamorig:Hips", "Armature|Hips" -> "Hips"); the name itself if none. */
static const char *bare_name(const char *name)
{
    const char *bare = name;
    for (const char *c = name; *c; c++)
        if (*c == ':' || *c == '|') bare = c + 1;
    return *bare ? bare : name;
}

/* A clip channel's node: the joint its name resolved to, else the first
 * node of that name; for clips of another file also the node whose name
 * without namespace is the channel's without namespace. */
static int channel_node(importer *im, const char *name)
{
    int node = im->joint_by_name ? lookup(&im->joint_by_name, name) : -1;
    if (node < 0) node = lookup(&im->node_by_name, name);
    if (node < 0 && im->node_by_bare) node = lookup(&im->node_by_bare, bare_name(name));
    return node;
}

/* --- FBX pivots -------------------------------------------------------------
 * Assimp's FBX importer (with pivots preserved, its default) puts a chain
 * of helper nodes NAME_$AssimpFbx$_Translation, _PreRotation, _Rotation ...
 * above node NAME, one per part of FBX's transform. When it can, it also
 * bakes the whole local transform, helpers included, into one channel on
 * NAME (assimp #1974, #1068): played as it is, every helper's transform is
 * applied twice and a Mixamo character is torn apart. When a node has such
 * a channel and no clip animates its helpers, the helpers are folded into
 * the node (its rest transform becomes their product, its parent theirs),
 * which keeps the rest pose and makes the channel mean what it holds.
 * Where Assimp animates the helpers themselves (complex pivots; or
 * AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS off, assimp #6114), the chain stays
 * and each channel moves its own helper. */
static const char fbx_helper_tag[] = "_$AssimpFbx$_";

static int is_helper_of(const char *helper, const char *name, size_t name_len)
{
    return strncmp(helper, name, name_len) == 0 && strncmp(helper + name_len, fbx_helper_tag, sizeof fbx_helper_tag - 1) == 0;
}

static skv_result fold_fbx_pivots(importer *im)
{
    skv_skeleton *sk = &im->model->skeleton;
    const struct aiScene *anims = im->anim_scene;
    int any_helper = 0;
    for (int n = 0; n < sk->node_count && !any_helper; n++) any_helper = strstr(sk->node_names[n], fbx_helper_tag) != NULL;
    if (!any_helper || anims->mNumAnimations == 0) return SKV_OK;

    /* Every node a channel moves: this file's, and the clips already there. */
    unsigned char *moved = calloc((size_t)sk->node_count, 1);
    im->folded = calloc((size_t)sk->node_count, 1);
    if (!moved || !im->folded) {
        free(moved);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (unsigned a = 0; a < anims->mNumAnimations; a++)
        for (unsigned c = 0; c < anims->mAnimations[a]->mNumChannels; c++) {
            const struct aiString *s = &anims->mAnimations[a]->mChannels[c]->mNodeName;
            char name[AI_MAXLEN + 1];
            snprintf(name, sizeof name, "%.*s", (int)s->length, s->data);
            int node = channel_node(im, name);
            if (node >= 0) moved[node] = 1;
        }
    const unsigned char old_clip_moves = 2; /* moved by a clip already in the model: never folded */
    for (int c = 0; im->existing && c < im->existing->clip_count; c++)
        for (int n = 0; n < sk->node_count; n++)
            if (im->existing->clips[c].node_channel[n] >= 0) moved[n] |= old_clip_moves;
    int nodes = 0, helpers = 0;
    for (int n = 0; n < sk->node_count; n++) {
        const char *name = sk->node_names[n];
        if (strstr(name, fbx_helper_tag) || moved[n] != 1) continue;
        size_t len = strlen(name);
        int top = n, chain = 0, helper_moved = 0;
        for (int p = sk->parents[n]; p >= 0 && is_helper_of(sk->node_names[p], name, len); p = sk->parents[p]) {
            top = p, chain++;
            helper_moved |= moved[p];
        }
        if (chain == 0 || helper_moved) continue;
        mat4 local = GLM_MAT4_IDENTITY_INIT;
        for (int p = n; p != sk->parents[top]; p = sk->parents[p]) glm_mat4_mul(sk->rest_local[p], local, local);
        glm_mat4_copy(local, sk->rest_local[n]);
        sk->parents[n] = sk->parents[top];
        im->folded[n] = 1;
        nodes++, helpers += chain;
    }
    free(moved);
    if (nodes)
        model_warn(im->model, "FBX pivots: %d animated node(s) carry their whole transform in their channels; "
                   "their %d $AssimpFbx$ helper node(s) folded into them", nodes, helpers);
    return SKV_OK;
}

/* --- bone map ------------------------------------------------------------ */

static int add_bone(importer *im, const char *name, int node, const mat4 offset, int from_file)
{
    skv_skeleton *sk = &im->model->skeleton;
    if (sk->bone_count == im->bone_capacity) {
        int cap = im->bone_capacity ? im->bone_capacity * 2 : 64;
        char **names = realloc(sk->bone_names, (size_t)cap * sizeof *names);
        if (names) sk->bone_names = names;
        int *nodes = realloc(sk->bone_node, (size_t)cap * sizeof *nodes);
        if (nodes) sk->bone_node = nodes;
        mat4 *offsets = realloc(sk->bone_offset, (size_t)cap * sizeof *offsets);
        if (offsets) sk->bone_offset = offsets;
        unsigned char *kinds = realloc(sk->bone_from_file, (size_t)cap);
        if (kinds) sk->bone_from_file = kinds;
        if (!names || !nodes || !offsets || !kinds) return -1;
        im->bone_capacity = cap;
    }
    int b = sk->bone_count;
    sk->bone_names[b] = strdup(name);
    if (!sk->bone_names[b]) return -1;
    sk->bone_node[b] = node;
    sk->bone_from_file[b] = (unsigned char)from_file;
    glm_mat4_copy((vec4 *)offset, sk->bone_offset[b]);
    sk->bone_count++;
    return b;
}

static int offsets_equal(const mat4 a, const mat4 b)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            float d = fabsf(a[c][r] - b[c][r]);
            if (d > 1e-5f * (1.0f + fabsf(a[c][r]))) return 0;
        }
    return 1;
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
static int is_fbx(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcasecmp(path + n - 4, ".fbx") == 0;
}

static int fbx_offset_fix_applies(const char *path)
{
    return aiGetVersionMajor() == 5 && aiGetVersionMinor() == 4 && is_fbx(path);
}

/* Assimp 5.2.4-5.2.5's FBX importer sets each bone's offset to the
 * cluster's Transform (assimp PR #4490). Blender writes the whole offset
 * there, and those files come out right; Autodesk exporters (Mixamo) write
 * the mesh's global bind matrix, the same for every bone of the mesh, and
 * the character twists (assimp #4487, #4620, #5131). That signature -- two
 * or more bones, one offset -- cannot come from a sound rig, so such
 * offsets are rebuilt as inverse(bone's rest global) * that matrix, taking
 * the node tree's rest pose as the bind pose (as such exports have it). */
static int fbx_bind_fix_applies(const char *path)
{
    return aiGetVersionMajor() == 5 && aiGetVersionMinor() == 2 && is_fbx(path);
}

static int offsets_all_equal(const struct aiMesh *src)
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
static void offset_from_rest(const importer *im, int node, const mat4 m, mat4 out)
{
    const skv_skeleton *sk = &im->model->skeleton;
    mat4 global = GLM_MAT4_IDENTITY_INIT;
    for (int n = node; n >= 0; n = sk->parents[n]) glm_mat4_mul(sk->rest_local[n], global, global);
    glm_mat4_inv(global, global);
    mat4 result;
    glm_mat4_mul(global, (vec4 *)m, result);
    glm_mat4_copy(result, out);
}

static void fbx_mesh_correction(const importer *im, int mesh_node, mat4 correction)
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
    if (parent >= 0) glm_mat4_inv((vec4 *)sk->rest_local[parent], parent_inverse);
    glm_mat4_mul(parent_inverse, global, correction);
}

/* One palette entry per distinct (name, offset): meshes that share a
 * skeleton share entries, and a bone bound with a different offset in
 * another mesh still gets its own, correct matrix. */
static int file_bone_index(importer *im, const struct aiBone *bone, const mat4 correction, int from_rest, int mesh_node)
{
    skv_skeleton *sk = &im->model->skeleton;
    char name[AI_MAXLEN + 1];
    snprintf(name, sizeof name, "%.*s", (int)bone->mName.length, bone->mName.data);
    mat4 offset;
    to_mat4(&bone->mOffsetMatrix, offset);
    int rest_node = from_rest ? lookup(&im->node_by_name, name) : -1;
    if (rest_node >= 0) offset_from_rest(im, rest_node, offset, offset);
    glm_mat4_mul(offset, (vec4 *)correction, offset);
    if (!mat4_finite(offset)) glm_mat4_identity(offset);
    else if (!mat4_usable(offset)) {
        glm_mat4_identity(offset);
        im->huge_offsets++;
    }

    int first = lookup(&im->bone_by_name, name);
    if (first >= 0) {
        for (int b = first; b < sk->bone_count; b++)
            if (strcmp(sk->bone_names[b], name) == 0 && offsets_equal(sk->bone_offset[b], offset))
                return b;
    }
    int node = resolve_bone_node(im, name, offset, mesh_node);
    if (node < 0) model_warn(im->model, "bone '%s' has no node in the hierarchy; it stays in bind pose", name);
    int b = add_bone(im, name, node, offset, 1);
    if (b >= 0 && first < 0) shput(im->bone_by_name, sk->bone_names[b], b);
    im->model->file_bone_count++;
    return b;
}

/* The palette entry that carries node `node` rigidly (offset identity). */
static int node_bone_index(importer *im, int node)
{
    if (im->node_bone[node] >= 0) return im->node_bone[node];
    char name[AI_MAXLEN + 16];
    snprintf(name, sizeof name, "%s (node)", im->model->skeleton.node_names[node]);
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    im->node_bone[node] = add_bone(im, name, node, identity, 0);
    return im->node_bone[node];
}

/* --- meshes -------------------------------------------------------------- */

/* After SortByPType a mesh holds one primitive type; only triangles draw.
 * (Triangulate may also set the NGON-encoding flag: not a primitive.) */
static int is_triangle_mesh(const struct aiMesh *m)
{
    unsigned types = m->mPrimitiveTypes;
    return m->mNumVertices > 0 && m->mNumFaces > 0 && (types & aiPrimitiveType_TRIANGLE) &&
           !(types & (aiPrimitiveType_POINT | aiPrimitiveType_LINE));
}

/* Fills vertex slots [base, base + vertex_count) with packed influences. */
static skv_result pack_mesh_influences(importer *im, const struct aiMesh *src, skv_mesh *mesh)
{
    skv_model *model = im->model;
    int nv = mesh->vertex_count;
    int *counts = calloc((size_t)nv + 1, sizeof *counts);
    if (!counts) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");

    int *bone_of = malloc((src->mNumBones ? src->mNumBones : 1) * sizeof *bone_of);
    if (!bone_of) {
        free(counts);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    int bad_ids = 0;
    size_t total = 0;
    mat4 correction = GLM_MAT4_IDENTITY_INIT;
    if (im->fbx_offset_fix && src->mNumBones > 0) fbx_mesh_correction(im, mesh->node, correction);
    int from_rest = im->fbx_bind_fix && offsets_all_equal(src);
    if (from_rest)
        model_warn(im->model, "mesh '%s': every bone has the same offset (Assimp 5.2's FBX defect, assimp #4620); "
                   "offsets rebuilt from the rest pose", mesh->name);
    for (unsigned b = 0; b < src->mNumBones; b++) {
        const struct aiBone *bone = src->mBones[b];
        bone_of[b] = file_bone_index(im, bone, correction, from_rest, mesh->node);
        if (bone_of[b] < 0) {
            free(counts);
            free(bone_of);
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        }
        for (unsigned w = 0; w < bone->mNumWeights; w++) {
            unsigned v = bone->mWeights[w].mVertexId;
            if (v >= (unsigned)nv) {
                bad_ids++;
                continue;
            }
            counts[v]++;
            total++;
        }
    }
    /* counts -> start offsets (CSR). */
    int *start = malloc(((size_t)nv + 1) * sizeof *start);
    skv_influence *list = malloc((total ? total : 1) * sizeof *list);
    int *fill = calloc((size_t)nv, sizeof *fill);
    if (!start || !list || !fill) {
        free(counts), free(bone_of), free(start), free(list), free(fill);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    start[0] = 0;
    for (int v = 0; v < nv; v++) start[v + 1] = start[v] + counts[v];
    for (unsigned b = 0; b < src->mNumBones; b++) {
        const struct aiBone *bone = src->mBones[b];
        for (unsigned w = 0; w < bone->mNumWeights; w++) {
            unsigned v = bone->mWeights[w].mVertexId;
            if (v >= (unsigned)nv) continue;
            list[start[v] + fill[v]++] = (skv_influence){bone_of[b], bone->mWeights[w].mWeight};
        }
    }

    /* Room for this mesh's influences in the model's all-influence list
     * (a vertex without any gets one, on its node). */
    size_t have = (size_t)model->influence_start[mesh->base_vertex];
    skv_influence *grown = realloc(model->influences, (have + total + (size_t)nv) * sizeof *grown);
    if (!grown) {
        free(counts), free(bone_of), free(start), free(list), free(fill);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    model->influences = grown;

    int node_bone = -1;
    for (int v = 0; v < nv; v++) {
        int slot = (mesh->base_vertex + v) * model->influence_slots;
        int used = skin_pack_influences(&list[start[v]], counts[v], model->influence_slots,
                                        &model->bone_ids[slot], &model->weights[slot]);
        if (used > mesh->max_influences) mesh->max_influences = used;
        if (used > model->influence_slots) mesh->over_limit_vertices++;
        if (used == 0) {
            /* No usable weight (or no bones at all): ride on the node. */
            if (node_bone < 0) node_bone = node_bone_index(im, mesh->node);
            if (node_bone < 0) {
                free(counts), free(bone_of), free(start), free(list), free(fill);
                return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
            }
            model->bone_ids[slot] = (uint16_t)node_bone;
            model->weights[slot] = 1.0f;
            if (mesh->skinned) mesh->unweighted_vertices++;
            model->influences[have++] = (skv_influence){node_bone, 1.0f};
        } else {
            /* Packing left the list merged and sorted: keep all of it. */
            float sum = 0.0f;
            for (int k = 0; k < used; k++) sum += list[start[v] + k].weight;
            for (int k = 0; k < used; k++)
                model->influences[have++] = (skv_influence){list[start[v] + k].bone, list[start[v] + k].weight / sum};
        }
        model->influence_start[mesh->base_vertex + v + 1] = (int)have;
    }
    free(counts), free(bone_of), free(start), free(list), free(fill);
    if (bad_ids) model_warn(model, "mesh '%s': %d weight(s) name a vertex that does not exist; ignored", mesh->name, bad_ids);
    return model->skeleton.bone_count <= UINT16_MAX ? SKV_OK
           : skv_fail(im->err, SKV_ERR_CONTENT, "more than %d bones", UINT16_MAX);
}

/* Normals that are NaN or (near) zero light as black: rebuild each from
 * the faces around its vertex, else point it up. One pass over the faces
 * adds each face's normal to its corners that need one (a file can have
 * every normal zero: vertex by vertex over all faces took minutes).
 * Returns how many, or -1 when out of memory. */
static int repair_normals(skv_model *model, const skv_mesh *mesh)
{
    float *normals = &model->normals[(size_t)mesh->base_vertex * 3];
    int bad = 0;
    for (int v = 0; v < mesh->vertex_count; v++) {
        const float *n = &normals[(size_t)v * 3];
        float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        bad += !(len2 > 1e-12f && isfinite(len2));
    }
    if (bad == 0) return 0;
    /* Per vertex: the sum of its faces' normals, for the bad ones only. */
    float *sums = calloc((size_t)mesh->vertex_count * 3, sizeof *sums);
    unsigned char *needs = malloc((size_t)mesh->vertex_count);
    if (!sums || !needs) {
        free(sums), free(needs);
        return -1;
    }
    for (int v = 0; v < mesh->vertex_count; v++) {
        const float *n = &normals[(size_t)v * 3];
        float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        needs[v] = !(len2 > 1e-12f && isfinite(len2));
    }
    for (int i = 0; i < mesh->index_count; i += 3) {
        const uint32_t *tri = &model->indices[mesh->first_index + i];
        if (!needs[tri[0]] && !needs[tri[1]] && !needs[tri[2]]) continue;
        const float *a = &model->positions[(size_t)(mesh->base_vertex + (int)tri[0]) * 3];
        const float *b = &model->positions[(size_t)(mesh->base_vertex + (int)tri[1]) * 3];
        const float *c = &model->positions[(size_t)(mesh->base_vertex + (int)tri[2]) * 3];
        vec3 ab = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, face;
        glm_vec3_cross(ab, ac, face);
        for (int k = 0; k < 3; k++) {
            /* A face counts once for a vertex it names twice. */
            if (!needs[tri[k]] || (k > 0 && tri[k] == tri[0]) || (k > 1 && tri[k] == tri[1])) continue;
            glm_vec3_add(&sums[(size_t)tri[k] * 3], face, &sums[(size_t)tri[k] * 3]);
        }
    }
    for (int v = 0; v < mesh->vertex_count; v++) {
        if (!needs[v]) continue;
        float *n = &normals[(size_t)v * 3], *sum = &sums[(size_t)v * 3];
        float s2 = glm_vec3_norm2(sum);
        if (s2 > 1e-24f && isfinite(s2)) {
            glm_vec3_scale(sum, 1.0f / sqrtf(s2), sum);
            n[0] = sum[0], n[1] = sum[1], n[2] = sum[2];
        } else {
            n[0] = 0.0f, n[1] = 1.0f, n[2] = 0.0f;
        }
    }
    free(sums), free(needs);
    return bad;
}

static skv_result convert_meshes(importer *im)
{
    const struct aiScene *scene = im->scene;
    skv_model *model = im->model;
    skv_skeleton *sk = &model->skeleton;

    /* Count the mesh instances (a mesh under two nodes is drawn twice). */
    int instances = 0, skipped = 0;
    long vertices = 0, indices = 0;
    for (int n = 0; n < sk->node_count; n++) {
        const struct aiNode *node = im->nodes[n];
        for (unsigned i = 0; i < node->mNumMeshes; i++) {
            if (node->mMeshes[i] >= scene->mNumMeshes) continue;
            const struct aiMesh *m = scene->mMeshes[node->mMeshes[i]];
            if (!is_triangle_mesh(m)) {
                skipped++;
                continue;
            }
            instances++;
            vertices += m->mNumVertices;
            for (unsigned f = 0; f < m->mNumFaces; f++)
                if (m->mFaces[f].mNumIndices == 3) indices += 3;
        }
    }
    if (skipped) model_warn(model, "%d mesh(es) without triangles (points/lines/empty) skipped", skipped);
    if (instances == 0 || indices == 0)
        return skv_fail(im->err, SKV_ERR_CONTENT, "no triangle meshes to show");
    if (vertices > INT32_MAX / 16 || indices > INT32_MAX / 4)
        return skv_fail(im->err, SKV_ERR_CONTENT, "too large (%ld vertices)", vertices);

    size_t nv = (size_t)vertices;
    model->meshes = calloc((size_t)instances, sizeof *model->meshes);
    model->positions = calloc(nv * 3, sizeof(float));
    model->normals = calloc(nv * 3, sizeof(float));
    model->uvs = calloc(nv * 2, sizeof(float));
    model->bone_ids = calloc(nv * (size_t)model->influence_slots, sizeof(uint16_t));
    model->weights = calloc(nv * (size_t)model->influence_slots, sizeof(float));
    model->indices = calloc((size_t)indices, sizeof(uint32_t));
    model->influence_start = calloc(nv + 1, sizeof(int));
    if (!model->meshes || !model->positions || !model->normals || !model->uvs ||
        !model->bone_ids || !model->weights || !model->indices || !model->influence_start)
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");

    int bad_positions = 0, bad_normals = 0;
    for (int n = 0; n < sk->node_count; n++) {
        const struct aiNode *node = im->nodes[n];
        for (unsigned i = 0; i < node->mNumMeshes; i++) {
            if (node->mMeshes[i] >= scene->mNumMeshes) continue;
            const struct aiMesh *src = scene->mMeshes[node->mMeshes[i]];
            if (!is_triangle_mesh(src)) continue;

            skv_mesh *mesh = &model->meshes[model->mesh_count++];
            mesh->name = dup_name(&src->mName, "mesh %d", (int)node->mMeshes[i]);
            mesh->base_vertex = model->vertex_count;
            mesh->vertex_count = (int)src->mNumVertices;
            mesh->first_index = model->index_count;
            mesh->material = src->mMaterialIndex < scene->mNumMaterials ? (int)src->mMaterialIndex : -1;
            mesh->node = n;
            mesh->skinned = src->mNumBones > 0;
            mesh->bone_count = (int)src->mNumBones;

            for (unsigned v = 0; v < src->mNumVertices; v++) {
                float *p = &model->positions[(size_t)(mesh->base_vertex + (int)v) * 3];
                const struct aiVector3D *sp = &src->mVertices[v];
                if (isfinite(sp->x) && isfinite(sp->y) && isfinite(sp->z)) {
                    p[0] = sp->x, p[1] = sp->y, p[2] = sp->z;
                } else {
                    bad_positions++;
                }
                float *nrm = &model->normals[(size_t)(mesh->base_vertex + (int)v) * 3];
                if (src->mNormals && isfinite(src->mNormals[v].x)) {
                    nrm[0] = src->mNormals[v].x, nrm[1] = src->mNormals[v].y, nrm[2] = src->mNormals[v].z;
                } else {
                    nrm[2] = 1.0f;
                }
                if (src->mTextureCoords[0]) {
                    float *uv = &model->uvs[(size_t)(mesh->base_vertex + (int)v) * 2];
                    uv[0] = src->mTextureCoords[0][v].x;
                    uv[1] = src->mTextureCoords[0][v].y;
                }
            }
            for (unsigned f = 0; f < src->mNumFaces; f++) {
                const struct aiFace *face = &src->mFaces[f];
                if (face->mNumIndices != 3) continue;
                for (int k = 0; k < 3; k++) {
                    unsigned idx = face->mIndices[k];
                    model->indices[model->index_count++] = idx < src->mNumVertices ? idx : 0;
                }
            }
            mesh->index_count = model->index_count - mesh->first_index;
            model->vertex_count += mesh->vertex_count;

            skv_result r = pack_mesh_influences(im, src, mesh);
            if (r != SKV_OK) return r;
            int repaired = repair_normals(model, mesh);
            if (repaired < 0) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
            bad_normals += repaired;
        }
    }
    if (bad_positions) model_warn(model, "%d vertex position(s) were NaN/Inf; set to the origin", bad_positions);
    if (bad_normals) model_warn(model, "%d vertex normal(s) were zero or NaN; rebuilt from their faces", bad_normals);
    return SKV_OK;
}

static int has_triangle_meshes(const struct aiScene *scene)
{
    for (unsigned m = 0; m < scene->mNumMeshes; m++)
        if (scene->mMeshes[m] && is_triangle_mesh(scene->mMeshes[m])) return 1;
    return 0;
}

/* Has the file a mesh of its own? Assimp gives skeleton-only files of
 * some formats (.md5anim, BVH) a stick figure of its own making, which
 * uses a material called "SkeletonMaterial"; such a mesh does not count. */
static int has_own_meshes(const struct aiScene *scene)
{
    for (unsigned m = 0; m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!mesh || !is_triangle_mesh(mesh)) continue;
        struct aiString name = {0};
        if (mesh->mMaterialIndex < scene->mNumMaterials &&
            aiGetMaterialString(scene->mMaterials[mesh->mMaterialIndex], AI_MATKEY_NAME, &name) == aiReturn_SUCCESS &&
            strcmp(name.data, "SkeletonMaterial") == 0)
            continue;
        return 1;
    }
    return 0;
}

/* A file with clips and no mesh (an animation library, a mocap take, a
 * Mixamo download "without skin"): its animated nodes are the skeleton,
 * shown as a stick figure (stick.h). A channel on an FBX pivot helper
 * (NAME_$AssimpFbx$_Rotation) moves the joint NAME. */
static skv_result convert_skeleton_only(importer *im)
{
    const struct aiScene *anims = im->anim_scene;
    skv_skeleton *sk = &im->model->skeleton;
    unsigned char *joint = calloc((size_t)sk->node_count, 1);
    if (!joint) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    int joints = 0;
    for (unsigned a = 0; a < anims->mNumAnimations; a++)
        for (unsigned c = 0; c < anims->mAnimations[a]->mNumChannels; c++) {
            const struct aiString *s = &anims->mAnimations[a]->mChannels[c]->mNodeName;
            char name[AI_MAXLEN + 1];
            snprintf(name, sizeof name, "%.*s", (int)s->length, s->data);
            char *helper = strstr(name, fbx_helper_tag);
            if (helper) *helper = '\0'; /* the joint the helper belongs to */
            int node = channel_node(im, name);
            if (node >= 0 && !joint[node]) joint[node] = 1, joints++;
        }
    skv_result r = SKV_OK;
    if (joints == 0)
        r = skv_fail(im->err, SKV_ERR_CONTENT, "nothing to show: no triangle meshes, and no clip moves a node");
    else if (stick_figure_build(im->model, joint) != 0)
        r = skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    else
        model_warn(im->model, "no mesh in the file: its skeleton (%d joints) is shown as a stick figure",
                   im->model->skeleton.bone_count);
    free(joint);
    return r;
}

/* --- materials and textures ---------------------------------------------- */

/* The whole of a regular file in a malloc'd buffer (NULL if it cannot be
 * read). Opened without blocking and checked after opening: a FIFO's
 * open waits for a writer forever, a device never ends. */
static unsigned char *read_whole_file(const char *path, long *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char *bytes = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1L << 30)) {
        *size = (long)st.st_size;
        bytes = malloc((size_t)*size);
        for (long done = 0; bytes && done < *size;) {
            ssize_t got = read(fd, bytes + done, (size_t)(*size - done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) { /* an error, or the file shrank */
                free(bytes);
                bytes = NULL;
            } else {
                done += got;
            }
        }
    }
    close(fd);
    return bytes;
}

/* Appends a texture; takes `rgba` or `encoded` (malloc'd), freeing it on
 * failure. */
static int add_texture(importer *im, skv_texture texture, const char *key)
{
    skv_model *model = im->model;
    skv_texture *grown = realloc(model->textures, (size_t)(model->texture_count + 1) * sizeof *grown);
    if (grown) model->textures = grown;
    char **keys = realloc(im->texture_keys, (size_t)(model->texture_count + 1) * sizeof *keys);
    if (keys) im->texture_keys = keys;
    if ((!texture.rgba && !texture.encoded) || !grown || !keys) {
        free(texture.rgba);
        free(texture.encoded);
        return -1;
    }
    grown[model->texture_count] = texture;
    keys[model->texture_count] = strdup(key);
    return model->texture_count++;
}

/* Textures are refused (with a warning; the material colour is drawn)
 * past these, before any decoding: a 100-byte PNG can claim gigabytes of
 * texels, and a side beyond the GL driver's GL_MAX_TEXTURE_SIZE (16384 on
 * llvmpipe and most desktop GPUs) fails the upload. */
#define SKV_MAX_TEXTURE_SIDE 16384
#define SKV_MAX_TEXTURE_BYTES ((size_t)256 << 20)

static int texture_too_large(importer *im, unsigned width, unsigned height)
{
    if (width > SKV_MAX_TEXTURE_SIDE || height > SKV_MAX_TEXTURE_SIDE)
        snprintf(im->texture_refused, sizeof im->texture_refused, "%ux%u texels, more than %d on a side", width,
                 height, SKV_MAX_TEXTURE_SIDE);
    else if ((size_t)width * height * 4 > SKV_MAX_TEXTURE_BYTES)
        snprintf(im->texture_refused, sizeof im->texture_refused, "%ux%u texels, more than %zu MiB decoded", width,
                 height, SKV_MAX_TEXTURE_BYTES >> 20);
    else
        return 0;
    return 1;
}

/* An image file's bytes, taken over by the texture and kept for
 * import_decode_textures once stb_image has read a valid header from
 * them (freed here if it cannot). */
static int texture_from_owned(importer *im, unsigned char *bytes, int size, const char *key)
{
    int w, h, channels;
    if (size <= 0 || !stbi_info_from_memory(bytes, size, &w, &h, &channels) || w <= 0 || h <= 0 ||
        texture_too_large(im, w, h)) {
        free(bytes);
        return -1;
    }
    return add_texture(im, (skv_texture){.width = w, .height = h, .encoded = bytes, .encoded_size = size}, key);
}

static int texture_from_memory(importer *im, const unsigned char *bytes, int size, const char *key)
{
    unsigned char *copy = size > 0 ? malloc((size_t)size) : NULL;
    if (!copy) return -1;
    memcpy(copy, bytes, (size_t)size);
    return texture_from_owned(im, copy, size, key);
}

static int texture_from_embedded(importer *im, const struct aiTexture *tex, const char *key)
{
    if (tex->mHeight == 0) /* compressed (PNG, JPEG ...): mWidth is the byte size */
        return texture_from_memory(im, (const unsigned char *)tex->pcData, (int)tex->mWidth, key);

    /* Raw BGRA texels. */
    if (texture_too_large(im, tex->mWidth, tex->mHeight)) return -1;
    size_t count = (size_t)tex->mWidth * tex->mHeight;
    unsigned char *rgba = malloc(count * 4);
    for (size_t i = 0; rgba && i < count; i++) {
        rgba[i * 4 + 0] = tex->pcData[i].r;
        rgba[i * 4 + 1] = tex->pcData[i].g;
        rgba[i * 4 + 2] = tex->pcData[i].b;
        rgba[i * 4 + 3] = tex->pcData[i].a;
    }
    return add_texture(im, (skv_texture){.width = (int)tex->mWidth, .height = (int)tex->mHeight, .rgba = rgba}, key);
}

/* -2: no such file (the caller tries another name), -1: unreadable. */
static int texture_from_file(importer *im, const char *file, const char *key)
{
    if (access(file, F_OK) != 0) return -2;
    struct stat st;
    if (stat(file, &st) == 0 && !S_ISREG(st.st_mode)) { /* read_whole_file refuses it too, after opening */
        snprintf(im->texture_refused, sizeof im->texture_refused, "%s is not a regular file", file);
        return -1;
    }
    long size = 0;
    unsigned char *bytes = read_whole_file(file, &size);
    return bytes ? texture_from_owned(im, bytes, (int)size, key) : -1; /* no copy of the file */
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Resolves a material's texture reference: "*N" embedded, an embedded
 * texture whose file name matches, or a file beside the model. */
static int resolve_texture(importer *im, const char *reference)
{
    char ref[AI_MAXLEN + 1];
    snprintf(ref, sizeof ref, "%s", reference);
    for (char *c = ref; *c; c++)
        if (*c == '\\') *c = '/';

    for (int t = 0; t < im->model->texture_count; t++)
        if (strcmp(im->texture_keys[t], ref) == 0) return t;

    const struct aiScene *scene = im->scene;
    if (ref[0] == '*') {
        char *end;
        long index = strtol(ref + 1, &end, 10);
        if (*end == '\0' && index >= 0 && index < (long)scene->mNumTextures)
            return texture_from_embedded(im, scene->mTextures[index], ref);
        return -1;
    }
    for (unsigned i = 0; i < scene->mNumTextures; i++) {
        const struct aiTexture *tex = scene->mTextures[i];
        char name[AI_MAXLEN + 1];
        snprintf(name, sizeof name, "%.*s", (int)tex->mFilename.length, tex->mFilename.data);
        for (char *c = name; *c; c++)
            if (*c == '\\') *c = '/';
        if (name[0] && strcmp(base_name(name), base_name(ref)) == 0) return texture_from_embedded(im, tex, ref);
    }

    /* A file: as given relative to the model's folder, then by base name. */
    char file[4096];
    if (ref[0] == '/') snprintf(file, sizeof file, "%s", ref);
    else snprintf(file, sizeof file, "%s/%s", im->folder, ref);
    int t = texture_from_file(im, file, ref);
    if (t == -2) {
        snprintf(file, sizeof file, "%s/%s", im->folder, base_name(ref));
        t = texture_from_file(im, file, ref);
    }
    return t;
}

static skv_result convert_materials(importer *im)
{
    const struct aiScene *scene = im->scene;
    skv_model *model = im->model;
    int count = scene->mNumMaterials > 0 ? (int)scene->mNumMaterials : 1;
    model->materials = calloc((size_t)count, sizeof *model->materials);
    if (!model->materials) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    model->material_count = count;
    for (int i = 0; i < count; i++) {
        skv_material *mat = &model->materials[i];
        mat->texture = -1;
        mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = 0.7f;
        mat->diffuse[3] = 1.0f;
        if (i >= (int)scene->mNumMaterials) {
            mat->name = strdup("default");
            continue;
        }
        const struct aiMaterial *src = scene->mMaterials[i];
        struct aiString name;
        mat->name = aiGetMaterialString(src, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS
                        ? dup_name(&name, "material %d", i)
                        : dup_name(NULL, "material %d", i);
        struct aiColor4D color;
        if (aiGetMaterialColor(src, AI_MATKEY_COLOR_DIFFUSE, &color) == aiReturn_SUCCESS ||
            aiGetMaterialColor(src, AI_MATKEY_BASE_COLOR, &color) == aiReturn_SUCCESS) {
            mat->diffuse[0] = color.r, mat->diffuse[1] = color.g, mat->diffuse[2] = color.b;
            mat->diffuse[3] = color.a;
        }
        struct aiString path;
        if (aiGetMaterialTexture(src, aiTextureType_DIFFUSE, 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) == aiReturn_SUCCESS ||
            aiGetMaterialTexture(src, aiTextureType_BASE_COLOR, 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) == aiReturn_SUCCESS) {
            char ref[AI_MAXLEN + 1];
            snprintf(ref, sizeof ref, "%.*s", (int)path.length, path.data);
            im->texture_refused[0] = '\0';
            mat->texture = resolve_texture(im, ref);
            if (mat->texture < 0 && im->texture_refused[0])
                model_warn(model, "texture '%s' of material '%s' not loaded: %s; using the material colour", ref,
                           mat->name, im->texture_refused);
            else if (mat->texture < 0)
                model_warn(model, "texture '%s' of material '%s' could not be loaded; using the material colour", ref, mat->name);
        }
    }
    return SKV_OK;
}

/* --- clips --------------------------------------------------------------- */

/* Stable insertion sort by time, for the rare file whose keys are out of
 * order: keys sharing a time (a step) keep their order. */
#define SORT_KEYS_BY_TIME(keys, n)                                \
    for (int i_ = 1; i_ < (n); i_++) {                            \
        __typeof__((keys)[0]) key_ = (keys)[i_];                  \
        int j_ = i_;                                              \
        for (; j_ > 0 && (keys)[j_ - 1].time > key_.time; j_--)   \
            (keys)[j_] = (keys)[j_ - 1];                          \
        (keys)[j_] = key_;                                        \
    }

/* Copies vector keys, dropping non-finite ones and sorting by time. With
 * none left, one key holding `fallback`. Returns the count, -1 on OOM. */
/* Keys that all hold the same value say what one key says at every time:
 * the caller keeps one, and a channel of single keys is fixed (anim.h). */
static int all_keys_equal(const void *keys, int n, size_t stride, size_t value_offset, size_t value_size)
{
    const char *first = (const char *)keys + value_offset;
    for (int i = 1; i < n; i++)
        if (memcmp(first, first + (size_t)i * stride, value_size) != 0) return 0;
    return 1;
}

static int copy_vec3_keys(const struct aiVectorKey *src, unsigned count, const float fallback[3],
                          skv_vec3_key **out, int *unsorted, int *dropped)
{
    *out = malloc((count ? count : 1) * sizeof **out);
    if (!*out) return -1;
    int n = 0;
    for (unsigned i = 0; i < count; i++) {
        const struct aiVectorKey *k = &src[i];
        if (!isfinite(k->mTime) || !(fabsf(k->mValue.x) <= SKV_MAX_MAGNITUDE) ||
            !(fabsf(k->mValue.y) <= SKV_MAX_MAGNITUDE) || !(fabsf(k->mValue.z) <= SKV_MAX_MAGNITUDE)) {
            (*dropped)++; /* non-finite, or overflows once multiplied */
            continue;
        }
        if (n > 0 && k->mTime < (*out)[n - 1].time) *unsorted = 1;
        skv_vec3_key *key = &(*out)[n++];
        key->time = k->mTime;
        key->value[0] = k->mValue.x, key->value[1] = k->mValue.y, key->value[2] = k->mValue.z;
        key->zero = 0.0f;
    }
    if (n == 0) (*out)[n++] = (skv_vec3_key){0.0, {fallback[0], fallback[1], fallback[2]}, 0.0f};
    if (*unsorted) SORT_KEYS_BY_TIME(*out, n);
    return all_keys_equal(*out, n, sizeof **out, offsetof(skv_vec3_key, value), sizeof (*out)->value) ? 1 : n;
}

static int copy_quat_keys(const struct aiQuatKey *src, unsigned count, const float fallback[4],
                          skv_quat_key **out, int *unsorted, int *dropped)
{
    *out = malloc((count ? count : 1) * sizeof **out);
    if (!*out) return -1;
    int n = 0;
    for (unsigned i = 0; i < count; i++) {
        const struct aiQuatKey *k = &src[i];
        const struct aiQuaternion *q = &k->mValue;
        if (!isfinite(k->mTime) || !(fabsf(q->w) <= SKV_MAX_MAGNITUDE) || !(fabsf(q->x) <= SKV_MAX_MAGNITUDE) ||
            !(fabsf(q->y) <= SKV_MAX_MAGNITUDE) || !(fabsf(q->z) <= SKV_MAX_MAGNITUDE)) {
            (*dropped)++; /* squaring these to normalise overflows */
            continue;
        }
        if (n > 0 && k->mTime < (*out)[n - 1].time) *unsorted = 1;
        (*out)[n++] = (skv_quat_key){k->mTime, {q->x, q->y, q->z, q->w}};
    }
    if (n == 0) (*out)[n++] = (skv_quat_key){0.0, {fallback[0], fallback[1], fallback[2], fallback[3]}};
    if (*unsorted) SORT_KEYS_BY_TIME(*out, n);
    return all_keys_equal(*out, n, sizeof **out, offsetof(skv_quat_key, value), sizeof (*out)->value) ? 1 : n;
}

/* --- morph targets --------------------------------------------------------- */

/* Assimp (5.2.5 and 5.4) stores each aiAnimMesh as the whole morphed
 * mesh (base + delta), aligned with the base mesh's vertices through
 * Triangulate and JoinIdenticalVertices; the model keeps deltas, which
 * is what both blends add up. Mesh instances come in convert_meshes'
 * order (nodes parent-first, then each node's meshes). */
static skv_result convert_morph_targets(importer *im)
{
    const struct aiScene *scene = im->scene;
    skv_model *model = im->model;
    int targets = 0, pairs = 0, mesh_index = 0;
    for (int pass = 0; pass < 2; pass++) {
        mesh_index = 0;
        for (int n = 0; n < model->skeleton.node_count; n++) {
            const struct aiNode *node = im->nodes[n];
            for (unsigned i = 0; i < node->mNumMeshes; i++) {
                if (node->mMeshes[i] >= scene->mNumMeshes) continue;
                const struct aiMesh *src = scene->mMeshes[node->mMeshes[i]];
                if (!is_triangle_mesh(src) || mesh_index >= model->mesh_count) continue;
                skv_mesh *mesh = &model->meshes[mesh_index++];
                if (src->mNumAnimMeshes == 0 || !src->mAnimMeshes) continue;
                if (pass == 0) {
                    if ((long)targets + src->mNumAnimMeshes > INT32_MAX / 2 ||
                        (long)pairs + (long)src->mNumAnimMeshes * mesh->vertex_count > INT32_MAX / 8)
                        return skv_fail(im->err, SKV_ERR_CONTENT, "too many morph targets");
                    mesh->first_morph_target = targets;
                    mesh->morph_target_count = (int)src->mNumAnimMeshes;
                    mesh->morph_delta_base = pairs;
                    targets += (int)src->mNumAnimMeshes;
                    pairs += (int)src->mNumAnimMeshes * mesh->vertex_count;
                    continue;
                }
                int misfits = 0;
                for (int t = 0; t < mesh->morph_target_count; t++) {
                    const struct aiAnimMesh *am = src->mAnimMeshes[t];
                    int g = mesh->first_morph_target + t;
                    if (am && am->mName.length > 0) model->morph_target_names[g] = dup_name(&am->mName, "%d", g);
                    model->morph_default_weights[g] = am && isfinite(am->mWeight) ? am->mWeight : 0.0f;
                    /* A target that does not line up with the mesh moves nothing (its
                     * deltas stay 0) but keeps its index, which the clips' keys use. */
                    if (!am || !am->mVertices || am->mNumVertices != src->mNumVertices) {
                        misfits++;
                        continue;
                    }
                    for (int v = 0; v < mesh->vertex_count; v++) {
                        size_t at = ((size_t)mesh->morph_delta_base + (size_t)t * mesh->vertex_count + v) * 3;
                        const struct aiVector3D *p = &am->mVertices[v], *b = &src->mVertices[v];
                        float d[3] = {p->x - b->x, p->y - b->y, p->z - b->z};
                        for (int a = 0; a < 3; a++)
                            model->morph_position_deltas[at + a] = isfinite(d[a]) ? d[a] : 0.0f;
                        if (!am->mNormals || !src->mNormals) continue;
                        const struct aiVector3D *q = &am->mNormals[v], *c = &src->mNormals[v];
                        float e[3] = {q->x - c->x, q->y - c->y, q->z - c->z};
                        for (int a = 0; a < 3; a++) model->morph_normal_deltas[at + a] = isfinite(e[a]) ? e[a] : 0.0f;
                    }
                }
                if (misfits)
                    model_warn(model, "mesh '%s': %d morph target(s) do not match its %d vertices; they move nothing",
                               mesh->name, misfits, mesh->vertex_count);
            }
        }
        if (pass == 0) {
            if (targets == 0) return SKV_OK;
            model->morph_target_count = targets;
            model->morph_delta_count = pairs;
            model->morph_target_names = calloc((size_t)targets, sizeof *model->morph_target_names);
            model->morph_default_weights = calloc((size_t)targets, sizeof(float));
            model->morph_position_deltas = calloc((size_t)pairs * 3 + 3, sizeof(float));
            model->morph_normal_deltas = calloc((size_t)pairs * 3 + 3, sizeof(float));
            if (!model->morph_target_names || !model->morph_default_weights || !model->morph_position_deltas ||
                !model->morph_normal_deltas)
                return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        }
    }
    return SKV_OK;
}

/* The clip's morph weight channels (aiMeshMorphAnim). Assimp's glTF
 * reader names each after the node that holds the mesh (5.2.5 and 5.4);
 * a channel drives every morphed mesh under that node (a glTF mesh of
 * several primitives is several meshes), or else the mesh of that name.
 * Keys name targets by index, sparsely: the others weigh 0 at that key.
 * Returns -1 when memory runs out. */
static int convert_morph_channels(importer *im, const struct aiAnimation *src, skv_clip *clip, double *last_key)
{
    const skv_model *owner = im->existing ? im->existing : im->model;
    if (src->mNumMorphMeshChannels == 0 || !src->mMorphMeshChannels || owner->morph_target_count == 0) return 0;
    int unmatched = 0, unsorted = 0;
    for (unsigned c = 0; c < src->mNumMorphMeshChannels; c++) {
        const struct aiMeshMorphAnim *ma = src->mMorphMeshChannels[c];
        if (!ma || ma->mNumKeys == 0 || !ma->mKeys) continue;
        char name[AI_MAXLEN + 1];
        snprintf(name, sizeof name, "%.*s", (int)ma->mName.length, ma->mName.data);
        int node = shgeti(im->node_by_name, name) >= 0 ? shget(im->node_by_name, name) : -1;
        int matched = 0;
        for (int pass = 0; pass < 2 && !matched; pass++) {
            for (int m = 0; m < owner->mesh_count; m++) {
                const skv_mesh *mesh = &owner->meshes[m];
                if (mesh->morph_target_count == 0) continue;
                if (pass == 0 ? mesh->node != node : strcmp(mesh->name, name) != 0) continue;
                int already = 0;
                for (int k = 0; k < clip->morph_channel_count; k++) already |= clip->morph_channels[k].mesh == m;
                if (already) continue;
                skv_morph_channel *grown = realloc(clip->morph_channels,
                                                   (size_t)(clip->morph_channel_count + 1) * sizeof *grown);
                if (!grown) return -1;
                clip->morph_channels = grown;
                skv_morph_channel *ch = &grown[clip->morph_channel_count++];
                int count = mesh->morph_target_count, keys = (int)ma->mNumKeys;
                *ch = (skv_morph_channel){.mesh = m, .key_count = keys};
                ch->times = malloc((size_t)keys * sizeof *ch->times);
                ch->weights = calloc((size_t)keys * (size_t)count, sizeof *ch->weights);
                if (!ch->times || !ch->weights) return -1;
                for (int k = 0; k < keys; k++) {
                    const struct aiMeshMorphKey *mk = &ma->mKeys[k];
                    ch->times[k] = isfinite(mk->mTime) ? mk->mTime : 0.0;
                    for (unsigned j = 0; j < mk->mNumValuesAndWeights && mk->mValues && mk->mWeights; j++)
                        if (mk->mValues[j] < (unsigned)count && isfinite(mk->mWeights[j]))
                            ch->weights[(size_t)k * count + mk->mValues[j]] = (float)mk->mWeights[j];
                }
                /* Keys out of time order: insertion sort, rows move with their times. */
                for (int k = 1; k < keys; k++) {
                    for (int j = k; j > 0 && ch->times[j] < ch->times[j - 1]; j--) {
                        double t = ch->times[j];
                        ch->times[j] = ch->times[j - 1], ch->times[j - 1] = t;
                        for (int w = 0; w < count; w++) {
                            float x = ch->weights[(size_t)j * count + w];
                            ch->weights[(size_t)j * count + w] = ch->weights[(size_t)(j - 1) * count + w];
                            ch->weights[(size_t)(j - 1) * count + w] = x;
                        }
                        unsorted = 1;
                    }
                }
                *last_key = fmax(*last_key, ch->times[keys - 1]);
                matched = 1;
            }
        }
        unmatched += !matched;
    }
    if (unmatched)
        model_warn(im->model, "clip '%s': %d morph channel(s) name no mesh with morph targets; ignored", clip->name,
                   unmatched);
    if (unsorted) model_warn(im->model, "clip '%s': morph keys out of time order; sorted", clip->name);
    return 0;
}

static skv_result convert_clips(importer *im)
{
    const struct aiScene *scene = im->anim_scene;
    skv_model *model = im->model;
    skv_skeleton *sk = &model->skeleton;
    if (scene->mNumAnimations == 0) return SKV_OK;
    model->clips = calloc(scene->mNumAnimations, sizeof *model->clips);
    if (!model->clips) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");

    for (unsigned a = 0; a < scene->mNumAnimations; a++) {
        const struct aiAnimation *src = scene->mAnimations[a];
        skv_clip *clip = &model->clips[model->clip_count++];
        clip->name = dup_name(&src->mName, "clip %d", (int)a);
        clip->file_channels = (int)src->mNumChannels;
        clip->ticks_per_second = src->mTicksPerSecond > 0.0 && isfinite(src->mTicksPerSecond)
                                     ? src->mTicksPerSecond : 25.0;
        clip->node_channel = malloc((size_t)sk->node_count * sizeof *clip->node_channel);
        clip->channels = calloc(src->mNumChannels ? src->mNumChannels : 1, sizeof *clip->channels);
        if (!clip->node_channel || !clip->channels || !clip->name)
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        for (int n = 0; n < sk->node_count; n++) clip->node_channel[n] = -1;

        int missing = 0, unsorted = 0, dropped = 0;
        double last_key = 0.0;
        for (unsigned c = 0; c < src->mNumChannels; c++) {
            const struct aiNodeAnim *na = src->mChannels[c];
            char name[AI_MAXLEN + 1];
            snprintf(name, sizeof name, "%.*s", (int)na->mNodeName.length, na->mNodeName.data);
            int node = channel_node(im, name);
            if (node < 0) {
                missing++;
                continue;
            }
            if (im->folded && im->folded[node]) clip->notes |= SKV_CLIP_PIVOTS_FOLDED;
            if (clip->node_channel[node] >= 0) continue; /* second channel for one node */

            /* Rest pose values fill key arrays the file left empty. */
            float rest_t[3], rest_q[4], rest_s[3];
            anim_decompose(sk->rest_local[node], rest_t, rest_q, rest_s);

            skv_channel *ch = &clip->channels[clip->channel_count];
            ch->node = node;
            ch->position_count = copy_vec3_keys(na->mPositionKeys, na->mNumPositionKeys, rest_t, &ch->positions, &unsorted,
                                                &dropped);
            ch->rotation_count = copy_quat_keys(na->mRotationKeys, na->mNumRotationKeys, rest_q, &ch->rotations, &unsorted,
                                                &dropped);
            ch->scale_count = copy_vec3_keys(na->mScalingKeys, na->mNumScalingKeys, rest_s, &ch->scales, &unsorted, &dropped);
            clip->channel_count++;
            if (ch->position_count < 0 || ch->rotation_count < 0 || ch->scale_count < 0)
                return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
            clip->node_channel[node] = clip->channel_count - 1;
            last_key = fmax(last_key, ch->positions[ch->position_count - 1].time);
            last_key = fmax(last_key, ch->rotations[ch->rotation_count - 1].time);
            last_key = fmax(last_key, ch->scales[ch->scale_count - 1].time);
        }
        if (convert_morph_channels(im, src, clip, &last_key) != 0)
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        double file_duration = im->file_durations ? im->file_durations[a] : src->mDuration;
        clip->duration_ticks = file_duration;
        if (!(clip->duration_ticks > 0.0) || !isfinite(clip->duration_ticks)) {
            clip->duration_ticks = last_key;
            if (last_key > 0.0)
                model_warn(model, "clip '%s' has no valid duration; using its last key (%g ticks)", clip->name, last_key);
        } else if (last_key > clip->duration_ticks) {
            /* Keys past the end (B3D frame counts, hand-edited files):
             * played to the last key, as engines do. */
            model_warn(model, "clip '%s': keys run past its duration (%g ticks); played to the last key (%g)",
                       clip->name, clip->duration_ticks, last_key);
            clip->duration_ticks = last_key;
            clip->notes |= SKV_CLIP_KEYS_PAST_END;
        }
        if (missing)
            model_warn(model, "clip '%s': %d channel(s) name nodes that do not exist; ignored", clip->name, missing);
        if (unsorted)
            model_warn(model, "clip '%s': keys out of time order; sorted", clip->name);
        if (dropped)
            model_warn(model, "clip '%s': %d key(s) non-finite or beyond 1e15 (they overflow when multiplied); "
                       "dropped", clip->name, dropped);
    }
    return SKV_OK;
}

/* A one-channel clip's time line (ticks per second, duration) and its
 * place in the file, to sort by. */
typedef struct clip_time_line {
    double ticks_per_second, duration_ticks;
    int clip;
} clip_time_line;

static int by_time_line(const void *pa, const void *pb)
{
    const clip_time_line *a = pa, *b = pb;
    if (a->ticks_per_second != b->ticks_per_second) return a->ticks_per_second < b->ticks_per_second ? -1 : 1;
    if (a->duration_ticks != b->duration_ticks) return a->duration_ticks < b->duration_ticks ? -1 : 1;
    return (a->clip > b->clip) - (a->clip < b->clip);
}

/* Files (Collada above all) often hold one clip per animated node, each a
 * single channel on the same time line: they are one motion. Such clips
 * become one clip; different time lines stay apart. In file order, a
 * one-channel clip joins the earliest one-channel clip before it on its
 * time line that has not joined another and does not animate its node
 * yet; else it starts a clip of its own. The clips left keep their order.
 * Grouped by sorting, with a cursor per node into the group's clips that
 * others join, so a file of 100,000 such clips is not 10^10 comparisons. */
static skv_result merge_single_channel_clips(importer *im)
{
    skv_model *model = im->model;
    int n = model->clip_count, singles = 0;
    /* A clip that also moves morph targets is a motion of its own. */
    for (int c = 0; c < n; c++) singles += model->clips[c].channel_count == 1 && !model->clips[c].morph_channel_count;
    if (singles < 2) return SKV_OK;
    int node_count = model->skeleton.node_count;
    clip_time_line *order = malloc((size_t)singles * sizeof *order);
    int *joins = malloc((size_t)n * sizeof *joins);      /* per clip: the clip it joins, or -1 */
    int *members = malloc((size_t)n * sizeof *members);  /* per clip: channels it will hold */
    int *bases = malloc((size_t)singles * sizeof *bases); /* this group's clips that others may join */
    int *cursor = calloc((size_t)(node_count > 0 ? node_count : 1), sizeof *cursor); /* per node, into bases */
    if (!order || !joins || !members || !bases || !cursor) {
        free(order), free(joins), free(members), free(bases), free(cursor);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int c = 0, k = 0; c < n; c++) {
        const skv_clip *clip = &model->clips[c];
        joins[c] = -1, members[c] = clip->channel_count;
        if (clip->channel_count == 1 && !clip->morph_channel_count)
            order[k++] = (clip_time_line){clip->ticks_per_second, clip->duration_ticks, c};
    }
    qsort(order, (size_t)singles, sizeof *order, by_time_line);

    int any = 0;
    for (int g = 0; g < singles;) {
        int end = g + 1;
        while (end < singles && order[end].ticks_per_second == order[g].ticks_per_second &&
               order[end].duration_ticks == order[g].duration_ticks)
            end++;
        int base_count = 0;
        for (int i = g; i < end; i++) {
            int c = order[i].clip, node = model->clips[c].channels[0].node;
            /* The bases before cursor[node] all animate `node` already:
             * a base never loses a node, so the cursor only moves on. */
            int k = cursor[node];
            while (k < base_count && model->clips[bases[k]].node_channel[node] >= 0) k++;
            cursor[node] = k;
            if (k < base_count) {
                int b = bases[k];
                joins[c] = b;
                model->clips[b].node_channel[node] = members[b]++;
                any = 1;
            } else {
                bases[base_count++] = c;
            }
        }
        /* Reset only what this group touched. */
        for (int i = g; i < end; i++) cursor[model->clips[order[i].clip].channels[0].node] = 0;
        g = end;
    }
    free(order), free(bases), free(cursor);
    if (!any) {
        free(joins), free(members);
        return SKV_OK;
    }

    /* Channels move over in file order, which is the order they joined in. */
    skv_channel **merged = calloc((size_t)n, sizeof *merged);
    if (!merged) {
        free(joins), free(members);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int c = 0; c < n; c++) {
        if (joins[c] >= 0 || members[c] == model->clips[c].channel_count) continue;
        merged[c] = malloc((size_t)members[c] * sizeof **merged);
        if (!merged[c]) {
            for (int k = 0; k < c; k++) free(merged[k]);
            free(merged), free(joins), free(members);
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        }
        merged[c][0] = model->clips[c].channels[0];
        members[c] = 1; /* from here: channels filled */
    }
    for (int c = 0; c < n; c++) {
        skv_clip *o = &model->clips[c];
        int b = joins[c];
        if (b < 0) continue;
        merged[b][members[b]++] = o->channels[0]; /* keys move over */
        free(o->channels);
        free(o->node_channel);
        free(o->name);
    }
    int write = 0;
    for (int c = 0; c < n; c++) {
        skv_clip *o = &model->clips[c];
        if (joins[c] >= 0) continue;
        if (merged[c]) {
            free(o->channels);
            o->channels = merged[c];
            o->channel_count = o->merged_from = members[c];
        }
        model->clips[write++] = *o;
    }
    free(merged), free(joins), free(members);
    model->clip_count = write;
    return SKV_OK;
}

/* --- entry point --------------------------------------------------------- */

/* --- texture decoding ---------------------------------------------------- */

typedef struct decode_job {
    skv_texture *textures;
    int count;
    int next; /* shared; taken under the lock */
    int failed;
    pthread_mutex_t lock;
} decode_job;

static void *decode_worker(void *arg)
{
    decode_job *job = arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        int t = job->next < job->count ? job->next++ : -1;
        pthread_mutex_unlock(&job->lock);
        if (t < 0) return NULL;
        skv_texture *tex = &job->textures[t];
        if (!tex->encoded) continue;
        int w, h, channels;
        /* libstb's stb_image allocates with malloc; it keeps no state
         * between calls (the flip setting is never changed here). */
        unsigned char *rgba = stbi_load_from_memory(tex->encoded, tex->encoded_size, &w, &h, &channels, 4);
        free(tex->encoded);
        tex->encoded = NULL;
        tex->encoded_size = 0;
        if (rgba && w == tex->width && h == tex->height) {
            tex->rgba = rgba;
        } else {
            free(rgba);
            pthread_mutex_lock(&job->lock);
            job->failed++;
            pthread_mutex_unlock(&job->lock);
        }
    }
}

int import_decode_textures(skv_model *model)
{
    decode_job job = {.textures = model->textures, .count = model->texture_count};
    int pending = 0;
    for (int t = 0; t < model->texture_count; t++) pending += model->textures[t].encoded != NULL;
    if (pending == 0) return 0;
    pthread_mutex_init(&job.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = (int)(cores < 1 ? 1 : cores > 8 ? 8 : cores);
    if (workers > pending) workers = pending;
    pthread_t threads[8];
    int started = 0;
    for (int i = 1; i < workers; i++)
        if (pthread_create(&threads[started], NULL, decode_worker, &job) == 0) started++;
    decode_worker(&job); /* this thread works too; alone if none started */
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&job.lock);
    if (job.failed)
        model_warn(model, "%d texture(s) could not be decoded; their materials are drawn untextured", job.failed);
    return job.failed;
}

const char *import_assimp_version(void)
{
    static char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    return version;
}

static void importer_free(importer *im)
{
    free(im->folder);
    free(im->nodes);
    free(im->node_bone);
    shfree(im->node_by_name);
    shfree(im->joint_by_name);
    shfree(im->node_by_bare);
    free(im->folded);
    shfree(im->bone_by_name);
    if (im->texture_keys) {
        for (int t = 0; t < im->model->texture_count; t++) free(im->texture_keys[t]);
        free(im->texture_keys);
    }
}

/* More distinct bone names over the scene's meshes than 16-bit palette
 * indices reach: each is at least one palette entry. Asked before any
 * work on the bones, and before Assimp's validation, which compares every
 * bone name of a mesh with every other (70,000 bones: tens of seconds). */
static int too_many_bones(const struct aiScene *scene)
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
static skv_result convert_scene(const struct aiScene *scene, const struct aiScene *anim_scene,
                                const double *file_durations, const char *path,
                                const skv_import_desc *desc, skv_model *model, skv_error *err)
{
    memset(model, 0, sizeof *model);
    model->influence_slots = desc && desc->influences == 8 ? 8 : SKV_DEFAULT_INFLUENCES;
    model->influence_lists = desc && desc->influences == SKV_INFLUENCES_ALL;
    importer im = {.scene = scene, .anim_scene = anim_scene, .file_durations = file_durations,
                   .model = model, .err = err,
                   .fbx_offset_fix = fbx_offset_fix_applies(path), .fbx_bind_fix = fbx_bind_fix_applies(path)};
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
    if (r == SKV_OK) r = fold_fbx_pivots(&im);
    if (r == SKV_OK) r = has_triangle_meshes(scene) ? convert_meshes(&im) : convert_skeleton_only(&im);
    if (r == SKV_OK && im.huge_offsets)
        model_warn(model, "%d bone bind matrix(es) hold values beyond 1e15 (they overflow when multiplied); "
                   "replaced by identity", im.huge_offsets);
    if (r == SKV_OK && has_triangle_meshes(scene)) r = convert_morph_targets(&im);
    if (r == SKV_OK) r = convert_materials(&im);
    if (r == SKV_OK) r = convert_clips(&im);
    if (r == SKV_OK) r = merge_single_channel_clips(&im);
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
    return convert_scene(scene, scene, NULL, path, desc, model, err);
}

static int ends_with_nocase(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Assimp loads an .md5mesh's clip from "<base>.md5anim" beside it, spelt
 * exactly so. Finds one whose name differs only in case; 0 if none. */
static int find_md5anim(const char *mesh_path, char *out, size_t size)
{
    char folder[2048];
    snprintf(folder, sizeof folder, "%s", mesh_path);
    char *slash = strrchr(folder, '/');
    const char *file = slash ? slash + 1 : mesh_path;
    if (slash) *slash = '\0';
    else snprintf(folder, sizeof folder, ".");
    size_t base_len = strlen(file) - strlen(".md5mesh");
    DIR *dir = opendir(folder);
    if (!dir) return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(dir));) {
        if (strlen(e->d_name) == base_len + strlen(".md5anim") && strncasecmp(e->d_name, file, base_len) == 0 &&
            ends_with_nocase(e->d_name, ".md5anim")) {
            snprintf(out, size, "%s/%s", folder, e->d_name);
            found = 1;
        }
    }
    closedir(dir);
    return found;
}

/* Assimp 5.4's Collada parser reads each <vcount> number with no whitespace
 * skipped before the first one: a list that starts with a space (as
 * library_animation_clips.dae's does) reads as 0 weights for vertex 0 and
 * then gives every vertex the count of the one before it, so all weights
 * land on the wrong vertices, silently. Whitespace in an XML list means
 * nothing; such a file is read from a copy with it removed. NULL (and
 * nothing to do) when no <vcount> starts with whitespace. */
static unsigned char *collada_trimmed_vcounts(const char *path, long *out_size)
{
    if (!(aiGetVersionMajor() == 5 && aiGetVersionMinor() == 4) || !ends_with_nocase(path, ".dae")) return NULL;
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
static int collada_has_curves(const char *path)
{
    if (!ends_with_nocase(path, ".dae")) return 0;
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

/* Assimp's post-processing for every file. SortByPType splits point and
 * line primitives into meshes of their own; convert_meshes skips those and
 * says so (a file of lines only is then "no triangle meshes", not an
 * opaque Assimp error). */
static const unsigned import_flags = aiProcess_Triangulate | aiProcess_GenSmoothNormals |
                                     aiProcess_JoinIdenticalVertices | aiProcess_ValidateDataStructure |
                                     aiProcess_SortByPType | aiProcess_FlipUVs;

/* Assimp tells .md5anim from .md5mesh by the extension, case-sensitively,
 * so the file is handed over from memory with the right type hint. */
static const struct aiScene *import_md5anim(const char *path)
{
    long size = 0;
    unsigned char *bytes = read_whole_file(path, &size);
    const struct aiScene *scene = bytes ? aiImportFileFromMemory((const char *)bytes, (unsigned)size, 0, "md5anim") : NULL;
    free(bytes);
    return scene;
}

static skv_result guarded_read(const char *path, const unsigned char *bytes, long size, const char *hint,
                               unsigned flags, const skv_import_desc *desc, skv_error *err);

/* import_md5anim, after the same guarded read as the mesh (a case-variant
 * name is found by skinview, so Assimp's own guarded read of the mesh never
 * saw it). NULL with `why` filled when the guarded read failed. */
static const struct aiScene *import_md5anim_guarded(const char *path, const skv_import_desc *desc, skv_error *why)
{
    if (!(desc && desc->trusted)) {
        long size = 0;
        unsigned char *bytes = read_whole_file(path, &size);
        if (!bytes) {
            skv_fail(why, SKV_ERR_FILE, "cannot read it");
            return NULL;
        }
        skv_result r = guarded_read(path, bytes, size, "md5anim", 0, desc, why);
        free(bytes);
        if (r != SKV_OK) return NULL;
    }
    return import_md5anim(path);
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

static int skip_join(const struct aiScene *scene)
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

/* Reads a file (or `bytes`, with the extension `hint`) the way both the
 * guarded child and the real import do. Assimp's validation rejects a clip
 * whose keys run past its duration (B3D files such as Minetest's
 * character.b3d: their ANIM chunk counts frames from 0, their keys from
 * 1), although every engine plays them and the conversion repairs exactly
 * that. So the file is read without post-processing, such durations are
 * extended to the last key, and only then is it validated and processed
 * with `flags`. `durations` (may be NULL) gets a malloc'd copy of the
 * durations the file gave, one per clip, when any was extended (else
 * NULL); the conversion warns about those. On failure returns NULL with
 * Assimp's message in aiGetErrorString(). A scene of too many bones comes
 * back as read, unprocessed: convert_scene refuses it first thing. */
/* Files this big are looked at before Assimp post-processes them
 * (too_many_bones, skip_join): on them a step can be quadratic. */
enum { PEEK_FILE_BYTES = 4 << 20 };

static const struct aiScene *import_once(const char *path, const unsigned char *bytes, long size, const char *hint,
                                         unsigned flags)
{
    return bytes ? aiImportFileFromMemory((const char *)bytes, (unsigned)size, flags, hint) : aiImportFile(path, flags);
}

static const struct aiScene *read_scene(const char *path, const unsigned char *bytes, long size, const char *hint,
                                        unsigned flags, double **durations)
{
    if (durations) *durations = NULL;
    struct stat st;
    long file_size = bytes ? size : stat(path, &st) == 0 ? (long)st.st_size : 0;
    /* Most files: one call, post-processing included. (aiApplyPostProcessing
     * is kept for the files below that need it: when one of its steps
     * fails, Assimp 5.2.5's C API releases a scene its importer has already
     * deleted, and crashes.) */
    if (file_size < PEEK_FILE_BYTES) {
        const struct aiScene *scene = import_once(path, bytes, size, hint, flags);
        if (scene || !strstr(aiGetErrorString(), "is larger than aiAnimation::mDuration")) return scene;
    }
    const struct aiScene *scene = import_once(path, bytes, size, hint, 0);
    if (!scene) return NULL;
    /* The conversion refuses it before looking further (too_many_bones):
     * handed over unprocessed, without Assimp's validation, quadratic in
     * a mesh's bones. */
    if (too_many_bones(scene)) return scene;
    double *file_durations = NULL;
    for (unsigned a = 0; a < scene->mNumAnimations; a++) {
        struct aiAnimation *anim = scene->mAnimations[a]; /* the scene is ours until released */
        if (!anim || !(anim->mDuration > 0.0)) continue;   /* the conversion fills those in */
        double last = last_key_time(anim);
        if (!(last > anim->mDuration)) continue;
        if (!file_durations) {
            file_durations = malloc(scene->mNumAnimations * sizeof *file_durations);
            if (!file_durations) break;
            for (unsigned i = 0; i < scene->mNumAnimations; i++)
                file_durations[i] = scene->mAnimations[i] ? scene->mAnimations[i]->mDuration : 0.0;
        }
        anim->mDuration = last;
    }
    if (skip_join(scene)) flags &= ~(unsigned)aiProcess_JoinIdenticalVertices;
    if (!file_durations) {
        /* Nothing to repair: read again in one call, which fails cleanly. */
        aiReleaseImport(scene);
        return import_once(path, bytes, size, hint, flags);
    }
    const struct aiScene *processed = aiApplyPostProcessing(scene, flags);
    if (!processed) {
        free(file_durations);
        return NULL;
    }
    if (durations) *durations = file_durations;
    else free(file_durations);
    return processed;
}

/* Memory Assimp may take to read a file: generous for real models (Assimp
 * needs a small multiple of the file), far below what a broken header can
 * ask for; --import-memory sets it. */
static rlim_t import_memory_budget(const char *path, const skv_import_desc *desc)
{
    if (desc && desc->memory_limit_mb > 0) return (rlim_t)desc->memory_limit_mb << 20;
    struct stat st;
    rlim_t file = stat(path, &st) == 0 ? (rlim_t)st.st_size : 0;
    rlim_t limit = (rlim_t)2 << 30; /* 2 GiB */
    if (file * 16 > limit) limit = file * 16;
    return limit;
}

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
} memory_bound;

static void memory_bound_begin(memory_bound *bound, const char *path, const skv_import_desc *desc)
{
    bound->active = 0;
#ifndef SKV_SANITIZE
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1) pages = 0;
        fclose(f);
    }
    if (pages <= 0 || getrlimit(RLIMIT_AS, &bound->saved) != 0) return;
    rlim_t want = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + import_memory_budget(path, desc);
    if (bound->saved.rlim_cur != RLIM_INFINITY && bound->saved.rlim_cur <= want) return; /* tighter already */
    if (bound->saved.rlim_max != RLIM_INFINITY && want > bound->saved.rlim_max) return;
    struct rlimit limit = {want, bound->saved.rlim_max};
    bound->active = setrlimit(RLIMIT_AS, &limit) == 0;
#else
    (void)path, (void)desc;
#endif
}

static void memory_bound_end(memory_bound *bound)
{
    if (bound->active) setrlimit(RLIMIT_AS, &bound->saved);
    bound->active = 0;
}

/* Assimp can quote the rest of a broken file in its message (a mangled
 * SMD: ~900 KB). The error line keeps its start: this many bytes from the
 * guarded child, shown as at most MESSAGE_CHARS characters. Any message
 * cut at GUARD_MESSAGE_BYTES is longer than MESSAGE_CHARS characters (a
 * character is at most 4 bytes), so the line shows that it was cut. */
enum { MESSAGE_CHARS = 300, GUARD_MESSAGE_BYTES = 4 * MESSAGE_CHARS + 16 };

/* "cannot import: " and Assimp's message, cut and escaped to one line. */
static skv_result fail_import(skv_error *err, const char *message)
{
    if (strstr(message, "bad_alloc"))
        return skv_fail(err, SKV_ERR_IMPORT, "cannot import: Assimp ran out of the memory it may use for one file "
                        "(--import-memory)");
    char line[sizeof(skv_error) - sizeof "cannot import: "]; /* so the "…" is not cut off */
    return skv_fail(err, SKV_ERR_IMPORT, "cannot import: %s", text_line(line, sizeof line, message, MESSAGE_CHARS));
}

enum { WATCH_TIMED_OUT = -1 };

/* Reads the guarded child's message from `fd` while the child runs, until
 * end of file (the child has exited: it is the only writer) or `timeout`
 * seconds; the child would block writing a message longer than the pipe
 * holds if nobody read it. Keeps the first `size` - 1 bytes in `why`.
 * Returns 0, WATCH_TIMED_OUT, or an errno value. */
static int watch_child(int fd, double timeout, char *why, size_t size)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t kept = 0;
    why[0] = '\0';
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = timeout - ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec));
        if (left <= 0.0) return WATCH_TIMED_OUT;
        struct pollfd watched = {.fd = fd, .events = POLLIN};
        int ready = poll(&watched, 1, left >= INT_MAX / 1000 ? INT_MAX : (int)ceil(left * 1000.0));
        if (ready < 0 && errno != EINTR) return errno;
        if (ready <= 0) continue; /* interrupted, or the time is up: checked above */
        char chunk[4096];
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got < 0) return errno;
        if (got == 0) return 0;
        size_t keep = size - 1 - kept < (size_t)got ? size - 1 - kept : (size_t)got;
        memcpy(why + kept, chunk, keep);
        kept += keep;
        why[kept] = '\0';
    }
}

/* Checks the guarded child makes on a scene Assimp returned, so that the
 * parent never reads it: NULL if it may, else why not. An incomplete scene
 * (AI_SCENE_FLAGS_INCOMPLETE) with neither meshes nor clips is Assimp
 * giving up without an error. A scene holding more than 64 bytes of mesh
 * data per byte of the file and over 256 MiB in all is a decompression or
 * count bomb: real models stay within a small multiple of their size
 * (compressed FBX ~10x), and the parent would need as much again to
 * convert it. `size` is the file's size, or -1 to stat `path`. */
static const char *scene_refused(const struct aiScene *scene, const char *path, long size)
{
    if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) && scene->mNumMeshes == 0 && scene->mNumAnimations == 0)
        return "Assimp returned an incomplete scene with no meshes and no animations";
    double bytes = 0.0;
    for (unsigned m = 0; scene->mMeshes && m < scene->mNumMeshes; m++) {
        const struct aiMesh *mesh = scene->mMeshes[m];
        if (!mesh) continue;
        int streams = (mesh->mVertices != NULL) + (mesh->mNormals != NULL) + 2 * (mesh->mTangents != NULL);
        for (int t = 0; t < AI_MAX_NUMBER_OF_TEXTURECOORDS; t++) streams += mesh->mTextureCoords[t] != NULL;
        for (int c = 0; c < AI_MAX_NUMBER_OF_COLOR_SETS; c++) streams += mesh->mColors[c] != NULL;
        bytes += (double)mesh->mNumVertices * 12.0 * streams + (double)mesh->mNumFaces * 12.0;
        for (unsigned b = 0; mesh->mBones && b < mesh->mNumBones; b++)
            if (mesh->mBones[b]) bytes += (double)mesh->mBones[b]->mNumWeights * 8.0;
    }
    struct stat st;
    double file = size >= 0 ? (double)size : stat(path, &st) == 0 ? (double)st.st_size : 0.0;
    if (bytes > 256.0 * 1024 * 1024 && bytes > 64.0 * file)
        return "the scene is absurdly large for the file (over 64 bytes of mesh data per byte, and over 256 MiB)";
    return NULL;
}

/* Reads `path` with Assimp in a child process. Returns SKV_OK when the
 * child read it; otherwise an error saying how Assimp failed. */
static skv_result guarded_read(const char *path, const unsigned char *bytes, long size, const char *hint,
                               unsigned flags, const skv_import_desc *desc, skv_error *err)
{
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) return SKV_OK; /* cannot guard: read unguarded */
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        close(pipe_fd[0]);
        close(pipe_fd[1]);
        return SKV_OK;
    }
    if (child == 0) {
        close(pipe_fd[0]);
        /* Only Assimp runs here; what it (or a sanitizer inside it) would
         * print is summed up by the parent's one line instead. */
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        /* Crash handlers the host installed (sanitizers, libFuzzer) must
         * not run in this throwaway child: it dies by the signal, and the
         * parent names it. */
        const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
#ifndef SKV_SANITIZE
        struct rlimit limit = {import_memory_budget(path, desc), import_memory_budget(path, desc)};
        setrlimit(RLIMIT_AS, &limit);
#endif
        const struct aiScene *scene = read_scene(path, bytes, size, hint, flags, NULL);
        const char *why = scene ? scene_refused(scene, path, bytes ? size : -1) : aiGetErrorString();
        if (why) {
            /* The parent keeps only the start; no need to send more. */
            size_t length = strlen(why);
            if (length > GUARD_MESSAGE_BYTES) length = GUARD_MESSAGE_BYTES;
            ssize_t written = write(pipe_fd[1], why, length);
            (void)written;
        }
        int refused = why != NULL;
        if (scene) aiReleaseImport(scene); /* freed, so leak checkers that follow the child see no loss */
        _exit(refused);
    }
    close(pipe_fd[1]);
    double timeout = desc && desc->timeout_seconds > 0 ? desc->timeout_seconds : 60.0;
    char why[GUARD_MESSAGE_BYTES + 1];
    int watched = watch_child(pipe_fd[0], timeout, why, sizeof why);
    close(pipe_fd[0]);
    int status = 0;
    if (watched != 0) kill(child, SIGKILL); /* hung, or cannot be watched: it must not outlive us */
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (watched == WATCH_TIMED_OUT)
        return skv_fail(err, SKV_ERR_IMPORT, "Assimp did not finish reading it within %g s (see --trust)", timeout);
    if (watched != 0)
        return skv_fail(err, SKV_ERR_IMPORT, "cannot watch the guarded read: %s", strerror(watched));
    if (WIFSIGNALED(status))
        return skv_fail(err, SKV_ERR_IMPORT, "Assimp crashed reading it (signal %d); nothing was shown",
                        WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return fail_import(err, why[0] ? why : "Assimp ran out of its memory limit or failed without a message");
    return SKV_OK;
}

skv_result import_model(const char *path, const skv_import_desc *desc, skv_model *model, skv_error *err)
{
    memset(model, 0, sizeof *model);
    skv_result r = check_path(path, err);
    if (r != SKV_OK) return r;

    unsigned flags = import_flags;
    long trimmed_size = 0;
    unsigned char *trimmed = collada_trimmed_vcounts(path, &trimmed_size);
    if (!(desc && desc->trusted)) {
        r = guarded_read(path, trimmed, trimmed_size, "dae", flags, desc, err);
        if (r != SKV_OK) {
            free(trimmed);
            return r;
        }
    }
    double *file_durations = NULL;
    memory_bound bound;
    memory_bound_begin(&bound, path, desc);
    const struct aiScene *scene = read_scene(path, trimmed, trimmed_size, "dae", flags, &file_durations);
    memory_bound_end(&bound);
    int vcounts_trimmed = trimmed != NULL;
    free(trimmed);
    if (!scene) return fail_import(err, aiGetErrorString());

    const struct aiScene *anim_scene = NULL;
    char *anim_refused = NULL; /* why the guarded read of a case-variant .md5anim failed */
    char anim_path[4096];
    if (scene->mNumAnimations == 0 && ends_with_nocase(path, ".md5mesh") &&
        find_md5anim(path, anim_path, sizeof anim_path)) {
        skv_error why = {{0}};
        memory_bound_begin(&bound, anim_path, desc);
        anim_scene = import_md5anim_guarded(anim_path, desc, &why);
        memory_bound_end(&bound);
        if (!anim_scene && why.message[0]) anim_refused = strdup(why.message);
    }
    r = convert_scene(scene, anim_scene && anim_scene->mNumAnimations ? anim_scene : scene,
                      anim_scene && anim_scene->mNumAnimations ? NULL : file_durations, path, desc, model, err);
    free(file_durations);
    if (r == SKV_OK && anim_scene && anim_scene->mNumAnimations)
        model_warn(model, "clip read from %s (Assimp looks for the exact name only)", anim_path);
    else if (r == SKV_OK && anim_scene)
        model_warn(model, "%s has no usable animation; shown in rest pose", anim_path);
    else if (r == SKV_OK && anim_refused)
        model_warn(model, "%s: %s; shown in rest pose", anim_path, anim_refused);
    free(anim_refused);
    if (r == SKV_OK && collada_has_curves(path)) {
        for (int c = 0; c < model->clip_count; c++) model->clips[c].notes |= SKV_CLIP_LINEAR_NOT_CURVE;
        if (model->clip_count)
            model_warn(model, "the file animates on Bezier/Hermite curves; Assimp reads only their keys, so between "
                       "keys the motion is linear (up to a few %% of the model's size off the curves)");
    }
    if (r == SKV_OK && vcounts_trimmed)
        model_warn(model, "<vcount> lists start with whitespace, which Assimp 5.4 misreads; read without it");
    if (anim_scene) aiReleaseImport(anim_scene);
    aiReleaseImport(scene);
    for (int f = 0; r == SKV_OK && desc && f < desc->anim_file_count; f++) {
        int added = 0;
        r = import_add_clips(model, desc->anim_files[f], desc, 0, &added, err);
        if (r != SKV_OK) model_free(model);
    }
    return r;
}

skv_result import_add_clips(skv_model *model, const char *path, const skv_import_desc *desc, int only_without_mesh,
                            int *added, skv_error *err)
{
    *added = 0;
    const char *file = base_name(path);
    skv_error why = {{0}};
    skv_result r = check_path(path, &why);
    if (r == SKV_OK && !(desc && desc->trusted)) r = guarded_read(path, NULL, 0, NULL, import_flags, desc, &why);
    if (r != SKV_OK) return skv_fail(err, r, "animation file %s: %s", path, why.message);
    double *file_durations = NULL;
    memory_bound bound;
    memory_bound_begin(&bound, path, desc);
    const struct aiScene *scene = read_scene(path, NULL, 0, NULL, import_flags, &file_durations);
    memory_bound_end(&bound);
    if (!scene) return skv_fail(err, SKV_ERR_IMPORT, "animation file %s: cannot import: %s", path, aiGetErrorString());
    if (only_without_mesh && has_own_meshes(scene)) {
        free(file_durations);
        aiReleaseImport(scene);
        *added = -1;
        return SKV_OK;
    }
    if (scene->mNumAnimations == 0 || !scene->mRootNode) {
        free(file_durations);
        aiReleaseImport(scene);
        return skv_fail(err, SKV_ERR_ANIM, "animation file %s: no clips in it", path);
    }

    /* The clips are converted against the model's skeleton into a scratch
     * model that shares it (folding pivots changes the model's own rest
     * pose), then moved over. */
    skv_model scratch = {.skeleton = model->skeleton, .influence_slots = model->influence_slots};
    importer im = {.scene = scene, .anim_scene = scene, .file_durations = file_durations, .model = &scratch,
                   .err = err, .existing = model};
    skv_skeleton *sk = &model->skeleton;
    for (int n = 0; n < sk->node_count; n++) {
        if (shgeti(im.node_by_name, sk->node_names[n]) < 0) shput(im.node_by_name, sk->node_names[n], n);
        const char *bare = bare_name(sk->node_names[n]);
        if (shgeti(im.node_by_bare, bare) < 0) shput(im.node_by_bare, bare, n);
    }
    r = fold_fbx_pivots(&im);
    if (r == SKV_OK) r = convert_clips(&im);
    if (r == SKV_OK) r = merge_single_channel_clips(&im);
    model->skeleton = scratch.skeleton; /* the same arrays; only fold_fbx_pivots wrote to them */
    int usable = 0;
    for (int c = 0; c < scratch.clip_count; c++) usable += scratch.clips[c].channel_count > 0;
    skv_clip *grown = r == SKV_OK && usable ? realloc(model->clips, (size_t)(model->clip_count + usable) * sizeof *grown)
                                            : NULL;
    if (grown) model->clips = grown;
    else if (r == SKV_OK && usable) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (int w = 0; w < scratch.warning_count; w++) model_warn(model, "%s: %s", file, scratch.warnings[w]);
    for (int c = 0; c < scratch.clip_count; c++) {
        skv_clip *clip = &scratch.clips[c];
        if (r == SKV_OK && clip->channel_count > 0 && (clip->source = strdup(path))) {
            model->clips[model->clip_count++] = *clip;
            (*added)++;
            continue;
        }
        if (r == SKV_OK && clip->channel_count == 0)
            model_warn(model, "%s: clip '%s': none of its %d channels names a node of the model; left out", file,
                       clip->name, clip->file_channels);
        model_clip_free(clip);
    }
    free(scratch.clips);
    for (int w = 0; w < scratch.warning_count; w++) free(scratch.warnings[w]);
    free(scratch.warnings);
    importer_free(&im);
    free(file_durations);
    aiReleaseImport(scene);
    if (r == SKV_OK && *added == 0)
        r = skv_fail(err, SKV_ERR_ANIM, "animation file %s: none of its %d clip(s) moves a node of the model", path,
                     scratch.clip_count);
    return r;
}
