/* camera.c - camera framing and matrices. */
#include "camera.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "skin.h"

#define FIELD_OF_VIEW_DEG 40.0f

void camera_node_position(const skv_model *model, const mat4 *global, int node, float out[3])
{
    vec4 p;
    glm_mat4_mulv((vec4 *)model->upright, (vec4){global[node][3][0], global[node][3][1], global[node][3][2], 1.0f}, p);
    out[0] = p[0], out[1] = p[1], out[2] = p[2];
}

int camera_root_motion_node(const skv_model *model, int clip)
{
    if (clip < 0 || clip >= model->clip_count) return -1;
    const skv_clip *c = &model->clips[clip];
    for (int n = 0; n < model->skeleton.node_count; n++) {
        int k = c->node_channel[n];
        if (k >= 0 && c->channels[k].position_count > 1) return n; /* one key: it does not move */
    }
    return -1;
}

skv_result camera_animated_bounds(skv_walks *walks, int clip, double start_seconds, int samples, int steady_node,
                         float lo[3], float hi[3])
{
    const skv_model *model = walks_model(walks);
    skv_pose pose;
    float *positions = malloc((size_t)model->vertex_count * 3 * sizeof(float));
    if (!positions || pose_create(&pose, &model->skeleton) != SKV_OK) {
        free(positions);
        return SKV_ERR_MEMORY;
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = FLT_MAX;
        hi[a] = -FLT_MAX;
    }
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    double duration = c ? c->duration_ticks / c->ticks_per_second : 0.0;
    if (!c || samples < 1) samples = 1;
    float start[3] = {0.0f, 0.0f, 0.0f}; /* the steady node at the clip's start */
    if (steady_node >= 0 && steady_node < model->skeleton.node_count) {
        pose_evaluate(&pose, walks, clip, 0.0);
        camera_node_position(model, pose_globals(&pose), steady_node, start);
    }
    for (int s = 0; s < samples; s++) {
        double seconds = start_seconds + (samples > 1 ? duration * s / samples : 0.0);
        pose_evaluate(&pose, walks, clip, seconds);
        skin_blend(model, pose.palette, positions, NULL);
        float slo[3], shi[3];
        skin_bounds(positions, model->vertex_count, model->upright, slo, shi);
        if (steady_node >= 0 && steady_node < model->skeleton.node_count) {
            float at[3];
            camera_node_position(model, pose_globals(&pose), steady_node, at);
            for (int a = 0; a < 3; a += 2) slo[a] -= at[a] - start[a], shi[a] -= at[a] - start[a];
        }
        for (int a = 0; a < 3; a++) {
            if (isfinite(slo[a]) && slo[a] < lo[a]) lo[a] = slo[a];
            if (isfinite(shi[a]) && shi[a] > hi[a]) hi[a] = shi[a];
        }
    }
    for (int a = 0; a < 3; a++)
        if (lo[a] > hi[a]) lo[a] = hi[a] = 0.0f; /* nothing finite: a point */
    pose_destroy(&pose);
    free(positions);
    return SKV_OK;
}

void camera_frame(skv_camera *camera, const float lo[3], const float hi[3])
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        camera->center[a] = 0.5f * (lo[a] + hi[a]);
        float e = hi[a] - lo[a];
        d2 += e * e;
    }
    camera->radius = 0.5f * sqrtf(d2);
    if (!(camera->radius > 1e-6f) || !isfinite(camera->radius)) camera->radius = 1.0f;
    camera->yaw = 25.0f;
    camera->pitch = 15.0f;
    camera->zoom = 1.0f;
}

void camera_matrices(const skv_camera *camera, int width, int height, mat4 view, mat4 projection)
{
    float aspect = height > 0 ? (float)width / (float)height : 1.0f;
    float fovy = glm_rad(FIELD_OF_VIEW_DEG);
    /* Fit the sphere in the narrower of the two directions. */
    float half = aspect < 1.0f ? atanf(tanf(fovy * 0.5f) * aspect) : fovy * 0.5f;
    float distance = camera->radius / sinf(half) * camera->zoom;

    float yaw = glm_rad(camera->yaw), pitch = glm_rad(camera->pitch);
    vec3 eye = {
        camera->center[0] + distance * cosf(pitch) * sinf(yaw),
        camera->center[1] + distance * sinf(pitch),
        camera->center[2] + distance * cosf(pitch) * cosf(yaw),
    };
    vec3 up = {0.0f, 1.0f, 0.0f};
    glm_lookat(eye, (float *)camera->center, up, view);
    float near_plane = fmaxf(distance - camera->radius * 2.0f, distance * 0.01f);
    float far_plane = distance + camera->radius * 2.0f;
    glm_perspective(fovy, aspect, near_plane, far_plane, projection);
}
