/* camera.h - camera: framing rule, orbit, view and projection matrices.
 *
 * Framing rule (shared by the window and screenshots, so goldens are
 * stable): the camera looks at the centre of the model's animated bounds
 * (the skinned pose sampled over the whole clip, in upright scene space)
 * from 25 degrees right and 15 degrees above the +Z (front) axis, at the
 * distance where the bounding sphere fills a 40 degree field of view. */
#ifndef SKV_CAMERA_H
#define SKV_CAMERA_H

#include <cglm/cglm.h>

#include "error.h"
#include "model.h"
#include "walks.h"

typedef struct skv_camera {
    float center[3];
    float radius;
    float yaw, pitch; /* degrees */
    float zoom;       /* distance multiplier, 1 = framed */
} skv_camera;

/* Bounds of the walks' model's skinned mesh over clip `clip` (-1: rest
 * pose; posed through `walks`), in upright scene space, from `samples` evenly spaced times over the clip from
 * `start` seconds (samples 1: the pose at `start`). With `steady_node` >= 0
 * each sample is first moved back by that node's horizontal (x, z) travel
 * since the clip's start: the bounds of the motion without its root motion
 * (--in-place, --follow). SKV_ERR_MEMORY when memory runs out. */
skv_result camera_animated_bounds(skv_walks *walks, int clip, double start, int samples, int steady_node, float lo[3],
                         float hi[3]);

/* Where node `node` is in upright scene space with the pose `global`
 * (pose_globals). */
void camera_node_position(const skv_model *model, const mat4 *global, int node, float out[3]);

/* The node whose motion carries the character (its root motion): the first
 * node, parent first, whose translation clip `clip` animates; -1 if none. */
int camera_root_motion_node(const skv_model *model, int clip);

/* Frames a bounding box with the default angles. */
void camera_frame(skv_camera *camera, const float lo[3], const float hi[3]);

void camera_matrices(const skv_camera *camera, int width, int height, mat4 view, mat4 projection);

#endif
