/* test_import.c - the aiScene -> skv_model conversion, on a scene built
 * in memory: shared bone map, node bones for rigid meshes and unweighted
 * vertices, broken weights, ticks/s = 0, unsorted keys, globalInverse. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/version.h>

#include "anim.h"
#include "check.h"
#include "import.h"
#include "import_internal.h"
#include "import_scene.h"

static void set_name(struct aiString *s, const char *name)
{
    s->length = (ai_uint32)strlen(name);
    memcpy(s->data, name, s->length + 1);
}

static struct aiMatrix4x4 identity(void)
{
    struct aiMatrix4x4 m = {0};
    m.a1 = m.b2 = m.c3 = m.d4 = 1.0f;
    return m;
}

static struct aiNode *node(const char *name, struct aiNode *parent)
{
    struct aiNode *n = calloc(1, sizeof *n);
    set_name(&n->mName, name);
    n->mTransformation = identity();
    n->mParent = parent;
    if (parent) {
        parent->mChildren = realloc(parent->mChildren, (parent->mNumChildren + 1) * sizeof *parent->mChildren);
        parent->mChildren[parent->mNumChildren++] = n;
    }
    return n;
}

static void attach_mesh(struct aiNode *n, unsigned mesh)
{
    n->mMeshes = realloc(n->mMeshes, (n->mNumMeshes + 1) * sizeof *n->mMeshes);
    n->mMeshes[n->mNumMeshes++] = mesh;
}

static struct aiMesh *quad_mesh(const char *name)
{
    struct aiMesh *m = calloc(1, sizeof *m);
    set_name(&m->mName, name);
    m->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    m->mNumVertices = 4;
    m->mVertices = calloc(4, sizeof *m->mVertices);
    for (int v = 0; v < 4; v++) m->mVertices[v] = (struct aiVector3D){(float)(v & 1), (float)(v >> 1), 0.0f};
    m->mNumFaces = 2;
    m->mFaces = calloc(2, sizeof *m->mFaces);
    static unsigned tri[2][3] = {{0, 1, 2}, {1, 3, 2}};
    for (int f = 0; f < 2; f++) {
        m->mFaces[f].mNumIndices = 3;
        m->mFaces[f].mIndices = tri[f];
    }
    return m;
}

static struct aiBone *bone(const char *name, int count, const unsigned *ids, const float *weights)
{
    struct aiBone *b = calloc(1, sizeof *b);
    set_name(&b->mName, name);
    b->mOffsetMatrix = identity();
    b->mNumWeights = (unsigned)count;
    b->mWeights = calloc((size_t)count, sizeof *b->mWeights);
    for (int i = 0; i < count; i++) b->mWeights[i] = (struct aiVertexWeight){ids[i], weights[i]};
    return b;
}

static void free_node(struct aiNode *n)
{
    for (unsigned i = 0; i < n->mNumChildren; i++) free_node(n->mChildren[i]);
    free(n->mChildren);
    free(n->mMeshes);
    free(n);
}

static void free_mesh(struct aiMesh *m)
{
    for (unsigned b = 0; b < m->mNumBones; b++) {
        free(m->mBones[b]->mWeights);
        free(m->mBones[b]);
    }
    free(m->mBones);
    free(m->mVertices);
    free(m->mFaces);
    free(m);
}

static int warned(const skv_model *m, const char *text)
{
    for (int i = 0; i < m->warning_count; i++)
        if (strstr(m->warnings[i], text)) return 1;
    return 0;
}

static int all_finite(const float *values, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(values[i])) return 0;
    return 1;
}

/* Semantically broken data that Assimp can hand over. */
/* A hand-built scene of these meshes and one clip (`anim`, given its
 * name and channels here), imported as if read from `path` (the name only
 * picks format-specific fixes). */
static skv_result import_one_clip(struct aiNode *root, struct aiMesh **meshes, unsigned mesh_count,
                                  struct aiAnimation *anim, const char *name, struct aiNodeAnim **channels,
                                  unsigned channel_count, const char *path, skv_model *model, skv_error *err)
{
    set_name(&anim->mName, name);
    anim->mNumChannels = channel_count;
    anim->mChannels = channels;
    struct aiAnimation *anims[1] = {anim};
    struct aiScene scene = {.mRootNode = root, .mNumMeshes = mesh_count, .mMeshes = meshes,
                            .mNumAnimations = 1, .mAnimations = anims};
    return import_scene(&scene, path, NULL, model, err);
}

/* `clip` made a clip of one channel at 10 ticks a second (`slot`: its
 * channel list, one entry); returns it, for the scene's list. */
static struct aiAnimation *one_channel_clip(struct aiAnimation *clip, const char *name, double duration,
                                            struct aiNodeAnim *channel, struct aiNodeAnim **slot)
{
    slot[0] = channel;
    set_name(&clip->mName, name);
    clip->mDuration = duration;
    clip->mTicksPerSecond = 10.0;
    clip->mNumChannels = 1;
    clip->mChannels = slot;
    return clip;
}

static void test_defensive(void)
{
    /* Root singular (all zero), a child with NaN in its transform. */
    struct aiNode *root = node("root", NULL);
    root->mTransformation = (struct aiMatrix4x4){0};
    struct aiNode *bad = node("bad", root);
    bad->mTransformation.a4 = NAN;
    struct aiNode *holder = node("holder", root);
    attach_mesh(holder, 0);
    attach_mesh(holder, 1);
    attach_mesh(holder, 2);
    attach_mesh(holder, 3);

    struct aiMesh *meshes[4];
    /* 0: NaN and negative weights only on v0; v1 has a usable one. */
    meshes[0] = quad_mesh("weights");
    meshes[0]->mNumBones = 1;
    meshes[0]->mBones = calloc(1, sizeof(struct aiBone *));
    meshes[0]->mBones[0] = bone("bad", 3, (unsigned[]){0, 0, 1}, (float[]){NAN, -1.0f, 0.3f});
    /* 1: points only: skipped. */
    meshes[1] = quad_mesh("points");
    meshes[1]->mPrimitiveTypes = aiPrimitiveType_POINT;
    /* 2: no vertices: skipped. */
    meshes[2] = quad_mesh("empty");
    meshes[2]->mNumVertices = 0;
    /* 3: more vertices than 16-bit indices reach. */
    enum { BIG = 70000 };
    meshes[3] = quad_mesh("big");
    free(meshes[3]->mVertices);
    meshes[3]->mNumVertices = BIG;
    meshes[3]->mVertices = calloc(BIG, sizeof(struct aiVector3D));
    for (int v = 0; v < BIG; v++) meshes[3]->mVertices[v] = (struct aiVector3D){(float)v, 0.0f, (float)(v % 7)};
    static unsigned far_tri[3] = {0, 69998, 69999};
    meshes[3]->mFaces[1].mIndices = far_tri;

    /* A clip with negative duration, zero and unnormalised quaternions,
     * scale keys of 0. */
    struct aiQuatKey rot[3] = {{.mTime = 0.0, .mValue = {0, 0, 0, 0}}, {.mTime = 1.0, .mValue = {5, 0, 0, 0}}, {.mTime = 2.0, .mValue = {0, 0, 0, 3}}};
    struct aiVectorKey scale[2] = {{.mTime = 0.0, .mValue = {0, 0, 0}}, {.mTime = 2.0, .mValue = {1, 1, 1}}};
    struct aiNodeAnim channel = {0};
    struct aiNodeAnim *channel_ptr[1] = {&channel};
    set_name(&channel.mNodeName, "bad");
    channel.mNumRotationKeys = 3;
    channel.mRotationKeys = rot;
    channel.mNumScalingKeys = 2;
    channel.mScalingKeys = scale;
    struct aiAnimation anim = {.mDuration = -5.0, .mTicksPerSecond = NAN};
    skv_model model;
    skv_error err = {{0}};
    skv_result r =
        import_one_clip(root, meshes, 4, &anim, "broken", channel_ptr, 1, "/nowhere/broken.model", &model, &err);
    CHECK(r == SKV_OK);
    if (r == SKV_OK) {
        CHECK(warned(&model, "root transform is singular"));
        CHECK(warned(&model, "NaN/Inf; replaced by identity"));
        CHECK(warned(&model, "without triangles"));
        CHECK(model.mesh_count == 2); /* weights + big */
        CHECK(model.meshes[1].vertex_count == BIG);
        CHECK(model.indices[model.meshes[1].first_index + 4] == 69998);
        CHECK(model.weights[0] == 1.0f && model.skeleton.bone_node[model.bone_ids[0]] >= 0);
        CHECK(strstr(model.skeleton.bone_names[model.bone_ids[0]], "(node)") != NULL); /* v0: nothing usable */
        CHECK(!model_bone_from_file(&model, model.bone_ids[0]));
        CHECK(model.weights[4] == 1.0f); /* v1: the 0.3 renormalised */
        CHECK(model.clips[0].ticks_per_second == 25.0);
        CHECK(model.clips[0].duration_ticks == 2.0);
        skv_pose pose;
        skv_walks *walks;
        CHECK(walks_create(&walks, &model) == SKV_OK);
        CHECK(pose_create(&pose, &model.skeleton) == SKV_OK);
        int finite = 1;
        for (double t = 0.0; t < 0.1; t += 0.01) {
            pose_evaluate(&pose, walks, 0, t);
            finite &= all_finite((const float *)pose.palette, (size_t)model.skeleton.bone_count * 16);
        }
        CHECK(finite);
        pose_destroy(&pose);
        walks_destroy(walks);
        model_free(&model);
    }
    free_node(root);
    for (int m = 0; m < 4; m++) free_mesh(meshes[m]);
}

/* A column-major mat4 from an aiMatrix4x4 (row-major). */
static void as_mat4(const struct aiMatrix4x4 *m, mat4 out)
{
    const float *r = &m->a1;
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) out[c][k] = r[k * 4 + c];
}

/* The FBX offset defects of each Assimp series (src/import/assimp_fixes.c) on a scene built
 * as each series' importer leaves such a file: root -> Armature (scale 100)
 * -> boneA -> boneB, and a mesh node "Body" (translated) under the root.
 *   5.2: every bone's offset is the mesh's global bind matrix (Autodesk's
 *        cluster Transform); the importer rebuilds inverse(rest global) *
 *        that matrix, so at rest the mesh sits where its node puts it.
 *   5.4: offsets are inverse(bone global) * (mesh parent's local); the
 *        importer multiplies in inverse(parent local) * global(mesh node).
 * Either way the rest pose must come out as: every palette entry equals
 * the mesh node's global transform (the vertices where the file has them). */
static void test_fbx_offsets(void)
{
    struct aiNode *root = node("RootNode", NULL);
    struct aiNode *armature = node("Armature", root);
    armature->mTransformation.a1 = armature->mTransformation.b2 = armature->mTransformation.c3 = 100.0f;
    struct aiNode *a = node("boneA", armature), *b = node("boneB", a);
    a->mTransformation.b4 = 0.5f;
    b->mTransformation.b4 = 1.0f;
    b->mTransformation.a1 = 0.0f, b->mTransformation.a2 = -1.0f, b->mTransformation.b1 = 1.0f, b->mTransformation.b2 = 0.0f;
    struct aiNode *body = node("Body", root);
    body->mTransformation.a4 = 3.0f, body->mTransformation.c4 = -2.0f;
    attach_mesh(body, 0);
    struct aiMesh *mesh = quad_mesh("body");
    unsigned ids[4] = {0, 1, 2, 3};
    float half[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    mesh->mNumBones = 2;
    mesh->mBones = calloc(2, sizeof *mesh->mBones);
    mesh->mBones[0] = bone("boneA", 4, ids, half);
    mesh->mBones[1] = bone("boneB", 4, ids, half);

    /* Globals of the rest pose, row-major like Assimp's. */
    mat4 g_arm, g_a, g_b, g_body, m;
    as_mat4(&armature->mTransformation, g_arm);
    as_mat4(&a->mTransformation, m);
    glm_mat4_mul(g_arm, m, g_a);
    as_mat4(&b->mTransformation, m);
    glm_mat4_mul(g_a, m, g_b);
    as_mat4(&body->mTransformation, g_body);
    const char *version = import_assimp_version();
    int series52 = strncmp(version, "5.2.", 4) == 0, series54 = strncmp(version, "5.4.", 4) == 0;
    mat4 offsets[2];
    const mat4 *globals[2] = {(const mat4 *)&g_a, (const mat4 *)&g_b};
    for (int k = 0; k < 2; k++) {
        if (series54) { /* inverse(bone global) * parent-of-mesh local (the root: identity) */
            glm_mat4_inv((vec4 *)*globals[k], offsets[k]);
        } else { /* 5.2: the mesh's global, for both */
            glm_mat4_copy(g_body, offsets[k]);
        }
        const float *col = (const float *)offsets[k];
        float *row = &mesh->mBones[k]->mOffsetMatrix.a1;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) row[r * 4 + c] = col[c * 4 + r];
    }
    struct aiMesh *meshes[1] = {mesh};
    struct aiScene scene = {.mRootNode = root, .mNumMeshes = 1, .mMeshes = meshes};
    skv_model model;
    skv_error err;
    CHECK(import_scene(&scene, "character.fbx", NULL, &model, &err) == SKV_OK);
    skv_pose pose;
    skv_walks *walks;
    CHECK(walks_create(&walks, &model) == SKV_OK);
    CHECK(pose_create(&pose, &model.skeleton) == SKV_OK);
    pose_evaluate(&pose, walks, -1, 0.0);
    double worst = 0.0;
    for (int k = 0; k < 2; k++) {
        int bone_index = model_find_bone(&model, k ? "boneB" : "boneA");
        CHECK(bone_index >= 0 && model_bone_from_file(&model, bone_index));
        for (int c = 0; c < 4 && bone_index >= 0; c++)
            for (int r = 0; r < 4; r++)
                worst = fmax(worst, fabs(pose.palette[bone_index][c][r] - g_body[c][r]));
    }
    printf("FBX offsets on Assimp %s (%s): rest palette vs the mesh node's transform %.2g%s\n", version,
           series52 ? "5.2 defect rebuilt" : series54 ? "5.4 defect corrected" : "no known defect",
           worst, warned(&model, "same offset") ? " (warned)" : "");
    if (series52 || series54) CHECK(worst < 1e-4);
    CHECK(warned(&model, "same offset") == series52);
    /* The same offsets from a file that is not FBX are taken as they are. */
    skv_model other;
    CHECK(import_scene(&scene, "character.dae", NULL, &other, &err) == SKV_OK);
    CHECK(!warned(&other, "same offset"));
    model_free(&other);
    pose_destroy(&pose);
    walks_destroy(walks);
    model_free(&model);
    free_mesh(mesh);
    free_node(root);
}

/* One-channel clips merge per time line, in file order: a clip joins the
 * earliest clip before it on its time line (ticks per second, duration)
 * that is not yet merged into another and does not animate its node yet;
 * the clips left keep their order. Eight clips over two time lines and
 * three nodes, the same node often: A B C D E F G H become A+B+G, C+F,
 * D+H and E. */
static void test_merge_order(void)
{
    struct aiNode *root = node("root", NULL);
    node("n1", root), node("n2", root), node("n3", root);
    attach_mesh(root, 0);
    struct aiMesh *mesh = quad_mesh("quad");
    struct aiMesh *meshes[1] = {mesh};
    static const char names[8][2] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    static const char *const targets[8] = {"n1", "n2", "n1", "n3", "n1", "n2", "n3", "n1"};
    static const double durations[8] = {10, 10, 10, 20, 10, 10, 10, 20};
    struct aiVectorKey keys[8][2];
    struct aiNodeAnim channels[8] = {0};
    struct aiNodeAnim *channel_ptr[8][1];
    struct aiAnimation clips[8] = {0};
    struct aiAnimation *clip_ptr[8];
    for (int i = 0; i < 8; i++) {
        /* Each clip's key value tells its channel from the others. */
        keys[i][0] = (struct aiVectorKey){.mTime = 0.0, .mValue = {(float)i, 0, 0}};
        keys[i][1] = (struct aiVectorKey){.mTime = durations[i], .mValue = {(float)i, 1, 0}};
        set_name(&channels[i].mNodeName, targets[i]);
        channels[i].mNumPositionKeys = 2;
        channels[i].mPositionKeys = keys[i];
        clip_ptr[i] = one_channel_clip(&clips[i], names[i], durations[i], &channels[i], channel_ptr[i]);
    }
    struct aiScene scene = {.mRootNode = root, .mNumMeshes = 1, .mMeshes = meshes, .mNumAnimations = 8,
                            .mAnimations = clip_ptr};
    skv_model model;
    skv_error err = {{0}};
    skv_result r = import_scene(&scene, "/nowhere/merge.model", NULL, &model, &err);
    CHECK(r == SKV_OK);
    if (r == SKV_OK) {
        static const char *const want_names[4] = {"A", "C", "D", "E"};
        static const int want_sources[4][3] = {{0, 1, 6}, {2, 5, -1}, {3, 7, -1}, {4, -1, -1}};
        CHECK(model.clip_count == 4);
        for (int c = 0; c < model.clip_count && c < 4; c++) {
            const skv_clip *clip = &model.clips[c];
            int count = 0;
            while (count < 3 && want_sources[c][count] >= 0) count++;
            CHECK(strcmp(clip->name, want_names[c]) == 0);
            CHECK(clip->channel_count == count);
            CHECK(clip->merged_from == (count > 1 ? count : 0));
            for (int k = 0; k < clip->channel_count && k < count; k++) {
                const skv_channel *ch = &clip->channels[k];
                CHECK(ch->positions[0].value[0] == (float)want_sources[c][k]);
                CHECK(clip->node_channel[ch->node] == k);
            }
        }
        model_free(&model);
    }
    free_mesh(mesh);
    free_node(root);
}

/* MD5 has no scale: the scale keys Assimp's MD5 reader gives (1.0000006,
 * 1.00000131, ...) become exact 1s for .md5mesh and .md5anim files
 * (assimp_fixes.c, md5_unit_scales); any other format keeps its
 * scale keys as they are. */
static void test_md5_scale(void)
{
    static const char *const paths[3] = {"/nowhere/bob.md5mesh", "/nowhere/BOB.MD5ANIM", "/nowhere/bob.fbx"};
    for (int p = 0; p < 3; p++) {
        struct aiNode *root = node("root", NULL);
        node("origin", root);
        attach_mesh(root, 0);
        struct aiMesh *mesh = quad_mesh("quad");
        struct aiMesh *meshes[1] = {mesh};
        struct aiVectorKey positions[2] = {{.mTime = 0.0, .mValue = {0, 0, 0}}, {.mTime = 4.0, .mValue = {1, 0, 0}}};
        struct aiVectorKey scales[2] = {{.mTime = 0.0, .mValue = {1.0000006f, 1.00000131f, 1.0000006f}},
                                        {.mTime = 4.0, .mValue = {0.999998927f, 0.999999106f, 0.999999523f}}};
        struct aiNodeAnim channel = {.mNumPositionKeys = 2, .mPositionKeys = positions, .mNumScalingKeys = 2,
                                     .mScalingKeys = scales};
        set_name(&channel.mNodeName, "origin");
        struct aiNodeAnim *channels[1] = {&channel};
        struct aiAnimation anim = {.mDuration = 4.0, .mTicksPerSecond = 24.0};
        skv_model model;
        skv_error err = {{0}};
        skv_result r = import_one_clip(root, meshes, 1, &anim, "idle", channels, 1, paths[p], &model, &err);
        CHECK(r == SKV_OK);
        if (r == SKV_OK) {
            const skv_channel *ch = &model.clips[0].channels[0];
            CHECK(model.clip_count == 1 && ch->scale_count == 2);
            for (int k = 0; k < ch->scale_count && k < 2; k++)
                for (int i = 0; i < 3; i++)
                    CHECK(ch->scales[k].value[i] == (p < 2 ? 1.0f
                                                           : i == 0 ? scales[k].mValue.x
                                                           : i == 1 ? scales[k].mValue.y
                                                                    : scales[k].mValue.z));
            model_free(&model);
        }
        free_mesh(mesh);
        free_node(root);
    }
}

/* to_mat4: a bottom row within rounding of 0 0 0 1 (Assimp's MD5 loader
 * gives some 1.19e-7 off) becomes exact, so the walk takes the affine
 * products; a bottom row that is really not 0 0 0 1 is kept as it is. */
static void test_bottom_row(void)
{
    struct aiMatrix4x4 near = {0}, far = {0};
    near.a1 = near.b2 = near.c3 = 2.0f, near.a4 = 3.0f;
    near.d1 = 1e-8f, near.d3 = -2e-8f, near.d4 = 1.0f + 1.1920929e-7f;
    far = near;
    far.d1 = 0.25f;
    mat4 m;
    to_mat4(&near, m);
    CHECK(m[0][3] == 0.0f && m[1][3] == 0.0f && m[2][3] == 0.0f && m[3][3] == 1.0f);
    CHECK(m[0][0] == 2.0f && m[3][0] == 3.0f); /* the rest as it was */
    to_mat4(&far, m);
    CHECK(m[0][3] == 0.25f && m[2][3] == -2e-8f && m[3][3] == 1.0f + 1.1920929e-7f);
}

/* The Assimp fixes (assimp_fixes.c): every row of the table is whole, and
 * the runner keeps its rules, checked on a table of the test's own so that
 * they are the runner's and not today's rows'. Each fix itself has its
 * own test (this file's test_fbx_offsets and test_md5_scale, the e2e and
 * reference cases the rows name). */
static int fix_runs[8];

static int fix_yes(fix_context *c)
{
    (void)c;
    return 1;
}

static int fix_no(fix_context *c)
{
    (void)c;
    return 0;
}

#define FIX_COUNTER(k)                                                                                          \
    static skv_result fix_count_##k(fix_context *c)                                                            \
    {                                                                                                           \
        (void)c;                                                                                                \
        fix_runs[k]++;                                                                                          \
        return SKV_OK;                                                                                          \
    }
FIX_COUNTER(0)
FIX_COUNTER(1)
FIX_COUNTER(2)
FIX_COUNTER(3)
FIX_COUNTER(4)
FIX_COUNTER(5)

static skv_result fix_cannot_read(fix_context *c)
{
    fix_runs[6]++;
    c->unread = "unreadable";
    return SKV_ERR_IMPORT;
}

static void fix_report(fix_context *c, skv_model *model)
{
    model_warn(model, "reported for %s", c->path);
}

static int warnings_with(const skv_model *m, const char *text)
{
    int n = 0;
    for (int i = 0; i < m->warning_count; i++) n += strstr(m->warnings[i], text) != NULL;
    return n;
}

static void test_fix_table(void)
{
    CHECK(assimp_fix_count > 0 && assimp_fix_count <= 64);
    for (int i = 0; i < assimp_fix_count; i++) {
        const assimp_fix *f = &assimp_fixes[i];
        CHECK(f->defect && f->defect[0]);
        CHECK((int)f->stage >= 0 && f->stage < FIX_STAGES);
        CHECK(f->repair != NULL);
        CHECK(!(f->warning && f->report));
        CHECK(!f->read_error || f->stage == FIX_READ_SCENE);
        CHECK(f->major || !f->minor);
        for (const char *t = f->formats; t && *t; t += strcspn(t, " "), t += strspn(t, " ")) CHECK(*t == '.');
    }

    /* A row's series and formats. */
    assimp_fix md5 = {.formats = ".md5mesh .md5anim"}, every = {0}, old = {.major = 4, .minor = 1},
               this = {.major = aiGetVersionMajor(), .minor = aiGetVersionMinor(), .formats = ".glb"};
    CHECK(assimp_fix_applies(&md5, "/x/BOB.MD5MESH") && assimp_fix_applies(&md5, "Walk.Md5Anim"));
    CHECK(!assimp_fix_applies(&md5, "bob.md5") && !assimp_fix_applies(&md5, "a.md5animx"));
    CHECK(!assimp_fix_applies(&md5, "bobmd5mesh") && !assimp_fix_applies(&md5, NULL));
    CHECK(assimp_fix_applies(&every, "x.glb") && assimp_fix_applies(&every, NULL));
    CHECK(!assimp_fix_applies(&old, "x.glb"));
    CHECK(assimp_fix_applies(&this, "x.GLB") && !assimp_fix_applies(&this, "x.gltf"));

    const assimp_fix table[] = {
        {.defect = "0", .stage = FIX_CLIP, .repair = fix_count_0, .warning = "row 0 repaired"},
        {.defect = "1", .formats = ".dae", .stage = FIX_CLIP, .repair = fix_count_1, .warning = "row 1"},
        {.defect = "2", .stage = FIX_CLIP, .detect = fix_no, .repair = fix_count_2, .warning = "row 2"},
        {.defect = "3", .stage = FIX_BEFORE_READ, .detect = fix_yes, .repair = fix_count_3, .report = fix_report},
        {.defect = "4", .stage = FIX_BEFORE_READ, .repair = fix_cannot_read},
        {.defect = "5", .stage = FIX_BEFORE_READ, .repair = fix_count_4, .warning = "row 5"},
        {.defect = "6", .major = 4, .minor = 1, .stage = FIX_CLIP, .repair = fix_count_5, .warning = "row 6"},
        {.defect = "7", .stage = FIX_READ_SCENE, .repair = fix_count_5, .read_error = "is larger than its end"},
    };
    const int rows = (int)(sizeof table / sizeof table[0]);
    skv_model model = {0};

    /* A stage runs its rows that apply and detect the defect; where the
     * model exists, a row that repaired warns at once, once. */
    fix_context clip = {.path = "/x/walk.glb", .model = &model};
    CHECK(assimp_fix_table_run(table, rows, FIX_CLIP, &clip) == SKV_OK);
    CHECK(assimp_fix_table_run(table, rows, FIX_CLIP, &clip) == SKV_OK);
    CHECK(fix_runs[0] == 2 && fix_runs[1] == 0 && fix_runs[2] == 0 && fix_runs[5] == 0);
    CHECK(clip.fired == 1u && warnings_with(&model, "row 0 repaired") == 1 && model.warning_count == 1);

    /* Before the model exists: a failing repair stops the stage with its
     * reason; what repaired before it speaks at FIX_MODEL. */
    fix_context read = {.path = "/x/walk.glb"};
    CHECK(assimp_fix_table_run(table, rows, FIX_BEFORE_READ, &read) == SKV_ERR_IMPORT);
    CHECK(fix_runs[3] == 1 && fix_runs[6] == 1 && fix_runs[4] == 0);
    CHECK(read.unread && strcmp(read.unread, "unreadable") == 0);
    CHECK(read.fired == 1u << 3 && model.warning_count == 1);
    read.model = &model;
    CHECK(assimp_fix_table_run(table, rows, FIX_MODEL, &read) == SKV_OK);
    CHECK(warnings_with(&model, "reported for /x/walk.glb") == 1 && model.warning_count == 2);

    /* The Assimp errors a row answers. */
    CHECK(assimp_fix_table_answers(table, rows, "a.b3d", "Validation: key 3 is larger than its end (2)"));
    CHECK(!assimp_fix_table_answers(table, rows, "a.b3d", "another error"));
    CHECK(!assimp_fix_table_answers(table, rows, "a.b3d", NULL));
    model_free(&model);
}

int main(void)
{
    test_fix_table();
    test_bottom_row();
    test_fbx_offsets();
    test_defensive();
    test_merge_order();
    test_md5_scale();
    /* root (scale 2) -> armature -> boneA -> boneB
     *      -> body (skinned meshes 0 and 1)
     *      -> prop at x = 5 (rigid mesh 2) */
    struct aiNode *root = node("root", NULL);
    root->mTransformation.a1 = root->mTransformation.b2 = root->mTransformation.c3 = 2.0f;
    struct aiNode *armature = node("armature", root);
    struct aiNode *bone_a = node("boneA", armature);
    node("boneB", bone_a);
    struct aiNode *body = node("body", root);
    struct aiNode *prop = node("prop", root);
    prop->mTransformation.a4 = 5.0f;
    attach_mesh(body, 0);
    attach_mesh(body, 1);
    attach_mesh(prop, 2);

    struct aiMesh *meshes[3] = {quad_mesh("skinned"), quad_mesh("skinned too"), quad_mesh("rigid")};
    /* Mesh 0: v0 all boneA; v1 half/half; v2 boneA listed twice (0.1 each);
     * v3 nothing; a weight for vertex 99; a bone with no node. */
    meshes[0]->mNumBones = 3;
    meshes[0]->mBones = calloc(3, sizeof(struct aiBone *));
    meshes[0]->mBones[0] = bone("boneA", 5, (unsigned[]){0, 1, 2, 2, 99}, (float[]){1.0f, 0.5f, 0.1f, 0.1f, 1.0f});
    meshes[0]->mBones[1] = bone("boneB", 1, (unsigned[]){1}, (float[]){0.5f});
    meshes[0]->mBones[2] = bone("ghost", 1, (unsigned[]){0}, (float[]){0.0f});
    /* Mesh 1 shares boneA. */
    meshes[1]->mNumBones = 1;
    meshes[1]->mBones = calloc(1, sizeof(struct aiBone *));
    meshes[1]->mBones[0] = bone("boneA", 4, (unsigned[]){0, 1, 2, 3}, (float[]){1, 1, 1, 1});

    /* A clip with ticks/s 0, no duration, keys out of order, and a
     * channel for a node that does not exist. */
    struct aiNodeAnim channels[2] = {0};
    struct aiNodeAnim *channel_ptrs[2] = {&channels[0], &channels[1]};
    set_name(&channels[0].mNodeName, "boneA");
    struct aiVectorKey pos[2] = {{.mTime = 10.0, .mValue = {4, 0, 0}}, {.mTime = 0.0, .mValue = {0, 0, 0}}};
    channels[0].mNumPositionKeys = 2;
    channels[0].mPositionKeys = pos;
    set_name(&channels[1].mNodeName, "nobody");
    struct aiAnimation anim = {0};
    skv_model model;
    skv_error err = {{0}};
    skv_result r =
        import_one_clip(root, meshes, 3, &anim, "move", channel_ptrs, 2, "/nowhere/test.model", &model, &err);
    CHECK(r == SKV_OK);
    if (r != SKV_OK) {
        fprintf(stderr, "import_scene: %s\n", err.message);
        return check_summary();
    }
    const skv_skeleton *sk = &model.skeleton;

    /* Flattened parent-first. */
    CHECK(sk->node_count == 6);
    for (int n = 1; n < sk->node_count; n++) CHECK(sk->parents[n] >= 0 && sk->parents[n] < n);
    CHECK(strcmp(sk->node_names[0], "root") == 0);

    /* Bone map: boneA once across both meshes, boneB, ghost (no node),
     * plus node bones for body (unweighted v3) and prop (rigid mesh). */
    CHECK(model.file_bone_count == 3);
    CHECK(sk->bone_count == 5);
    int a_count = 0, ghost = -1;
    for (int b = 0; b < sk->bone_count; b++) {
        if (strcmp(sk->bone_names[b], "boneA") == 0) a_count++;
        if (strcmp(sk->bone_names[b], "ghost") == 0) ghost = b;
    }
    CHECK(a_count == 1);
    CHECK(ghost >= 0 && sk->bone_node[ghost] == -1);
    CHECK(warned(&model, "'ghost' has no node"));
    CHECK(warned(&model, "vertex that does not exist"));

    CHECK(model.mesh_count == 3 && model.vertex_count == 12);
    const uint16_t *ids = model.bone_ids;
    const float *w = model.weights;
    int base1 = model.meshes[1].base_vertex, base2 = model.meshes[2].base_vertex;
    CHECK(ids[0] == ids[base1 * 4]); /* shared boneA entry */
    CHECK(w[0] == 1.0f);
    CHECK_NEAR(w[1 * 4] + w[1 * 4 + 1], 1.0, 1e-6);
    CHECK(w[2 * 4] == 1.0f && w[2 * 4 + 1] == 0.0f); /* duplicate merged */
    /* v3: no weight -> the body node's own entry. */
    int v3 = ids[3 * 4];
    CHECK(w[3 * 4] == 1.0f && sk->bone_node[v3] == 4);
    CHECK(model.meshes[0].unweighted_vertices == 1);
    CHECK(model.meshes[0].max_influences == 2);
    /* Rigid mesh: every vertex on the prop node's entry. */
    int prop_bone = ids[base2 * 4];
    CHECK(sk->bone_node[prop_bone] == 5 && model.meshes[2].skinned == 0);

    /* Clip: ticks/s 0 -> 25, duration from the last key, keys sorted. */
    CHECK(model.clip_count == 1);
    const skv_clip *clip = &model.clips[0];
    CHECK(clip->ticks_per_second == 25.0);
    CHECK(clip->duration_ticks == 10.0);
    CHECK(clip->channel_count == 1);
    CHECK(clip->channels[0].positions[0].time == 0.0 && clip->channels[0].positions[1].time == 10.0);
    CHECK(clip->channels[0].rotation_count == 1 && clip->channels[0].scale_count == 1);
    CHECK(warned(&model, "do not exist"));
    CHECK(warned(&model, "out of time order"));

    /* globalInverse cancels the root; the rigid mesh rides on its node. */
    mat4 product;
    glm_mat4_mul(model.global_inverse, model.upright, product);
    CHECK_NEAR(product[0][0], 1.0, 1e-6);
    CHECK_NEAR(model.upright[0][0], 2.0, 1e-6);
    skv_pose pose;
    skv_walks *walks;
    CHECK(walks_create(&walks, &model) == SKV_OK);
    CHECK(pose_create(&pose, sk) == SKV_OK);
    pose_evaluate(&pose, walks, 0, 0.2); /* 5 ticks: boneA half-way to x = 4 */
    CHECK_NEAR(pose.palette[prop_bone][3][0], 5.0, 1e-5);
    CHECK_NEAR(pose.palette[ids[0]][3][0], 2.0, 1e-5);
    pose_destroy(&pose);
    walks_destroy(walks);

    model_free(&model);

    /* One clip per node, as Collada files often have: three on one time
     * line merge into one clip; one on another time line stays apart. */
    struct aiVectorKey short_keys[2] = {{.mTime = 0.0, .mValue = {0, 0, 0}}, {.mTime = 10.0, .mValue = {1, 0, 0}}};
    struct aiVectorKey long_keys[2] = {{.mTime = 0.0, .mValue = {0, 0, 0}}, {.mTime = 20.0, .mValue = {1, 0, 0}}};
    const char *targets[4] = {"boneA", "boneB", "prop", "armature"};
    struct aiNodeAnim one[4] = {0};
    struct aiNodeAnim *one_ptr[4][1];
    struct aiAnimation per_node[4] = {0};
    struct aiAnimation *per_node_ptr[4];
    for (int i = 0; i < 4; i++) {
        set_name(&one[i].mNodeName, targets[i]);
        one[i].mNumPositionKeys = 2;
        one[i].mPositionKeys = i == 3 ? long_keys : short_keys;
        per_node_ptr[i] = one_channel_clip(&per_node[i], targets[i], i == 3 ? 20.0 : 10.0, &one[i], one_ptr[i]);
    }
    struct aiScene scene = {.mRootNode = root, .mNumMeshes = 3, .mMeshes = meshes, .mNumAnimations = 4,
                            .mAnimations = per_node_ptr};
    r = import_scene(&scene, "/nowhere/test.model", NULL, &model, &err);
    CHECK(r == SKV_OK);
    if (r == SKV_OK) {
        CHECK(model.clip_count == 2);
        CHECK(model.clips[0].channel_count == 3 && model.clips[0].merged_from == 3);
        CHECK(model.clips[1].channel_count == 1 && model.clips[1].duration_ticks == 20.0);
        /* Each merged channel still drives its own node. */
        int driven = 0;
        for (int n = 0; n < model.skeleton.node_count; n++) driven += model.clips[0].node_channel[n] >= 0;
        CHECK(driven == 3);
        model_free(&model);
    }
    free_node(root);
    for (int m = 0; m < 3; m++) free_mesh(meshes[m]);
    return check_summary();
}
