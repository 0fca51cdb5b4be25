/* target.c - the offscreen target: framebuffers, resolve, read back. */
#include "target.h"

#include <string.h>

/* A framebuffer of colour + depth renderbuffers with `samples` per pixel
 * (0: not multisampled). */
static GLenum framebuffer_create(GLuint *framebuffer, GLuint *color, GLuint *depth, int width, int height, int samples)
{
    glGenFramebuffers(1, framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, *framebuffer);
    glGenRenderbuffers(1, color);
    glBindRenderbuffer(GL_RENDERBUFFER, *color);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *color);
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
    return target_create_msaa(target, width, height, 1, err);
}

skv_result target_create_msaa(skv_target *target, int width, int height, int samples, skv_error *err)
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
    GLenum status = framebuffer_create(&target->framebuffer, &target->color, &target->depth, width, height, 0);
    if (status == GL_FRAMEBUFFER_COMPLETE && target->samples > 1)
        status = framebuffer_create(&target->msaa_framebuffer, &target->msaa_color, &target->msaa_depth, width, height,
                                    target->samples);
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
    if (target->msaa_color) glDeleteRenderbuffers(1, &target->msaa_color);
    if (target->msaa_depth) glDeleteRenderbuffers(1, &target->msaa_depth);
    memset(target, 0, sizeof *target);
}

void target_bind(const skv_target *target)
{
    glBindFramebuffer(GL_FRAMEBUFFER, target->msaa_framebuffer ? target->msaa_framebuffer : target->framebuffer);
    glViewport(0, 0, target->width, target->height);
}

void target_resolve(const skv_target *target)
{
    if (!target->msaa_framebuffer) return;
    GLint draw = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, target->msaa_framebuffer);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target->framebuffer);
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
