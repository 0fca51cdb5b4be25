/* skeleton.c - the scene graph and the bones: the node tree flattened
 * parent first; bones' and channels' names bound to nodes; FBX pivot
 * helpers folded into their nodes; the palette's bone map (file bones,
 * and node bones for what rides on a node); and the stick figure of a
 * file with clips but no mesh. */
#include "private/import_internal.h"
#include "anim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_ds.h>

#include "stick.h"

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
skv_result flatten_nodes(importer *im)
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
    int first = name_lookup(&im->node_by_name, name);
    if (first < 0 || im->name_clashes == 0) return first;
    int known = name_lookup(&im->joint_by_name, name);
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
int channel_node(importer *im, const char *name)
{
    int node = im->joint_by_name ? name_lookup(&im->joint_by_name, name) : -1;
    if (node < 0) node = name_lookup(&im->node_by_name, name);
    if (node < 0 && im->node_by_bare) node = name_lookup(&im->node_by_bare, bare_name(name));
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
 * another mesh still gets its own, correct matrix. The bone's offset is
 * `file_offset` times `correction` (meshes.c: as the Assimp fixes left
 * them). */
int file_bone_index(importer *im, const struct aiBone *bone, const mat4 file_offset, const mat4 correction,
                    int mesh_node)
{
    skv_skeleton *sk = &im->model->skeleton;
    char name[AI_MAXLEN + 1];
    snprintf(name, sizeof name, "%.*s", (int)bone->mName.length, bone->mName.data);
    mat4 offset;
    glm_mat4_mul((vec4 *)file_offset, (vec4 *)correction, offset);
    if (!mat4_finite(offset)) glm_mat4_identity(offset);
    else if (!mat4_usable(offset)) {
        glm_mat4_identity(offset);
        im->huge_offsets++;
    }

    int first = name_lookup(&im->bone_by_name, name);
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
int node_bone_index(importer *im, int node)
{
    if (im->node_bone[node] >= 0) return im->node_bone[node];
    char name[AI_MAXLEN + 16];
    snprintf(name, sizeof name, "%s (node)", im->model->skeleton.node_names[node]);
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    im->node_bone[node] = add_bone(im, name, node, identity, 0);
    return im->node_bone[node];
}


/* --- a file without meshes ------------------------------------------------ */


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
        int node = name ? name_lookup(&im->node_by_name, name->data) : -1;
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
skv_result convert_skeleton_only(importer *im)
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
