/* headless.h - the driver without a window: --screenshot, --frames,
 * --gif, --video, --export-pose, and the frames written when there is no
 * display.
 *
 * The counterpart of viewer.h: both draw through scene_draw (scene.h),
 * into the same kind of offscreen target, so a screenshot and the window
 * show the same pixels.
 *
 * Usage:
 *     skv_headless_desc desc = {.screenshot = "out.png", .time = 1.5};
 *     r = headless_render(&scene, &desc, &err);
 *
 * A zero-initialised desc means the defaults (800x600, t = 0, 4x MSAA, 30 fps,
 * GIF 15 fps, the --ref threshold of imagecmp.h). Nothing here prints:
 * lines for the user (a warning, what was written) go to desc->say, and a
 * sequence's progress to desc->progress, both optional. */
#ifndef SKV_HEADLESS_H
#define SKV_HEADLESS_H

#include "error.h"
#include "gpu.h"
#include "program.h"
#include "scene.h"

/* A clip once round as a video has at most this many frames (--frames's
 * largest); a longer clip is cut, with a warning. */
#define SKV_VIDEO_MAX_FRAMES 100000

/* Widest field a frame name pattern may ask for (e.g. %04d): an int has
 * at most 11 characters, and frame names are allocated by this bound. */
#define SKV_FRAME_WIDTH_MAX 20

/* Is `pattern` a frame sequence's file name: one "%d"-style conversion
 * (flags and a width up to SKV_FRAME_WIDTH_MAX) and no other '%' but
 * "%%"? headless_render refuses any other. */
int headless_frame_pattern_ok(const char *pattern);

/* The GL context of a run's headless drawing and its programs: made by
 * the first model that draws, used as it is by each later one (models of
 * one run draw one after another on it, each with its own buffers and
 * textures), destroyed once at the end. Zero-initialised: not made yet. */
typedef struct skv_headless_gl {
    skv_gpu gpu;
    skv_program_set programs;
    int made;
} skv_headless_gl;

/* The context and its programs, if made. */
void headless_gl_destroy(skv_headless_gl *gl);

/* Makes the context ahead of the first draw (not current after), where
 * it is not made yet: EGL's start-up, while the guarded child reads the
 * model (skv_import_desc.while_reading). Where it cannot be made, nothing:
 * the draw tries again and says why. `debug`: as the draw's. */
void headless_gl_prepare(skv_headless_gl *gl, int debug);

/* --ref-threshold 0: no pixel may differ (0 in the desc is the default). */
#define SKV_REF_EXACT (-1.0)

typedef struct skv_headless_desc {
    int width, height; /* 0: 800x600 */
    double time;       /* seconds on the clip: the frame, or the first of a sequence */
    int debug;         /* OpenGL debug context: a GL error fails the run (SKV_ERR_GPU) */
    int msaa;          /* samples per pixel (1: none); 0: SKV_DEFAULT_MSAA */
    const char *screenshot;  /* the PNG; with `frames`, a pattern with one %d */
    const char *export_pose; /* the OBJ (headless_export_pose) */
    int frames;        /* > 0: a sequence of that many frames, 1 / fps apart */
    double fps;        /* 0: 30, or 15 for a GIF */
    const char *gif;   /* the sequence as one animated GIF (without `frames`: the clip once round) */
    const char *video; /* or as one video (video.h; without `frames`: the clip once round) */
    int transparent;   /* alpha 0 where nothing is drawn (PNG, WebM); the model's own alpha kept */
    const char *ref;   /* each PNG compared with this reference (with `frames`, a %d pattern) */
    int ref_create;    /* a missing reference is written from the render (else SKV_ERR_REF) */
    double ref_threshold; /* fraction of pixels allowed to differ: 0 the default, SKV_REF_EXACT none */
    double ref_timeout;   /* the references' decoding: --import-timeout seconds, --import-memory MB (0: defaults) */
    int ref_memory_mb;
    skv_say_fn say;
    /* After each frame is written; called from the thread that writes
     * the frames, like the frames' own warnings through `say`. */
    void (*progress)(void *user, int done, int total, double elapsed_seconds);
    void *user;
    skv_headless_gl *gl; /* the run's context (the first draw makes it); NULL: one for this call alone */
} skv_headless_desc;

/* --screenshot (one PNG at desc->time), or with desc->frames / desc->gif /
 * desc->video a sequence. SKV_ERR_ARGUMENT without a file to write, or
 * with a sequence name (or reference name) that is not a frame pattern.
 * With desc->ref each PNG is compared with its reference: a missing
 * reference is SKV_ERR_REF, or with desc->ref_create written from the
 * render; a differing one gets OUT.diff.png (actual | expected |
 * difference) and SKV_ERR_REF. Says "wrote ..." for each file but the
 * standard output ("-"). */
skv_result headless_render(skv_scene *scene, const skv_headless_desc *desc, skv_error *err);

/* No display for a window: four frames over the clip as PNGs in
 * ./skinview-frames/, named after the model; says where. */
skv_result headless_fallback_frames(skv_scene *scene, const skv_headless_desc *desc, skv_error *err);

/* --export-pose: the skinned mesh at desc->time (the bind pose when the
 * scene's views show it) as OBJ in upright scene space, blended on the
 * CPU exactly as the scene's skinning does; a model without a mesh
 * exports its joints and bones. SKV_ERR_ARGUMENT without desc->export_pose. */
skv_result headless_export_pose(skv_scene *scene, const skv_headless_desc *desc, skv_error *err);

#endif
