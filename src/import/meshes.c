/* meshes.c - meshes and skins: the scene's triangle meshes gathered into
 * one vertex and index set (a mesh under two nodes twice), each vertex's
 * influences packed (its bones through skeleton.c's bone map), broken
 * normals rebuilt, and Half-Life's default body. */
#include "private/import_internal.h"

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin.h"

/* After SortByPType a mesh holds one primitive type; only triangles draw.
 * (Triangulate may also set the NGON-encoding flag: not a primitive.) */
int is_triangle_mesh(const struct aiMesh *m)
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
    /* The bones' offsets as the file gives them, then as the Assimp fixes
     * repair them (FIX_MESH_BONES). */
    mat4 *offsets = malloc((src->mNumBones ? src->mNumBones : 1) * sizeof *offsets);
    fix_context fix = {.path = im->path, .im = im, .mesh = src, .mesh_name = mesh->name, .mesh_node = mesh->node,
                       .offsets = offsets, .correction = GLM_MAT4_IDENTITY_INIT};
    for (unsigned b = 0; offsets && b < src->mNumBones; b++) to_mat4(&src->mBones[b]->mOffsetMatrix, offsets[b]);
    if (!offsets || (src->mNumBones > 0 && assimp_fixes_run(FIX_MESH_BONES, &fix) != SKV_OK)) {
        free(counts), free(bone_of), free(offsets);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (unsigned b = 0; b < src->mNumBones; b++) {
        const struct aiBone *bone = src->mBones[b];
        bone_of[b] = file_bone_index(im, bone, offsets[b], fix.correction, mesh->node);
        if (bone_of[b] < 0) {
            free(counts);
            free(bone_of);
            free(offsets);
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
    free(offsets);
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
    if (!ends_with_nocase(im->path, ".mdl") || !hl1_scene(im->scene)) return 0;
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
unsigned node_mesh_count(const importer *im, int node)
{
    return im->hidden_meshes && im->hidden_meshes[node] ? 0 : im->nodes[node]->mNumMeshes;
}

skv_result convert_meshes(importer *im)
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

int has_triangle_meshes(const struct aiScene *scene)
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
