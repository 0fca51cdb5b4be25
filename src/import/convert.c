/* convert.c - aiScene -> skv_model.
 *
 * Steps, in order: flatten the node tree parent-first, fold FBX pivot
 * helpers, gather triangle meshes into one vertex/index set, build the
 * shared bone map and pack influences, convert morph targets, materials
 * (their textures through textures.c) and clips (names resolved to node
 * indices here, once). The aiScene is only read. */
#include "private/import_internal.h"
#include "private/import_scene.h"
#include "private/fbx_scan.h"
#include "anim.h"

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_ds.h>

#include "draws.h"
#include "skin.h"
#include "tangents.h"
#include "stick.h"
#include "text.h"

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

static int mat4_finite(const mat4 m)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!isfinite(m[c][r])) return 0;
    return 1;
}



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
    if (assimp_fix_applies(ASSIMP_FIX_HL1_FLAT_BONES, im->model->path))
        hl1_bone_parents(im->scene, im->nodes, sk->parents, sk->node_count);
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
    anim_inverse(root, im->model->global_inverse);
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

    /* A node that holds meshes is a mesh node: where only one node of the
     * name holds none, that one is the joint (a quantized glTF folds its
     * dequantization into each mesh's inverse binds, where the bind test
     * below no longer tells the two apart: glTF-Transform's robot.glb). */
    int bare = -1, bare_count = 0;
    for (int n = first; n < sk->node_count; n++)
        if (strcmp(sk->node_names[n], name) == 0 && im->nodes[n] && im->nodes[n]->mNumMeshes == 0) bare = n, bare_count++;
    if (bare_count == 1) {
        shput(im->joint_by_name, sk->node_names[bare], bare);
        return bare;
    }
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
const char *bare_name(const char *name)
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

skv_result fold_fbx_pivots(importer *im)
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

/* A Half-Life 1 model's body parts (a head, a weapon) each offer
 * submodels, alternatives of which the game draws one: the body value
 * picks them, and its default, 0, the first of each part (HLMV and Half-Life
 * Asset Manager open a model so). Assimp's HL1 reader puts every submodel
 * under its part (<MDL_bodyparts>, then the part, then its submodels), so
 * drawn as read, man.mdl wears its three heads in one place. The meshes of
 * every submodel but each part's first are hidden (im->hidden_meshes), with
 * a warning. A default body with nothing to draw (every part's first
 * submodel blank) would leave an empty model: then every submodel shows.
 * Bones only hidden submodels use are no palette entries. Returns 0, or -1
 * when out of memory. */
static int hl1_default_body(importer *im)
{
    const skv_skeleton *sk = &im->model->skeleton;
    if (!im->hl1_fix || !hl1_scene(im->scene)) return 0;
    int hidden = 0;
    for (int n = 0; n < sk->node_count; n++) {
        int part = sk->parents[n], list = part >= 0 ? sk->parents[part] : -1;
        if (list < 0 || strcmp(im->nodes[list]->mName.data, "<MDL_bodyparts>") != 0) continue;
        const struct aiNode *p = im->nodes[part];
        if (p->mNumChildren == 0 || p->mChildren[0] == im->nodes[n] || im->nodes[n]->mNumMeshes == 0) continue;
        if (!im->hidden_meshes && !(im->hidden_meshes = calloc((size_t)sk->node_count, 1))) return -1;
        im->hidden_meshes[n] = 1;
        hidden++;
    }
    if (!hidden) return 0;
    int shown = 0;
    for (int n = 0; n < sk->node_count && !shown; n++)
        for (unsigned i = 0; !im->hidden_meshes[n] && i < im->nodes[n]->mNumMeshes; i++)
            if (im->nodes[n]->mMeshes[i] < im->scene->mNumMeshes &&
                is_triangle_mesh(im->scene->mMeshes[im->nodes[n]->mMeshes[i]]))
                shown = 1;
    if (!shown) {
        free(im->hidden_meshes);
        im->hidden_meshes = NULL;
        model_warn(im->model, "Half-Life body parts: the default body draws nothing (each part's first submodel is "
                   "blank); all %d other submodel(s) shown", hidden);
        return 0;
    }
    model_warn(im->model, "Half-Life body parts: %d submodel(s) hidden; each part shows its first, as the "
               "game's default body does", hidden);
    return 0;
}

/* The meshes a node draws: its own, or none where they are hidden. */
static unsigned node_mesh_count(const importer *im, int node)
{
    return im->hidden_meshes && im->hidden_meshes[node] ? 0 : im->nodes[node]->mNumMeshes;
}

static skv_result convert_meshes(importer *im)
{
    const struct aiScene *scene = im->scene;
    skv_model *model = im->model;
    skv_skeleton *sk = &model->skeleton;

    /* Count the mesh instances (a mesh under two nodes is drawn twice). */
    int instances = 0, skipped = 0;
    long vertices = 0, indices = 0;
    if (hl1_default_body(im) != 0) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    for (int n = 0; n < sk->node_count; n++) {
        const struct aiNode *node = im->nodes[n];
        for (unsigned i = 0; i < node_mesh_count(im, n); i++) {
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

    int bad_positions = 0, bad_normals = 0, bad_uvs = 0;
    for (int n = 0; n < sk->node_count; n++) {
        const struct aiNode *node = im->nodes[n];
        for (unsigned i = 0; i < node_mesh_count(im, n); i++) {
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
                    if (!isfinite(uv[0]) || !isfinite(uv[1])) { /* the guarded import refuses non-finite floats */
                        uv[0] = uv[1] = 0.0f;
                        bad_uvs++;
                    }
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
    if (bad_uvs) model_warn(model, "%d texture coordinate(s) were NaN/Inf; set to 0", bad_uvs);
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
int has_own_meshes(const struct aiScene *scene)
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

/* An FBX Null (Assimp's node metadata IsNull): a helper, not a bone, as
 * 3ds Max's "Bip01 Footsteps" below the hips (keyed in ozz's clips: a
 * stick from the hips to the ground, which three.js does not draw). */
static int fbx_null(const struct aiNode *node)
{
    const struct aiMetadata *meta = node ? node->mMetaData : NULL;
    for (unsigned i = 0; meta && i < meta->mNumProperties; i++)
        if (meta->mValues[i].mType == AI_BOOL && meta->mValues[i].mData && strcmp(meta->mKeys[i].data, "IsNull") == 0)
            return *(const unsigned char *)meta->mValues[i].mData != 0; /* a C++ bool */
    return 0;
}

/* Marks the scene's cameras and lights in `fixture` (per node): each is
 * the node of its name. One lookup each, not a search per node (a file
 * may hold as many as it likes). */
static void mark_cameras_and_lights(importer *im, unsigned char *fixture)
{
    const struct aiScene *scene = im->scene;
    for (unsigned i = 0; i < scene->mNumCameras + scene->mNumLights; i++) {
        const struct aiString *name = i < scene->mNumCameras
                                          ? (scene->mCameras[i] ? &scene->mCameras[i]->mName : NULL)
                                          : (scene->mLights[i - scene->mNumCameras]
                                                 ? &scene->mLights[i - scene->mNumCameras]->mName
                                                 : NULL);
        int node = name ? lookup(&im->node_by_name, name->data) : -1;
        if (node >= 0) fixture[node] = 1;
    }
}

/* A file with clips and no mesh (an animation library, a mocap take, a
 * Mixamo download "without skin"): its animated nodes and the nodes below
 * them are the skeleton, shown as a stick figure (stick.h). A channel on
 * an FBX pivot helper (NAME_$AssimpFbx$_Rotation) moves the joint NAME;
 * the helpers themselves are no joints, nor cameras and lights below a
 * joint, nor FBX Nulls that hold no joint (fbx_null). The nodes below
 * count because a rig's end joints (a head's or a finger's tip) are often
 * not keyed: in ozz's run.fbx and jog.fbx 13 of them, which walk.fbx
 * keys, so the same skeleton showed 55 joints or 68 by the clip; now 67
 * in each, three.js's bones. */
static skv_result convert_skeleton_only(importer *im)
{
    const struct aiScene *anims = im->anim_scene;
    skv_skeleton *sk = &im->model->skeleton;
    /* Per node: joint (0, 1, or 2: below); a camera or light; a joint
     * below it (the Nulls' pass). */
    unsigned char *joint = calloc((size_t)sk->node_count, 3);
    if (!joint) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    unsigned char *fixture = joint + sk->node_count, *held = fixture + sk->node_count;
    mark_cameras_and_lights(im, fixture);
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
    /* The nodes below a joint are joints too (end joints are often not
     * keyed), but for FBX pivot helpers (2: reached through, cleared
     * after) and cameras and lights (nor what hangs below them). Nodes
     * come parent first. */
    for (int n = 0; joints > 0 && n < sk->node_count; n++) {
        int parent = sk->parents[n];
        if (joint[n] || parent < 0 || !joint[parent] || fixture[n] || fixture[parent]) continue;
        joint[n] = strstr(sk->node_names[n], fbx_helper_tag) ? 2 : 1;
        joints += joint[n] == 1;
    }
    /* An FBX Null with no joint below it ("Bip01 Footsteps") is no joint
     * where the rig has bones that are not Nulls, cameras or lights (a
     * rig of Nulls alone keeps them); a Null holding joints stays, so
     * that they stay one tree. Backwards, children before parents: a node
     * knows whether a joint is below it (held). */
    int bones = 0;
    for (int n = 0; n < sk->node_count; n++) bones += joint[n] == 1 && !fixture[n] && !fbx_null(im->nodes[n]);
    for (int n = sk->node_count - 1; bones > 0 && n >= 0; n--) {
        if (joint[n] == 1 && !held[n] && fbx_null(im->nodes[n])) joint[n] = 0, joints--;
        int parent = sk->parents[n];
        if (parent >= 0 && (joint[n] == 1 || held[n])) held[parent] = 1;
    }
    for (int n = 0; n < sk->node_count; n++) joint[n] = joint[n] == 1;
    skv_result r = SKV_OK;
    if (joints == 0)
        r = skv_fail(im->err, SKV_ERR_CONTENT, "nothing to show: no triangle meshes, and no clip moves a node");
    else if (stick_figure_build(im->model, joint) != SKV_OK)
        r = skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    else
        model_warn(im->model, "no mesh in the file: its skeleton (%d joints) is shown as a stick figure",
                   im->model->skeleton.bone_count);
    free(joint);
    return r;
}


/* Colours a Phong-style file gives (FBX, Collada, .X ...) are meant as
 * sRGB, as other viewers read them; glTF's factors are linear already. */
/* Assimp's aiGetMaterialFloat / aiGetMaterialInteger are C99 inline
 * functions without an external definition: an unoptimised build calls a
 * symbol the library lacks. These say the same with the array calls. */
static enum aiReturn material_float(const struct aiMaterial *mat, const char *key, unsigned type, unsigned index,
                                    ai_real *out)
{
    return aiGetMaterialFloatArray(mat, key, type, index, out, NULL);
}

static enum aiReturn material_int(const struct aiMaterial *mat, const char *key, unsigned type, unsigned index, int *out)
{
    return aiGetMaterialIntegerArray(mat, key, type, index, out, NULL);
}

static float srgb_to_linear(float c)
{
    if (!(c > 0.0f)) return 0.0f;
    if (c > 1.0f) return c; /* HDR factors: left as they are */
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* One texture slot of a material: the first of `types` the material
 * names (Assimp files the same glTF map under different types in
 * different versions). Keeps the reference for --list; warns when it
 * cannot be loaded (the slot then stays -1 and the factor alone counts). */
static skv_result material_texture(importer *im, const struct aiMaterial *src, skv_material *mat, int slot,
                                   const enum aiTextureType *types, int type_count)
{
    struct aiString path;
    int found = 0;
    for (int k = 0; k < type_count && !found; k++)
        found = aiGetMaterialTexture(src, types[k], 0, &path, NULL, NULL, NULL, NULL, NULL, NULL) == aiReturn_SUCCESS;
    if (!found || path.length == 0) return SKV_OK; /* an empty name (MD5's shader "") is no texture */
    char ref[AI_MAXLEN + 1];
    snprintf(ref, sizeof ref, "%.*s", (int)path.length, path.data);
    mat->texture_paths[slot] = strdup(ref);
    if (!mat->texture_paths[slot]) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    im->texture_refused[0] = '\0';
    mat->textures[slot] = resolve_texture(im, ref);
    /* A colour map's absence shows the material colour; a data map's, the factors alone. */
    const char *instead = slot == SKV_TEX_BASE_COLOR ? "using the material colour" : "drawn without it";
    if (mat->textures[slot] < 0 && im->texture_refused[0])
        model_warn(im->model, "texture '%s' of material '%s' not loaded: %s; %s", ref, mat->name, im->texture_refused,
                   instead);
    else if (mat->textures[slot] < 0)
        model_warn(im->model, "texture '%s' of material '%s' could not be loaded; %s", ref, mat->name, instead);
    return SKV_OK;
}

/* The defaults of a material the file does not describe: light grey
 * (0.7 in sRGB), not metal, fairly rough, opaque, two-sided. */
static void material_defaults(skv_material *mat)
{
    memset(mat, 0, sizeof *mat);
    mat->texture = -1;
    for (int k = 0; k < SKV_TEX_SLOTS; k++) mat->textures[k] = -1;
    mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = srgb_to_linear(0.7f);
    mat->diffuse[3] = 1.0f;
    mat->shading = SKV_MATERIAL_PHONG;
    mat->roughness = 0.6f;
    mat->normal_scale = 1.0f;
    mat->occlusion_strength = 1.0f;
    mat->alpha_cutoff = 0.5f;
    mat->double_sided = 1;
}

/* glTF metallic-roughness, as Assimp hands it over. */
static skv_result read_pbr_material(importer *im, const struct aiMaterial *src, skv_material *mat)
{
    mat->shading = SKV_MATERIAL_PBR;
    struct aiColor4D color;
    if (aiGetMaterialColor(src, AI_MATKEY_BASE_COLOR, &color) == aiReturn_SUCCESS ||
        aiGetMaterialColor(src, AI_MATKEY_COLOR_DIFFUSE, &color) == aiReturn_SUCCESS) {
        mat->diffuse[0] = color.r, mat->diffuse[1] = color.g, mat->diffuse[2] = color.b, mat->diffuse[3] = color.a;
    } else {
        mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = mat->diffuse[3] = 1.0f; /* glTF's default */
    }
    ai_real value;
    mat->metallic = material_float(src, AI_MATKEY_METALLIC_FACTOR, &value) == aiReturn_SUCCESS ? (float)value : 1.0f;
    mat->roughness = material_float(src, AI_MATKEY_ROUGHNESS_FACTOR, &value) == aiReturn_SUCCESS ? (float)value : 1.0f;
    if (aiGetMaterialColor(src, AI_MATKEY_COLOR_EMISSIVE, &color) == aiReturn_SUCCESS)
        mat->emissive[0] = color.r, mat->emissive[1] = color.g, mat->emissive[2] = color.b;
    if (material_float(src, "$tex.scale", aiTextureType_NORMALS, 0, &value) == aiReturn_SUCCESS)
        mat->normal_scale = (float)value;
    if (material_float(src, "$tex.strength", aiTextureType_LIGHTMAP, 0, &value) == aiReturn_SUCCESS)
        mat->occlusion_strength = (float)value;
    struct aiString mode;
    if (aiGetMaterialString(src, "$mat.gltf.alphaMode", 0, 0, &mode) == aiReturn_SUCCESS) {
        if (strcmp(mode.data, "MASK") == 0) mat->alpha_mode = SKV_ALPHA_MASK;
        else if (strcmp(mode.data, "BLEND") == 0) mat->alpha_mode = SKV_ALPHA_BLEND;
    }
    if (material_float(src, "$mat.gltf.alphaCutoff", 0, 0, &value) == aiReturn_SUCCESS) mat->alpha_cutoff = (float)value;
    int two_sided = 0;
    mat->double_sided = material_int(src, AI_MATKEY_TWOSIDED, &two_sided) == aiReturn_SUCCESS && two_sided;
    /* Assimp 5.2 files glTF's metallicRoughnessTexture as UNKNOWN; later
     * versions also as METALNESS / DIFFUSE_ROUGHNESS (the same image). */
    static const enum aiTextureType base[] = {aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE};
    static const enum aiTextureType metal_rough[] = {aiTextureType_UNKNOWN, aiTextureType_METALNESS,
                                                     aiTextureType_DIFFUSE_ROUGHNESS};
    static const enum aiTextureType normal[] = {aiTextureType_NORMALS};
    static const enum aiTextureType occlusion[] = {aiTextureType_LIGHTMAP, aiTextureType_AMBIENT_OCCLUSION};
    static const enum aiTextureType emissive[] = {aiTextureType_EMISSIVE};
    skv_result r = material_texture(im, src, mat, SKV_TEX_BASE_COLOR, base, 2);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_METAL_ROUGH, metal_rough, 3);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_NORMAL, normal, 1);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_OCCLUSION, occlusion, 2);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_EMISSIVE, emissive, 1);
    return r;
}

/* Phong / Lambert (FBX, Collada, MD5, .X, ...) onto metal-rough: the
 * diffuse colour (sRGB) is the base colour, or white under a diffuse
 * texture (these formats draw the texture instead of the colour); no
 * metal; the Blinn-Phong exponent s becomes the roughness whose GGX
 * lobe is about as wide, sqrt(sqrt(2 / (s + 2))); opacity < 1 blends. */
static skv_result read_phong_material(importer *im, const struct aiMaterial *src, skv_material *mat)
{
    static const enum aiTextureType base[] = {aiTextureType_DIFFUSE, aiTextureType_BASE_COLOR};
    static const enum aiTextureType normal[] = {aiTextureType_NORMALS};
    static const enum aiTextureType emissive[] = {aiTextureType_EMISSIVE};
    skv_result r = material_texture(im, src, mat, SKV_TEX_BASE_COLOR, base, 2);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_NORMAL, normal, 1);
    if (r == SKV_OK) r = material_texture(im, src, mat, SKV_TEX_EMISSIVE, emissive, 1);
    if (r != SKV_OK) return r;
    struct aiColor4D color;
    if (aiGetMaterialColor(src, AI_MATKEY_COLOR_DIFFUSE, &color) == aiReturn_SUCCESS ||
        aiGetMaterialColor(src, AI_MATKEY_BASE_COLOR, &color) == aiReturn_SUCCESS) {
        mat->diffuse[0] = srgb_to_linear(color.r), mat->diffuse[1] = srgb_to_linear(color.g);
        mat->diffuse[2] = srgb_to_linear(color.b);
        mat->diffuse[3] = color.a >= 0.0f && color.a <= 1.0f ? color.a : 1.0f;
    }
    if (mat->textures[SKV_TEX_BASE_COLOR] >= 0) mat->diffuse[0] = mat->diffuse[1] = mat->diffuse[2] = 1.0f;
    if (aiGetMaterialColor(src, AI_MATKEY_COLOR_EMISSIVE, &color) == aiReturn_SUCCESS)
        for (int k = 0; k < 3; k++) mat->emissive[k] = srgb_to_linear((&color.r)[k]);
    ai_real value;
    if (material_float(src, AI_MATKEY_SHININESS, &value) == aiReturn_SUCCESS && value >= 0.0f && isfinite(value))
        mat->roughness = sqrtf(sqrtf(2.0f / ((float)value + 2.0f)));
    /* Opacity 0 is nearly always an exporter's mistake (FBX transparency
     * factors the wrong way round): drawn opaque, with a warning. */
    if (material_float(src, AI_MATKEY_OPACITY, &value) == aiReturn_SUCCESS && isfinite(value) && value < 1.0f) {
        if (value > 0.0f) mat->diffuse[3] *= (float)value;
        else model_warn(im->model, "material '%s' has opacity 0; drawn opaque", mat->name);
    }
    if (mat->diffuse[3] < 1.0f) mat->alpha_mode = SKV_ALPHA_BLEND;
    return SKV_OK;
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
        material_defaults(mat);
        if (i >= (int)scene->mNumMaterials) {
            mat->name = strdup("default");
            if (!mat->name) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
            continue;
        }
        const struct aiMaterial *src = scene->mMaterials[i];
        struct aiString name;
        mat->name = aiGetMaterialString(src, AI_MATKEY_NAME, &name) == aiReturn_SUCCESS
                        ? dup_name(&name, "material %d", i)
                        : dup_name(NULL, "material %d", i);
        /* Assimp's glTF importer marks its materials PBR_BRDF. */
        int shading = 0;
        int pbr = material_int(src, AI_MATKEY_SHADING_MODEL, &shading) == aiReturn_SUCCESS &&
                  shading == aiShadingMode_PBR_BRDF;
        skv_result r = pbr ? read_pbr_material(im, src, mat) : read_phong_material(im, src, mat);
        if (r != SKV_OK) return r;
        mat->texture = mat->textures[SKV_TEX_BASE_COLOR];
        int finite = 1; /* the guarded import's block refuses non-finite floats */
        for (int k = 0; k < 4; k++)
            if (!isfinite(mat->diffuse[k])) mat->diffuse[k] = 1.0f, finite = 0;
        if (!finite) model_warn(im->model, "material '%s': its colour is NaN/Inf; drawn white", mat->name);
        mat->metallic = isfinite(mat->metallic) ? fminf(fmaxf(mat->metallic, 0.0f), 1.0f) : 0.0f;
        mat->roughness = isfinite(mat->roughness) ? fminf(fmaxf(mat->roughness, 0.0f), 1.0f) : 1.0f;
        for (int k = 0; k < 3; k++)
            if (!isfinite(mat->emissive[k]) || mat->emissive[k] < 0.0f) mat->emissive[k] = 0.0f;
        if (!isfinite(mat->alpha_cutoff)) mat->alpha_cutoff = 0.5f;
        if (!isfinite(mat->normal_scale)) mat->normal_scale = 1.0f;
        if (!isfinite(mat->occlusion_strength)) mat->occlusion_strength = 1.0f;
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
            for (unsigned i = 0; i < node_mesh_count(im, n); i++) {
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

/* FBX blend shapes rest at their channel's DeformPercent; Assimp's FBX
 * reader gives every one weight 1 (a shape at 0% showed in full, where
 * three.js and Blender show the rest shape). The percents are read from
 * the file (fbx_scan.h) and matched to the targets by name. */
static skv_result fbx_morph_defaults(importer *im, const char *path)
{
    skv_model *model = im->model;
    if (model->morph_target_count == 0 || !ends_with_nocase(path, ".fbx")) return SKV_OK;
    long size = 0;
    unsigned char *bytes = read_whole_file(path, &size);
    if (!bytes) return SKV_OK; /* Assimp read it: only memory could stop this, and then 1 stays */
    enum { MAX_CHANNELS = 4096 };
    fbx_percent *percents = malloc(MAX_CHANNELS * sizeof *percents);
    int count = percents ? fbx_deform_percents(bytes, (size_t)size, percents, MAX_CHANNELS) : 0;
    free(bytes);
    if (count > MAX_CHANNELS) count = MAX_CHANNELS;
    /* Assimp 5.2 names a target as its channel, 5.4 "channel.shape". */
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

skv_result convert_clips(importer *im)
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
            if (im->md5_scale_fix) /* assimp_fixes.c, md5_scale_fix_applies */
                for (int k = 0; k < ch->scale_count; k++)
                    for (int i = 0; i < 3; i++) ch->scales[k].value[i] = 1.0f;
            clip->node_channel[node] = clip->channel_count - 1;
            last_key = fmax(last_key, ch->positions[ch->position_count - 1].time);
            last_key = fmax(last_key, ch->rotations[ch->rotation_count - 1].time);
            last_key = fmax(last_key, ch->scales[ch->scale_count - 1].time);
        }
        if (convert_morph_channels(im, src, clip, &last_key) != 0)
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        double file_duration = im->file_durations ? im->file_durations[a] : src->mDuration;
        if (im->hl1_fix) file_duration = hl1_duration(scene, file_duration, src->mTicksPerSecond, last_key_time(src));
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
skv_result merge_single_channel_clips(importer *im)
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

void importer_free(importer *im)
{
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
                   .model = model, .err = err, .budget = budget,
                   .fbx_offset_fix = fbx_offset_fix_applies(path), .fbx_bind_fix = fbx_bind_fix_applies(path),
                   .md5_scale_fix = md5_scale_fix_applies(path),
                   .hl1_fix = assimp_fix_applies(ASSIMP_FIX_HL1_DURATION, path)};
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
    if (r == SKV_OK) r = fbx_morph_defaults(&im, path);
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
