/* viewer.c - GLFW window, input, HUD.
 *
 * Controls (README "Window controls" has the full map): left-drag orbit,
 * scroll zoom, click or drag on the timeline bar to scrub, Space pause,
 * Left/Right step, Home/End the clip's first/last frame, comma/period the
 * previous/next key, +/- speed, N/P clips, D dual quaternions, K skeleton,
 * T follow the motion, I in place,
 * B bind pose, W weights with [ ] to pick the bone, C influence count,
 * F wireframe, O normals, G grid, A axes, V background, L loop, S
 * screenshot, H help, R reset view, Esc/Q quit; Y, comma, period and M
 * pick a --layer, change its weight and mute it; dropping a model file on
 * the window opens it. */
#include "viewer.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <X11/Xlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helptext.h"
#include "keytimes.h"
#include "output.h"
#include "render.h"
#include "text.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

/* The HUD's vertices for one frame: stb_easy_font's quads (x, y, z, then
 * 4 colour bytes) and the timeline bar's, in units of HUD_SCALE pixels. */
#define HUD_SCALE 2.0f
#define HUD_MAX_QUADS 12000 /* 4 vertices each, 16-bit indices: < 16384 */
typedef struct hud_batch {
    char vertices[HUD_MAX_QUADS * 64];
    int quads;
} hud_batch;

#define STEP_SECONDS (1.0 / 30.0)

/* The app's one state: everything the callbacks touch. */
typedef struct viewer {
    skv_scene *scene;
    GLFWwindow *window;
    skv_program_set programs; /* the window context's: a dropped model draws with them too */
    skv_renderer renderer;
    skv_target target;
    int dragging;
    double drag_x, drag_y;
    int scrubbing;    /* dragging along the timeline bar */
    char *dropped;    /* a file dropped on the window, opened next frame */
    const skv_import_desc *import;
    const char *screenshot_dir; /* the S key's folder, or NULL: beside the model */
    skv_say_fn say;             /* desc->say */
    void *user;
    char message[4400]; /* shown in the HUD for a few seconds */
    double message_until;
    int hover_bone; /* the file bone whose joint is under the cursor, or -1 */
    int help;       /* H: the key map over the picture */
    int background_step;
    float first_background[3];
    int x_error_said; /* say_x_error */
    skv_key_times keys; /* of keys_clip; keys_clip -2: to be made (a new model, new clips) */
    int keys_clip;

    GLuint hud_program, hud_vao, hud_vbo, hud_ibo;
    GLint hud_u_screen;
    XErrorHandler previous_x_handler; /* put back when the window closes */
} viewer;

/* GLFW's error callback carries no user pointer, so its last message
 * waits here until viewer_run turns it into the error it returns. */
static char glfw_last_error[256];

static void on_glfw_error(int code, const char *description)
{
    snprintf(glfw_last_error, sizeof glfw_last_error, "%s (GLFW error 0x%x)", description, code);
}

/* X protocol errors outside the calls GLFW guards itself: an answer to a
 * drop whose source window is gone (the file manager quit mid-drag: its
 * Status and Finished draw BadWindow), a window id gone stale. Xlib's
 * default handler ends the process on any of them (exit 1); they cost
 * the viewer nothing, so this one notes the first and ignores them all.
 * Process-wide, like the handler; the window's thread alone runs Xlib. */
static struct {
    int count;
    Display *display; /* the first error's, to name it */
    unsigned char code, request;
} x_errors;

static int on_x_error(Display *display, XErrorEvent *e)
{
    if (x_errors.count++ == 0)
        x_errors.display = display, x_errors.code = e->error_code, x_errors.request = e->request_code;
    return 0; /* Xlib ignores the return value */
}

int viewer_display_available(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (wl && *wl);
}

/* The next palette entry that is one of the file's bones, stepping `dir`. */
static int next_file_bone(const skv_model *model, int from, int dir)
{
    int n = model->skeleton.bone_count;
    for (int k = 1; k <= n; k++) {
        int b = ((from + dir * k) % n + n) % n;
        if (overlay_is_file_bone(model, b)) return b;
    }
    return from;
}

/* A line in the HUD for a few seconds, and to the caller (desc->say). */
static void say_as(viewer *v, skv_say_kind kind, const char *text)
{
    snprintf(v->message, sizeof v->message, "%s", text);
    v->message_until = glfwGetTime() + 4.0;
    if (v->say) v->say(v->user, kind, text);
}

static void say(viewer *v, const char *text)
{
    say_as(v, SKV_SAY_RESULT, text);
}

/* Textures past the driver's limit draw in their material colour;
 * influence lists past it leave the 4 largest influences. */
static void say_driver_limits(viewer *v)
{
    char text[160];
    if (v->renderer.lists_too_large) {
        snprintf(text, sizeof text, "influence lists of %lld texels, past this driver's %d: 4 largest influences",
                 v->renderer.lists_too_large, v->renderer.max_list_texels);
        say_as(v, SKV_SAY_WARNING, text);
    }
    if (!v->renderer.textures_too_large) return;
    snprintf(text, sizeof text, "%d texture(s) larger than this driver's %d texels a side: material colour",
             v->renderer.textures_too_large, v->renderer.max_texture_side);
    say_as(v, SKV_SAY_WARNING, text);
}

/* N, P and a dropped file of clips: the scene switches, and says why
 * when it could not keep the crowd. */
static void switch_clip(viewer *v, int clip)
{
    skv_error err = {{0}};
    if (scene_switch_clip(v->scene, clip, &err) != SKV_OK) {
        char text[600];
        snprintf(text, sizeof text, "clip %d: %s", clip, err.message);
        say(v, text);
    }
}

/* The key times of the scene's clip, made again when the clip changed or
 * the model did (keys_clip -2); none when memory ran out. */
static const skv_key_times *clip_keys(viewer *v)
{
    if (v->keys_clip != v->scene->clip) {
        key_times_free(&v->keys);
        v->keys_clip = v->scene->clip;
        if (key_times_build(&v->keys, v->scene->model, v->scene->clip) != SKV_OK) say(v, "key times: out of memory");
    }
    return &v->keys;
}

/* Home, End, comma, period: pauses at `seconds` on the clip and says
 * which key that is. A time at the clip's end is shown just before it,
 * as the last frame (at the end itself the loop shows the first). */
static void jump_to(viewer *v, const char *what, double seconds)
{
    const skv_key_times *keys = clip_keys(v);
    double duration = scene_clip_seconds(v->scene);
    if (duration > 0.0 && seconds >= duration - SKV_KEY_TIME_EPSILON) seconds = duration - 0.5 * SKV_KEY_TIME_EPSILON;
    if (seconds < 0.0) seconds = 0.0;
    scene_seek(v->scene, seconds);
    int on_key, at = key_times_index(keys, seconds, &on_key);
    char text[200];
    if (keys->count == 0) snprintf(text, sizeof text, "%s: %.3f s (the clip has no keys)", what, seconds);
    else if (on_key) snprintf(text, sizeof text, "%s: key %d/%d at %.3f s", what, at + 1, keys->count, seconds);
    else snprintf(text, sizeof text, "%s: between keys %d and %d of %d at %.3f s", what, at + 1, at + 2, keys->count, seconds);
    say(v, text);
}

/* S: the rendered frame (without the HUD) as a PNG next to the model,
 * MODEL_skinview_N.png with the lowest N not taken (a new file: nothing
 * there is overwritten, no link followed), and where it went. */
static void save_screenshot(viewer *v)
{
    const skv_target *t = &v->target;
    unsigned char *rgba = malloc((size_t)t->width * t->height * 4);
    char prefix[4200], path[4200], text[4300];
    if (v->screenshot_dir) {
        const char *base = strrchr(v->scene->model->path, '/');
        snprintf(prefix, sizeof prefix, "%s/%s_skinview_", v->screenshot_dir, base ? base + 1 : v->scene->model->path);
    } else {
        snprintf(prefix, sizeof prefix, "%s_skinview_", v->scene->model->path);
    }
    int number = 1;
    skv_error err = {{0}};
    if (!rgba) {
        say(v, "screenshot: out of memory");
        return;
    }
    target_read_rgba(t, rgba);
    if (output_write_png_numbered(prefix, &number, path, sizeof path, t->width, t->height, rgba, &err) == SKV_OK)
        snprintf(text, sizeof text, "saved %s", path);
    else snprintf(text, sizeof text, "screenshot: %s", err.message);
    free(rgba);
    say(v, text);
}

static void on_drop(GLFWwindow *window, int count, const char **paths)
{
    viewer *v = glfwGetWindowUserPointer(window);
    if (count < 1) return;
    free(v->dropped);
    v->dropped = strdup(paths[0]); /* opened by the main loop, outside GLFW's callback */
}

/* The timeline bar: the bottom strip of the window (HUD units = pixels / 2). */
#define BAR_HEIGHT_PX 18
static int on_timeline(viewer *v, double y)
{
    int width, height;
    glfwGetWindowSize(v->window, &width, &height);
    return y >= height - BAR_HEIGHT_PX - 4;
}

static void scrub_to(viewer *v, double x)
{
    int width, height;
    glfwGetWindowSize(v->window, &width, &height);
    double duration = scene_clip_seconds(v->scene), f = width > 8 ? (x - 4) / (width - 8) : 0.0;
    double t = duration * (f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f);
    scene_seek(v->scene, duration > 0.0 && t >= duration ? duration * 0.99999 : t);
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    (void)scancode;
    viewer *v = glfwGetWindowUserPointer(window);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    skv_scene *s = v->scene;
    skv_view_options view = s->view;
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q: glfwSetWindowShouldClose(window, 1); break;
    case GLFW_KEY_SPACE: scene_set_paused(s, !s->clock.paused); break;
    case GLFW_KEY_RIGHT: scene_seek(s, s->clock.seconds + STEP_SECONDS); break;
    case GLFW_KEY_LEFT: scene_seek(s, s->clock.seconds - STEP_SECONDS); break;
    case GLFW_KEY_HOME: jump_to(v, "first frame", 0.0); break;
    case GLFW_KEY_END: jump_to(v, "last frame", scene_clip_seconds(s)); break;
    case GLFW_KEY_PERIOD: jump_to(v, "next key", key_times_next(clip_keys(v), scene_shown_seconds(s))); break;
    case GLFW_KEY_COMMA: jump_to(v, "previous key", key_times_previous(clip_keys(v), scene_shown_seconds(s))); break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD: scene_set_speed(s, s->clock.speed * 2.0); break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: scene_set_speed(s, s->clock.speed * 0.5); break;
    case GLFW_KEY_N:
    case GLFW_KEY_PAGE_DOWN:
        if (s->model->clip_count > 0) switch_clip(v, (s->clip + 1) % s->model->clip_count);
        break;
    case GLFW_KEY_P:
    case GLFW_KEY_PAGE_UP:
        if (s->model->clip_count > 0)
            switch_clip(v, (s->clip + s->model->clip_count - 1) % s->model->clip_count);
        break;
    case GLFW_KEY_R: scene_reset_camera(s); break;
    case GLFW_KEY_T: scene_set_motion(s, !s->follow, s->in_place, s->frame_pose, s->clock.seconds); break;
    case GLFW_KEY_I: scene_set_motion(s, s->follow, !s->in_place, s->frame_pose, s->clock.seconds); break;
    case GLFW_KEY_K: view.skeleton = !view.skeleton; break;
    case GLFW_KEY_B: view.bind_pose = !view.bind_pose; break;
    case GLFW_KEY_W: view.shade = view.shade == SKV_SHADE_WEIGHTS ? SKV_SHADE_MATERIAL : SKV_SHADE_WEIGHTS; break;
    case GLFW_KEY_C: view.shade = view.shade == SKV_SHADE_INFLUENCES ? SKV_SHADE_MATERIAL : SKV_SHADE_INFLUENCES; break;
    case GLFW_KEY_LEFT_BRACKET: view.weight_bone = next_file_bone(s->model, view.weight_bone, -1); break;
    case GLFW_KEY_RIGHT_BRACKET: view.weight_bone = next_file_bone(s->model, view.weight_bone, 1); break;
    case GLFW_KEY_F: view.wireframe = !view.wireframe; break;
    case GLFW_KEY_O: view.normals = !view.normals; break;
    case GLFW_KEY_G: view.grid = !view.grid; break;
    case GLFW_KEY_A: view.axes = !view.axes; break;
    case GLFW_KEY_L: scene_set_stop_at_end(s, !s->clock.stop_at_end); break;
    case GLFW_KEY_V: { /* background: the starting one, then light grey, white, black */
        static const float backgrounds[3][3] = {{0.75f, 0.77f, 0.8f}, {1.0f, 1.0f, 1.0f}, {0.0f, 0.0f, 0.0f}};
        v->background_step = (v->background_step + 1) % 4;
        if (v->background_step == 0) memcpy(view.background, v->first_background, sizeof view.background);
        else memcpy(view.background, backgrounds[v->background_step - 1], sizeof view.background);
        break;
    }
    case GLFW_KEY_H:
    case GLFW_KEY_F1: v->help = !v->help; break;
    case GLFW_KEY_S: save_screenshot(v); break;
    case GLFW_KEY_Y: scene_pick_layer(s, mods & GLFW_MOD_SHIFT ? -1 : 1); break; /* --layer: the picked layer */
    case GLFW_KEY_U: scene_change_layer_weight(s, 0.1f); break;
    case GLFW_KEY_J: scene_change_layer_weight(s, -0.1f); break;
    case GLFW_KEY_M: scene_toggle_layer_mute(s); break;
    case GLFW_KEY_D: /* linear <-> dual-quaternion skinning */
        if (s->skinning == SKV_SKINNING_DUAL_QUATERNION) scene_set_skinning(s, SKV_SKINNING_LINEAR);
        else if (s->instances == 0 && render_enable_dual_quaternion(&v->renderer, s->model, NULL) == SKV_OK)
            scene_set_skinning(s, SKV_SKINNING_DUAL_QUATERNION);
        break;
    default: break;
    }
    if (memcmp(&view, &s->view, sizeof view) != 0) scene_set_view(s, &view);
}

static void on_mouse_button(GLFWwindow *window, int button, int action, int mods)
{
    (void)mods;
    viewer *v = glfwGetWindowUserPointer(window);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    glfwGetCursorPos(window, &v->drag_x, &v->drag_y);
    if (action == GLFW_PRESS && on_timeline(v, v->drag_y)) {
        v->scrubbing = 1;
        scrub_to(v, v->drag_x);
        return;
    }
    v->scrubbing = 0;
    v->dragging = action == GLFW_PRESS;
    if (action == GLFW_PRESS && v->hover_bone >= 0) {
        /* A click on a joint picks its bone (weight view, highlight). */
        skv_view_options view = v->scene->view;
        view.weight_bone = v->hover_bone;
        scene_set_view(v->scene, &view);
    }
}

/* Which file bone's joint is within 10 pixels of the cursor (nearest), as
 * the frame just drawn shows it; -1 when none or when no skeleton or
 * weight view is on. */
static int joint_under_cursor(viewer *v, const skv_frame_desc *frame, int fb_width, int fb_height)
{
    skv_scene *s = v->scene;
    if (!s->view.skeleton && s->view.shade != SKV_SHADE_WEIGHTS) return -1;
    if (s->instances > 0) return -1;
    const mat4 *globals = pose_globals(&s->pose);
    double mx, my;
    int win_w, win_h;
    glfwGetCursorPos(v->window, &mx, &my);
    glfwGetWindowSize(v->window, &win_w, &win_h);
    if (win_w < 1 || win_h < 1) return -1;
    mx *= (double)fb_width / win_w, my *= (double)fb_height / win_h; /* HiDPI: window -> framebuffer pixels */
    mat4 view_projection;
    glm_mat4_mul((vec4 *)frame->projection, (vec4 *)frame->view, view_projection);
    const skv_model *m = s->model;
    int best = -1;
    double best_d2 = 10.0 * 10.0 * ((double)fb_width / win_w) * ((double)fb_width / win_w);
    for (int b = 0; b < m->skeleton.bone_count; b++) {
        if (!overlay_is_file_bone(m, b)) continue;
        const float *t = globals[m->skeleton.bone_node[b]][3];
        vec4 world, clip;
        glm_mat4_mulv((vec4 *)m->upright, (vec4){t[0], t[1], t[2], 1.0f}, world);
        glm_mat4_mulv(view_projection, world, clip);
        if (!(clip[3] > 0.0f)) continue;
        double sx = (clip[0] / clip[3] * 0.5 + 0.5) * fb_width, sy = (0.5 - clip[1] / clip[3] * 0.5) * fb_height;
        double d2 = (sx - mx) * (sx - mx) + (sy - my) * (sy - my);
        if (d2 < best_d2) best = b, best_d2 = d2;
    }
    return best;
}

static void on_cursor(GLFWwindow *window, double x, double y)
{
    viewer *v = glfwGetWindowUserPointer(window);
    if (v->scrubbing) {
        scrub_to(v, x);
        return;
    }
    if (!v->dragging) return;
    scene_orbit(v->scene, -(float)(x - v->drag_x) * 0.4f, (float)(y - v->drag_y) * 0.4f);
    v->drag_x = x, v->drag_y = y;
}

static void on_scroll(GLFWwindow *window, double dx, double dy)
{
    (void)dx;
    viewer *v = glfwGetWindowUserPointer(window);
    scene_zoom(v->scene, (float)pow(0.9, dy));
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
    static uint16_t quad_indices[HUD_MAX_QUADS * 6];
    for (int q = 0; q < HUD_MAX_QUADS; q++) {
        const uint16_t base = (uint16_t)(q * 4), tri[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++) quad_indices[q * 6 + k] = base + tri[k];
    }
    glGenBuffers(1, &v->hud_ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, v->hud_ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof quad_indices, quad_indices, GL_STATIC_DRAW);
    glBindVertexArray(0);
    return SKV_OK;
}

static void hud_text(hud_batch *h, float x, float y, const char *text)
{
    unsigned char shadow[4] = {0, 0, 0, 255}, color[4] = {235, 235, 235, 255};
    /* A one-unit drop shadow keeps the text readable on any background. */
    for (int pass = 0; pass < 2; pass++) {
        int room = (int)sizeof h->vertices - h->quads * 64;
        h->quads += stb_easy_font_print(x + (pass ? 0.0f : 1.0f), y + (pass ? 0.0f : 1.0f), (char *)text,
                                        pass ? color : shadow, h->vertices + h->quads * 64, room);
    }
}

/* Draws `text` from (x, y) in lines no wider than `max_width` (HUD units),
 * broken where `separator` stands (the separator is dropped at a break);
 * a part wider than a line is drawn whole. Returns the y under the last
 * line, so the 800x600 default window shows everything the HUD says. */
static float hud_text_wrapped(hud_batch *h, float x, float y, const char *text, const char *separator, float max_width)
{
    char line[1024], trial[1024];
    size_t line_len = 0, sep_len = strlen(separator);
    const char *part = text;
    while (*part) {
        const char *next = strstr(part, separator);
        size_t part_len = next ? (size_t)(next - part) : strlen(part);
        int fits = 0;
        if (line_len > 0 && line_len + sep_len + part_len < sizeof trial) {
            memcpy(trial, line, line_len);
            memcpy(trial + line_len, separator, sep_len);
            memcpy(trial + line_len + sep_len, part, part_len);
            trial[line_len + sep_len + part_len] = '\0';
            fits = stb_easy_font_width(trial) <= max_width;
        }
        if (fits) {
            memcpy(line, trial, line_len + sep_len + part_len + 1);
            line_len += sep_len + part_len;
        } else {
            if (line_len > 0) {
                hud_text(h, x, y, line);
                y += 10.0f;
            }
            line_len = part_len < sizeof line - 1 ? part_len : sizeof line - 1;
            memcpy(line, part, line_len);
            line[line_len] = '\0';
        }
        part = next ? next + sep_len : part + part_len;
    }
    if (line_len > 0) {
        hud_text(h, x, y, line);
        y += 10.0f;
    }
    return y;
}

static void hud_quad(hud_batch *h, float x0, float y0, float x1, float y1, const unsigned char color[4])
{
    if (h->quads >= HUD_MAX_QUADS) return;
    float corners[4][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
    for (int k = 0; k < 4; k++) {
        char *vtx = h->vertices + h->quads * 64 + k * 16;
        float xyz[3] = {corners[k][0], corners[k][1], 0.0f};
        memcpy(vtx, xyz, 12);
        memcpy(vtx + 12, color, 4);
    }
    h->quads++;
}

static void hud_flush(viewer *v, const hud_batch *h, int width, int height)
{
    glDisable(GL_DEPTH_TEST);
    glUseProgram(v->hud_program);
    glUniform2f(v->hud_u_screen, (float)width / HUD_SCALE, (float)height / HUD_SCALE);
    glBindVertexArray(v->hud_vao);
    glBindBuffer(GL_ARRAY_BUFFER, v->hud_vbo);
    glBufferData(GL_ARRAY_BUFFER, h->quads * 64, h->vertices, GL_STREAM_DRAW);
    glDrawElements(GL_TRIANGLES, h->quads * 6, GL_UNSIGNED_SHORT, NULL);
    glBindVertexArray(0);
}

static void hud_destroy(viewer *v)
{
    if (v->hud_program) glDeleteProgram(v->hud_program);
    if (v->hud_vao) glDeleteVertexArrays(1, &v->hud_vao);
    if (v->hud_vbo) glDeleteBuffers(1, &v->hud_vbo);
    if (v->hud_ibo) glDeleteBuffers(1, &v->hud_ibo);
}

static void update_title(viewer *v);

/* The HUD: file, clip, time, frame, speed and frame rate; the model's
 * size and the views on; a message; the timeline bar. */
static void hud_draw(viewer *v, double fps, int width, int height)
{
    static hud_batch h;
    h.quads = 0;
    const skv_scene *scene = v->scene;
    const skv_model *m = scene->model;
    char line[600];
    double duration = scene_clip_seconds(scene);
    double shown = scene_shown_seconds(scene);
    const skv_clip *clip = scene->clip >= 0 ? &m->clips[scene->clip] : NULL;
    const char *base = strrchr(m->path, '/');
    /* The key the time is on, or the two it is between. */
    const skv_key_times *keys = clip_keys(v);
    int on_key, key_at = key_times_index(keys, shown, &on_key);
    char key[64] = "";
    if (keys->count > 0 && on_key) snprintf(key, sizeof key, " | key %d/%d", key_at + 1, keys->count);
    else if (keys->count > 0) snprintf(key, sizeof key, " | key %d-%d/%d", key_at + 1, key_at + 2, keys->count);
    snprintf(line, sizeof line, "%s | clip %d/%d '%s' | %.2f / %.2f s | frame %d%s | x%.2g%s%s | %.0f fps",
             base ? base + 1 : m->path, scene->clip + 1, m->clip_count, clip ? clip->name : "(none)", shown, duration,
             (int)floor(shown * 30.0 + 1e-6), key, scene->clock.speed, scene->clock.paused ? " paused" : "",
             scene->clock.stop_at_end ? " no loop" : "", fps);
    float room = (float)width / HUD_SCALE - 8.0f;
    float y = hud_text_wrapped(&h, 4.0f, 4.0f, line, " | ", room);
    const skv_view_options *view = &scene->view;
    int weights = view->shade == SKV_SHADE_WEIGHTS;
    snprintf(line, sizeof line, "%d vertices, %d bones | %s%s%s%s%s%s%s%s%s%s%s%s%s", m->vertex_count,
             m->file_bone_count, scene->skinning == SKV_SKINNING_DUAL_QUATERNION ? "dual quat" : "linear",
             view->skeleton ? " | skeleton" : "", view->bind_pose ? " | bind pose" : "",
             weights ? " | weights of '" : "", weights ? m->skeleton.bone_names[view->weight_bone] : "",
             weights ? "'" : "", view->shade == SKV_SHADE_INFLUENCES ? " | influence count" : "",
             view->wireframe ? " | wireframe" : "", view->normals ? " | normals" : "", view->grid ? " | grid" : "",
             view->axes ? " | axes" : "", scene->follow ? " | follow" : "", scene->in_place ? " | in place" : "");
    y = hud_text_wrapped(&h, 4.0f, y, line, " | ", room);
    if (scene->layer_count > 0) { /* --layer: each with its weight; '>' marks the one the keys change */
        int used = snprintf(line, sizeof line, "layers");
        for (int i = 0; i < scene->layer_count && used < (int)sizeof line; i++) {
            const char *name = scene->layer_names[i];
            used += snprintf(line + used, sizeof line - (size_t)used, " | %s%d %.40s %s%.2f", i == scene->layer_picked ? ">" : "",
                             i + 1, name, scene->layers->muted[i] ? "muted " : "w ", (double)scene->layers->weight[i]);
        }
        y = hud_text_wrapped(&h, 4.0f, y, line, " | ", room);
    }
    if (v->message[0] && glfwGetTime() < v->message_until) y = hud_text_wrapped(&h, 4.0f, y, v->message, " ", room);
    if (v->help) {
        char keys[1024];
        size_t used = 0;
        for (const skv_help_entry *k = skv_window_keys; k->what && used < sizeof keys; k++)
            used += (size_t)snprintf(keys + used, sizeof keys - used, "%s%s %s", used ? "   " : "", k->what, k->does);
        hud_text_wrapped(&h, 4.0f, y + 6.0f, keys, "   ", room);
    }
    if (v->hover_bone >= 0) { /* the joint's bone name beside the cursor */
        double mx, my;
        int win_w, win_h;
        glfwGetCursorPos(v->window, &mx, &my);
        glfwGetWindowSize(v->window, &win_w, &win_h);
        float sx = win_w > 0 ? (float)width / win_w : 1.0f, sy = win_h > 0 ? (float)height / win_h : 1.0f;
        hud_text(&h, (float)(mx * sx) / HUD_SCALE + 6.0f, (float)(my * sy) / HUD_SCALE - 8.0f,
                 m->skeleton.bone_names[v->hover_bone]);
    }
    /* Timeline: the clip as a bar along the bottom, the time as a marker. */
    float w = (float)width / HUD_SCALE, bottom = (float)height / HUD_SCALE - 2.0f;
    float top = bottom - BAR_HEIGHT_PX / HUD_SCALE;
    const unsigned char track[4] = {60, 66, 78, 255}, played[4] = {110, 140, 190, 255}, marker[4] = {250, 250, 250, 255};
    float x0 = 2.0f, x1 = w - 2.0f, at = duration > 0.0 ? x0 + (x1 - x0) * (float)(shown / duration) : x0;
    hud_quad(&h, x0, top, x1, bottom, track);
    hud_quad(&h, x0, top, at, bottom, played);
    hud_quad(&h, at - 1.0f, top - 1.0f, at + 1.0f, bottom + 1.0f, marker);
    hud_flush(v, &h, width, height);
}

/* The first ignored X error, once (on_x_error), named as Xlib names it;
 * out of the handler, which may not call Xlib. */
static void say_x_error(viewer *v)
{
    if (x_errors.count == 0 || v->x_error_said) return;
    v->x_error_said = 1;
    char what[160], number[16], request[64];
    XGetErrorText(x_errors.display, x_errors.code, what, sizeof what);
    snprintf(number, sizeof number, "%d", x_errors.request);
    XGetErrorDatabaseText(x_errors.display, "XRequest", number, number, request, sizeof request);
    char text[300];
    snprintf(text, sizeof text, "X error ignored: %s in %s (any later ones are not shown)", what, request);
    say(v, text);
}

/* Opens a file dropped on the window: a file of clips without a mesh adds
 * its clips to the current model (N/P reach them); any other file is
 * opened in place of the current model. On failure the current one stays
 * and the HUD says why. */
static skv_result open_dropped(viewer *v, skv_error *err)
{
    char *path = v->dropped;
    v->dropped = NULL;
    skv_scene next;
    skv_error load_err = {{0}};
    char text[600];
    /* The command line's --anim-file clips belong to its model, not to a
     * dropped one. */
    skv_import_desc import = v->import ? *v->import : (skv_import_desc){0};
    import.anim_files = NULL, import.anim_file_count = 0;
    int first_new = v->scene->model->clip_count, added = 0;
    skv_result added_r = scene_add_clips(v->scene, path, &import, 1, &added, &load_err);
    if (added_r == SKV_OK && added > 0) {
        snprintf(text, sizeof text, "added %d clip(s) from %s: N/P to reach them", added, path);
        v->keys_clip = -2; /* the clips moved */
        say(v, text);
        switch_clip(v, first_new);
        free(path);
        return SKV_OK;
    }
    if (added_r == SKV_ERR_ANIM && !import.retarget) { /* clips for another skeleton: retargeted */
        skv_import_desc retarget = import;
        retarget.retarget = 1;
        skv_error retarget_err = {{0}};
        if (scene_add_clips(v->scene, path, &retarget, 1, &added, &retarget_err) == SKV_OK && added > 0) {
            snprintf(text, sizeof text, "retargeted %d clip(s) from %s onto this skeleton: N/P to reach them", added,
                     path);
            say(v, text);
            switch_clip(v, first_new);
            free(path);
            return SKV_OK;
        }
    }
    if (added_r == SKV_ERR_ANIM) { /* clips, but none for this model */
        snprintf(text, sizeof text, "cannot add clips: %s", load_err.message);
        say(v, text);
        free(path);
        return SKV_OK;
    }
    /* A model, or a file that cannot be read: opening it says which. */
    if (scene_load(&next, path, NULL, &import, &load_err) != SKV_OK) {
        snprintf(text, sizeof text, "cannot open %s: %s", path, load_err.message);
        say(v, text);
        free(path);
        return SKV_OK;
    }
    free(path);
    scene_carry_settings(&next, v->scene); /* speed, pause, loop, views; the new clip at 0 s */
    v->keys_clip = -2;
    render_destroy(&v->renderer);
    scene_free(v->scene);
    *v->scene = next; /* linear skinning: the new renderer has that program */
    update_title(v);
    snprintf(text, sizeof text, "opened %s", v->scene->model->path);
    say(v, text);
    skv_result r = scene_renderer_create(v->scene, &v->programs, &v->renderer, err);
    if (r == SKV_OK) say_driver_limits(v);
    return r;
}

/* Reads the window's back buffer (what the next swap shows). */
static skv_result capture_window(const char *path, int width, int height, skv_error *err)
{
    unsigned char *rgba = malloc((size_t)width * height * 4);
    if (!rgba) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    render_flip_rows(rgba, width, height);
    skv_result r = output_write_png(path, width, height, rgba, err);
    free(rgba);
    return r;
}

static void update_title(viewer *v)
{
    char title[512];
    const char *base = strrchr(v->scene->model->path, '/');
    snprintf(title, sizeof title, "skinview - %s", base ? base + 1 : v->scene->model->path);
    glfwSetWindowTitle(v->window, title);
}

/* Opens the window and readies what it keeps from model to model: its
 * context's programs, the HUD. On failure nothing is left open. */
static skv_result window_open(viewer *v, const skv_viewer_desc *desc, skv_error *err)
{
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) return skv_fail(err, SKV_ERR_GPU, "cannot open a window: %s", glfw_last_error);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, desc->debug ? GLFW_TRUE : GLFW_FALSE);
    int window_width = desc->width > 0 ? desc->width : 800, window_height = desc->height > 0 ? desc->height : 600;
    v->window = glfwCreateWindow(window_width, window_height, "skinview", NULL, NULL);
    if (!v->window) {
        glfwTerminate();
        return skv_fail(err, SKV_ERR_GPU, "cannot open an OpenGL 3.3 window: %s", glfw_last_error);
    }
    glfwMakeContextCurrent(v->window);
    glfwSwapInterval(1);
    if (!gladLoadGL((GLADloadfunc)glfwGetProcAddress)) {
        glfwDestroyWindow(v->window);
        glfwTerminate();
        v->window = NULL;
        return skv_fail(err, SKV_ERR_GPU, "cannot load OpenGL functions");
    }
    /* After the window and its context: GLFW 3.3 guards the calls that
     * make them with a handler of its own and then puts back Xlib's
     * default, not the one it found (3.4 restores it). */
    v->previous_x_handler = XSetErrorHandler(on_x_error);
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_mouse_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    glfwSetDropCallback(v->window, on_drop);
    program_set_create(&v->programs);
    return hud_create(v, err); /* on failure window_close cleans up */
}

/* Everything window_open made, and the target the frames made. */
static void window_close(viewer *v)
{
    if (!v->window) return;
    glfwMakeContextCurrent(v->window);
    gladLoadGL((GLADloadfunc)glfwGetProcAddress); /* a headless context may have been current since */
    hud_destroy(v);
    target_destroy(&v->target);
    program_set_destroy(&v->programs);
    glfwDestroyWindow(v->window);
    glfwTerminate();
    XSetErrorHandler(v->previous_x_handler);
    v->window = NULL;
}

/* One model in the open window until it is closed (or captured): the
 * per-model state as a new window has it, the model's renderer made and
 * destroyed here. The window is left open, not current, for the next. */
static skv_result show(viewer *v, skv_scene *scene, const skv_viewer_desc *desc, skv_error *err)
{
    /* What a model starts with; the window and what it keeps stay. */
    *v = (viewer){.window = v->window, .programs = v->programs, .target = v->target, .hud_program = v->hud_program,
                  .hud_vao = v->hud_vao, .hud_vbo = v->hud_vbo, .hud_ibo = v->hud_ibo, .hud_u_screen = v->hud_u_screen,
                  .previous_x_handler = v->previous_x_handler, .x_error_said = v->x_error_said,
                  .scene = scene, .say = desc->say, .user = desc->user, .import = desc->import,
                  .screenshot_dir = desc->screenshot_dir, .hover_bone = -1, .keys_clip = -2};
    if (desc->capture_path) scene_set_paused(scene, 1); /* one still frame */
    memcpy(v->first_background, scene->view.background, sizeof v->first_background);
    glfwMakeContextCurrent(v->window);
    if (!gladLoadGL((GLADloadfunc)glfwGetProcAddress)) return skv_fail(err, SKV_ERR_GPU, "cannot load OpenGL functions");
    glfwSetWindowShouldClose(v->window, GLFW_FALSE);
    update_title(v);
    glfwShowWindow(v->window); /* hidden when the model before was closed */

    skv_gl_debug debug = {0};
    skv_result r = desc->debug ? render_debug_begin(&debug, err) : SKV_OK;
    int debugging = desc->debug && r == SKV_OK;
    if (r == SKV_OK) r = scene_renderer_create(scene, &v->programs, &v->renderer, err);
    if (r == SKV_OK) say_driver_limits(v);
    double last = glfwGetTime(), fps_time = last, fps = 0.0;
    int fps_frames = 0;
    while (r == SKV_OK && !glfwWindowShouldClose(v->window)) {
        double now = glfwGetTime();
        scene_advance(v->scene, now - last);
        last = now;
        if (v->dropped) {
            r = open_dropped(v, err);
            if (r != SKV_OK) break;
        }
        if (++fps_frames, now - fps_time >= 0.5) {
            fps = fps_frames / (now - fps_time);
            fps_time = now, fps_frames = 0;
        }
        int width, height;
        glfwGetFramebufferSize(v->window, &width, &height);
        if (width < 1 || height < 1) {
            glfwWaitEvents();
            continue;
        }
        if (width != v->target.width || height != v->target.height) {
            target_destroy(&v->target);
            r = target_create_msaa(&v->target, width, height, desc->msaa > 0 ? desc->msaa : SKV_DEFAULT_MSAA, &v->programs, err);
            if (r != SKV_OK) break;
        }
        skv_frame_desc frame;
        r = scene_draw(v->scene, &v->renderer, &v->target, v->scene->clock.seconds, &frame, err);
        if (r != SKV_OK) break;
        v->hover_bone = joint_under_cursor(v, &frame, width, height);

        target_resolve(&v->target); /* the same averaging as --screenshot's */
        glBindFramebuffer(GL_READ_FRAMEBUFFER, v->target.framebuffer);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
        glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);

        if (desc->capture_path) {
            r = capture_window(desc->capture_path, width, height, err);
            break;
        }

        hud_draw(v, fps, width, height);
        glfwSwapBuffers(v->window);
        glfwPollEvents();
        say_x_error(v);
        if (r == SKV_OK) r = render_debug_result(&debug, err);
    }
    if (r == SKV_OK) r = render_debug_result(&debug, err);
    if (debugging) render_debug_end(&debug);
    free(v->dropped);
    v->dropped = NULL;
    key_times_free(&v->keys);
    render_destroy(&v->renderer);
    /* Closed, as a window of its own would be, while the next model loads. */
    glfwHideWindow(v->window);
    glfwPollEvents();
    glfwMakeContextCurrent(NULL);
    return r;
}

skv_result viewer_run(skv_scene *scene, const skv_viewer_desc *desc, skv_viewer_window *window, skv_error *err)
{
    viewer own = {0}, *v = window ? window->viewer : &own;
    if (!v) {
        v = calloc(1, sizeof *v);
        if (!v) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        window->viewer = v;
    }
    skv_result r = SKV_OK;
    if (!v->window) {
        r = window_open(v, desc, err);
        if (r != SKV_OK) window_close(v);
    }
    if (r == SKV_OK) r = show(v, scene, desc, err);
    if (v == &own) window_close(v);
    return r;
}

void viewer_window_destroy(skv_viewer_window *window)
{
    if (!window->viewer) return;
    window_close(window->viewer);
    free(window->viewer);
    window->viewer = NULL;
}
