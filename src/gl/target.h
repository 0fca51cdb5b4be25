/* target.h - the offscreen target every frame is drawn into: colour +
 * depth renderbuffers, multisampled or not, read back as RGBA.
 *
 * The window and the headless path both draw into one (render.h), so
 * they produce the same pixels. Needs a current GL 3.3 core context with
 * glad loaded. */
#ifndef SKV_TARGET_H
#define SKV_TARGET_H

#include <glad/gl.h>

#include "error.h"
#include "program.h"

/* Offscreen colour + depth framebuffer. With samples > 1 drawing goes
 * into a multisampled one (target_bind) and target_resolve averages it
 * into `framebuffer`, the one to read or blit from. */
typedef struct skv_target {
    GLuint framebuffer, color, depth;
    GLuint msaa_framebuffer, msaa_color, msaa_depth; /* 0 when samples == 1 */
    /* With resolve_program, msaa_color is a multisample texture that
     * target_resolve averages by drawing (resolve.vert/.frag, borrowed
     * from the context's program set); without, a renderbuffer that
     * glBlitFramebuffer averages. */
    GLuint resolve_program, resolve_vao;
    GLint resolve_samples_at, resolve_count_at;
    GLint resolve_sample_count; /* the samples the texture holds (a driver may give more than asked) */
    int width, height;
    int samples;
} skv_target;

/* Samples per pixel unless --msaa says otherwise. */
#define SKV_DEFAULT_MSAA 4

/* One sample per pixel. */
skv_result target_create(skv_target *target, int width, int height, skv_error *err);
/* `samples` per pixel (1 = no multisampling); more than the driver's
 * GL_MAX_SAMPLES fails with one line. With `programs` (the current
 * context's set), the samples are averaged by a draw of its resolve
 * program: the same pixels as glBlitFramebuffer's resolve, without the
 * blit shaders a software rasteriser (llvmpipe) compiles on every run,
 * where Mesa's shader cache keeps a program's. NULL, a driver that cannot
 * texture from that many samples or will not draw into such a texture
 * beside the depth renderbuffer, or a resolve program that does not
 * build: the blit. */
skv_result target_create_msaa(skv_target *target, int width, int height, int samples, skv_program_set *programs,
                              skv_error *err);
/* Averages the multisampled image into `framebuffer` (nothing with one
 * sample), leaving the draw framebuffer and the state the draw touches
 * (program, vertex array, texture unit 0, enables, polygon mode,
 * viewport) as it found them. target_read_rgba does it itself. */
void target_resolve(const skv_target *target);
void target_destroy(skv_target *target);
void target_bind(const skv_target *target);
/* Reads the target as RGBA, first row at the top (width*height*4 bytes). */
void target_read_rgba(const skv_target *target, unsigned char *rgba);

/* GL reads images bottom row first; files and screens want the top row
 * first. Swaps the rows of a width x height RGBA image in place. */
void render_flip_rows(unsigned char *rgba, int width, int height);

/* Premultiplied RGBA (what a target drawn over a transparent background
 * holds) to straight RGBA (what PNG and video store), in place. */
void render_unpremultiply(unsigned char *rgba, int width, int height);

#endif
