/* headless.c - --screenshot, --frames, --gif, --video, --export-pose
 * without a window, over an EGL context (gpu.h). */
#include "headless.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


#include "frame_writer.h"
#include "gpu.h"
#include "imagecmp.h"
#include "import.h"
#include "output.h"
#include "options.h"
#include "render.h"
#include "video.h"


/* A line for the user through desc->say, formatted. */
static void say(const skv_headless_desc *desc, skv_say_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(const skv_headless_desc *desc, skv_say_kind kind, const char *fmt, ...)
{
    if (!desc->say) return;
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    desc->say(desc->user, kind, line);
}

int headless_frame_pattern_ok(const char *pattern)
{
    int conversions = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        while (*p == '0' || *p == '-' || *p == '+' || *p == ' ') p++;
        int width = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if ((width = width * 10 + (*p - '0')) > SKV_FRAME_WIDTH_MAX) return 0;
        if (*p != 'd') return 0;
        conversions++;
    }
    return conversions == 1;
}

skv_result headless_export_pose(skv_scene *scene, const skv_headless_desc *desc, skv_error *err)
{
    if (!desc->export_pose) return skv_fail(err, SKV_ERR_ARGUMENT, "no OBJ file to write the pose to");
    skv_model *m = scene->model;
    if (scene->view.bind_pose) pose_evaluate(&scene->pose, scene->walks, -1, 0.0); /* the rest pose */
    else scene_pose(scene, desc->time);
    if (m->skeleton_only) {
        /* No mesh to pose: the joints and bones, which is what there is. */
        int joints = 0;
        skv_result r = output_write_skeleton_obj(desc->export_pose, m, pose_globals(&scene->pose), m->upright, &joints,
                                                 err);
        if (r == SKV_OK)
            say(desc, SKV_SAY_WARNING, "%s: no mesh in the file: %s holds its %d joints as points and its bones as lines",
                m->path, desc->export_pose, joints);
        if (r == SKV_OK && !options_is_stdout(desc->export_pose)) say(desc, SKV_SAY_RESULT, "wrote %s", desc->export_pose);
        return r;
    }
    float *positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    float *normals = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    skv_result r;
    if (!positions || !normals) {
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    } else if (scene_skin(scene, positions, normals) != SKV_OK) {
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    } else {
        r = output_write_obj(desc->export_pose, m, positions, normals, m->upright, err);
    }
    if (r == SKV_OK && !options_is_stdout(desc->export_pose)) say(desc, SKV_SAY_RESULT, "wrote %s", desc->export_pose);
    free(positions);
    free(normals);
    return r;
}

/* Where frames go: PNG files, or the frames of one GIF or video; and the
 * references they are compared with. */
typedef struct frame_sink {
    char **paths;        /* one PNG per frame, or NULL */
    skv_gif *gif;        /* or every frame into this */
    skv_video *video;    /* or into this */
    char **refs;         /* --ref: each frame's reference image, or NULL */
    int refs_differing;  /* frames that differ from their reference */
    int refs_missing;    /* references not there (without ref_create) */
    int refs_written;    /* references written (ref_create) */
    /* What frames are written with (frame_write, on the writer's thread). */
    const struct skv_headless_desc *desc;
    int width, height;
    int count;    /* frames in the run, for desc->progress */
    double start; /* when the first was drawn (now_seconds) */
} frame_sink;

static double ref_threshold(const skv_headless_desc *desc)
{
    if (desc->ref_threshold == SKV_REF_EXACT) return 0.0;
    return desc->ref_threshold > 0.0 ? desc->ref_threshold : SKV_REF_MAX_FRACTION;
}

/* Compares a rendered frame (already written to its PNG) with its
 * reference. A missing reference is counted, or with ref_create written
 * from the frame (a new golden); a differing frame gets OUT.diff.png and
 * one line, and is counted. A forgotten reference must not pass: a
 * screenshot test in CI would stay green without one. */
static skv_result compare_with_ref(const skv_headless_desc *desc, frame_sink *sink, int index,
                                   const unsigned char *rgba, int width, int height, skv_error *err)
{
    const char *ref = sink->refs[index], *out = sink->paths[index];
    if (access(ref, F_OK) != 0) {
        if (!desc->ref_create) {
            sink->refs_missing++;
            return SKV_OK;
        }
        skv_result r = output_write_png(ref, width, height, rgba, err);
        if (r == SKV_OK) {
            say(desc, SKV_SAY_WARNING, "%s: no reference there yet: wrote this render as it (--ref-create)", ref);
            sink->refs_written++;
        }
        return r;
    }
    int w = 0, h = 0;
    unsigned char *expected = NULL;
    skv_error why = {{0}};
    /* Under the import's limits as given (--import-timeout, --import-memory). */
    skv_import_desc limits = {.timeout_seconds = desc->ref_timeout, .memory_limit_mb = desc->ref_memory_mb};
    if (import_image(ref, &limits, &w, &h, &expected, &why) != SKV_OK)
        return skv_fail(err, SKV_ERR_FILE, "the reference: %s", why.message);
    if (w != width || h != height) {
        free(expected);
        return skv_fail(err, SKV_ERR_REF, "the reference %s is %dx%d, the render %dx%d", ref, w, h, width,
                        height);
    }
    skv_image_diff diff = imagecmp_measure(rgba, expected, width, height, SKV_REF_TOLERANCE);
    skv_result r = SKV_OK;
    if (diff.fraction > ref_threshold(desc)) {
        char diff_path[PATH_MAX];
        size_t stem = strlen(out) > 4 && strcasecmp(out + strlen(out) - 4, ".png") == 0 ? strlen(out) - 4 : strlen(out);
        snprintf(diff_path, sizeof diff_path, "%.*s.diff.png", (int)stem, out);
        unsigned char *panel = imagecmp_side_by_side(rgba, expected, width, height, SKV_REF_TOLERANCE);
        r = panel ? output_write_png(diff_path, width * 3, height, panel, err)
                  : skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        free(panel);
        if (r == SKV_OK) {
            say(desc, SKV_SAY_WARNING,
                "%s: differs from %s: %.3f%% of pixels over %d/255 (threshold %.3f%%); actual | expected | difference "
                "in %s", out, ref, 100.0 * diff.fraction, SKV_REF_TOLERANCE, 100.0 * ref_threshold(desc), diff_path);
            sink->refs_differing++;
        }
    }
    free(expected);
    return r;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Frame `index` of `sink` (its pixels as read back) to its file, GIF or
 * video, and against its reference: the frame writer's `write`, on its
 * thread. The progress is told here too, once the frame is written: on
 * the thread that says the frame's warnings, so that the bar and those
 * lines come in the frames' order and a bar never lands inside a line,
 * and a bar at its end means every frame is written. */
static skv_result frame_write(void *user, int index, unsigned char *rgba, skv_error *err)
{
    frame_sink *sink = user;
    const skv_headless_desc *desc = sink->desc;
    /* Drawn over nothing, the target holds premultiplied colour; files
     * hold it straight. */
    if (desc->transparent) render_unpremultiply(rgba, sink->width, sink->height);
    skv_result r;
    if (sink->gif) r = output_gif_frame(sink->gif, rgba, err);
    else if (sink->video) r = video_frame(sink->video, rgba, err);
    else r = output_write_png(sink->paths[index], sink->width, sink->height, rgba, err);
    if (r == SKV_OK && sink->refs) r = compare_with_ref(desc, sink, index, rgba, sink->width, sink->height, err);
    if (r == SKV_OK && desc->progress) desc->progress(desc->user, index + 1, sink->count, now_seconds() - sink->start);
    return r;
}

/* Renders the scene at `seconds` as frame `index`, handed to `writer`
 * (which returns an earlier frame's failure, if any). */
static skv_result render_one(skv_scene *scene, skv_renderer *renderer, skv_target *target, double seconds,
                             skv_frame_writer *writer, int index, skv_error *err)
{
    skv_frame_desc frame;
    skv_result r = scene_draw(scene, renderer, target, seconds, &frame, err);
    if (r != SKV_OK) return r;
    target_read_rgba(target, frame_writer_next(writer));
    return frame_writer_submit(writer, index, err);
}

/* The context current with GL's functions its own: made the first time,
 * made current again after that (a window may have been current since). */
static skv_result headless_gl_use(skv_headless_gl *gl, int debug, skv_error *err)
{
    if (gl->made) return gpu_headless_make_current(&gl->gpu, err);
    skv_result r = gpu_headless_create(&gl->gpu, debug, err);
    if (r != SKV_OK) return r;
    program_set_create(&gl->programs);
    gl->made = 1;
    return SKV_OK;
}

void headless_gl_prepare(skv_headless_gl *gl, int debug)
{
    skv_error ignored = {{0}};
    if (gl->made || headless_gl_use(gl, debug, &ignored) != SKV_OK) return;
    gpu_headless_release(&gl->gpu);
}

void headless_gl_destroy(skv_headless_gl *gl)
{
    if (!gl->made) return;
    /* Not current, the programs go with the context all the same. */
    if (gpu_headless_make_current(&gl->gpu, NULL) != SKV_OK) gl->programs.count = 0;
    program_set_destroy(&gl->programs);
    gpu_headless_destroy(&gl->gpu);
    gl->made = 0;
}

/* `count` frames at `times` into `sink`, on the run's headless GL context
 * (desc->gl) or one of this call's own. */
static skv_result render_frames(skv_scene *scene, const skv_headless_desc *desc, int count, const double *times,
                                frame_sink *sink, skv_error *err)
{
    int width = desc->width > 0 ? desc->width : 800, height = desc->height > 0 ? desc->height : 600;
    sink->desc = desc, sink->width = width, sink->height = height;
    skv_frame_writer *writer;
    /* --ref imports each reference in a forked child: not beside GL. */
    skv_result r = frame_writer_create(&writer, (size_t)width * height * 4, frame_write, sink, sink->refs == NULL, err);
    if (r != SKV_OK) return r;
    skv_headless_gl own = {0}, *gl = desc->gl ? desc->gl : &own;
    r = headless_gl_use(gl, desc->debug, err);
    if (r != SKV_OK) {
        frame_writer_destroy(writer);
        return r;
    }
    skv_gl_debug debug = {0};
    int debugging = 0;
    if (desc->debug) r = render_debug_begin(&debug, err), debugging = r == SKV_OK;
    skv_renderer renderer = {0};
    if (r == SKV_OK) r = scene_renderer_create(scene, &gl->programs, &renderer, err);
    renderer.transparent_background = desc->transparent;
    if (r == SKV_OK && renderer.lists_too_large)
        say(desc, SKV_SAY_WARNING,
            "%s: warning: the influence lists take %lld texels, past this driver's %d; the 4 largest influences of "
            "each vertex blended",
            scene->model->path, renderer.lists_too_large, renderer.max_list_texels);
    if (r == SKV_OK && renderer.textures_too_large)
        say(desc, SKV_SAY_WARNING,
            "%s: warning: %d texture(s) larger than this driver's %d texels a side; drawn in the material colour",
            scene->model->path, renderer.textures_too_large, renderer.max_texture_side);
    if (r == SKV_OK) {
        skv_target target;
        r = target_create_msaa(&target, width, height, desc->msaa > 0 ? desc->msaa : SKV_DEFAULT_MSAA, &gl->programs, err);
        sink->count = count, sink->start = now_seconds(); /* before the first frame is handed over */
        for (int i = 0; r == SKV_OK && i < count; i++)
            r = render_one(scene, &renderer, &target, times[i], writer, i, err);
        target_destroy(&target);
    }
    if (r == SKV_OK) r = render_debug_result(&debug, err);
    if (debugging) render_debug_end(&debug);
    render_destroy(&renderer);
    if (gl == &own) headless_gl_destroy(&own);
    else gpu_headless_release(&gl->gpu); /* the window may be next */
    /* The last frame is written while the GL side is taken down. */
    if (r == SKV_OK) r = frame_writer_finish(writer, err);
    frame_writer_destroy(writer);
    return r;
}

/* Frame i's name from a pattern with one %d (headless_frame_pattern_ok);
 * a pattern without one is the name of every frame. NULL when memory runs
 * out. */
static char *frame_name(const char *pattern, int i)
{
    size_t size = strlen(pattern) + SKV_FRAME_WIDTH_MAX + 12;
    char *name = malloc(size);
    if (!name) return NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    int length = strchr(pattern, '%') ? snprintf(name, size, pattern, i) : snprintf(name, size, "%s", pattern);
#pragma GCC diagnostic pop
    if (length < 0 || (size_t)length >= size) { /* cannot happen for a checked pattern; never overflow */
        free(name);
        return NULL;
    }
    return name;
}

static void free_names(char **names, int count)
{
    for (int i = 0; names && i < count; i++) free(names[i]);
    free(names);
}

/* `count` names from `pattern`; NULL when memory runs out. */
static char **frame_names(const char *pattern, int count)
{
    char **names = calloc((size_t)count, sizeof *names);
    for (int i = 0; names && i < count; i++)
        if (!(names[i] = frame_name(pattern, i))) {
            free_names(names, i);
            return NULL;
        }
    return names;
}

/* A list of one name (a single --screenshot or --ref, taken as given). */
static char **one_name(const char *name)
{
    char **names = calloc(1, sizeof *names);
    if (names && !(names[0] = strdup(name))) {
        free(names);
        return NULL;
    }
    return names;
}

skv_result headless_render(skv_scene *scene, const skv_headless_desc *desc, skv_error *err)
{
    int sequence = desc->frames > 0 || desc->gif || desc->video;
    if (!desc->gif && !desc->video && !desc->screenshot) return skv_fail(err, SKV_ERR_ARGUMENT, "no image file to write");
    if (sequence && !desc->gif && !desc->video && !headless_frame_pattern_ok(desc->screenshot))
        return skv_fail(err, SKV_ERR_ARGUMENT, "%s: a sequence's file name needs one %%d (width up to %d)",
                        desc->screenshot, SKV_FRAME_WIDTH_MAX);
    if (desc->ref && (desc->gif || desc->video || (sequence && !headless_frame_pattern_ok(desc->ref))))
        return skv_fail(err, SKV_ERR_ARGUMENT, "%s: reference images go with PNG frames, one %%d in the name for a "
                        "sequence", desc->ref);
    double fps = desc->fps > 0.0 ? desc->fps : (desc->gif ? 15.0 : 30.0);
    int count = sequence ? desc->frames : 1;
    if (count <= 0) { /* a GIF or video of the clip once round */
        double duration = scene_clip_seconds(scene), wanted = duration > 0.0 ? ceil(duration * fps - 1e-9) : 1.0;
        int most = desc->gif ? 1000 : SKV_VIDEO_MAX_FRAMES;
        count = wanted > most ? most : wanted < 1.0 ? 1 : (int)wanted;
        if (desc->video && wanted > most)
            say(desc, SKV_SAY_WARNING, "%s: warning: the clip is %.0f frames long at %g fps; the first %d written (see "
                "--frames)", desc->video, wanted, fps, most);
    }
    double *times = malloc((size_t)count * sizeof *times);
    frame_sink sink = {0};
    skv_result r = SKV_OK;
    if (!times) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (int i = 0; i < count; i++) times[i] = desc->time + i / fps;
    if (!desc->gif && !desc->video) {
        sink.paths = sequence ? frame_names(desc->screenshot, count) : one_name(desc->screenshot);
        if (!sink.paths) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    if (r == SKV_OK && desc->ref) {
        sink.refs = sequence ? frame_names(desc->ref, count) : one_name(desc->ref);
        if (!sink.refs) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    skv_gif gif;
    skv_video video;
    int width = desc->width > 0 ? desc->width : 800, height = desc->height > 0 ? desc->height : 600;
    if (r == SKV_OK && desc->gif) {
        r = output_gif_begin(&gif, desc->gif, width, height, fps, err);
        sink.gif = r == SKV_OK ? &gif : NULL;
    }
    if (r == SKV_OK && desc->video) {
        r = video_begin(&video, desc->video, width, height, fps, desc->transparent, err);
        sink.video = r == SKV_OK ? &video : NULL;
    }
    if (r == SKV_OK) r = render_frames(scene, desc, count, times, &sink, err);
    if (sink.gif) {
        skv_result end = output_gif_end(&gif, desc->gif, r != SKV_OK, err);
        if (r == SKV_OK) r = end;
    }
    const char *codec = sink.video ? video.codec_name : NULL; /* video_end clears it */
    if (sink.video) {
        skv_result end = video_end(&video, desc->video, r != SKV_OK, err);
        if (r == SKV_OK) r = end;
    }
    if (r == SKV_OK) {
        if (desc->gif) {
            if (!options_is_stdout(desc->gif))
                say(desc, SKV_SAY_RESULT, "wrote %s (%d frames at %g fps)", desc->gif, count, fps);
        } else if (desc->video)
            say(desc, SKV_SAY_RESULT, "wrote %s (%d frames at %g fps, %dx%d, %s)", desc->video, count, fps, width,
                height, codec);
        else if (sequence)
            say(desc, SKV_SAY_RESULT, "wrote %d frames: %s ... %s", count, sink.paths[0], sink.paths[count - 1]);
        else if (!options_is_stdout(desc->screenshot))
            say(desc, SKV_SAY_RESULT, "wrote %s", sink.paths[0]);
    }
    if (r == SKV_OK && sink.refs_missing) {
        r = sequence ? skv_fail(err, SKV_ERR_REF, "%d of %d reference images (%s ... %s) missing; --ref-create writes "
                                "them", sink.refs_missing, count, sink.refs[0], sink.refs[count - 1])
                     : skv_fail(err, SKV_ERR_REF, "no reference image %s yet; --ref-create writes it", sink.refs[0]);
    } else if (r == SKV_OK && sink.refs_differing) {
        r = sequence ? skv_fail(err, SKV_ERR_REF, "%d of %d frame(s) differ from their reference images",
                                sink.refs_differing, count)
                     : skv_fail(err, SKV_ERR_REF, "the frame differs from its reference image");
    }
    free_names(sink.paths, sink.paths ? count : 0);
    free_names(sink.refs, sink.refs ? count : 0);
    free(times);
    return r;
}

skv_result headless_fallback_frames(skv_scene *scene, const skv_headless_desc *desc, skv_error *err)
{
    enum { FRAMES = 4 };
    const char *folder = "skinview-frames";
    if (mkdir(folder, 0777) != 0 && errno != EEXIST)
        return skv_fail(err, SKV_ERR_OUTPUT, "cannot create %s: %s", folder, strerror(errno));
    const char *base = strrchr(scene->model->path, '/');
    base = base ? base + 1 : scene->model->path;
    char names[FRAMES][512];
    char *paths[FRAMES];
    double times[FRAMES];
    double duration = scene_clip_seconds(scene);
    for (int i = 0; i < FRAMES; i++) {
        times[i] = duration * i / FRAMES;
        snprintf(names[i], sizeof names[i], "%s/%s_%d.png", folder, base, i);
        paths[i] = names[i];
    }
    frame_sink sink = {.paths = paths};
    skv_result r = render_frames(scene, desc, FRAMES, times, &sink, err);
    if (r == SKV_OK) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
        for (int i = 0; i < FRAMES; i++) say(desc, SKV_SAY_RESULT, "wrote %s/%s (t = %.3f s)", cwd, paths[i], times[i]);
    }
    return r;
}
