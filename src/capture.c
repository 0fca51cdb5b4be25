/* capture.c - PNG and OBJ output. */
#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <stb_image_write.h>

skv_result capture_write_png(const char *path, int width, int height, const unsigned char *rgba, skv_error *err)
{
    if (!stbi_write_png(path, width, height, 4, rgba, width * 4))
        return skv_fail(err, SKV_ERR_OUTPUT, "cannot write PNG %s", path);
    return SKV_OK;
}

skv_result capture_write_obj(const char *path, const skv_model *model, const float *positions,
                             const float *normals, const mat4 scene, skv_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, strerror(errno));
    mat3 normal_matrix;
    glm_mat4_pick3((vec4 *)scene, normal_matrix);
    glm_mat3_inv(normal_matrix, normal_matrix);
    glm_mat3_transpose(normal_matrix);

    fprintf(f, "# skinview pose export: %s\n", model->path ? model->path : "");
    for (int v = 0; v < model->vertex_count; v++) {
        vec4 p = {positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2], 1.0f}, q;
        glm_mat4_mulv((vec4 *)scene, p, q);
        fprintf(f, "v %.7g %.7g %.7g\n", q[0], q[1], q[2]);
    }
    for (int v = 0; v < model->vertex_count; v++) {
        vec3 n;
        glm_mat3_mulv(normal_matrix, (float *)&normals[v * 3], n);
        glm_vec3_normalize(n);
        fprintf(f, "vn %.5f %.5f %.5f\n", n[0], n[1], n[2]);
    }
    for (int m = 0; m < model->mesh_count; m++) {
        const skv_mesh *mesh = &model->meshes[m];
        fprintf(f, "o %s\n", mesh->name);
        for (int i = 0; i < mesh->index_count; i += 3) {
            const uint32_t *tri = &model->indices[mesh->first_index + i];
            long a = mesh->base_vertex + (long)tri[0] + 1, b = mesh->base_vertex + (long)tri[1] + 1,
                 c = mesh->base_vertex + (long)tri[2] + 1;
            fprintf(f, "f %ld//%ld %ld//%ld %ld//%ld\n", a, a, b, b, c, c);
        }
    }
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s", path);
    return SKV_OK;
}
