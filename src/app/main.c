/* main.c - the skinview command line: parse the options (options.h), load
 * the scene (scene.h), dispatch to --list (report.h), the headless driver
 * (headless.h) or the window (viewer.h). The only place that prints
 * errors, and the only place that turns results into exit statuses: one
 * line, naming the file. */
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "headless.h"
#include "import.h"
#include "morph.h"
#include "options.h"
#include "report.h"
#include "scene.h"
#include "text.h"
#include "viewer.h"

#ifndef SKV_SOURCE_ASSETS_DIR
#define SKV_SOURCE_ASSETS_DIR "assets"
#endif

/* "skinview: " and the formatted text as one line on stderr. The text can
 * carry names from the file or the command line (a clip that clears the
 * terminal, a path with a newline), so it is escaped as a whole. */
static void print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void print_error(const char *fmt, ...)
{
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fputs("skinview: ", stderr);
    text_put_line(stderr, line);
    fputc('\n', stderr);
}

/* The drivers' lines (scene.h): results on stdout, warnings as errors are printed. */
static void print_said(void *user, skv_say_kind kind, const char *line)
{
    (void)user;
    if (kind == SKV_SAY_WARNING) {
        print_error("%s", line);
    } else {
        text_put_line(stdout, line);
        fputc('\n', stdout);
        fflush(stdout); /* the window's lines are read as they come */
    }
}

/* "[#####.....]  12/48  9.6 frames/s  3.8 s left", redrawn in place. */
static void print_progress(void *user, int done, int total, double elapsed)
{
    (void)user;
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    int filled = total > 0 ? done * WIDTH / total : WIDTH;
    for (int k = 0; k < WIDTH; k++) bar[k] = k < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    double rate = elapsed > 0.0 ? done / elapsed : 0.0;
    printf("\r[%s] %*d/%d  %.1f frames/s  %.1f s left ", bar, 1 + (total > 9) + (total > 99) + (total > 999), done,
           total, rate, rate > 0.0 ? (total - done) / rate : 0.0);
    if (done == total) printf("\n");
    fflush(stdout);
}

/* The bundled default model: installed beside the executable
 * (../share/skinview/assets), else in the source tree it was built from. */
static const char *default_model_path(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(buf, size, "%s/../share/skinview/assets/%s", exe, SKV_DEFAULT_MODEL);
        if (access(buf, R_OK) == 0) return buf;
    }
    snprintf(buf, size, "%s/%s", SKV_SOURCE_ASSETS_DIR, SKV_DEFAULT_MODEL);
    return buf;
}

/* The process exit status for a result (README "Exit codes"): the one
 * place results meet the command line's contract. */
static int exit_status(skv_result r)
{
    switch (r) {
    case SKV_OK: return 0;
    case SKV_ERR_ARGUMENT: return 2;
    case SKV_ERR_FILE: return 3;
    case SKV_ERR_IMPORT: return 4;
    case SKV_ERR_CONTENT: return 5;
    case SKV_ERR_ANIM: return 6;
    case SKV_ERR_GPU: return 7;
    case SKV_ERR_OUTPUT: return 8;
    case SKV_ERR_MEMORY: return 9;
    case SKV_ERR_REF: return 10;
    }
    return 1;
}

/* Where the command line helps with a failure: the flag to look at. */
static const char *hint(skv_result r)
{
    switch (r) {
    case SKV_ERR_ANIM: return "; see --list";
    case SKV_ERR_REF: return " (--ref)";
    default: return "";
    }
}

/* A name from a --layer SPEC, NUL-terminated (malloc'd; NULL: no memory). */
static char *span_text(skv_text_span span)
{
    char *text = malloc((size_t)span.length + 1);
    if (text) memcpy(text, span.at, (size_t)span.length), text[span.length] = '\0';
    return text;
}

/* The --layer SPECs resolved against the model (clips and nodes by name,
 * as --list --json prints them) and set on the scene: a name that is not
 * there is a bad command line (SKV_ERR_ARGUMENT), naming the part. */
static skv_result configure_layers(skv_scene *scene, const skv_options *o, skv_error *err)
{
    skv_layer_desc desc[SKV_MAX_LAYERS];
    static int masks[SKV_MAX_LAYERS][SKV_MAX_LAYER_MASK];
    const char *names[SKV_MAX_LAYERS];
    const skv_model *m = scene->model;
    for (int i = 0; i < o->layer_count; i++) {
        const skv_layer_spec *spec = &o->layers[i];
        desc[i] = (skv_layer_desc){.additive = spec->additive, .weight = (float)spec->weight, .reference_clip = -1,
                                   .mask = masks[i], .mask_count = spec->mask_count};
        names[i] = spec->text;
        for (int k = -2; k < spec->mask_count; k++) { /* -2: the clip, -1: the reference, then the bones */
            skv_text_span span = k == -2 ? spec->clip : k == -1 ? spec->reference : spec->mask[k];
            if (!span.at) continue;
            char *name = span_text(span);
            if (!name) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            int found = k < 0 ? model_find_clip(m, name) : model_find_node(m, name);
            if (found < 0) {
                skv_result r = k < 0 ? skv_fail(err, SKV_ERR_ARGUMENT, "--layer '%s': no clip '%s' (it has %d; see --list)",
                                                spec->text, name, m->clip_count)
                               : found == -1 ? skv_fail(err, SKV_ERR_ARGUMENT,
                                                        "--layer '%s': no node '%s' (see --list --json)", spec->text, name)
                                             : skv_fail(err, SKV_ERR_ARGUMENT,
                                                        "--layer '%s': node name '%s' is ambiguous (several nodes, not "
                                                        "one joint among them)", spec->text, name);
                free(name);
                return r;
            }
            free(name);
            if (k == -2) desc[i].clip = found;
            else if (k == -1) desc[i].reference_clip = found;
            else masks[i][k] = found;
        }
    }
    return scene_set_layers(scene, desc, names, o->layer_count, err);
}

/* What the options ask of the loaded scene: views, morph weights, the
 * blend, the layers, the crowd, the camera. */
static skv_result configure_scene(skv_scene *scene, const char *path, const skv_options *o, skv_error *err)
{
    skv_view_options view = scene->view;
    view.skeleton = o->skeleton || scene->view.skeleton; /* a stick figure shows its joints */
    view.bind_pose = o->bind_pose;
    view.wireframe = o->wireframe, view.normals = o->normals, view.grid = o->grid, view.axes = o->axes;
    if (o->influence_count) view.shade = SKV_SHADE_INFLUENCES;
    if (o->has_background) memcpy(view.background, o->background, sizeof view.background);
    if (o->weights) {
        view.weight_bone = model_find_bone(scene->model, o->weights);
        if (view.weight_bone < 0)
            return skv_fail(err, SKV_ERR_ARGUMENT, "no bone '%s' (it has %d; see --list)", o->weights,
                            scene->model->skeleton.bone_count);
        view.shade = SKV_SHADE_WEIGHTS;
    }
    scene_set_view(scene, &view);
    for (int i = 0; i < o->morph_count; i++) {
        const char *eq = strrchr(o->morphs[i], '=');
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->morphs[i]), o->morphs[i]);
        /* Every target of the name, on every mesh. */
        const skv_model *m = scene->model;
        int *targets = m->morph_target_count ? malloc((size_t)m->morph_target_count * sizeof *targets) : NULL;
        int found = targets ? morph_find_targets(m, name, targets, m->morph_target_count) : 0;
        if (found == 0) {
            free(targets);
            return skv_fail(err, SKV_ERR_ARGUMENT, "--morph: no morph target '%s' (it has %d; see --list)", name,
                            m->morph_target_count);
        }
        char meshes[512] = "";
        for (int k = 0; k < found; k++) {
            scene_set_morph(scene, targets[k], (float)atof(eq + 1));
            int mesh = morph_mesh_of_target(m, targets[k]);
            size_t used = strlen(meshes);
            if (mesh >= 0 && used < sizeof meshes - 1)
                snprintf(meshes + used, sizeof meshes - used, "%s'%s'", used ? ", " : "",
                         m->meshes[mesh].name ? m->meshes[mesh].name : "");
        }
        free(targets);
        print_error("%s: note: --morph %s set %d target%s (mesh%s %s)", path, o->morphs[i], found, found == 1 ? "" : "s",
                    found == 1 ? "" : "es", meshes);
    }
    if (o->fade >= 0) scene_set_fade(scene, o->fade);
    if (o->dual_quaternion) scene_set_skinning(scene, SKV_SKINNING_DUAL_QUATERNION);
    if (o->blend) { /* clip A becomes the scene's clip (the camera frames it), B is mixed in */
        int clip_a = model_find_clip(scene->model, o->blend_a), clip_b = model_find_clip(scene->model, o->blend_b);
        if (clip_a < 0 || clip_b < 0)
            return skv_fail(err, SKV_ERR_ANIM, "no clip '%s' (it has %d)", clip_a < 0 ? o->blend_a : o->blend_b,
                            scene->model->clip_count);
        skv_result r = scene_set_clip(scene, clip_a, err);
        if (r != SKV_OK) return r;
        scene_set_blend(scene, clip_b, (float)o->blend_weight);
    }
    if (o->layer_count > 0) {
        skv_result r = configure_layers(scene, o, err);
        if (r != SKV_OK) return r;
    }
    if (o->instances > 0) {
        skv_result r = scene_set_instances(scene, o->instances, o->mixed_clips, err);
        if (r != SKV_OK) return r;
    }
    /* The camera: how it treats the motion, then its angles and zoom. */
    int frame_pose = o->frame && strcmp(o->frame, "pose") == 0;
    if (o->follow || o->in_place || frame_pose) scene_set_motion(scene, o->follow, o->in_place, frame_pose, o->time);
    scene_set_clock(scene, o->time, o->speed);
    scene_set_camera(scene, (float)o->camera_azimuth, (float)o->camera_elevation, (float)o->camera_zoom);
    return SKV_OK;
}

int main(int argc, char **argv)
{
    /* A write past the file-size limit (ulimit -f) fails with EFBIG and
     * ends in one line and status 8, the temporary removed (outfile.h),
     * instead of the signal killing skinview halfway through a file. */
    signal(SIGXFSZ, SIG_IGN);
    skv_options o;
    skv_error err = {{0}};
    if (options_parse(argc, argv, &o, &err) != SKV_OK) {
        print_error("%s", err.message);
        return exit_status(SKV_ERR_ARGUMENT);
    }
    if (o.help) {
        options_print_help(stdout);
        return 0;
    }
    if (o.version) {
        printf("skinview %s (assimp %s)\n", SKV_VERSION, import_assimp_version());
        return 0;
    }
    char default_path[PATH_MAX + 64];
    const char *path = o.model ? o.model : default_model_path(default_path, sizeof default_path);

    skv_scene scene;
    skv_import_desc import = {.influences = o.influences, .trusted = o.trust, .timeout_seconds = o.import_timeout,
                              .memory_limit_mb = (int)o.import_memory, .anim_files = o.anim_files,
                              .anim_file_count = o.anim_file_count};
    skv_result r = scene_load(&scene, path, o.anim, &import, &err);
    if (r != SKV_OK) {
        print_error("%s: %s%s", path, err.message, hint(r));
        return exit_status(r);
    }
    r = configure_scene(&scene, path, &o, &err);
    for (int i = 0; r == SKV_OK && i < scene.model->warning_count; i++)
        print_error("%s: warning: %s", path, scene.model->warnings[i]);

    if (r == SKV_OK && o.list) (o.json ? report_list_json : report_list)(stdout, scene.model);
    skv_headless_desc headless = {.width = o.width, .height = o.height, .time = o.time, .debug = o.debug, .msaa = o.msaa,
                                  .screenshot = o.screenshot, .export_pose = o.export_pose, .frames = o.frames,
                                  .fps = o.fps, .gif = o.gif, .ref = o.ref,
                                  .ref_threshold = o.ref_threshold > 0.0 ? o.ref_threshold : SKV_REF_EXACT,
                                  .say = print_said, .progress = isatty(STDOUT_FILENO) ? print_progress : NULL};
    if (r == SKV_OK && o.export_pose) r = headless_export_pose(&scene, &headless, &err);
    if (r == SKV_OK && !(o.frames > 0 || o.gif)) headless.progress = NULL; /* one frame: no bar */
    if (r == SKV_OK && (o.frames > 0 || o.gif || o.screenshot)) r = headless_render(&scene, &headless, &err);
    int wants_window = o.window_capture || (!o.list && !o.export_pose && !o.screenshot && !o.gif);
    if (r == SKV_OK && wants_window) {
        if (viewer_display_available()) {
            r = viewer_run(&scene,
                           &(skv_viewer_desc){.width = o.width, .height = o.height, .msaa = o.msaa, .capture_path = o.window_capture,
                                              .debug = o.debug, .import = &import, .screenshot_dir = o.screenshot_dir,
                                              .say = print_said},
                           &err);
        } else if (o.window_capture) {
            r = skv_fail(&err, SKV_ERR_GPU, "--window-capture needs a display (DISPLAY is not set)");
        } else {
            print_error("no display; rendering frames headless instead");
            r = headless_fallback_frames(&scene, &headless, &err);
        }
    }
    if (r != SKV_OK) print_error("%s: %s%s", path, err.message, hint(r));
    scene_free(&scene);
    return exit_status(r);
}
