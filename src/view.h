/* view.h - camera: framing rule, orbit, view and projection matrices.
 *
 * Framing rule (shared by the window and screenshots, so goldens are
 * stable): the camera looks at the centre of the model's animated bounds
 * (the skinned pose sampled over the whole clip, in upright scene space)
 * from 25 degrees right and 15 degrees above the +Z (front) axis, at the
 * distance where the bounding sphere fills a 40 degree field of view. */
#ifndef SKV_VIEW_H
#define SKV_VIEW_H

#include <cglm/cglm.h>

#include "model.h"

typedef struct skv_camera {
    float center[3];
    float radius;
    float yaw, pitch; /* degrees */
    float zoom;       /* distance multiplier, 1 = framed */
} skv_camera;

/* Bounds of the skinned mesh over clip `clip` (-1: rest pose), in upright
 * scene space, from `samples` evenly spaced times. Returns 0, or -1 when
 * memory runs out. */
int view_animated_bounds(const skv_model *model, int clip, int samples, float lo[3], float hi[3]);

/* Frames a bounding box with the default angles. */
void view_frame(skv_camera *camera, const float lo[3], const float hi[3]);

void view_matrices(const skv_camera *camera, int width, int height, mat4 view, mat4 projection);

#endif
