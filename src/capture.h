/* capture.h - what leaves the program as files: PNG images of frames and
 * Wavefront OBJ exports of a skinned pose. */
#ifndef SKV_CAPTURE_H
#define SKV_CAPTURE_H

#include "error.h"
#include "model.h"

skv_result capture_write_png(const char *path, int width, int height, const unsigned char *rgba, skv_error *err);

/* Writes the model's triangles with the given blended positions/normals
 * (3 floats per vertex, model space) transformed by `scene` into
 * upright scene space. One OBJ object per mesh. */
skv_result capture_write_obj(const char *path, const skv_model *model, const float *positions,
                             const float *normals, const mat4 scene, skv_error *err);

#endif
