/* output.h - what leaves the program as files: PNG images of frames,
 * Wavefront OBJ exports of a skinned pose, animated GIFs.
 *
 * Every file goes through outfile.h (a temporary beside the target,
 * renamed over it only when complete). A GIF is written frame by frame:
 * output_gif_begin, output_gif_frame per frame, output_gif_end (which
 * also cleans up after a failure). Names from the model are escaped for
 * OBJ (text.h). */
#ifndef SKV_OUTPUT_H
#define SKV_OUTPUT_H

#include <stdio.h>

#include "error.h"
#include "model.h"
#include "outfile.h"

skv_result output_write_png(const char *path, int width, int height, const unsigned char *rgba, skv_error *err);

/* Writes the skeleton of a model without a mesh (skeleton_only): each
 * joint (a bone's node) as a vertex at its place in `global` (pose
 * globals, model space) transformed by `scene`, and each bone as a line
 * from its parent joint. Returns the joint count through `joints`. */
skv_result output_write_skeleton_obj(const char *path, const skv_model *model, const mat4 *global,
                                      const mat4 scene, int *joints, skv_error *err);

/* Writes the model's triangles with the given blended positions/normals
 * (3 floats per vertex, model space) transformed by `scene` into
 * upright scene space. One OBJ object per mesh. */
skv_result output_write_obj(const char *path, const skv_model *model, const float *positions,
                             const float *normals, const mat4 scene, skv_error *err);

/* An animated GIF being written frame by frame. All frames share one
 * palette of up to 256 colours, chosen from the first frame's most
 * common colours (renders are few flat colours and smooth shading), each
 * pixel mapped to the nearest entry. */
typedef struct skv_gif {
    skv_outfile out;
    int width, height;
    int delay_cs;             /* per frame, hundredths of a second */
    int palette_size;
    unsigned char palette[256 * 3];
    unsigned char *nearest;   /* 15-bit colour -> palette index */
    unsigned char *indices;   /* one frame's pixels */
} skv_gif;

skv_result output_gif_begin(skv_gif *gif, const char *path, int width, int height, double fps, skv_error *err);
/* rgba: width*height*4, first row at the top. */
skv_result output_gif_frame(skv_gif *gif, const unsigned char *rgba, skv_error *err);
/* Finishes the file; after a failure (`failed`) drops it instead, leaving
 * any old file at `path` as it was. */
skv_result output_gif_end(skv_gif *gif, const char *path, int failed, skv_error *err);

/* Creates PREFIX N SUFFIX for the first N >= *number (from 1) that is not
 * there yet, exclusively: an existing file is never overwritten and a
 * symbolic link never followed. Returns the open descriptor (write only)
 * with the name in `path` and *number = N + 1; -1 with errno on failure. */
int output_create_numbered(const char *prefix, const char *suffix, int *number, char *path, size_t path_size);

/* A PNG into a new file PREFIX N .png (output_create_numbered); `path`
 * gets its name. A half-written file is removed. */
skv_result output_write_png_numbered(const char *prefix, int *number, char *path, size_t path_size, int width,
                                      int height, const unsigned char *rgba, skv_error *err);

#endif
