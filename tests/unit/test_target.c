/* test_target.c - the offscreen target's resolve by a draw (resolve.frag)
 * against the driver's own (glBlitFramebuffer), on one GL context.
 *
 * The same picture, drawn into a multisampled target of each kind, must
 * read back byte for byte the same, with every sample count the driver
 * takes (a driver may give more samples than asked: the draw must average
 * all of them), and unlike the single-sample picture (its edges were
 * averaged). Then the draw's resolve is made
 * under state set against it (wireframe polygons, depth test, blending,
 * culling, a colour mask, another viewport, program, vertex array and
 * texture unit) and must give the same picture and leave that state as
 * it found it. A driver that will not draw into the multisample texture
 * (its framebuffer incomplete) leaves the blit, not a failed run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu.h"
#include "program.h"
#include "target.h"

#define SIZE 64

static GLuint compile(GLenum stage, const char *source)
{
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &source, NULL);
    glCompileShader(shader);
    return shader;
}

/* Colours at each vertex, slanted triangles: edges cut through pixels at
 * every angle, so their samples differ. Alpha below 1 too (what a
 * transparent background leaves). */
static GLuint picture_program(void)
{
    const char *vs = "#version 330 core\n"
                     "layout(location = 0) in vec2 p; layout(location = 1) in vec4 c; out vec4 v;\n"
                     "void main() { v = c; gl_Position = vec4(p, 0.0, 1.0); }\n";
    const char *fs = "#version 330 core\n in vec4 v; out vec4 o; void main() { o = v; }\n";
    GLuint program = glCreateProgram();
    GLuint v = compile(GL_VERTEX_SHADER, vs), f = compile(GL_FRAGMENT_SHADER, fs);
    glAttachShader(program, v);
    glAttachShader(program, f);
    glLinkProgram(program);
    glDeleteShader(v);
    glDeleteShader(f);
    return program;
}

static void draw_picture(const skv_target *target, GLuint program, GLuint vao)
{
    target_bind(target);
    glClearColor(0.1f, 0.2f, 0.3f, 0.4f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glUseProgram(program);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 9);
    glBindVertexArray(0);
    glUseProgram(0);
}

static GLuint picture_vao(GLuint *buffer)
{
    static const float vertices[] = {
        /* x, y, r, g, b, a */
        -0.93f, -0.81f, 1.0f, 0.0f, 0.0f, 1.0f,  0.71f, -0.37f, 0.0f, 1.0f, 0.0f, 1.0f,  -0.22f, 0.89f, 0.0f, 0.0f, 1.0f, 1.0f,
        0.13f,  -0.97f, 1.0f, 1.0f, 1.0f, 0.5f,  0.97f, 0.61f,  1.0f, 0.9f, 0.0f, 0.7f,  0.05f,  0.02f, 0.3f, 0.0f, 0.8f, 0.2f,
        -0.99f, 0.33f,  0.0f, 1.0f, 1.0f, 0.9f,  -0.41f, 0.97f, 0.6f, 0.3f, 0.1f, 1.0f,  -0.57f, 0.29f, 0.9f, 0.5f, 0.5f, 0.0f,
    };
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, buffer);
    glBindBuffer(GL_ARRAY_BUFFER, *buffer);
    glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 6 * sizeof(float), NULL);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(2 * sizeof(float)));
    glBindVertexArray(0);
    return vao;
}

/* glCheckFramebufferStatus as a driver that will not draw into a
 * multisample colour texture beside a depth renderbuffer answers it
 * (glad's pointer replaced for the case). */
static PFNGLCHECKFRAMEBUFFERSTATUSPROC real_check_status;
static GLenum refuse_texture_beside_renderbuffer(GLenum target)
{
    GLint type = 0;
    glGetFramebufferAttachmentParameteriv(target, GL_COLOR_ATTACHMENT0, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
    GLint samples = 0;
    glGetIntegerv(GL_SAMPLES, &samples);
    if (type == GL_TEXTURE && samples > 1) return GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE;
    return real_check_status(target);
}

/* Bytes that differ between two pictures. */
static int differing_bytes(const unsigned char *a, const unsigned char *b)
{
    int differing = 0;
    for (int i = 0; i < SIZE * SIZE * 4; i++) differing += a[i] != b[i];
    return differing;
}

int main(void)
{
    skv_gpu gpu;
    skv_error err = {{0}};
    if (gpu_headless_create(&gpu, 1, &err) != SKV_OK) {
        fprintf(stderr, "test_target: %s\n", err.message);
        return 1;
    }
    skv_program_set programs;
    program_set_create(&programs);
    GLuint program = picture_program(), buffer, vao = picture_vao(&buffer);
    GLint max_samples = 0;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    unsigned char *by_draw = malloc(SIZE * SIZE * 4), *by_blit = malloc(SIZE * SIZE * 4), *single = malloc(SIZE * SIZE * 4);
    unsigned char *again = malloc(SIZE * SIZE * 4);

    skv_target one;
    CHECK(target_create(&one, SIZE, SIZE, &err) == SKV_OK);
    draw_picture(&one, program, vao);
    target_read_rgba(&one, single);
    target_destroy(&one);

    int tried = 0;
    for (int samples = 2; samples <= max_samples; samples *= 2) {
        skv_target drawn, blitted;
        CHECK(target_create_msaa(&drawn, SIZE, SIZE, samples, &programs, &err) == SKV_OK);
        CHECK(target_create_msaa(&blitted, SIZE, SIZE, samples, NULL, &err) == SKV_OK);
        CHECK(drawn.resolve_program != 0 && blitted.resolve_program == 0);
        CHECK(drawn.resolve_sample_count >= samples);
        draw_picture(&drawn, program, vao);
        target_read_rgba(&drawn, by_draw);
        draw_picture(&blitted, program, vao);
        target_read_rgba(&blitted, by_blit);
        int differ = memcmp(by_draw, by_blit, SIZE * SIZE * 4) != 0;
        if (differ) fprintf(stderr, "  %d samples: the draw's resolve differs from the blit's\n", samples);
        CHECK(!differ);
        /* Averaged edges: the multisampled picture is not the
         * single-sample one (whose edge pixels take one sample). */
        CHECK(differing_bytes(by_draw, single) > SIZE / 2);

        /* State set against the resolve; it must not change the picture
         * and must be there after. */
        GLuint other_texture;
        glGenTextures(1, &other_texture);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, other_texture);
        glTexImage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, 2, GL_RGBA8, 4, 4, GL_TRUE);
        glActiveTexture(GL_TEXTURE3);
        draw_picture(&drawn, program, vao);
        /* The resolved image cleared first: a resolve that wrote nothing
         * (or some channels) reads back as this, not the picture. */
        glBindFramebuffer(GL_FRAMEBUFFER, drawn.framebuffer);
        glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        target_bind(&drawn);
        glUseProgram(program);
        glBindVertexArray(vao);
        glEnable(GL_DEPTH_TEST);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE);
        glEnable(GL_CULL_FACE);
        glCullFace(GL_FRONT_AND_BACK);
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glColorMask(GL_TRUE, GL_FALSE, GL_TRUE, GL_FALSE);
        glViewport(3, 5, 7, 11);
        target_read_rgba(&drawn, again);
        CHECK(memcmp(again, by_draw, SIZE * SIZE * 4) == 0);
        GLint value = 0, pair[2] = {0, 0}, viewport[4] = {0};
        GLboolean mask[4];
        glGetIntegerv(GL_CURRENT_PROGRAM, &value);
        CHECK(value == (GLint)program);
        glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &value);
        CHECK(value == (GLint)vao);
        glGetIntegerv(GL_ACTIVE_TEXTURE, &value);
        CHECK(value == GL_TEXTURE3);
        glActiveTexture(GL_TEXTURE0);
        glGetIntegerv(GL_TEXTURE_BINDING_2D_MULTISAMPLE, &value);
        CHECK(value == (GLint)other_texture);
        CHECK(glIsEnabled(GL_DEPTH_TEST) && glIsEnabled(GL_BLEND) && glIsEnabled(GL_CULL_FACE));
        CHECK(!glIsEnabled(GL_SCISSOR_TEST) && !glIsEnabled(GL_RASTERIZER_DISCARD));
        glGetIntegerv(GL_POLYGON_MODE, pair);
        CHECK(pair[0] == GL_LINE);
        glGetBooleanv(GL_COLOR_WRITEMASK, mask);
        CHECK(mask[0] && !mask[1] && mask[2] && !mask[3]);
        glGetIntegerv(GL_VIEWPORT, viewport);
        CHECK(viewport[0] == 3 && viewport[1] == 5 && viewport[2] == 7 && viewport[3] == 11);
        glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &value);
        CHECK(value == (GLint)drawn.msaa_framebuffer);
        glDisable(GL_DEPTH_TEST);
        glDisable(GL_BLEND);
        glDisable(GL_CULL_FACE);
        glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glUseProgram(0);
        glBindVertexArray(0);
        glDeleteTextures(1, &other_texture);

        target_destroy(&drawn);
        target_destroy(&blitted);
        tried++;
    }
    CHECK(tried > 0);

    /* A driver that refuses the multisample texture: the target is made
     * with renderbuffers and resolved by the blit, the same picture. */
    real_check_status = glad_glCheckFramebufferStatus;
    glad_glCheckFramebufferStatus = refuse_texture_beside_renderbuffer;
    skv_target refused, blitted;
    CHECK(target_create_msaa(&refused, SIZE, SIZE, 4, &programs, &err) == SKV_OK);
    glad_glCheckFramebufferStatus = real_check_status;
    CHECK(refused.resolve_program == 0 && refused.resolve_vao == 0 && refused.msaa_framebuffer != 0);
    CHECK(target_create_msaa(&blitted, SIZE, SIZE, 4, NULL, &err) == SKV_OK);
    draw_picture(&refused, program, vao);
    target_read_rgba(&refused, by_draw);
    draw_picture(&blitted, program, vao);
    target_read_rgba(&blitted, by_blit);
    CHECK(memcmp(by_draw, by_blit, SIZE * SIZE * 4) == 0);
    target_destroy(&refused);
    target_destroy(&blitted);
    CHECK(glGetError() == GL_NO_ERROR);
    free(by_draw), free(by_blit), free(single), free(again);
    glDeleteBuffers(1, &buffer);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(program);
    program_set_destroy(&programs);
    gpu_headless_destroy(&gpu);
    return check_summary();
}
