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
#include "video.h"
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

/* Set when an output goes to standard output ("-"): nothing else may go
 * there, so the result lines go to stderr. */
static int results_on_stderr;

/* The drivers' lines (scene.h): results on stdout, warnings as errors are printed. */
static void print_said(void *user, skv_say_kind kind, const char *line)
{
    (void)user;
    if (kind == SKV_SAY_RESULT && results_on_stderr) {
        text_put_line(stderr, line);
        fputc('\n', stderr);
    } else if (kind == SKV_SAY_WARNING) {
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

static void clip_names(const skv_model *m, char *out, size_t size);

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
            if (found < 0) { /* the SPEC and the name shortened: the line says what is wrong */
                char text[SKV_QUOTE_MAX + 1], shown[SKV_QUOTE_MAX + 1];
                options_quote(text, sizeof text, spec->text, strlen(spec->text));
                options_quote(shown, sizeof shown, name, (size_t)span.length);
                skv_result r = k < 0 ? skv_fail(err, SKV_ERR_ARGUMENT, "--layer '%s': no clip '%s' (it has %d; see --list)",
                                                text, shown, m->clip_count)
                               : found == -1 ? skv_fail(err, SKV_ERR_ARGUMENT,
                                                        "--layer '%s': no node '%s' (see --list --json)", text, shown)
                                             : skv_fail(err, SKV_ERR_ARGUMENT,
                                                        "--layer '%s': node name '%s' is ambiguous (several nodes, not "
                                                        "one joint among them)", text, shown);
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
    if (o->blend) { /* clip A becomes the scene's clip, B is mixed in (the camera frames the blend) */
        int clip_a = model_find_clip(scene->model, o->blend_a), clip_b = model_find_clip(scene->model, o->blend_b);
        if (clip_a < 0 || clip_b < 0) {
            char names[440];
            clip_names(scene->model, names, sizeof names);
            return skv_fail(err, SKV_ERR_ANIM, "no clip '%s' (it has %d: %s)", clip_a < 0 ? o->blend_a : o->blend_b,
                            scene->model->clip_count, names);
        }
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

#ifndef SKV_ASSIMP_PACKAGE
#define SKV_ASSIMP_PACKAGE "unknown"
#endif

/* --version: skinview's, and which Assimp: the version the library
 * reports and the package it came from (CMake asks dpkg at build time, or
 * names tools/build-assimp.sh's build). The two can disagree: Debian 12's
 * package of Assimp's 5.2.5 release reports 5.2.4 (README "Which Assimp"). */
static void print_version(void)
{
    printf("skinview %s\n", SKV_VERSION);
    printf("assimp %s (as the library reports it), from %s\n", import_assimp_version(), SKV_ASSIMP_PACKAGE);
    printf("video: %s\n", video_library_versions());
}

/* "'a', 'b', 'c'": up to 10 of the model's clips by index and name, for
 * a --anim or --blend that named none of them. */
static void clip_names(const skv_model *m, char *out, size_t size)
{
    enum { SHOWN = 10, NAME_MAX_SHOWN = 32 }; /* the error line holds 512 bytes */
    size_t used = 0;
    out[0] = '\0';
    for (int c = 0; c < m->clip_count && c < SHOWN && used < size; c++) {
        const char *name = m->clips[c].name ? m->clips[c].name : "";
        char shown[4 * NAME_MAX_SHOWN + 1]; /* a longer name cut, "…" after it */
        text_line(shown, sizeof shown, name, NAME_MAX_SHOWN);
        used += (size_t)snprintf(out + used, size - used, "%s%d '%s'", c ? ", " : "", c, shown);
    }
    if (m->clip_count > SHOWN && used < size)
        snprintf(out + used, size - used, " and %d more", m->clip_count - SHOWN);
}

/* An --anim that names no clip: scene_load says so without the names, and
 * the model is gone; it is read once more (no clip asked) to name them. */
static void name_the_clips(const char *path, const skv_options *o, const skv_import_desc *import, skv_error *err)
{
    skv_scene probe;
    skv_error ignored = {{0}};
    if (scene_load(&probe, path, NULL, import, &ignored) != SKV_OK) return;
    const skv_model *m = probe.model;
    char names[440];
    clip_names(m, names, sizeof names);
    if (m->clip_count == 0) skv_fail(err, SKV_ERR_ANIM, "no clip '%s': the file has none", o->anim);
    else skv_fail(err, SKV_ERR_ANIM, "no clip '%s' (it has %d: %s)", o->anim, m->clip_count, names);
    scene_free(&probe);
}

/* The model file's name less its last extension: what SKV_MODEL_FIELD
 * becomes in an output name. */
static void model_stem(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t length = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    snprintf(out, size, "%.*s", (int)length, base);
}

/* `name` with every SKV_MODEL_FIELD replaced by `stem`, into `out`; with
 * `pattern` (a frame sequence's %d name) a '%' of the stem is doubled, so
 * it stays a character. NULL for a NULL name; -1 when it does not fit. */
static int expand_name(const char *name, const char *stem, int pattern, char *out, size_t size, const char **result)
{
    *result = NULL;
    if (!name) return 0;
    size_t used = 0;
    for (const char *c = name; *c;) {
        if (strncmp(c, SKV_MODEL_FIELD, strlen(SKV_MODEL_FIELD)) == 0) {
            for (const char *t = stem; *t; t++) {
                if (used + 2 >= size) return -1;
                if (*t == '%' && pattern) out[used++] = '%';
                out[used++] = *t;
            }
            c += strlen(SKV_MODEL_FIELD);
        } else {
            if (used + 1 >= size) return -1;
            out[used++] = *c++;
        }
    }
    out[used] = '\0';
    *result = out;
    return 0;
}

/* The headless context made while the model is read (headless_gl_prepare). */
typedef struct early_gl {
    skv_headless_gl *gl;
    int debug;
} early_gl;

static void make_gl_early(void *user)
{
    const early_gl *early = user;
    headless_gl_prepare(early->gl, early->debug);
}

/* One model, loaded and put through everything the options ask: its exit
 * status (0 when all went well), its error printed. It is drawn on the
 * run's contexts: `gl` headless, `window` on screen. */
static int run_model(const char *path, const skv_options *options, skv_headless_gl *gl, skv_viewer_window *window,
                     skv_error *err)
{
    skv_options o = *options; /* this model's names and time */
    char stem[PATH_MAX], names[6][PATH_MAX + 64];
    model_stem(path, stem, sizeof stem);
    const char **fields[] = {&o.screenshot, &o.export_pose, &o.gif, &o.video, &o.ref, &o.window_capture};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        int pattern = o.frames > 0 && (fields[k] == &o.screenshot || fields[k] == &o.ref);
        if (expand_name(*fields[k], stem, pattern, names[k], sizeof names[k], fields[k]) != 0) {
            print_error("%s: the output name with " SKV_MODEL_FIELD " replaced is too long", path);
            return exit_status(SKV_ERR_ARGUMENT);
        }
    }

    skv_scene scene;
    skv_import_desc import = {.influences = o.influences, .trusted = o.trust, .timeout_seconds = o.import_timeout,
                              .memory_limit_mb = (int)o.import_memory, .anim_files = o.anim_files,
                              .anim_file_count = o.anim_file_count, .retarget = o.retarget || o.bone_map,
                              .bone_map = o.bone_map};
    /* A run that draws headless needs the context whatever the model:
     * EGL starts while the guarded child reads the file (~30 ms of
     * loading Mesa's driver beside the read). Only for this load: later
     * imports (the window's dropped files) must not touch contexts. */
    early_gl early = {gl, o.debug};
    skv_import_desc load = import;
    if (gl && (o.screenshot || o.frames > 0 || o.gif || o.video))
        load.while_reading = make_gl_early, load.while_reading_user = &early;
    skv_result r = scene_load(&scene, path, o.anim, &load, err);
    if (r == SKV_ERR_ANIM && o.anim) name_the_clips(path, &o, &import, err);
    if (r != SKV_OK) {
        print_error("%s: %s%s", path, err->message, hint(r));
        return exit_status(r);
    }
    const skv_model *model = scene.model;
    if (o.thumbnail) {
        /* A telling pose: halfway through the clip (its start is often
         * the bind pose), framed on itself, filling the square. */
        if (!o.has_time) o.time = 0.5 * scene_clip_seconds(&scene);
        if (!o.frame) o.frame = "pose";
    }
    r = configure_scene(&scene, path, &o, err);
    for (int i = 0; r == SKV_OK && i < model->warning_count; i++)
        print_error("%s: warning: %s", path, model->warnings[i]);

    if (r == SKV_OK && o.list) (o.json ? report_list_json : report_list)(stdout, model);
    int to_stdout = options_is_stdout(o.screenshot) || options_is_stdout(o.export_pose) || options_is_stdout(o.gif);
    skv_headless_desc headless = {.width = o.width, .height = o.height, .time = o.time, .debug = o.debug, .msaa = o.msaa,
                                  .screenshot = o.screenshot, .export_pose = o.export_pose, .frames = o.frames,
                                  .fps = o.fps, .gif = o.gif, .video = o.video, .ref = o.ref, .ref_create = o.ref_create,
                                  .ref_timeout = o.import_timeout, .ref_memory_mb = (int)o.import_memory,
                                  .transparent = o.transparent,
                                  .ref_threshold = o.ref_threshold > 0.0 ? o.ref_threshold : SKV_REF_EXACT,
                                  .say = print_said,
                                  .progress = isatty(STDOUT_FILENO) && !to_stdout ? print_progress : NULL,
                                  .gl = gl};
    if (r == SKV_OK && o.export_pose) r = headless_export_pose(&scene, &headless, err);
    int sequence = o.frames > 0 || o.gif || o.video;
    if (r == SKV_OK && !sequence) headless.progress = NULL; /* one frame: no bar */
    if (r == SKV_OK && (sequence || o.screenshot)) r = headless_render(&scene, &headless, err);
    int wants_window = o.window_capture || (!o.list && !o.export_pose && !o.screenshot && !o.gif && !o.video);
    if (r == SKV_OK && wants_window) {
        if (viewer_display_available()) {
            r = viewer_run(&scene,
                           &(skv_viewer_desc){.width = o.width, .height = o.height, .msaa = o.msaa, .capture_path = o.window_capture,
                                              .debug = o.debug, .import = &import, .screenshot_dir = o.screenshot_dir,
                                              .say = print_said},
                           window, err);
        } else if (o.window_capture) {
            r = skv_fail(err, SKV_ERR_GPU, "--window-capture needs a display (DISPLAY is not set)");
        } else {
            print_error("no display; rendering frames headless instead");
            r = headless_fallback_frames(&scene, &headless, err);
        }
    }
    if (r != SKV_OK) print_error("%s: %s%s", path, err->message, hint(r));
    scene_free(&scene);
    return exit_status(r);
}

int main(int argc, char **argv)
{
    /* A write past the file-size limit (ulimit -f) fails with EFBIG and
     * ends in one line and status 8, the temporary removed (outfile.h),
     * instead of the signal killing skinview halfway through a file. */
    signal(SIGXFSZ, SIG_IGN);
    skv_options o;
    skv_error err = {{0}};
    skv_result parsed = options_parse(argc, argv, &o, &err);
    if (parsed != SKV_OK) {
        print_error("%s", err.message);
        return exit_status(parsed);
    }
    if (o.help) {
        options_print_help(stdout);
        options_free(&o);
        return 0;
    }
    if (o.version) {
        print_version();
        options_free(&o);
        return 0;
    }
    results_on_stderr = options_is_stdout(o.screenshot) || options_is_stdout(o.export_pose) || options_is_stdout(o.gif);
    char default_path[PATH_MAX + 64];
    const char *default_models[] = {default_model_path(default_path, sizeof default_path)};
    const char **models = o.model_count > 0 ? o.models : default_models;
    int count = o.model_count > 0 ? o.model_count : 1;
    /* Each model in turn; one that fails does not stop the others. They
     * draw one after another on one headless context and one window, each
     * made when the first model needs it, with the programs it has linked. */
    int status = 0, failed = 0;
    skv_headless_gl gl = {0};
    skv_viewer_window window = {0};
    for (int i = 0; i < count; i++) {
        err = (skv_error){{0}};
        int got = run_model(models[i], &o, &gl, &window, &err);
        if (got != 0 && failed++ == 0) status = got;
    }
    viewer_window_destroy(&window);
    headless_gl_destroy(&gl);
    if (count > 1 && failed > 0)
        print_error("%d of %d models failed (the exit status is the first one's)", failed, count);
    options_free(&o);
    return status;
}
