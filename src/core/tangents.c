/* tangents.c - per-vertex tangents from positions, normals and UVs. */
#include "tangents.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Does mesh m's material have a normal map? */
static int mesh_normal_mapped(const skv_model *model, const skv_mesh *mesh)
{
    if (mesh->material < 0 || mesh->material >= model->material_count) return 0;
    return model->materials[mesh->material].textures[SKV_TEX_NORMAL] >= 0;
}

/* A unit vector perpendicular to unit n. */
static void any_perpendicular(const float *n, float *out)
{
    float axis[3] = {0.0f, 0.0f, 0.0f};
    axis[fabsf(n[0]) < 0.9f ? 0 : 1] = 1.0f;
    float d = axis[0] * n[0] + axis[1] * n[1] + axis[2] * n[2];
    float t[3] = {axis[0] - d * n[0], axis[1] - d * n[1], axis[2] - d * n[2]};
    float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int a = 0; a < 3; a++) out[a] = t[a] / len;
}

skv_result model_compute_tangents(skv_model *model)
{
    int needed = 0;
    for (int m = 0; m < model->mesh_count; m++) needed |= mesh_normal_mapped(model, &model->meshes[m]);
    if (!needed || model->vertex_count <= 0) return SKV_OK;
    size_t nv = (size_t)model->vertex_count;
    float *tangents = calloc(nv * 4, sizeof(float));
    /* Per vertex: the sums of dP/du and dP/dv over its triangles. */
    double *sums = calloc(nv * 6, sizeof(double));
    if (!tangents || !sums) {
        free(tangents);
        free(sums);
        return SKV_ERR_MEMORY;
    }
    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        if (!mesh_normal_mapped(model, mesh)) continue;
        for (int i = 0; i + 2 < mesh->index_count; i += 3) {
            size_t v[3];
            for (int k = 0; k < 3; k++)
                v[k] = (size_t)mesh->base_vertex + model->indices[mesh->first_index + i + k];
            const float *p0 = &model->positions[v[0] * 3], *p1 = &model->positions[v[1] * 3],
                        *p2 = &model->positions[v[2] * 3];
            const float *t0 = &model->uvs[v[0] * 2], *t1 = &model->uvs[v[1] * 2], *t2 = &model->uvs[v[2] * 2];
            double e1[3], e2[3];
            for (int a = 0; a < 3; a++) e1[a] = (double)p1[a] - p0[a], e2[a] = (double)p2[a] - p0[a];
            double du1 = (double)t1[0] - t0[0], dv1 = (double)t1[1] - t0[1];
            double du2 = (double)t2[0] - t0[0], dv2 = (double)t2[1] - t0[1];
            double det = du1 * dv2 - du2 * dv1;
            if (!(fabs(det) > 1e-20) || !isfinite(det)) continue;
            /* Solve e = dP/du * du + dP/dv * dv for both edges; scaling
             * by |det| (not det) keeps each triangle's weight its UV area
             * without flipping mirrored halves. */
            double s = det > 0 ? 1.0 : -1.0;
            for (int a = 0; a < 3; a++) {
                double dpdu = (e1[a] * dv2 - e2[a] * dv1) * s;
                double dpdv = (e2[a] * du1 - e1[a] * du2) * s;
                for (int k = 0; k < 3; k++) {
                    sums[v[k] * 6 + a] += dpdu;
                    sums[v[k] * 6 + 3 + a] += dpdv;
                }
            }
        }
        for (int k = 0; k < mesh->vertex_count; k++) {
            size_t v = (size_t)(mesh->base_vertex + k);
            const float *n = &model->normals[v * 3];
            const double *u = &sums[v * 6], *w = &sums[v * 6 + 3];
            double d = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
            double t[3] = {u[0] - d * n[0], u[1] - d * n[1], u[2] - d * n[2]};
            double len = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
            float *out = &tangents[v * 4];
            if (len > 1e-12 && isfinite(len)) {
                for (int a = 0; a < 3; a++) out[a] = (float)(t[a] / len);
            } else {
                any_perpendicular(n, out);
            }
            /* cross(n, t) * w must point along -dP/dv (image up). */
            double b[3] = {n[1] * out[2] - n[2] * out[1], n[2] * out[0] - n[0] * out[2], n[0] * out[1] - n[1] * out[0]};
            out[3] = b[0] * w[0] + b[1] * w[1] + b[2] * w[2] > 0.0 ? -1.0f : 1.0f;
        }
    }
    free(sums);
    model->tangents = tangents;
    return SKV_OK;
}
