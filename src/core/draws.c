/* draws.c - splitting meshes into draws that fit the shader palette. */
#include "draws.h"

#include <stdlib.h>
#include <string.h>

/* Growable arrays for the split. */
typedef struct split_state {
    skv_draw_set *set;
    int vertex_capacity, index_capacity, draw_capacity, start_capacity, pair_capacity, pair_count;
} split_state;

static int reserve(void **array, int *capacity, int needed, size_t item)
{
    if (needed <= *capacity) return 0;
    int cap = *capacity ? *capacity : 256;
    while (cap < needed) cap *= 2;
    void *grown = realloc(*array, (size_t)cap * item);
    if (!grown) return -1;
    *array = grown;
    *capacity = cap;
    return 0;
}

static skv_draw *new_draw(split_state *st, int mesh)
{
    skv_draw_set *set = st->set;
    if (reserve((void **)&set->draws, &st->draw_capacity, set->draw_count + 1, sizeof *set->draws)) return NULL;
    skv_draw *d = &set->draws[set->draw_count++];
    memset(d, 0, sizeof *d);
    d->mesh = mesh;
    d->base_vertex = set->vertex_count;
    d->first_index = set->index_count;
    return d;
}

static skv_result split(const skv_model *model, int max_bones, skv_draw_set *set, skv_error *err)
{
    split_state st = {.set = set};
    const int slots = model->influence_slots;
    int bones = model->skeleton.bone_count;
    int most = 1; /* influences on one vertex (model_influence: slots, or lists): a triangle adds at most 3x */
    for (int v = 0; v < model->vertex_count; v++)
        if (model_influence_count(model, v) > most) most = model_influence_count(model, v);
    int *slot_of_bone = malloc((size_t)bones * sizeof *slot_of_bone);
    int *local_of_vertex = malloc((size_t)model->vertex_count * sizeof *local_of_vertex);
    /* A draw's bones, and a triangle's new ones past the last draw's end. */
    int *draw_bones = malloc(((size_t)max_bones + 3 * (size_t)most) * sizeof *draw_bones);
    int *added = malloc(3 * (size_t)most * sizeof *added);
    if (!slot_of_bone || !local_of_vertex || !draw_bones || !added) goto oom;
    if (model->influence_lists) {
        if (reserve((void **)&set->list_start, &st.start_capacity, 1, sizeof *set->list_start)) goto oom;
        set->list_start[0] = 0;
    }
    for (int b = 0; b < bones; b++) slot_of_bone[b] = -1;
    for (int v = 0; v < model->vertex_count; v++) local_of_vertex[v] = -1;

    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        skv_draw *d = NULL;
        for (int t = 0; t < mesh->index_count; t += 3) {
            const uint32_t *tri = &model->indices[mesh->first_index + t];
            /* Bones this triangle adds to the current draw. */
            int add_count = 0;
            for (int k = 0; k < 3 && d; k++) {
                int v = mesh->base_vertex + (int)tri[k];
                for (int i = 0, n = model_influence_count(model, v); i < n; i++) {
                    int b;
                    /* A list adds every bone it names (below), a weight
                     * that rounded to 0 too; slots only those they use. */
                    float w = model_influence(model, v, i, &b);
                    if ((w == 0.0f && !model->influence_lists) || slot_of_bone[b] >= 0) continue;
                    int seen = 0;
                    for (int j = 0; j < add_count; j++) seen |= added[j] == b;
                    if (!seen) added[add_count++] = b;
                }
            }
            if (!d || d->bone_count + add_count > max_bones) {
                /* Close the current draw: forget its vertices and slots. */
                if (d) {
                    d->bones = malloc((size_t)d->bone_count * sizeof *d->bones);
                    if (!d->bones) goto oom;
                    memcpy(d->bones, draw_bones, (size_t)d->bone_count * sizeof *d->bones);
                    for (int s = 0; s < d->bone_count; s++) slot_of_bone[draw_bones[s]] = -1;
                    for (int v = d->base_vertex; v < set->vertex_count; v++) local_of_vertex[set->source_vertex[v]] = -1;
                }
                d = new_draw(&st, m);
                if (!d) goto oom;
            }
            if (reserve((void **)&set->indices, &st.index_capacity, set->index_count + 3, sizeof *set->indices))
                goto oom;
            for (int k = 0; k < 3; k++) {
                int v = mesh->base_vertex + (int)tri[k];
                if (local_of_vertex[v] < 0) {
                    int n = set->vertex_count, old_capacity = st.vertex_capacity;
                    if (reserve((void **)&set->source_vertex, &st.vertex_capacity, n + 1, sizeof(int)))
                        goto oom;
                    if (st.vertex_capacity != old_capacity) { /* bone_ids keeps the same capacity */
                        uint16_t *grown = realloc(set->bone_ids, (size_t)st.vertex_capacity * (size_t)slots *
                                                                     sizeof *grown);
                        if (!grown) goto oom;
                        set->bone_ids = grown;
                    }
                    if (model->influence_lists) { /* the list first: its bones hold the slots' */
                        int first = model->influence_start[v], count = model->influence_start[v + 1] - first;
                        if (reserve((void **)&set->list_start, &st.start_capacity, n + 2, sizeof *set->list_start) ||
                            reserve((void **)&set->list_pairs, &st.pair_capacity, st.pair_count + count,
                                    sizeof *set->list_pairs))
                            goto oom;
                        for (int i = 0; i < count; i++) {
                            int b = model->influences[first + i].bone;
                            if (slot_of_bone[b] < 0) {
                                slot_of_bone[b] = d->bone_count;
                                draw_bones[d->bone_count++] = b;
                            }
                            set->list_pairs[st.pair_count++] =
                                (skv_influence){.bone = slot_of_bone[b], .weight = model->influences[first + i].weight};
                        }
                        set->list_start[n + 1] = st.pair_count;
                    }
                    uint16_t *ids = set->bone_ids;
                    set->source_vertex[n] = v;
                    for (int i = 0; i < slots; i++) {
                        int b = model->bone_ids[v * slots + i];
                        int used = model->weights[v * slots + i] != 0.0f;
                        if (used && slot_of_bone[b] < 0) {
                            slot_of_bone[b] = d->bone_count;
                            draw_bones[d->bone_count++] = b;
                        }
                        ids[n * slots + i] = used ? (uint16_t)slot_of_bone[b] : 0;
                    }
                    local_of_vertex[v] = n - d->base_vertex;
                    set->vertex_count++;
                    d->vertex_count++;
                }
                set->indices[set->index_count++] = (uint32_t)local_of_vertex[v];
            }
            d->index_count += 3;
            if (d->bone_count > max_bones) {
                free(slot_of_bone), free(local_of_vertex), free(draw_bones), free(added);
                return skv_fail(err, SKV_ERR_ARGUMENT,
                                "mesh %d: one triangle's vertices have %d bones among them, over the %d a draw "
                                "holds",
                                m, d->bone_count, max_bones);
            }
        }
        if (d) {
            d->bones = malloc((size_t)(d->bone_count ? d->bone_count : 1) * sizeof *d->bones);
            if (!d->bones) goto oom;
            memcpy(d->bones, draw_bones, (size_t)d->bone_count * sizeof *d->bones);
            for (int s = 0; s < d->bone_count; s++) slot_of_bone[draw_bones[s]] = -1;
            for (int v = d->base_vertex; v < set->vertex_count; v++) local_of_vertex[set->source_vertex[v]] = -1;
        }
    }
    free(slot_of_bone), free(local_of_vertex), free(draw_bones), free(added);
    return SKV_OK;
oom:
    free(slot_of_bone), free(local_of_vertex), free(draw_bones), free(added);
    return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
}

skv_result draws_build(const skv_model *model, int max_bones, skv_draw_set *set, skv_error *err)
{
    memset(set, 0, sizeof *set);
    if (model->skeleton.bone_count > max_bones) {
        set->split = 1;
        skv_result r = split(model, max_bones, set, err);
        if (r != SKV_OK) draws_free(set);
        return r;
    }
    set->draws = calloc((size_t)(model->mesh_count ? model->mesh_count : 1), sizeof *set->draws);
    if (!set->draws) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    set->draw_count = model->mesh_count;
    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        set->draws[m] = (skv_draw){.mesh = m, .base_vertex = mesh->base_vertex, .vertex_count = mesh->vertex_count,
                                   .first_index = mesh->first_index, .index_count = mesh->index_count};
    }
    return SKV_OK;
}

skv_result draws_check_lists(const skv_model *model, int max_bones, skv_error *err)
{
    if (!model->influence_lists || model->skeleton.bone_count <= max_bones) return SKV_OK;
    int *stamp = NULL; /* per bone: the last triangle (+ 1) that counted it */
    skv_result r = SKV_OK;
    for (int m = 0; m < model->mesh_count && r == SKV_OK; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        for (int t = 0; t < mesh->index_count && r == SKV_OK; t += 3) {
            const uint32_t *tri = &model->indices[mesh->first_index + t];
            int named = 0;
            for (int k = 0; k < 3; k++) {
                int v = mesh->base_vertex + (int)tri[k];
                named += model->influence_start[v + 1] - model->influence_start[v];
            }
            if (named <= max_bones) continue; /* the common case: no count needed */
            if (!stamp && !(stamp = calloc((size_t)model->skeleton.bone_count, sizeof *stamp)))
                return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            int mark = mesh->first_index + t + 1, distinct = 0;
            for (int k = 0; k < 3; k++) {
                int v = mesh->base_vertex + (int)tri[k];
                for (int i = model->influence_start[v]; i < model->influence_start[v + 1]; i++) {
                    int b = model->influences[i].bone;
                    if (stamp[b] != mark) stamp[b] = mark, distinct++;
                }
            }
            if (distinct > max_bones)
                r = skv_fail(err, SKV_ERR_ARGUMENT,
                             "mesh %d: one triangle's vertices have %d bones among them, over the %d a draw holds", m,
                             distinct, max_bones);
        }
    }
    free(stamp);
    return r;
}

void draws_free(skv_draw_set *set)
{
    for (int d = 0; d < set->draw_count; d++) free(set->draws[d].bones);
    free(set->draws);
    free(set->source_vertex);
    free(set->bone_ids);
    free(set->indices);
    free(set->list_start);
    free(set->list_pairs);
    memset(set, 0, sizeof *set);
}

void draws_gather_palette(const skv_draw *d, const mat4 *full, mat4 *out)
{
    for (int s = 0; s < d->bone_count; s++) glm_mat4_copy((vec4 *)full[d->bones[s]], out[s]);
}
