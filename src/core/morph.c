/* morph.c - morph target weights and the CPU morph (morph.h). */
#include "morph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "keys.h"

void morph_sample(const skv_morph_channel *ch, int target_count, double ticks, float *out)
{
    const int last = ch->key_count - 1;
    int k0 = 0, k1 = 0;
    float f = 0.0f;
    if (!(ticks > ch->times[0])) {
        k0 = k1 = 0;
    } else if (ticks >= ch->times[last]) {
        k0 = k1 = last;
    } else {
        int lo = 0, hi = last; /* times[lo] <= ticks < times[hi] */
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (ch->times[mid] <= ticks) lo = mid;
            else hi = mid;
        }
        k0 = lo, k1 = hi;
        double span = ch->times[k1] - ch->times[k0];
        f = span > 0.0 ? (float)((ticks - ch->times[k0]) / span) : 0.0f;
    }
    const float *a = &ch->weights[(size_t)k0 * target_count], *b = &ch->weights[(size_t)k1 * target_count];
    if (k0 == k1 || ch->mode == SKV_KEY_LINEAR) {
        for (int t = 0; t < target_count; t++) out[t] = a[t] + (b[t] - a[t]) * f;
        return;
    }
    if (ch->mode == SKV_KEY_STEP) {
        memcpy(out, a, (size_t)target_count * sizeof *out);
        return;
    }
    /* Cubic, weight by weight: key k0's out-tangents and k1's in-tangents
     * (per key: in then out, a weight each). */
    const float *ta = ch->tangents + ((size_t)k0 * 2 + 1) * target_count;
    const float *tb = ch->tangents + (size_t)k1 * 2 * target_count;
    float dt = (float)(ch->times[k1] - ch->times[k0]);
    for (int t = 0; t < target_count; t++) keys_blend_cubic(&a[t], &ta[t], &b[t], &tb[t], dt, f, 1, &out[t]);
}

void morph_weights(const skv_model *model, int clip, double seconds, float *out)
{
    if (model->morph_target_count == 0) return;
    memcpy(out, model->morph_default_weights, (size_t)model->morph_target_count * sizeof *out);
    if (clip < 0 || clip >= model->clip_count) return;
    const skv_clip *c = &model->clips[clip];
    double ticks = keys_clip_ticks(c, seconds);
    for (int i = 0; i < c->morph_channel_count; i++) {
        const skv_morph_channel *ch = &c->morph_channels[i];
        const skv_mesh *mesh = &model->meshes[ch->mesh];
        morph_sample(ch, mesh->morph_target_count, ticks, &out[mesh->first_morph_target]);
    }
}

void morph_vertex(const skv_model *model, const float *weights, int mesh, int v, float position[3],
                  float normal[3])
{
    memcpy(position, &model->positions[(size_t)v * 3], 3 * sizeof(float));
    memcpy(normal, &model->normals[(size_t)v * 3], 3 * sizeof(float));
    if (mesh < 0) return;
    const skv_mesh *m = &model->meshes[mesh];
    if (m->morph_target_count == 0) return;
    if (!weights) weights = model->morph_default_weights;
    const int local = v - m->base_vertex;
    int moved = 0;
    for (int t = 0; t < m->morph_target_count; t++) {
        float w = weights[m->first_morph_target + t];
        if (w == 0.0f) continue;
        size_t at = ((size_t)m->morph_delta_base + (size_t)t * m->vertex_count + local) * 3;
        for (int a = 0; a < 3; a++) {
            position[a] += w * model->morph_position_deltas[at + a];
            normal[a] += w * model->morph_normal_deltas[at + a];
        }
        moved = 1;
    }
    if (!moved) return;
    float len = sqrtf(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    if (len > 1e-20f) {
        for (int a = 0; a < 3; a++) normal[a] /= len;
    } else {
        memcpy(normal, &model->normals[(size_t)v * 3], 3 * sizeof(float)); /* targets cancelled it: keep the base */
    }
}

int morph_find_target(const skv_model *model, const char *name_or_index)
{
    for (int t = 0; t < model->morph_target_count; t++)
        if (model->morph_target_names[t] && strcmp(model->morph_target_names[t], name_or_index) == 0) return t;
    char *end;
    long i = strtol(name_or_index, &end, 10);
    if (end != name_or_index && *end == '\0' && i >= 0 && i < model->morph_target_count) return (int)i;
    return -1;
}

int morph_find_targets(const skv_model *model, const char *name_or_index, int *targets, int capacity)
{
    int found = 0;
    for (int t = 0; t < model->morph_target_count; t++)
        if (model->morph_target_names[t] && strcmp(model->morph_target_names[t], name_or_index) == 0) {
            if (found < capacity) targets[found] = t;
            found++;
        }
    if (found > 0) return found;
    int one = morph_find_target(model, name_or_index);
    if (one >= 0 && capacity > 0) targets[0] = one;
    return one >= 0 ? 1 : 0;
}

int morph_mesh_of_target(const skv_model *model, int target)
{
    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        if (target >= mesh->first_morph_target && target < mesh->first_morph_target + mesh->morph_target_count) return m;
    }
    return -1;
}

int morph_mesh_of_vertex(const skv_model *model, int v, int *cursor)
{
    if (*cursor < 0 || *cursor >= model->mesh_count) *cursor = 0;
    for (int tries = 0; tries < model->mesh_count; tries++) {
        const skv_mesh *m = &model->meshes[*cursor];
        if (v >= m->base_vertex && v < m->base_vertex + m->vertex_count) return *cursor;
        *cursor = (*cursor + 1) % model->mesh_count;
    }
    return -1;
}
