/* overlay.c - line and point lists for the inspection views. */
#include "overlay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lines_clear(skv_lines *lines)
{
    lines->count = 0;
}

void lines_free(skv_lines *lines)
{
    free(lines->positions);
    free(lines->colors);
    memset(lines, 0, sizeof *lines);
}

skv_result lines_add(skv_lines *lines, const float position[3], const float color[3])
{
    if (lines->count == lines->capacity) {
        int cap = lines->capacity ? lines->capacity * 2 : 256;
        float *p = realloc(lines->positions, (size_t)cap * 3 * sizeof *p);
        if (p) lines->positions = p;
        float *c = realloc(lines->colors, (size_t)cap * 3 * sizeof *c);
        if (c) lines->colors = c;
        if (!p || !c) return SKV_ERR_MEMORY;
        lines->capacity = cap;
    }
    memcpy(&lines->positions[lines->count * 3], position, 3 * sizeof(float));
    memcpy(&lines->colors[lines->count * 3], color, 3 * sizeof(float));
    lines->count++;
    return SKV_OK;
}

int overlay_is_file_bone(const skv_model *model, int bone)
{
    return model_bone_from_file(model, bone) && model->skeleton.bone_node[bone] >= 0;
}

void overlay_joint_flags(const skv_model *model, unsigned char *is_joint)
{
    const skv_skeleton *sk = &model->skeleton;
    memset(is_joint, 0, (size_t)(sk->node_count > 0 ? sk->node_count : 0));
    for (int b = 0; b < sk->bone_count; b++)
        if (overlay_is_file_bone(model, b)) is_joint[sk->bone_node[b]] = 1;
}

skv_result overlay_skeleton(const skv_model *model, const unsigned char *is_joint, const mat4 *global,
                            const mat4 upright, int selected, skv_lines *bones, skv_lines *joints)
{
    const skv_skeleton *sk = &model->skeleton;
    int selected_node = selected >= 0 && selected < sk->bone_count ? sk->bone_node[selected] : -1;
    const float bone_color[3] = SKV_BONE_COLOR, joint_color[3] = SKV_JOINT_COLOR,
                selected_color[3] = SKV_SELECTED_COLOR;
    int failed = 0;
    for (int n = 0; n < sk->node_count && !failed; n++) {
        if (!is_joint[n]) continue;
        vec4 at;
        glm_mat4_mulv((vec4 *)upright, (vec4){global[n][3][0], global[n][3][1], global[n][3][2], 1.0f}, at);
        failed |= lines_add(joints, at, n == selected_node ? selected_color : joint_color) != SKV_OK;
        int p = sk->parents[n];
        while (p >= 0 && !is_joint[p]) p = sk->parents[p];
        if (p < 0) continue;
        vec4 from;
        glm_mat4_mulv((vec4 *)upright, (vec4){global[p][3][0], global[p][3][1], global[p][3][2], 1.0f}, from);
        const float *color = n == selected_node ? selected_color : bone_color;
        failed |= lines_add(bones, from, color) != SKV_OK || lines_add(bones, at, color) != SKV_OK;
    }
    return failed ? SKV_ERR_MEMORY : SKV_OK;
}

skv_result overlay_normals(const skv_model *model, const float *positions, const float *normals, const mat4 upright,
                    float length, skv_lines *lines)
{
    const float base[3] = {0.35f, 0.55f, 1.0f}, tip[3] = {0.85f, 0.95f, 1.0f};
    mat3 normal_matrix;
    glm_mat4_pick3((vec4 *)upright, normal_matrix);
    glm_mat3_inv(normal_matrix, normal_matrix);
    glm_mat3_transpose(normal_matrix);
    for (int v = 0; v < model->vertex_count; v++) {
        vec4 p;
        glm_mat4_mulv((vec4 *)upright, (vec4){positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2], 1.0f}, p);
        vec3 n;
        glm_mat3_mulv(normal_matrix, (float *)&normals[v * 3], n);
        glm_vec3_normalize(n);
        if (!isfinite(n[0]) || !isfinite(p[0])) continue;
        vec3 end = {p[0] + length * n[0], p[1] + length * n[1], p[2] + length * n[2]};
        if (lines_add(lines, p, base) != SKV_OK || lines_add(lines, end, tip) != SKV_OK) return SKV_ERR_MEMORY;
    }
    return SKV_OK;
}

skv_result overlay_grid(const float lo[3], const float hi[3], skv_lines *lines)
{
    float extent = fmaxf(hi[0] - lo[0], hi[2] - lo[2]);
    if (!(extent > 0.0f) || !isfinite(extent)) extent = 1.0f;
    /* Cells of 1, 2 or 5 times a power of ten, about 5 across the footprint;
     * the grid reaches a footprint beyond it on every side. */
    float rough = extent / 5.0f, decade = powf(10.0f, floorf(log10f(rough)));
    float cell = rough / decade < 1.5f ? decade : rough / decade < 3.5f ? 2.0f * decade : 5.0f * decade;
    int half = (int)ceilf(extent / cell);
    if (half > 50) half = 50;
    float cx = roundf(0.5f * (lo[0] + hi[0]) / cell) * cell, cz = roundf(0.5f * (lo[2] + hi[2]) / cell) * cell;
    float y = lo[1];
    const float line[3] = {0.42f, 0.45f, 0.5f}, axis_x[3] = {0.75f, 0.3f, 0.3f}, axis_z[3] = {0.3f, 0.4f, 0.8f};
    for (int i = -half; i <= half; i++) {
        float x = cx + i * cell, z = cz + i * cell;
        const float *cx_color = fabsf(x) < 0.5f * cell ? axis_z : line; /* the line at x = 0 runs along z */
        const float *cz_color = fabsf(z) < 0.5f * cell ? axis_x : line;
        if (lines_add(lines, (vec3){x, y, cz - half * cell}, cx_color) ||
            lines_add(lines, (vec3){x, y, cz + half * cell}, cx_color) ||
            lines_add(lines, (vec3){cx - half * cell, y, z}, cz_color) ||
            lines_add(lines, (vec3){cx + half * cell, y, z}, cz_color))
            return SKV_ERR_MEMORY;
    }
    return SKV_OK;
}

skv_result overlay_axes(skv_lines *lines)
{
    const float origin[3] = {0, 0, 0};
    const float colors[3][3] = {{0.95f, 0.3f, 0.3f}, {0.4f, 0.9f, 0.35f}, {0.35f, 0.55f, 1.0f}};
    for (int a = 0; a < 3; a++) {
        float end[3] = {0, 0, 0};
        end[a] = 1.0f;
        if (lines_add(lines, origin, colors[a]) != SKV_OK || lines_add(lines, end, colors[a]) != SKV_OK) return SKV_ERR_MEMORY;
    }
    return SKV_OK;
}
