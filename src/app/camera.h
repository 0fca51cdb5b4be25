/* camera.h - camera: framing rule, orbit, view and projection matrices.
 *
 * Framing rule (shared by the window and screenshots, so goldens are
 * stable): the camera looks from 25 degrees right of and 15 degrees above
 * the +Z (front) axis at the model's skinned vertices, sampled over the
 * whole clip in upright scene space, from the distance at which all of
 * them fit in CAMERA_FILL of the picture's width or height, whichever
 * they reach first (perspective, a 40 degree vertical field of view), and
 * centred in the picture. The distance depends on the picture's shape and
 * what is framed, not on where the camera has orbited to (orbiting keeps
 * it). What has no vertices to fit (a crowd's grid, the bind-pose copy
 * beside the model, a stick figure centred where it starts) is framed by
 * its bounding box's corners the same way, about the box's centre. */
#ifndef SKV_CAMERA_H
#define SKV_CAMERA_H

#include <cglm/cglm.h>

#include "error.h"
#include "model.h"
#include "layers.h"
#include "walks.h"

/* How much of the picture's width or height the framed model takes (the
 * HUD's lines and timeline stay clear of it). */
#define CAMERA_FILL 0.80f
/* Picture shapes (width / height) at which the framed distance is exact;
 * between them it is within a few per cent. */
#define CAMERA_FIT_ASPECTS 5

typedef struct skv_camera {
    float center[3];
    float radius;     /* half the framed box's diagonal: the scene's scale */
    float yaw, pitch; /* degrees */
    float zoom;       /* distance multiplier, 1 = framed */
    /* What the framing rule needs to place the camera (camera_frame):
     * with o a framed point less the centre and r, u, f the default
     * camera's right, up and forward, the distance along -f must reach
     * reach_up (every |o.u| in the picture's height) and reach_front
     * (every point in front of the eye), and reach every sideways pair
     * (o.r, o.f) kept: those that need the most at each aspect. */
    float reach_up, reach_front;
    float sideways[CAMERA_FIT_ASPECTS][2][2];
    int balanced; /* the points centred in the picture (else the centre is the box's) */
} skv_camera;

/* Bounds of the walks' model's skinned mesh over clip `clip` (-1: rest
 * pose; posed through `walks`), in upright scene space, from `samples` evenly spaced times over the clip from
 * `start` seconds (samples 1: the pose at `start`). With `steady_node` >= 0
 * each sample is first moved back by that node's horizontal (x, z) travel
 * since the clip's start: the bounds of the motion without its root motion
 * (--in-place, --follow). SKV_ERR_MEMORY when memory runs out. */
skv_result camera_animated_bounds(skv_walks *walks, int clip, double start, int samples, int steady_node, float lo[3],
                         float hi[3]);

/* camera_animated_bounds, and `framed` framed on the vertices it sampled
 * (the framing rule, default angles and zoom). */
skv_result camera_framed_bounds(skv_walks *walks, int clip, double start, int samples, int steady_node,
                                float lo[3], float hi[3], skv_camera *framed);

/* camera_framed_bounds, passing over the vertices that cannot reach the
 * framing's extremes at a sample (skin_bound.h) where `prune` is 1, or
 * blending every vertex at every sample where it is 0: the two give the
 * same bounds and camera, bit for bit (the tests compare them).
 * *blended (where not NULL): the vertex blends it took. */
skv_result camera_framed_bounds_pruned(skv_walks *walks, int clip, double start, int samples, int steady_node,
                                       int prune, long long *blended, float lo[3], float hi[3], skv_camera *framed);

/* How the frames drawn pose the model beyond their clip: layers over it
 * (pose_evaluate_layers), or another clip blended in at a weight
 * (pose_evaluate_blend, both clips at the same seconds: --blend); NULL
 * layers and blend_clip -1: the clip alone. */
typedef struct skv_frame_pose {
    const skv_layers *layers;
    int blend_clip;
    float blend_weight;
} skv_frame_pose;

/* camera_framed_bounds of the pose as `drawn` poses it (NULL: the clip
 * alone), so that layers or a blend that move the character elsewhere
 * than its clip are framed as drawn; the samples span the longest of the
 * clips drawn (each loops on its own duration). */
skv_result camera_framed_drawn(skv_walks *walks, const skv_frame_pose *drawn, int clip, double start, int samples,
                               int steady_node, float lo[3], float hi[3], skv_camera *framed);

/* Where node `node` is in upright scene space with the pose `global`
 * (pose_globals). */
void camera_node_position(const skv_model *model, const mat4 *global, int node, float out[3]);

/* The node whose motion carries the character (its root motion): the first
 * node, parent first, whose translation clip `clip` animates; -1 if none. */
int camera_root_motion_node(const skv_model *model, int clip);

/* Frames a bounding box (its corners, about its centre) with the default
 * angles and zoom. */
void camera_frame(skv_camera *camera, const float lo[3], const float hi[3]);

/* Frames `count` boxes (their corners, centred in the picture) with the
 * default angles and zoom: a model and its bind-pose copy, a crowd. */
void camera_frame_boxes(skv_camera *camera, int count, const float (*lo)[3], const float (*hi)[3]);

/* Where the framed camera looks for a picture of `aspect` (width /
 * height): `look_at` (its centre, moved sideways so that the framed
 * points reach as far left as right) and its distance from there, before
 * the zoom. */
void camera_framed_view(const skv_camera *camera, float aspect, float *distance, float look_at[3]);

/* The box lo..hi widened along x and z until the centre of the box
 * at_lo..at_hi is its centre there (the height is kept): the whole motion
 * framed with what that box holds (a stick figure's pose at the clip's
 * start) in the middle of the picture. */
void camera_centre_box_on(float lo[3], float hi[3], const float at_lo[3], const float at_hi[3]);

void camera_matrices(const skv_camera *camera, int width, int height, mat4 view, mat4 projection);

#endif
