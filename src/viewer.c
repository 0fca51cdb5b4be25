/* viewer.c - GLFW window, input, HUD.
 *
 * Controls: left-drag orbit, scroll zoom, Space pause, Left/Right step one
 * frame (1/30 s), +/- speed x2 / /2, N/P (or PageDown/PageUp) next/previous
 * clip, R reset view, Esc or Q quit. */
#include "viewer.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "render.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#define STEP_SECONDS (1.0 / 30.0)

/* The app's one state: everything the callbacks touch. */
typedef struct viewer {
    skv_scene *scene;
    GLFWwindow *window;
    skv_renderer renderer;
    skv_target target;
    double time, speed;
    int paused;
    int dragging;
    double drag_x, drag_y;

    GLuint hud_program, hud_vao, hud_vbo, hud_ibo;
    GLint hud_u_screen;
} viewer;

/* GLFW's error callback carries no user pointer, so its last message
 * waits here until viewer_run turns it into the error it returns. */
static char glfw_last_error[256];

static void on_glfw_error(int code, const char *description)
{
    snprintf(glfw_last_error, sizeof glfw_last_error, "%s (GLFW error 0x%x)", description, code);
}

int viewer_display_available(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (wl && *wl);
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    (void)scancode, (void)mods;
    viewer *v = glfwGetWindowUserPointer(window);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    skv_scene *s = v->scene;
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q: glfwSetWindowShouldClose(window, 1); break;
    case GLFW_KEY_SPACE: v->paused = !v->paused; break;
    case GLFW_KEY_RIGHT: v->paused = 1, v->time += STEP_SECONDS; break;
    case GLFW_KEY_LEFT: v->paused = 1, v->time -= STEP_SECONDS; break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: v->speed *= 2.0; break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: v->speed *= 0.5; break;
    case GLFW_KEY_N:
    case GLFW_KEY_PAGE_DOWN:
        if (s->model.clip_count > 0) scene_crossfade_to(s, (s->clip + 1) % s->model.clip_count, v->time), v->time = 0.0;
        break;
    case GLFW_KEY_P:
    case GLFW_KEY_PAGE_UP:
        if (s->model.clip_count > 0)
            scene_crossfade_to(s, (s->clip + s->model.clip_count - 1) % s->model.clip_count, v->time), v->time = 0.0;
        break;
    case GLFW_KEY_R: s->camera = s->home; break;
    case GLFW_KEY_D: /* linear <-> dual-quaternion skinning */
        if (s->skinning == SKV_SKINNING_DUAL_QUATERNION) s->skinning = SKV_SKINNING_LINEAR;
        else if (s->instances == 0 && render_enable_dual_quaternion(&v->renderer, &s->model, NULL) == SKV_OK)
            s->skinning = SKV_SKINNING_DUAL_QUATERNION;
        break;
    default: break;
    }
}

static void on_mouse_button(GLFWwindow *window, int button, int action, int mods)
{
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(window);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    v->dragging = action == GLFW_PRESS;
    glfwGetCursorPos(window, &v->drag_x, &v->drag_y);
}

static void on_cursor(GLFWwindow *window, double x, double y)
{
    viewer *v = glfwGetWindowUserPointer(window);
    if (!v->dragging) return;
    skv_camera *c = &v->scene->camera;
    c->yaw -= (float)(x - v->drag_x) * 0.4f;
    c->pitch += (float)(y - v->drag_y) * 0.4f;
    if (c->pitch > 89.0f) c->pitch = 89.0f;
    if (c->pitch < -89.0f) c->pitch = -89.0f;
    v->drag_x = x, v->drag_y = y;
}

static void on_scroll(GLFWwindow *window, double dx, double dy)
{
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(window);
    v->scene->camera.zoom *= (float)pow(0.9, dy);
}

static skv_result hud_create(viewer *v, skv_error *err)
{
    v->hud_program = render_program("hud.vert", "hud.frag", err);
    if (!v->hud_program) return SKV_ERR_GPU;
    v->hud_u_screen = glGetUniformLocation(v->hud_program, "u_screen_size");
    glGenVertexArrays(1, &v->hud_vao);
    glBindVertexArray(v->hud_vao);
    glGenBuffers(1, &v->hud_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, v->hud_vbo);
    /* stb_easy_font vertex: x, y, z floats then 4 colour bytes. */
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 16, (void *)12);
    /* Quads -> triangles. */
    enum { MAX_QUADS = 2000 };
    static uint16_t quad_indices[MAX_QUADS * 6];
    for (int q = 0; q < MAX_QUADS; q++) {
        const uint16_t base = (uint16_t)(q * 4), tri[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) quad_indices[q * 6 + k] = base + tri[k];
    }
    glGenBuffers(1, &v->hud_ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, v->hud_ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof quad_indices, quad_indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    return SKV_OK;
}

static void hud_draw(viewer *v, const char *text, int width, int height)
{
    static char vertices[2000 * 4 * 16];
    const float scale = 2.0f; /* stb_easy_font glyphs are ~7 px tall */
    unsigned char shadow[4] = {0, 0, 0, 255}, color[4] = {235, 235, 235, 255};
    /* Positions are in units of `scale` pixels; a one-unit drop shadow
     * keeps the text readable on any background. */
    int quads = stb_easy_font_print(5.0f, 5.0f, (char *)text, shadow, vertices, sizeof vertices / 2);
    int more = stb_easy_font_print(4.0f, 4.0f, (char *)text, color, vertices + quads * 64,
                                   (int)sizeof vertices - quads * 64);
    quads += more;
    glDisable(GL_DEPTH_TEST);
    glUseProgram(v->hud_program);
    glUniform2f(v->hud_u_screen, (float)width / scale, (float)height / scale);
    glBindVertexArray(v->hud_vao);
    glBindBuffer(GL_ARRAY_BUFFER, v->hud_vbo);
    glBufferData(GL_ARRAY_BUFFER, quads * 64, vertices, GL_STREAM_DRAW);
    glDrawElements(GL_TRIANGLES, quads * 6, GL_UNSIGNED_SHORT, NULL);
    glBindVertexArray(0);
}

static void hud_destroy(viewer *v)
{
    if (v->hud_program) glDeleteProgram(v->hud_program);
    if (v->hud_vao) glDeleteVertexArrays(1, &v->hud_vao);
    if (v->hud_vbo) glDeleteBuffers(1, &v->hud_vbo);
    if (v->hud_ibo) glDeleteBuffers(1, &v->hud_ibo);
}

/* Reads the window's back buffer (what the next swap shows). */
static skv_result capture_window(const char *path, int width, int height, skv_error *err)
{
    unsigned char *rgba = malloc((size_t)width * height * 4);
    if (!rgba) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    size_t row = (size_t)width * 4;
    for (int y = 0; y < height / 2; y++) /* bottom-up -> top-down */
        for (size_t i = 0; i < row; i++) {
            unsigned char *a = &rgba[(size_t)y * row + i], *b = &rgba[(size_t)(height - 1 - y) * row + i];
            unsigned char t = *a;
            *a = *b, *b = t;
        }
    skv_result r = capture_write_png(path, width, height, rgba, err);
    free(rgba);
    return r;
}

static void update_title(viewer *v)
{
    char title[512];
    const char *base = strrchr(v->scene->model.path, '/');
    snprintf(title, sizeof title, "skinview - %s", base ? base + 1 : v->scene->model.path);
    glfwSetWindowTitle(v->window, title);
}

skv_result viewer_run(skv_scene *scene, const skv_viewer_desc *desc, skv_error *err)
{
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) return skv_fail(err, SKV_ERR_GPU, "cannot open a window: %s", glfw_last_error);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, desc->debug ? GLFW_TRUE : GLFW_FALSE);
    viewer v = {.scene = scene, .time = desc->time, .speed = desc->speed, .paused = desc->capture_path != NULL};
    v.window = glfwCreateWindow(desc->width, desc->height, "skinview", NULL, NULL);
    if (!v.window) {
        glfwTerminate();
        return skv_fail(err, SKV_ERR_GPU, "cannot open an OpenGL 3.3 window: %s", glfw_last_error);
    }
    glfwMakeContextCurrent(v.window);
    glfwSwapInterval(1);
    if (!gladLoadGL((GLADloadfunc)glfwGetProcAddress)) {
        glfwDestroyWindow(v.window);
        glfwTerminate();
        return skv_fail(err, SKV_ERR_GPU, "cannot load OpenGL functions");
    }
    glfwSetWindowUserPointer(v.window, &v);
    glfwSetKeyCallback(v.window, on_key);
    glfwSetMouseButtonCallback(v.window, on_mouse_button);
    glfwSetCursorPosCallback(v.window, on_cursor);
    glfwSetScrollCallback(v.window, on_scroll);
    update_title(&v);

    skv_gl_debug debug = {0};
    if (desc->debug && !render_debug_begin(&debug)) {
        glfwDestroyWindow(v.window);
        glfwTerminate();
        return skv_fail(err, SKV_ERR_GPU, "--debug: the driver has no KHR_debug");
    }
    skv_result r = render_create(&v.renderer, &scene->model, err);
    if (r == SKV_OK && scene->instances > 0) r = render_enable_crowd(&v.renderer, &scene->model, scene->instances, err);
    if (r == SKV_OK && scene->skinning == SKV_SKINNING_DUAL_QUATERNION)
        r = render_enable_dual_quaternion(&v.renderer, &scene->model, err);
    if (r == SKV_OK) r = hud_create(&v, err);
    double last = glfwGetTime(), fps_time = last, fps = 0.0;
    int fps_frames = 0;
    while (r == SKV_OK && !glfwWindowShouldClose(v.window)) {
        double now = glfwGetTime();
        if (!v.paused) v.time += (now - last) * v.speed;
        last = now;
        if (++fps_frames, now - fps_time >= 0.5) {
            fps = fps_frames / (now - fps_time);
            fps_time = now, fps_frames = 0;
        }
        int width, height;
        glfwGetFramebufferSize(v.window, &width, &height);
        if (width < 1 || height < 1) {
            glfwWaitEvents();
            continue;
        }
        if (width != v.target.width || height != v.target.height) {
            target_destroy(&v.target);
            r = target_create(&v.target, width, height, err);
            if (r != SKV_OK) break;
        }
        skv_model *m = &scene->model;
        skv_frame_desc frame;
        scene_frame(scene, v.time, width, height, &frame);
        target_bind(&v.target);
        render_frame(&v.renderer, m, &frame);

        glBindFramebuffer(GL_READ_FRAMEBUFFER, v.target.framebuffer);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);

        if (desc->capture_path) {
            r = capture_window(desc->capture_path, width, height, err);
            break;
        }

        char hud[512];
        double duration = scene_clip_seconds(scene);
        double shown = duration > 0.0 ? fmod(fmod(v.time, duration) + duration, duration) : 0.0;
        const char *base = strrchr(m->path, '/');
        snprintf(hud, sizeof hud, "%s | clip %d/%d '%s' | %.2f / %.2f s | x%.2g%s | %s | %.0f fps",
                 base ? base + 1 : m->path, scene->clip + 1, m->clip_count,
                 scene->clip >= 0 ? m->clips[scene->clip].name : "(none)", shown, duration, v.speed,
                 v.paused ? " paused" : "", scene->skinning == SKV_SKINNING_DUAL_QUATERNION ? "dual quat" : "linear",
                 fps);
        hud_draw(&v, hud, width, height);
        glfwSwapBuffers(v.window);
        glfwPollEvents();
        if (debug.errors) r = skv_fail(err, SKV_ERR_GPU, "GL reported %d error(s); the first: %s", debug.errors, debug.first);
    }
    if (r == SKV_OK && debug.errors)
        r = skv_fail(err, SKV_ERR_GPU, "GL reported %d error(s); the first: %s", debug.errors, debug.first);
    hud_destroy(&v);
    target_destroy(&v.target);
    render_destroy(&v.renderer);
    glfwDestroyWindow(v.window);
    glfwTerminate();
    return r;
}
