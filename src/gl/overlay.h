/* overlay.h - what the inspection views draw besides the model: the
 * skeleton (joints and bones), vertex normals, a floor grid, an axis
 * gizmo. Built on the CPU each frame as plain line/point lists in the
 * upright scene space; render.c draws them. */
#ifndef SKV_OVERLAY_H
#define SKV_OVERLAY_H

#include <cglm/cglm.h>

#include "error.h"
#include "model.h"

typedef struct skv_lines {
    int count, capacity; /* vertices: 2 per segment for lines */
    float *positions;    /* 3 per vertex */
    float *colors;       /* 3 per vertex */
} skv_lines;

void lines_clear(skv_lines *lines);
void lines_free(skv_lines *lines);
/* Appends one vertex; SKV_ERR_MEMORY when memory runs out. */
skv_result lines_add(skv_lines *lines, const float position[3], const float color[3]);

/* Colours of the skeleton view (tests look for them in screenshots). */
#define SKV_BONE_COLOR {1.0f, 0.78f, 0.2f}
#define SKV_JOINT_COLOR {1.0f, 0.3f, 0.25f}
#define SKV_SELECTED_COLOR {0.2f, 0.9f, 1.0f}

/* Bones as segments from each joint to its nearest ancestor joint, and the
 * joints as points, from `global` (model-space node transforms, as
 * pose_evaluate leaves them) placed by `upright`. A joint is the node of
 * one of the file's bones (not the node entries the importer adds for
 * rigid meshes): `is_joint` per node, from overlay_joint_flags (the same
 * for every frame of a model: made once). `selected`: a palette index
 * drawn highlighted, or -1. SKV_ERR_MEMORY when memory runs out. */
skv_result overlay_skeleton(const skv_model *model, const unsigned char *is_joint, const mat4 *global,
                            const mat4 upright, int selected, skv_lines *bones, skv_lines *joints);

/* Per node of the model's skeleton: 1 where it is a joint to draw (the
 * node of one of the file's bones), else 0; node_count bytes. */
void overlay_joint_flags(const skv_model *model, unsigned char *is_joint);

/* Is palette entry `bone` a joint to draw: one of the file's bones
 * (model_bone_from_file) whose node exists? */
int overlay_is_file_bone(const skv_model *model, int bone);

/* A segment of `length` along each vertex normal (model space positions
 * and normals, e.g. from skin_blend), placed by `upright`. */
skv_result overlay_normals(const skv_model *model, const float *positions, const float *normals, const mat4 upright,
                    float length, skv_lines *lines);

/* A square grid on the floor under the box lo..hi (scene space, y up),
 * cells of a round size (1, 2 or 5 x 10^k), about 5 across the box. */
skv_result overlay_grid(const float lo[3], const float hi[3], skv_lines *lines);

/* X, Y, Z unit segments in red, green, blue from the origin. */
skv_result overlay_axes(skv_lines *lines);

#endif
