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

/* The framing rule's angles (camera.h). */
#define FRAMING_YAW_DEG 25.0f
#define FRAMING_PITCH_DEG 15.0f

/* The picture shapes at which camera_framed_view is exact: portrait,
 * square (goldens, thumbnails), 4:3 (the default 800x600), 16:9, wide. */
static const float fit_aspects[CAMERA_FIT_ASPECTS] = {0.5f, 1.0f, 4.0f / 3.0f, 16.0f / 9.0f, 2.5f};

/* Half the picture's height and width at depth 1, less the margin. */
static float fit_tan_up(void)
{
    return tanf(glm_rad(FIELD_OF_VIEW_DEG) * 0.5f) * CAMERA_FILL;
}

/* The framing points seen from the default angles, gathered: a point o
 * (from the centre) at distance d is at depth d + o.f in front of the eye
 * and fits the height when |o.u| <= t (d + o.f), t = fit_tan_up(): d >=
 * o.(+-u / t - f). The sideways reach is the same with the width's t,
 * which depends on the aspect: the point that needs the most is kept per
 * aspect of fit_aspects, its (o.r, o.f). Points are gathered as given and
 * taken relative to the centre once it is known (the reaches are linear
 * in o). */
typedef struct fit_gather {
    vec3 right, up, forward;
    float up_reach[2];         /* max of p.(u / t - f), p.(-u / t - f) */
    float front;               /* max of -p.f */
    float up_scale, across[CAMERA_FIT_ASPECTS]; /* 1 / t for the height, and the width at each aspect */
    float side_reach[CAMERA_FIT_ASPECTS][2];
    float side_pair[CAMERA_FIT_ASPECTS][2][2];
    long count;
} fit_gather;

static void fit_begin(fit_gather *g)
{
    float yaw = glm_rad(FRAMING_YAW_DEG), pitch = glm_rad(FRAMING_PITCH_DEG);
    *g = (fit_gather){.forward = {-cosf(pitch) * sinf(yaw), -sinf(pitch), -cosf(pitch) * cosf(yaw)}};
    glm_vec3_cross(g->forward, (vec3){0.0f, 1.0f, 0.0f}, g->right);
    glm_vec3_normalize(g->right);
    glm_vec3_cross(g->right, g->forward, g->up);
    g->up_scale = 1.0f / fit_tan_up();
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++) g->across[k] = g->up_scale / fit_aspects[k];
}

static void fit_add(fit_gather *g, const float p[3])
{
    float pr = glm_vec3_dot((float *)p, g->right), pu = glm_vec3_dot((float *)p, g->up);
    float pf = glm_vec3_dot((float *)p, g->forward);
    if (!isfinite(pr) || !isfinite(pu) || !isfinite(pf)) return;
    int first = g->count++ == 0;
    for (int side = 0; side < 2; side++) {
        float reach = (side ? -pu : pu) * g->up_scale - pf;
        if (first || reach > g->up_reach[side]) g->up_reach[side] = reach;
    }
    if (first || -pf > g->front) g->front = -pf;
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++) {
        for (int side = 0; side < 2; side++) {
            float reach = (side ? -pr : pr) * g->across[k] - pf;
            if (first || reach > g->side_reach[k][side]) {
                g->side_reach[k][side] = reach;
                g->side_pair[k][side][0] = pr, g->side_pair[k][side][1] = pf;
            }
        }
    }
}

/* Puts the camera's centre at `box_centre`, or (`balance`) there moved
 * along the default camera's up until the points reach as far above the
 * picture's middle as below it (in perspective: the near ones look
 * larger); keeps what camera_framed_view needs, relative to it. */
static void fit_end(const fit_gather *g, const float box_centre[3], int balance, skv_camera *camera)
{
    float cr = glm_vec3_dot((float *)box_centre, (float *)g->right), cu = glm_vec3_dot((float *)box_centre, (float *)g->up);
    float cf = glm_vec3_dot((float *)box_centre, (float *)g->forward);
    float up = g->up_scale;
    /* Moving the centre by m along u takes m * up off the upper reach and
     * adds it to the lower one. */
    float above = g->up_reach[0] - (cu * up - cf), below = g->up_reach[1] - (-cu * up - cf);
    float move = balance ? (above - below) / (2.0f * up) : 0.0f;
    for (int a = 0; a < 3; a++) camera->center[a] = box_centre[a] + move * g->up[a];
    camera->reach_up = balance ? 0.5f * (above + below) : fmaxf(above, below);
    camera->reach_front = g->front + cf;
    camera->balanced = balance;
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
        for (int side = 0; side < 2; side++) {
            camera->sideways[k][side][0] = g->side_pair[k][side][0] - cr;
            camera->sideways[k][side][1] = g->side_pair[k][side][1] - cf;
        }
    camera->yaw = FRAMING_YAW_DEG;
    camera->pitch = FRAMING_PITCH_DEG;
    camera->zoom = 1.0f;
}

/* The scale of the box lo..hi: half its diagonal, 1 for a point. */
static float box_radius(const float lo[3], const float hi[3])
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
    float radius = 0.5f * sqrtf(d2);
    return radius > 1e-6f && isfinite(radius) ? radius : 1.0f;
}

skv_result camera_framed_bounds(skv_walks *walks, int clip, double start_seconds, int samples, int steady_node,
                                float lo[3], float hi[3], skv_camera *framed)
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
    fit_gather gather;
    fit_begin(&gather);
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
        float slo[3], shi[3], back[3] = {0.0f, 0.0f, 0.0f};
        skin_bounds(positions, model->vertex_count, model->upright, slo, shi);
        if (steady_node >= 0 && steady_node < model->skeleton.node_count) {
            float at[3];
            camera_node_position(model, pose_globals(&pose), steady_node, at);
            for (int a = 0; a < 3; a += 2) back[a] = at[a] - start[a];
            for (int a = 0; a < 3; a += 2) slo[a] -= back[a], shi[a] -= back[a];
        }
        for (int a = 0; a < 3; a++) {
            if (isfinite(slo[a]) && slo[a] < lo[a]) lo[a] = slo[a];
            if (isfinite(shi[a]) && shi[a] > hi[a]) hi[a] = shi[a];
        }
        if (!framed) continue;
        for (int v = 0; v < model->vertex_count; v++) {
            vec4 p;
            glm_mat4_mulv((vec4 *)model->upright,
                          (vec4){positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2], 1.0f}, p);
            p[0] -= back[0], p[2] -= back[2];
            fit_add(&gather, p);
        }
    }
    for (int a = 0; a < 3; a++)
        if (lo[a] > hi[a]) lo[a] = hi[a] = 0.0f; /* nothing finite: a point */
    pose_destroy(&pose);
    free(positions);
    if (framed) {
        if (gather.count == 0) {
            camera_frame(framed, lo, hi);
        } else {
            float centre[3] = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])};
            fit_end(&gather, centre, 1, framed);
            framed->radius = box_radius(lo, hi);
        }
    }
    return SKV_OK;
}

skv_result camera_animated_bounds(skv_walks *walks, int clip, double start_seconds, int samples, int steady_node,
                                  float lo[3], float hi[3])
{
    return camera_framed_bounds(walks, clip, start_seconds, samples, steady_node, lo, hi, NULL);
}

/* Gathers the corners of box lo..hi (a point or a flat box as a box of
 * its scale, `radius`); its centre into `centre`. */
static void fit_add_box(fit_gather *g, const float lo[3], const float hi[3], float radius, float centre[3])
{
    float box_lo[3], box_hi[3];
    for (int a = 0; a < 3; a++) {
        centre[a] = 0.5f * (lo[a] + hi[a]);
        float half = fmaxf(0.5f * (hi[a] - lo[a]), radius * 1e-3f);
        if (!isfinite(centre[a])) centre[a] = 0.0f;
        if (!isfinite(half)) half = 1.0f;
        box_lo[a] = centre[a] - half, box_hi[a] = centre[a] + half;
    }
    for (int k = 0; k < 8; k++)
        fit_add(g, (float[3]){k & 1 ? box_hi[0] : box_lo[0], k & 2 ? box_hi[1] : box_lo[1], k & 4 ? box_hi[2] : box_lo[2]});
}

void camera_frame(skv_camera *camera, const float lo[3], const float hi[3])
{
    float centre[3], radius = box_radius(lo, hi);
    fit_gather gather;
    fit_begin(&gather);
    fit_add_box(&gather, lo, hi, radius, centre);
    fit_end(&gather, centre, 0, camera);
    camera->radius = radius;
}

void camera_frame_boxes(skv_camera *camera, int count, const float (*lo)[3], const float (*hi)[3])
{
    float all_lo[3], all_hi[3], centre[3];
    for (int a = 0; a < 3; a++) {
        all_lo[a] = lo[0][a], all_hi[a] = hi[0][a];
        for (int b = 1; b < count; b++) all_lo[a] = fminf(all_lo[a], lo[b][a]), all_hi[a] = fmaxf(all_hi[a], hi[b][a]);
    }
    float radius = box_radius(all_lo, all_hi);
    fit_gather gather;
    fit_begin(&gather);
    for (int b = 0; b < count; b++) fit_add_box(&gather, lo[b], hi[b], radius, centre);
    for (int a = 0; a < 3; a++) centre[a] = 0.5f * (all_lo[a] + all_hi[a]);
    fit_end(&gather, centre, 1, camera);
    camera->radius = radius;
}

void camera_centre_box_on(float lo[3], float hi[3], const float at_lo[3], const float at_hi[3])
{
    for (int a = 0; a < 3; a += 2) {
        float at = 0.5f * (at_lo[a] + at_hi[a]), reach = fmaxf(at - lo[a], hi[a] - at);
        if (!(reach >= 0.0f) || !isfinite(reach)) continue;
        lo[a] = at - reach;
        hi[a] = at + reach;
    }
}

void camera_framed_view(const skv_camera *camera, float aspect, float *distance, float look_at[3])
{
    if (!(aspect > 0.0f) || !isfinite(aspect)) aspect = 1.0f;
    float across = 1.0f / (fit_tan_up() * aspect);
    /* The reach to the right and to the left; moving the look-at point by
     * m along the default camera's right takes m * across off the one and
     * adds it to the other (balanced: until they are equal). */
    float reach[2] = {-FLT_MAX, -FLT_MAX};
    for (int k = 0; k < CAMERA_FIT_ASPECTS; k++)
        for (int side = 0; side < 2; side++) {
            const float *pair = camera->sideways[k][side];
            reach[side] = fmaxf(reach[side], (side ? -pair[0] : pair[0]) * across - pair[1]);
        }
    float move = camera->balanced ? (reach[0] - reach[1]) / (2.0f * across) : 0.0f;
    float sideways = camera->balanced ? 0.5f * (reach[0] + reach[1]) : fmaxf(reach[0], reach[1]);
    float d = fmaxf(fmaxf(camera->reach_up, sideways), camera->reach_front + 0.05f * camera->radius);
    if (!(d > 0.0f) || !isfinite(d)) d = 3.0f * camera->radius, move = 0.0f;
    if (!isfinite(move)) move = 0.0f;
    float yaw = glm_rad(FRAMING_YAW_DEG);
    vec3 right = {cosf(yaw), 0.0f, -sinf(yaw)}; /* the default camera's right */
    for (int a = 0; a < 3; a++) look_at[a] = camera->center[a] + move * right[a];
    *distance = d;
}

void camera_matrices(const skv_camera *camera, int width, int height, mat4 view, mat4 projection)
{
    float aspect = height > 0 ? (float)width / (float)height : 1.0f;
    float fovy = glm_rad(FIELD_OF_VIEW_DEG);
    float distance, look_at[3];
    camera_framed_view(camera, aspect, &distance, look_at);
    distance *= camera->zoom;

    float yaw = glm_rad(camera->yaw), pitch = glm_rad(camera->pitch);
    vec3 eye = {
        look_at[0] + distance * cosf(pitch) * sinf(yaw),
        look_at[1] + distance * sinf(pitch),
        look_at[2] + distance * cosf(pitch) * cosf(yaw),
    };
    vec3 up = {0.0f, 1.0f, 0.0f};
    glm_lookat(eye, look_at, up, view);
    float near_plane = fmaxf(distance - camera->radius * 2.0f, distance * 0.01f);
    float far_plane = distance + camera->radius * 2.0f;
    glm_perspective(fovy, aspect, near_plane, far_plane, projection);
}
