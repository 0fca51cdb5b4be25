/* morphs.c - morph targets: per mesh, each target's deltas from the base
 * mesh; per clip, the weight channels that drive them. */
#include "private/import_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_ds.h>

/* Assimp (5.2.5 and 5.4) stores each aiAnimMesh as the whole morphed
 * mesh (base + delta), aligned with the base mesh's vertices through
 * Triangulate and JoinIdenticalVertices; the model keeps deltas, which
 * is what both blends add up. Mesh instances come in convert_meshes'
 * order (nodes parent-first, then each node's meshes). */
skv_result convert_morph_targets(importer *im)
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

/* The clip's morph weight channels (aiMeshMorphAnim). Assimp's glTF
 * reader names each after the node that holds the mesh (5.2.5 and 5.4);
 * a channel drives every morphed mesh under that node (a glTF mesh of
 * several primitives is several meshes), or else the mesh of that name.
 * Keys name targets by index, sparsely: the others weigh 0 at that key.
 * Returns -1 when memory runs out. */
int convert_morph_channels(importer *im, const struct aiAnimation *src, skv_clip *clip, double *last_key)
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

