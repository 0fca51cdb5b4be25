/* skin.c - influence packing and the CPU reference blend. */
#include "skin.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int influence_before(const skv_influence *a, const skv_influence *b)
{
    if (a->weight != b->weight) return a->weight > b->weight;
    return a->bone < b->bone; /* deterministic order for equal weights */
}

int skin_pack_influences(skv_influence *list, int count, int slots, uint16_t *ids, float *weights)
{
    /* Drop unusable weights, merge repeats of one bone. */
    int kept = 0;
    for (int i = 0; i < count; i++) {
        float w = list[i].weight;
        if (!isfinite(w) || w <= 0.0f || list[i].bone < 0 || list[i].bone > UINT16_MAX) continue;
        int j = 0;
        while (j < kept && list[j].bone != list[i].bone) j++;
        if (j < kept) {
            list[j].weight += w;
        } else {
            list[kept++] = list[i];
        }
    }
    /* Insertion sort, largest first: lists are a handful long. */
    for (int i = 1; i < kept; i++) {
        skv_influence v = list[i];
        int j = i;
        while (j > 0 && influence_before(&v, &list[j - 1])) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = v;
    }
    int used = kept < slots ? kept : slots;
    float sum = 0.0f;
    for (int i = 0; i < used; i++) sum += list[i].weight;
    for (int i = 0; i < slots; i++) {
        ids[i] = i < used ? (uint16_t)list[i].bone : 0;
        weights[i] = i < used ? list[i].weight / sum : 0.0f;
    }
    return kept;
}

void skin_blend(const skv_model *model, const mat4 *palette,
                float *positions, float *normals)
{
    for (int v = 0; v < model->vertex_count; v++) {
        const int slots = model->influence_slots;
        const uint16_t *ids = &model->bone_ids[v * slots];
        const float *w = &model->weights[v * slots];
        mat4 blend = GLM_MAT4_ZERO_INIT;
        for (int i = 0; i < slots; i++) {
            if (w[i] == 0.0f) continue;
            const float(*m)[4] = palette[ids[i]];
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) blend[c][r] += w[i] * m[c][r];
        }
        const float *p = &model->positions[v * 3];
        vec4 in = {p[0], p[1], p[2], 1.0f}, out;
        glm_mat4_mulv(blend, in, out);
        positions[v * 3 + 0] = out[0];
        positions[v * 3 + 1] = out[1];
        positions[v * 3 + 2] = out[2];
        if (normals) {
            mat3 m3, normal_matrix;
            glm_mat4_pick3(blend, m3);
            glm_mat3_inv(m3, normal_matrix);
            glm_mat3_transpose(normal_matrix);
            vec3 n;
            glm_mat3_mulv(normal_matrix, (float *)&model->normals[v * 3], n);
            glm_vec3_normalize(n);
            memcpy(&normals[v * 3], n, sizeof n);
        }
    }
}

void skin_blend_all(const skv_model *model, const mat4 *palette, float *positions)
{
    for (int v = 0; v < model->vertex_count; v++) {
        const float *p = &model->positions[v * 3];
        vec4 in = {p[0], p[1], p[2], 1.0f};
        double sum[3] = {0, 0, 0};
        for (int i = model->influence_start[v]; i < model->influence_start[v + 1]; i++) {
            vec4 out;
            glm_mat4_mulv((vec4 *)palette[model->influences[i].bone], in, out);
            for (int a = 0; a < 3; a++) sum[a] += (double)model->influences[i].weight * out[a];
        }
        for (int a = 0; a < 3; a++) positions[v * 3 + a] = (float)sum[a];
    }
}

void skin_bounds(const float *points, int count, const mat4 transform,
                 float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = FLT_MAX;
        hi[a] = -FLT_MAX;
    }
    for (int i = 0; i < count; i++) {
        vec4 p = {points[i * 3], points[i * 3 + 1], points[i * 3 + 2], 1.0f}, q;
        glm_mat4_mulv((vec4 *)transform, p, q);
        for (int a = 0; a < 3; a++) {
            if (q[a] < lo[a]) lo[a] = q[a];
            if (q[a] > hi[a]) hi[a] = q[a];
        }
    }
}
