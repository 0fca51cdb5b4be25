/* target.c - the offscreen target: framebuffers, resolve, read back. */
#include "target.h"

#include <string.h>

/* A framebuffer of colour + depth renderbuffers with `samples` per pixel
 * (0: not multisampled); with `color_texture`, colour in a multisample
 * texture instead, whose number of samples goes to *texture_samples. */
static GLenum framebuffer_create(GLuint *framebuffer, GLuint *color, GLuint *depth, int width, int height, int samples,
                                 int color_texture, GLint *texture_samples)
{
    glGenFramebuffers(1, framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, *framebuffer);
    if (color_texture) {
        GLint bound = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D_MULTISAMPLE, &bound);
        glGenTextures(1, color);
        glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, *color);
        glTexImage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, samples, GL_RGBA8, width, height, GL_TRUE);
        /* A driver may give more samples than asked (llvmpipe: 4 for 2);
         * the resolve must average all it holds. */
        glGetTexLevelParameteriv(GL_TEXTURE_2D_MULTISAMPLE, 0, GL_TEXTURE_SAMPLES, texture_samples);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D_MULTISAMPLE, *color, 0);
        glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, (GLuint)bound);
    } else {
        glGenRenderbuffers(1, color);
        glBindRenderbuffer(GL_RENDERBUFFER, *color);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *color);
    }
    glGenRenderbuffers(1, depth);
    glBindRenderbuffer(GL_RENDERBUFFER, *depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH24_STENCIL8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, *depth);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return status;
}

skv_result target_create(skv_target *target, int width, int height, skv_error *err)
{
    return target_create_msaa(target, width, height, 1, NULL, err);
}

/* The resolve program from `programs`, or 0 where the blit must do:
 * no set, or more samples than a multisample texture takes here. A
 * resolve program that does not build leaves the blit too (its error is
 * not the run's). */
static GLuint resolve_program(skv_program_set *programs, int samples)
{
    GLint max_texture_samples = 0;
    glGetIntegerv(GL_MAX_COLOR_TEXTURE_SAMPLES, &max_texture_samples);
    if (!programs || samples > max_texture_samples) return 0;
    skv_shader_variant variant = {0};
    skv_error ignored;
    return program_set_get(programs, "resolve.vert", "resolve.frag", &variant, &ignored);
}

skv_result target_create_msaa(skv_target *target, int width, int height, int samples, skv_program_set *programs,
                              skv_error *err)
{
    memset(target, 0, sizeof *target);
    target->width = width;
    target->height = height;
    target->samples = samples > 1 ? samples : 1;
    if (target->samples > 1) {
        GLint max_samples = 0;
        glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
        if (target->samples > max_samples)
            return skv_fail(err, SKV_ERR_GPU, "%d samples per pixel: this driver takes at most %d", samples,
                            (int)max_samples);
    }
    if (target->samples > 1) target->resolve_program = resolve_program(programs, target->samples);
    if (target->resolve_program) {
        target->resolve_samples_at = glGetUniformLocation(target->resolve_program, "u_samples");
        target->resolve_count_at = glGetUniformLocation(target->resolve_program, "u_sample_count");
        glGenVertexArrays(1, &target->resolve_vao); /* core profile draws need one, even without attributes */
    }
    GLenum status = framebuffer_create(&target->framebuffer, &target->color, &target->depth, width, height, 0, 0, NULL);
    if (status == GL_FRAMEBUFFER_COMPLETE && target->samples > 1)
        status = framebuffer_create(&target->msaa_framebuffer, &target->msaa_color, &target->msaa_depth, width, height,
                                    target->samples, target->resolve_program != 0, &target->resolve_sample_count);
    if (status != GL_FRAMEBUFFER_COMPLETE && target->resolve_program) {
        /* A driver may refuse a multisample texture beside the depth
         * renderbuffer (their sample counts differ, say): the
         * renderbuffers and the blit then, as without the program. */
        glDeleteFramebuffers(1, &target->msaa_framebuffer);
        glDeleteTextures(1, &target->msaa_color);
        glDeleteRenderbuffers(1, &target->msaa_depth);
        glDeleteVertexArrays(1, &target->resolve_vao);
        target->msaa_framebuffer = target->msaa_color = target->msaa_depth = 0;
        target->resolve_program = target->resolve_vao = 0;
        status = framebuffer_create(&target->msaa_framebuffer, &target->msaa_color, &target->msaa_depth, width, height,
                                    target->samples, 0, NULL);
    }
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        target_destroy(target);
        return skv_fail(err, SKV_ERR_GPU, "offscreen framebuffer %dx%d (%d samples) incomplete (0x%x)", width, height,
                        samples, status);
    }
    return SKV_OK;
}

void target_destroy(skv_target *target)
{
    if (target->framebuffer) glDeleteFramebuffers(1, &target->framebuffer);
    if (target->color) glDeleteRenderbuffers(1, &target->color);
    if (target->depth) glDeleteRenderbuffers(1, &target->depth);
    if (target->msaa_framebuffer) glDeleteFramebuffers(1, &target->msaa_framebuffer);
    if (target->msaa_color && target->resolve_program) glDeleteTextures(1, &target->msaa_color);
    else if (target->msaa_color) glDeleteRenderbuffers(1, &target->msaa_color);
    if (target->resolve_vao) glDeleteVertexArrays(1, &target->resolve_vao);
    if (target->msaa_depth) glDeleteRenderbuffers(1, &target->msaa_depth);
    memset(target, 0, sizeof *target);
}

void target_bind(const skv_target *target)
{
    glBindFramebuffer(GL_FRAMEBUFFER, target->msaa_framebuffer ? target->msaa_framebuffer : target->framebuffer);
    glViewport(0, 0, target->width, target->height);
}

/* The draw that averages the samples: one triangle over the target,
 * with every state that could change what it writes set for it and put
 * back after. */
static void resolve_by_draw(const skv_target *target)
{
    /* Dithering too: a blit never dithers, a draw may. */
    static const GLenum caps[] = {GL_DEPTH_TEST, GL_BLEND, GL_CULL_FACE, GL_SCISSOR_TEST, GL_STENCIL_TEST,
                                  GL_RASTERIZER_DISCARD, GL_FRAMEBUFFER_SRGB, GL_DITHER};
    enum { CAPS = sizeof caps / sizeof caps[0] };
    GLboolean was_on[CAPS];
    GLint program = 0, vao = 0, unit = 0, texture = 0, viewport[4], polygon_mode[2];
    GLboolean color_mask[4];
    for (int i = 0; i < CAPS; i++) was_on[i] = glIsEnabled(caps[i]);
    glGetIntegerv(GL_CURRENT_PROGRAM, &program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &unit);
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D_MULTISAMPLE, &texture);
    glGetIntegerv(GL_VIEWPORT, viewport);
    glGetIntegerv(GL_POLYGON_MODE, polygon_mode);
    glGetBooleanv(GL_COLOR_WRITEMASK, color_mask);

    for (int i = 0; i < CAPS; i++) glDisable(caps[i]);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glViewport(0, 0, target->width, target->height);
    glUseProgram(target->resolve_program);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, target->msaa_color);
    glUniform1i(target->resolve_samples_at, 0);
    glUniform1i(target->resolve_count_at, target->resolve_sample_count);
    glBindVertexArray(target->resolve_vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);

    for (int i = 0; i < CAPS; i++)
        if (was_on[i]) glEnable(caps[i]);
    glPolygonMode(GL_FRONT_AND_BACK, (GLenum)polygon_mode[0]);
    glColorMask(color_mask[0], color_mask[1], color_mask[2], color_mask[3]);
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    glUseProgram((GLuint)program);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, (GLuint)texture);
    glActiveTexture((GLenum)unit);
    glBindVertexArray((GLuint)vao);
}

void target_resolve(const skv_target *target)
{
    if (!target->msaa_framebuffer) return;
    GLint draw = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, target->msaa_framebuffer);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target->framebuffer);
    if (target->resolve_program)
        resolve_by_draw(target);
    else
        glBlitFramebuffer(0, 0, target->width, target->height, 0, 0, target->width, target->height,
                          GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw);
}

void render_flip_rows(unsigned char *rgba, int width, int height)
{
    /* Swapped through a small stack buffer, a piece at a time: no
     * allocation that could fail and leave the image upside down. */
    unsigned char piece[256];
    size_t row = (size_t)width * 4;
    for (int y = 0; y < height / 2; y++) {
        unsigned char *a = rgba + (size_t)y * row, *b = rgba + (size_t)(height - 1 - y) * row;
        for (size_t at = 0; at < row; at += sizeof piece) {
            size_t n = row - at < sizeof piece ? row - at : sizeof piece;
            memcpy(piece, a + at, n);
            memcpy(a + at, b + at, n);
            memcpy(b + at, piece, n);
        }
    }
}

void target_read_rgba(const skv_target *target, unsigned char *rgba)
{
    target_resolve(target);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, target->framebuffer);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, target->width, target->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    render_flip_rows(rgba, target->width, target->height); /* GL's first row is the bottom one */
}

void render_unpremultiply(unsigned char *rgba, int width, int height)
{
    size_t pixels = (size_t)width * (size_t)height;
    for (size_t i = 0; i < pixels; i++) {
        unsigned char *p = rgba + i * 4;
        unsigned a = p[3];
        if (a == 255) continue;
        for (int c = 0; c < 3; c++) {
            unsigned v = a ? (p[c] * 255u + a / 2) / a : 0;
            p[c] = (unsigned char)(v > 255 ? 255 : v);
        }
    }
}
