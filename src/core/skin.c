/* skin.c - influence packing and the CPU reference blend. */
#include "skin.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "morph.h"

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

/* The skinned normal: the inverse transpose of the 3x3 of `m` applied to
 * `n`, normalised. The inverse transpose is the cofactor matrix (columns
 * c1 x c2, c2 x c0, c0 x c1) over the determinant; only its direction
 * matters, so the cofactors times the determinant's sign are used: they
 * stay finite where the inverse does not (a bone scaled to 0, a singular
 * bind matrix gave NaN normals, issue #21). The matrix is divided by its
 * largest entry first so that scales of 1e-30 or 1e30 neither underflow
 * nor overflow in the products. Where even the cofactors vanish (the
 * surface collapsed to a line or point) the unskinned normal stands in.
 * skinned.vert (safe_normal) does the same. */
static void skinned_normal(const mat4 m, const float n[3], float out[3])
{
    float largest = 0.0f;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) largest = fmaxf(largest, fabsf(m[c][r]));
    float scale = largest > 0.0f && isfinite(largest) ? 1.0f / largest : 1.0f;
    vec3 col[3];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) col[c][r] = m[c][r] * scale;
    vec3 x12, x20, x01;
    glm_vec3_cross(col[1], col[2], x12);
    glm_vec3_cross(col[2], col[0], x20);
    glm_vec3_cross(col[0], col[1], x01);
    float sign = glm_vec3_dot(col[0], x12) < 0.0f ? -1.0f : 1.0f;
    for (int k = 0; k < 3; k++) out[k] = sign * (x12[k] * n[0] + x20[k] * n[1] + x01[k] * n[2]);
    float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (!(len > 1e-20f && isfinite(len))) {
        for (int k = 0; k < 3; k++) out[k] = n[k];
        len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(len > 1e-20f && isfinite(len))) {
            out[0] = 0.0f, out[1] = 1.0f, out[2] = 0.0f;
            return;
        }
    }
    for (int k = 0; k < 3; k++) out[k] /= len;
}

void skin_blend(const skv_model *model, const mat4 *palette,
                float *positions, float *normals)
{
    skin_blend_morph(model, palette, NULL, positions, normals);
}

/* Vertex v at `p` blended with its influences: the blended matrix into
 * `blend`, the position into `out`. The one arithmetic of every CPU
 * linear blend, so that a vertex blended alone (skin_blend_vertex) comes
 * out bit for bit as in the whole mesh. */
static inline __attribute__((always_inline)) void blend_vertex(const skv_model *model, const mat4 *palette, int v, const float p[3], mat4 blend,
                                float out[3])
{
    glm_mat4_zero(blend);
    for (int i = 0, count = model_influence_count(model, v); i < count; i++) { /* slots, or the list */
        int bone;
        const float w = model_influence(model, v, i, &bone);
        if (w == 0.0f) continue;
        const float(*m)[4] = palette[bone];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) blend[c][r] += w * m[c][r];
    }
    vec4 in = {p[0], p[1], p[2], 1.0f}, moved;
    glm_mat4_mulv(blend, in, moved);
    out[0] = moved[0], out[1] = moved[1], out[2] = moved[2];
}

void skin_blend_vertex(const skv_model *model, const mat4 *palette, int v, const float p[3], float out[3])
{
    mat4 blend;
    blend_vertex(model, palette, v, p, blend, out);
}

void skin_blend_morph(const skv_model *model, const mat4 *palette, const float *morph_weights,
                      float *positions, float *normals)
{
    int cursor = 0;
    for (int v = 0; v < model->vertex_count; v++) {
        /* Morph targets first (morph.h), then the bones. */
        float morphed[3], morphed_normal[3];
        int mesh = model->morph_target_count ? morph_mesh_of_vertex(model, v, &cursor) : -1;
        morph_vertex(model, morph_weights, mesh, v, morphed, morphed_normal);
        mat4 blend;
        blend_vertex(model, palette, v, morphed, blend, &positions[v * 3]);
        if (normals) skinned_normal(blend, morphed_normal, &normals[v * 3]);
    }
}

void skin_blend_all(const skv_model *model, const mat4 *palette, float *positions)
{
    skin_blend_all_morph(model, palette, NULL, positions);
}

void skin_blend_all_morph(const skv_model *model, const mat4 *palette, const float *morph_weights, float *positions)
{
    int cursor = 0;
    for (int v = 0; v < model->vertex_count; v++) {
        float p[3], unused_normal[3];
        int mesh = model->morph_target_count ? morph_mesh_of_vertex(model, v, &cursor) : -1;
        morph_vertex(model, morph_weights, mesh, v, p, unused_normal);
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

/* --- dual-quaternion skinning --------------------------------------------- */

/* Rotation part of a 3x3 with positive determinant: polar decomposition
 * by Newton's iteration X <- (X + X^-T) / 2, which converges to the
 * nearest rotation (one step when X already is one). */
static void polar_rotation(mat3 x, mat3 r)
{
    glm_mat3_copy(x, r);
    for (int it = 0; it < 30; it++) {
        mat3 inv_t, next;
        glm_mat3_inv(r, inv_t);
        glm_mat3_transpose(inv_t);
        float change = 0.0f;
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                next[c][k] = 0.5f * (r[c][k] + inv_t[c][k]);
                change = fmaxf(change, fabsf(next[c][k] - r[c][k]));
            }
        glm_mat3_copy(next, r);
        if (change < 1e-7f) break;
    }
}

int skin_dq_palette(const mat4 *palette, int count, skv_dq_bone *out)
{
    int stretched = 0;
    for (int b = 0; b < count; b++) {
        mat3 m3, r, rt, stretch;
        glm_mat4_pick3((vec4 *)palette[b], m3);
        float det = glm_mat3_det(m3);
        skv_dq_bone *o = &out[b];
        if (!(fabsf(det) > 1e-20f) || !isfinite(det)) {
            /* Singular (a bone scaled to 0): no rotation to take; the
             * stretch carries the whole 3x3. */
            glm_mat3_identity(r);
        } else {
            mat3 x;
            glm_mat3_copy(m3, x);
            if (det < 0.0f) glm_mat3_scale(x, -1.0f); /* the reflection stays in the stretch */
            polar_rotation(x, r);
        }
        glm_mat3_transpose_to(r, rt);
        glm_mat3_mul(rt, m3, stretch);
        glm_mat4_identity(o->stretch);
        float off = 0.0f;
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                o->stretch[c][k] = stretch[c][k];
                off = fmaxf(off, fabsf(stretch[c][k] - (c == k ? 1.0f : 0.0f)));
            }
        if (off > 1e-4f) stretched++;
        else glm_mat4_identity(o->stretch); /* rigid: exactly identity */

        versor q;
        mat4 r4 = GLM_MAT4_IDENTITY_INIT;
        glm_mat4_ins3(r, r4);
        glm_mat4_quat(r4, q);
        glm_quat_normalize(q);
        const float *t = palette[b][3];
        /* dual = 0.5 * (t, 0) * q, quaternion product with t's w = 0. */
        o->real[0] = q[0], o->real[1] = q[1], o->real[2] = q[2], o->real[3] = q[3];
        o->dual[0] = 0.5f * (t[0] * q[3] + t[1] * q[2] - t[2] * q[1]);
        o->dual[1] = 0.5f * (-t[0] * q[2] + t[1] * q[3] + t[2] * q[0]);
        o->dual[2] = 0.5f * (t[0] * q[1] - t[1] * q[0] + t[2] * q[3]);
        o->dual[3] = 0.5f * (-t[0] * q[0] - t[1] * q[1] - t[2] * q[2]);
    }
    return stretched;
}

/* v rotated by the unit quaternion q. */
static void quat_rotate(const float q[4], const float v[3], float out[3])
{
    vec3 u = {q[0], q[1], q[2]}, a, b;
    glm_vec3_cross(u, (float *)v, a);
    for (int k = 0; k < 3; k++) a[k] += q[3] * v[k];
    glm_vec3_cross(u, a, b);
    for (int k = 0; k < 3; k++) out[k] = v[k] + 2.0f * b[k];
}

void skin_blend_dq(const skv_model *model, const skv_dq_bone *bones, float *positions, float *normals)
{
    skin_blend_dq_morph(model, bones, NULL, positions, normals);
}

void skin_blend_dq_morph(const skv_model *model, const skv_dq_bone *bones, const float *morph_weights,
                         float *positions, float *normals)
{
    int cursor = 0;
    for (int v = 0; v < model->vertex_count; v++) {
        float morphed[3], morphed_normal[3];
        int mesh = model->morph_target_count ? morph_mesh_of_vertex(model, v, &cursor) : -1;
        morph_vertex(model, morph_weights, mesh, v, morphed, morphed_normal);
        /* The slots, or with --influences all the whole list (largest
         * first, as the slots: the same pivot). */
        int pivot_bone;
        model_influence(model, v, 0, &pivot_bone);
        const float *pivot = bones[pivot_bone].real;
        float real[4] = {0, 0, 0, 0}, dual[4] = {0, 0, 0, 0};
        mat4 stretch = GLM_MAT4_ZERO_INIT;
        for (int i = 0, count = model_influence_count(model, v); i < count; i++) {
            int b;
            const float weight = model_influence(model, v, i, &b);
            if (weight == 0.0f) continue;
            const skv_dq_bone *bone = &bones[b];
            float d = bone->real[0] * pivot[0] + bone->real[1] * pivot[1] + bone->real[2] * pivot[2] +
                      bone->real[3] * pivot[3];
            float s = d < 0.0f ? -weight : weight;
            for (int k = 0; k < 4; k++) {
                real[k] += s * bone->real[k];
                dual[k] += s * bone->dual[k];
            }
            for (int c = 0; c < 4; c++)
                for (int k = 0; k < 4; k++) stretch[c][k] += weight * bone->stretch[c][k];
        }
        float len = sqrtf(real[0] * real[0] + real[1] * real[1] + real[2] * real[2] + real[3] * real[3]);
        if (!(len > 1e-20f)) { /* no usable influence */
            real[0] = real[1] = real[2] = 0.0f, real[3] = 1.0f;
            memset(dual, 0, sizeof dual);
            glm_mat4_identity(stretch);
            len = 1.0f;
        }
        for (int k = 0; k < 4; k++) real[k] /= len, dual[k] /= len;
        /* Translation of the blend: 2 * dual * conjugate(real). */
        float t[3] = {
            2.0f * (real[3] * dual[0] - dual[3] * real[0] + real[1] * dual[2] - real[2] * dual[1]),
            2.0f * (real[3] * dual[1] - dual[3] * real[1] + real[2] * dual[0] - real[0] * dual[2]),
            2.0f * (real[3] * dual[2] - dual[3] * real[2] + real[0] * dual[1] - real[1] * dual[0]),
        };
        const float *p = morphed;
        vec4 in = {p[0], p[1], p[2], 1.0f}, stretched;
        glm_mat4_mulv(stretch, in, stretched);
        float rotated[3];
        quat_rotate(real, stretched, rotated);
        for (int k = 0; k < 3; k++) positions[v * 3 + k] = rotated[k] + t[k];
        if (normals) {
            float n[3];
            skinned_normal(stretch, morphed_normal, n);
            quat_rotate(real, n, &normals[v * 3]); /* a rotation: stays unit length */
        }
    }
}
