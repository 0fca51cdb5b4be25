/* main.c - the skinview command line: parses options, loads the scene,
 * and runs one of --list, --export-pose, --screenshot or the window.
 * The only place that prints errors: one line, naming the file. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <sys/stat.h>
#include <strings.h>
#include <unistd.h>

#include <stb_image.h>

#include "app.h"
#include "capture.h"
#include "imagecmp.h"
#include "overlay.h"
#include "gpu.h"
#include "import.h"
#include "morph.h"
#include "render.h"
#include "skin.h"
#include "text.h"
#include "viewer.h"

#ifndef SKV_SOURCE_ASSETS_DIR
#define SKV_SOURCE_ASSETS_DIR "assets"
#endif
#define DEFAULT_MODEL "worm.dae"

/* --anim-file may be given this many times. */
#define SKV_MAX_ANIM_FILES 64
/* --morph, likewise. */
#define SKV_MAX_MORPHS 64

typedef struct options {
    const char *model;
    const char *anim;
    const char *anim_files[SKV_MAX_ANIM_FILES]; /* --anim-file, in order */
    int anim_file_count;
    double time;
    double speed;
    int width, height;
    const char *screenshot;
    const char *export_pose;
    const char *window_capture;
    int influences;
    int trust;
    int debug;
    double import_timeout;
    double import_memory; /* --import-memory MB; 0: the default */
    int list;
    int bind_pose;
    int instances;
    int mixed_clips;
    const char *blend; /* "A,B,W" */
    int dual_quaternion; /* --skinning dq */
    /* Views. */
    int skeleton, influence_count, wireframe, normals, grid, axes;
    const char *weights;    /* bone name or index */
    const char *background; /* "#rrggbb" or "r,g,b" */
    int frames;             /* --frames N with --screenshot PATTERN */
    double fps;
    const char *gif;
    int json;               /* --list --json */
    const char *ref;        /* --ref REF.png (a pattern with --frames) */
    double ref_threshold;   /* --ref-threshold: fraction of pixels allowed to differ */
    double fade;       /* < 0: default */
    int follow, in_place; /* --follow, --in-place */
    const char *screenshot_dir; /* --screenshot-dir: the window's S key saves there */
    const char *frame;    /* --frame clip|pose */
    double camera_azimuth, camera_elevation, camera_zoom;
    const char *morphs[SKV_MAX_MORPHS]; /* --morph NAME=W, in order */
    int morph_count;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinview [MODEL] [options]\n"
            "  MODEL                 model file (Collada, FBX, MD5, glTF, X, ...);\n"
            "                        without one, the bundled %s\n"
            "  --anim N|NAME         clip to play (index or name; default 0)\n"
            "  --anim-file FILE      add FILE's clips, bound to the model's nodes by name\n"
            "                        (namespace prefixes like mixamorig: ignored); repeatable\n"
            "  --time SECONDS        time on the clip (looped over its duration; -1e6..1e6)\n"
            "  --speed X             playback speed in the window (default 1; -1000..1000)\n"
            "  --size WxH            image / window size (default 800x600; 1..16384 each)\n"
            "  --screenshot FILE.png render one frame offscreen at --time, no display needed\n"
            "  --export-pose FILE.obj write the skinned mesh at --time as Wavefront OBJ\n"
            "  --bind-pose           draw the bind pose beside the animated mesh (with\n"
            "                        --export-pose: export the bind pose)\n"
            "  --skeleton            joints and bones over the mesh\n"
            "  --weights BONE        colour vertices by BONE's weight (name or index)\n"
            "  --influence-count     colour vertices by how many bones move them\n"
            "  --wireframe           triangle edges over the mesh\n"
            "  --normals             vertex normals as short lines\n"
            "  --grid                a floor grid under the model\n"
            "  --axes                an X/Y/Z gizmo in the corner\n"
            "  --background COLOR    #rrggbb or r,g,b (0..1)\n"
            "  --frames N            with --screenshot out_%%04d.png: N frames from --time on\n"
            "  --fps F               frames per second of --frames / --gif (30; GIF 15)\n"
            "  --gif FILE.gif        the clip as an animated GIF (once round, or --frames)\n"
            "  --json                with --list: the summary as JSON\n"
            "  --ref REF.png         compare the --screenshot with REF (one %%d with --frames): a\n"
            "                        pixel differs when a channel is off by more than 24/255; a\n"
            "                        mismatch writes OUT.diff.png and exits 10; a missing REF is written\n"
            "  --ref-threshold F     fraction of pixels allowed to differ (default 0.0025)\n"
            "  --follow              the camera follows the root motion (window: T)\n"
            "  --in-place            take the root's horizontal travel out (window: I)\n"
            "  --frame clip|pose     frame the whole clip (default) or the pose at --time\n"
            "  --camera-azimuth DEG  camera angle right of the front (default 25)\n"
            "  --camera-elevation DEG  camera angle above the ground (default 15)\n"
            "  --camera-zoom Z       distance x Z from the framed one (default 1)\n"
            "  --screenshot-dir DIR  the window's S key saves there (default: beside the model)\n"
            "  --instances N         a crowd: N copies on a grid, each at its own time offset\n"
            "  --mixed-clips         with --instances: copies cycle through the model's clips\n"
            "  --blend A,B,W         pose with clips A and B (index or name) mixed at weight W\n"
            "                        (0 = A, 1 = B), both at --time\n"
            "  --fade SECONDS        cross-fade time when switching clips in the window\n"
            "                        (default 0.25; 0..60)\n"
            "  --skinning linear|dq  linear blend (default) or dual-quaternion skinning\n"
            "  --influences 4|8      bone influences kept per vertex (default 4)\n"
            "  --morph NAME=W        morph target NAME (its name, or its number in --list)\n"
            "                        weighs W whatever the clip says; repeatable\n"
            "  --import-timeout S    give up on a file Assimp has not read in S seconds\n"
            "                        (default 60; 0.001..86400)\n"
            "  --import-memory MB    address space Assimp may take to read a file, guarded or\n"
            "                        not (default 2048 or 16x the file; 1..1048576)\n"
            "  --trust               read and convert the file here, not in the sandboxed\n"
            "                        child process\n"
            "  --debug               OpenGL debug context: any GL error fails the run (status 7)\n"
            "  --list                print meshes (and their morph targets), bones and clips\n"
            "                        (and their morph channels), then exit\n"
            "  --window-capture FILE.png  open the window, draw one paused frame at --time,\n"
            "                        save what the window shows (no HUD), close\n"
            "  --version             print versions and exit\n"
            "exit status: 0 ok, 2 usage, 3 file missing/unreadable, 4 import failed,\n"
            "  5 nothing to show, 6 unknown clip, 7 GPU/GL failure, 8 cannot write output\n",
            DEFAULT_MODEL);
}

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

static int parse_number(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end) return -1;
    *out = v;
    return 0;
}

/* A number in [min, max]; NaN and infinities never are (strtod reads
 * "nan" and "inf", and a NaN slips past every comparison). */
static int parse_in_range(const char *text, double min, double max, double *out)
{
    double v;
    if (parse_number(text, &v) != 0 || !(v >= min && v <= max)) return -1;
    *out = v;
    return 0;
}

/* "WxH", both plain decimal digits in 1..SKV_MAX_SIZE: sscanf's %d would
 * take trailing junk, signs and spaces, and wrap on overflow. */
#define SKV_MAX_SIZE 16384
static int parse_size(const char *text, int *width, int *height)
{
    long sides[2];
    const char *c = text;
    for (int k = 0; k < 2; k++) {
        if (k == 1 && *c++ != 'x') return -1;
        if (*c < '0' || *c > '9') return -1;
        long v = 0;
        for (; *c >= '0' && *c <= '9'; c++) {
            v = v * 10 + (*c - '0');
            if (v > SKV_MAX_SIZE) return -1;
        }
        if (v < 1) return -1;
        sides[k] = v;
    }
    if (*c) return -1;
    *width = (int)sides[0], *height = (int)sides[1];
    return 0;
}

/* "#rrggbb" or "r,g,b" with each in 0..1. */
static int parse_color(const char *text, float rgb[3])
{
    unsigned r, g, b;
    char end;
    if (text[0] == '#' && strlen(text) == 7 && sscanf(text + 1, "%2x%2x%2x%c", &r, &g, &b, &end) == 3) {
        rgb[0] = r / 255.0f, rgb[1] = g / 255.0f, rgb[2] = b / 255.0f;
        return 0;
    }
    if (sscanf(text, "%f,%f,%f%c", &rgb[0], &rgb[1], &rgb[2], &end) == 3) {
        for (int k = 0; k < 3; k++)
            if (!(rgb[k] >= 0.0f && rgb[k] <= 1.0f)) return -1;
        return 0;
    }
    return -1;
}

static int is_value_option(const char *arg)
{
    static const char *const with_value[] = {"--anim", "--anim-file", "--time", "--speed", "--size", "--screenshot", "--export-pose",
                                              "--window-capture", "--influences", "--instances", "--blend", "--fade", "--skinning",
                                              "--weights", "--background", "--frames", "--fps", "--gif", "--ref", "--ref-threshold", "--frame", "--screenshot-dir", "--import-memory", "--camera-azimuth",
                                              "--camera-elevation", "--camera-zoom",
                                              "--import-timeout", "--morph"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(arg, with_value[i]) == 0) return 1;
    return 0;
}

/* Widest field a frame number may ask for: an int has at most 11
 * characters, and the formatted name is allocated by this bound. */
#define FRAME_WIDTH_MAX 20

/* One "%d"-style conversion (flags and a width up to FRAME_WIDTH_MAX
 * allowed, e.g. %04d) and no other '%' but "%%": the --frames file name
 * pattern. */
static int frame_pattern_ok(const char *pattern)
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
            if ((width = width * 10 + (*p - '0')) > FRAME_WIDTH_MAX) return 0;
        if (*p != 'd') return 0;
        conversions++;
    }
    return conversions == 1;
}

/* Options that switch something on. */
static int option_flag(options *o, const char *arg)
{
    static const struct {
        const char *name;
        size_t field;
    } flags[] = {{"--list", offsetof(options, list)},
                 {"--bind-pose", offsetof(options, bind_pose)},
                 {"--json", offsetof(options, json)},
                 {"--skeleton", offsetof(options, skeleton)},
                 {"--influence-count", offsetof(options, influence_count)},
                 {"--wireframe", offsetof(options, wireframe)},
                 {"--normals", offsetof(options, normals)},
                 {"--grid", offsetof(options, grid)},
                 {"--axes", offsetof(options, axes)},
                 {"--mixed-clips", offsetof(options, mixed_clips)},
                 {"--debug", offsetof(options, debug)},
                 {"--trust", offsetof(options, trust)},
                 {"--follow", offsetof(options, follow)},
                 {"--in-place", offsetof(options, in_place)}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(arg, flags[i].name) == 0) {
            *(int *)((char *)o + flags[i].field) = 1;
            return 1;
        }
    return 0;
}

/* Options whose value is kept as text (a file, a clip or bone name, ...). */
static int option_text(options *o, const char *arg, const char *value)
{
    static const struct {
        const char *name;
        size_t field;
    } texts[] = {{"--anim", offsetof(options, anim)},
                 {"--screenshot", offsetof(options, screenshot)},
                 {"--export-pose", offsetof(options, export_pose)},
                 {"--gif", offsetof(options, gif)},
                 {"--weights", offsetof(options, weights)},
                 {"--blend", offsetof(options, blend)},
                 {"--ref", offsetof(options, ref)},
                 {"--frame", offsetof(options, frame)},
                 {"--screenshot-dir", offsetof(options, screenshot_dir)},
                 {"--window-capture", offsetof(options, window_capture)}};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (strcmp(arg, texts[i].name) == 0) {
            *(const char **)((char *)o + texts[i].field) = value;
            return 1;
        }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    /* The camera's defaults are view.h's framing rule. */
    *o = (options){.speed = 1.0, .width = 800, .height = 600, .fade = -1.0, .ref_threshold = SKV_REF_MAX_FRACTION,
                   .camera_azimuth = 25.0, .camera_elevation = 15.0, .camera_zoom = 1.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("skinview %s (assimp %s)\n", SKV_VERSION, import_assimp_version());
            exit(0);
        } else if (option_flag(o, a)) {
            takes_value = 0;
        } else if (!value && is_value_option(a)) {
            print_error("%s needs a value", a);
            return -1;
        } else if (option_text(o, a, value)) {
            /* kept as given; checked where it is used */
        } else if (strcmp(a, "--time") == 0) {
            if (parse_in_range(value, -1e6, 1e6, &o->time) != 0) goto bad_value;
        } else if (strcmp(a, "--speed") == 0) {
            if (parse_in_range(value, -1000.0, 1000.0, &o->speed) != 0) goto bad_value;
        } else if (strcmp(a, "--size") == 0) {
            if (parse_size(value, &o->width, &o->height) != 0) goto bad_value;
        } else if (strcmp(a, "--import-timeout") == 0) {
            if (parse_in_range(value, 1e-3, 86400.0, &o->import_timeout) != 0) goto bad_value;
        } else if (strcmp(a, "--influences") == 0) {
            if (strcmp(value, "4") == 0) o->influences = 4;
            else if (strcmp(value, "8") == 0) o->influences = 8;
            else goto bad_value;
        } else if (strcmp(a, "--frames") == 0) {
            double n;
            if (parse_in_range(value, 1, 100000, &n) != 0 || n != (int)n) goto bad_value;
            o->frames = (int)n;
        } else if (strcmp(a, "--fps") == 0) {
            if (parse_number(value, &o->fps) != 0 || !(o->fps > 0.0 && o->fps <= 1000.0)) goto bad_value;
        } else if (strcmp(a, "--background") == 0) {
            float rgb[3];
            if (parse_color(value, rgb) != 0) goto bad_value;
            o->background = value;
        } else if (strcmp(a, "--skinning") == 0) {
            if (strcmp(value, "linear") == 0) o->dual_quaternion = 0;
            else if (strcmp(value, "dq") == 0) o->dual_quaternion = 1;
            else goto bad_value;
        } else if (strcmp(a, "--fade") == 0) {
            if (parse_in_range(value, 0.0, 60.0, &o->fade) != 0) goto bad_value;
        } else if (strcmp(a, "--instances") == 0) {
            double n;
            if (parse_in_range(value, 1, 1000000, &n) != 0 || n != (int)n) goto bad_value;
            o->instances = (int)n;
        } else if (strcmp(a, "--import-memory") == 0) {
            if (parse_number(value, &o->import_memory) != 0 || !(o->import_memory >= 1.0 && o->import_memory <= 1048576.0) ||
                o->import_memory != floor(o->import_memory))
                goto bad_value;
        } else if (strcmp(a, "--camera-azimuth") == 0) {
            if (parse_number(value, &o->camera_azimuth) != 0 || !(fabs(o->camera_azimuth) <= 360.0)) goto bad_value;
        } else if (strcmp(a, "--camera-elevation") == 0) {
            if (parse_number(value, &o->camera_elevation) != 0 || !(fabs(o->camera_elevation) <= 89.0)) goto bad_value;
        } else if (strcmp(a, "--camera-zoom") == 0) {
            if (parse_number(value, &o->camera_zoom) != 0 || !(o->camera_zoom >= 0.05 && o->camera_zoom <= 100.0))
                goto bad_value;
        } else if (strcmp(a, "--ref-threshold") == 0) {
            if (parse_number(value, &o->ref_threshold) != 0 || !(o->ref_threshold >= 0.0 && o->ref_threshold <= 1.0))
                goto bad_value;
        } else if (strcmp(a, "--anim-file") == 0) {
            if (o->anim_file_count == SKV_MAX_ANIM_FILES) {
                print_error("at most %d --anim-file options", SKV_MAX_ANIM_FILES);
                return -1;
            }
            o->anim_files[o->anim_file_count++] = value;
        } else if (strcmp(a, "--morph") == 0) {
            const char *eq = strrchr(value, '=');
            double w;
            if (!eq || eq == value || parse_number(eq + 1, &w) != 0 || !isfinite(w)) goto bad_value;
            if (o->morph_count == SKV_MAX_MORPHS) {
                print_error("at most %d --morph options", SKV_MAX_MORPHS);
                return -1;
            }
            o->morphs[o->morph_count++] = value;
        } else if (a[0] == '-' && a[1] != '\0') {
            print_error("unknown option %s (see --help)", a);
            return -1;
        } else {
            if (o->model) {
                print_error("more than one model given (%s, %s)", o->model, a);
                return -1;
            }
            o->model = a;
            takes_value = 0;
        }
        if (takes_value) i++;
        continue;
    bad_value:
        print_error("bad value for %s: '%s'", a, value);
        return -1;
    }
    if (o->frames > 0 && !o->gif && (!o->screenshot || !frame_pattern_ok(o->screenshot))) {
        fprintf(stderr, "skinview: --frames needs --screenshot with one %%d in the name (e.g. out_%%04d.png; width up "
                        "to %d) or --gif\n", FRAME_WIDTH_MAX);
        return -1;
    }
    if (o->ref && (!o->screenshot || o->gif)) {
        print_error("--ref compares the --screenshot PNG with a reference: give --screenshot");
        return -1;
    }
    if (o->ref && o->frames > 0 && !frame_pattern_ok(o->ref)) {
        print_error("with --frames, --ref needs one %%d in the name, like --screenshot");
        return -1;
    }
    if (o->frame && strcmp(o->frame, "clip") != 0 && strcmp(o->frame, "pose") != 0) {
        print_error("bad value for --frame: '%s' (clip or pose)", o->frame);
        return -1;
    }
    if (o->screenshot_dir) {
        struct stat st;
        if (stat(o->screenshot_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            print_error("--screenshot-dir %s: not a folder", o->screenshot_dir);
            return -1;
        }
    }
    if (o->json && !o->list) {
        fprintf(stderr, "skinview: --json goes with --list\n");
        return -1;
    }
    return 0;
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
        snprintf(buf, size, "%s/../share/skinview/assets/%s", exe, DEFAULT_MODEL);
        if (access(buf, R_OK) == 0) return buf;
    }
    snprintf(buf, size, "%s/%s", SKV_SOURCE_ASSETS_DIR, DEFAULT_MODEL);
    return buf;
}

/* A JSON string: valid JSON and UTF-8 whatever bytes the name holds. */
static void json_string(const char *text)
{
    text_put_json(stdout, text);
}

/* Per node: the file bone of that node or, if none, of its nearest
 * ancestor; -1 for none (the lowest bone index where a node has several).
 * One pass, nodes being parent-first (model.h): looking at every bone for
 * every ancestor of every bone took a minute on files with deep chains
 * and thousands of bones. NULL when out of memory. */
static int *bones_at_or_above(const skv_model *m)
{
    const skv_skeleton *sk = &m->skeleton;
    int *above = malloc((size_t)(sk->node_count > 0 ? sk->node_count : 1) * sizeof *above);
    if (!above) return NULL;
    for (int n = 0; n < sk->node_count; n++) above[n] = -1;
    for (int k = sk->bone_count; k-- > 0;)
        if (overlay_is_file_bone(m, k)) above[sk->bone_node[k]] = k;
    for (int n = 0; n < sk->node_count; n++)
        if (above[n] < 0 && sk->parents[n] >= 0 && sk->parents[n] < n) above[n] = above[sk->parents[n]];
    return above;
}

/* --list --json: the model summary for tools, one JSON object. Bones carry
 * their parent bone (the nearest ancestor node that is a bone; -1 none). */
static void print_list_json(const skv_scene *scene)
{
    const skv_model *m = &scene->model;
    const skv_skeleton *sk = &m->skeleton;
    printf("{\"file\":");
    json_string(m->path);
    printf(",\"assimp\":");
    json_string(import_assimp_version());
    printf(",\"vertices\":%d,\"triangles\":%d,\"influence_slots\":%d,\"meshes\":[", m->vertex_count,
           m->index_count / 3, m->influence_slots);
    for (int i = 0; i < m->mesh_count; i++) {
        const skv_mesh *mesh = &m->meshes[i];
        printf("%s{\"name\":", i ? "," : "");
        json_string(mesh->name);
        printf(",\"vertices\":%d,\"triangles\":%d,\"bones\":%d,\"max_influences\":%d,\"morph_targets\":%d,\"node\":",
               mesh->vertex_count, mesh->index_count / 3, mesh->bone_count, mesh->max_influences,
               mesh->morph_target_count);
        json_string(sk->node_names[mesh->node]);
        printf("}");
    }
    printf("],\"bones\":[");
    int first = 1;
    int *above = bones_at_or_above(m);
    for (int b = 0; b < sk->bone_count; b++) {
        if (!model_bone_from_file(m, b)) continue; /* the importer's node bones */
        int parent = -1, node = sk->bone_node[b];
        if (above && node >= 0 && sk->parents[node] >= 0) parent = above[sk->parents[node]];
        for (int p = node >= 0 && !above ? sk->parents[node] : -1; p >= 0 && parent < 0; p = sk->parents[p])
            for (int k = 0; k < sk->bone_count && parent < 0; k++) /* out of memory: slowly */
                if (sk->bone_node[k] == p && overlay_is_file_bone(m, k)) parent = k;
        printf("%s{\"index\":%d,\"name\":", first ? "" : ",", b);
        json_string(sk->bone_names[b]);
        printf(",\"parent\":%d,\"node\":", parent);
        if (node >= 0) json_string(sk->node_names[node]);
        else printf("null");
        printf("}");
        first = 0;
    }
    free(above);
    printf("],\"clips\":[");
    for (int c = 0; c < m->clip_count; c++) {
        const skv_clip *clip = &m->clips[c];
        printf("%s{\"index\":%d,\"name\":", c ? "," : "", c);
        json_string(clip->name ? clip->name : "");
        printf(",\"seconds\":%.6g,\"ticks\":%.6g,\"ticks_per_second\":%g,\"channels\":%d,\"file_channels\":%d,"
               "\"source\":", clip->duration_ticks / clip->ticks_per_second, clip->duration_ticks, clip->ticks_per_second,
               clip->channel_count, clip->file_channels);
        if (clip->source) json_string(clip->source);
        else printf("null");
        printf(",\"morph_channels\":%d,\"notes\":[", clip->morph_channel_count);
        int listed = 0;
        for (unsigned bit = 1; bit; bit <<= 1)
            if ((clip->notes & bit) && model_clip_note_key(bit)) {
                printf("%s", listed++ ? "," : "");
                json_string(model_clip_note_key(bit));
            }
        printf("]}");
    }
    printf("],\"warnings\":[");
    for (int w = 0; w < m->warning_count; w++) {
        if (w) putchar(',');
        json_string(m->warnings[w]);
    }
    printf("]}\n");
}

static void print_list(const skv_scene *scene)
{
    const skv_model *m = &scene->model;
    printf("file: ");
    text_put_line(stdout, m->path);
    printf("\n");
    printf("assimp: %s\n", import_assimp_version());
    printf("meshes: %d (%d vertices, %d triangles)\n", m->mesh_count, m->vertex_count, m->index_count / 3);
    for (int i = 0; i < m->mesh_count; i++) {
        const skv_mesh *mesh = &m->meshes[i];
        printf("  %d '", i);
        text_put_line(stdout, mesh->name);
        if (mesh->skinned) {
            printf("': %d vertices, %d triangles, %d bones, max influences %d", mesh->vertex_count,
                   mesh->index_count / 3, mesh->bone_count, mesh->max_influences);
        } else {
            printf("': %d vertices, %d triangles, no bones (follows its node '", mesh->vertex_count,
                   mesh->index_count / 3);
            text_put_line(stdout, m->skeleton.node_names[mesh->node]);
            printf("')");
        }
        if (mesh->unweighted_vertices)
            printf(", %d vertices without weights follow the node", mesh->unweighted_vertices);
        if (mesh->over_limit_vertices)
            printf(", %d vertices over %d kept their %d largest", mesh->over_limit_vertices,
                   m->influence_slots, m->influence_slots);
        printf("\n");
        if (mesh->morph_target_count) printf("    morph targets: %d (--morph NAME=W):", mesh->morph_target_count);
        for (int t = 0; t < mesh->morph_target_count; t++) {
            int g = mesh->first_morph_target + t;
            printf(" %d", g);
            if (m->morph_target_names[g]) {
                printf(" '");
                text_put_line(stdout, m->morph_target_names[g]);
                printf("'");
            }
            printf(" (default %g)%s", m->morph_default_weights[g], t + 1 < mesh->morph_target_count ? "," : "\n");
        }
    }
    printf("nodes: %d\n", m->skeleton.node_count);
    printf("bones: %d (palette entries %d, shader limit %d)\n", m->file_bone_count, m->skeleton.bone_count,
           SKV_MAX_BONES);
    printf("influence slots: %d; vertices over %d influences: %d\n", m->influence_slots, m->influence_slots,
           model_over_limit_vertices(m));
    printf("clips: %d\n", m->clip_count);
    if (m->clip_count == 0)
        printf("  no animation in this file as Assimp %s reads it: shown in its rest pose\n", import_assimp_version());
    for (int c = 0; c < m->clip_count; c++) {
        const skv_clip *clip = &m->clips[c];
        printf("  %d '", c);
        text_put_line(stdout, clip->name);
        printf("': %.3f s (%g ticks at %g ticks/s), %d channels", clip->duration_ticks / clip->ticks_per_second,
               clip->duration_ticks, clip->ticks_per_second, clip->channel_count);
        if (clip->merged_from > 1)
            printf(" (%d one-channel clips of the file on one time line, played together)", clip->merged_from);
        if (clip->source) {
            printf(", from ");
            text_put_line(stdout, clip->source);
            printf(" (%d of its %d channels matched a node)", clip->channel_count, clip->file_channels);
        }
        if (clip->morph_channel_count) printf(", %d morph channel(s)", clip->morph_channel_count);
        printf("\n");
        for (int k = 0; k < clip->morph_channel_count; k++) {
            const skv_morph_channel *ch = &clip->morph_channels[k];
            const skv_mesh *mesh = &m->meshes[ch->mesh];
            printf("      morph: mesh %d '", ch->mesh);
            text_put_line(stdout, mesh->name);
            printf("', targets %d-%d, %d keys (%g to %g ticks)\n", mesh->first_morph_target,
                   mesh->first_morph_target + mesh->morph_target_count - 1, ch->key_count, ch->times[0],
                   ch->times[ch->key_count - 1]);
        }
        for (unsigned bit = 1; bit; bit <<= 1)
            if ((clip->notes & bit) && model_clip_note_text(bit)) printf("      note: %s\n", model_clip_note_text(bit));
    }
}

static skv_result export_pose(skv_scene *scene, const options *o, skv_error *err)
{
    skv_model *m = &scene->model;
    if (scene->view.bind_pose) pose_evaluate(&scene->pose, m, -1, 0.0); /* the rest pose */
    else scene_pose(scene, o->time);
    if (m->skeleton_only) {
        /* No mesh to pose: the joints and bones, which is what there is. */
        int joints = 0;
        skv_result r = capture_write_skeleton_obj(o->export_pose, m, pose_globals(&scene->pose), m->upright, &joints,
                                                  err);
        if (r == SKV_OK)
            print_error("%s: no mesh in the file: %s holds its %d joints as points and its bones as lines", m->path,
                        o->export_pose, joints);
        return r;
    }
    float *positions = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    float *normals = malloc((size_t)m->vertex_count * 3 * sizeof(float));
    skv_result r;
    if (!positions || !normals) {
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    } else if (scene_skin(scene, positions, normals) != 0) {
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    } else {
        r = capture_write_obj(o->export_pose, m, positions, normals, m->upright, err);
    }
    free(positions);
    free(normals);
    return r;
}

/* --blend A,B,W: clip A becomes the scene's clip (the camera frames it),
 * B is mixed in at W. */
static skv_result apply_blend(skv_scene *scene, const char *spec, skv_error *err)
{
    char a[256], b[256];
    double w;
    const char *c1 = strchr(spec, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (!c1 || !c2 || c1 - spec >= (long)sizeof a || c2 - c1 - 1 >= (long)sizeof b || c1 == spec || c2 == c1 + 1 ||
        parse_number(c2 + 1, &w) != 0 || !(w >= 0.0 && w <= 1.0))
        return skv_fail(err, SKV_ERR_USAGE, "bad value for --blend: '%s' (want A,B,W with W in 0..1)", spec);
    snprintf(a, sizeof a, "%.*s", (int)(c1 - spec), spec);
    snprintf(b, sizeof b, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
    int clip_a = model_find_clip(&scene->model, a), clip_b = model_find_clip(&scene->model, b);
    if (clip_a < 0 || clip_b < 0)
        return skv_fail(err, SKV_ERR_ANIM, "no clip '%s' (it has %d; see --list)", clip_a < 0 ? a : b,
                        scene->model.clip_count);
    scene_set_clip(scene, clip_a);
    scene_set_blend(scene, clip_b, (float)w);
    return SKV_OK;
}

/* Where headless frames go: PNG files, or the frames of one GIF. */
typedef struct frame_sink {
    char **paths;  /* one PNG per frame, or NULL */
    skv_gif *gif;  /* or every frame into this */
    int progress;  /* a progress bar on stdout (a terminal) */
    char **refs;   /* --ref: each frame's reference image, or NULL */
    double ref_threshold;
    int *refs_differing; /* counts the frames that differ from their reference */
} frame_sink;

/* --ref: compares a rendered frame (already written to `out`) with its
 * reference. A missing reference is written from the frame (the first
 * run makes the golden); a differing frame gets OUT.diff.png (actual |
 * expected | difference) and one line, and is counted. */
static skv_result compare_with_ref(const frame_sink *sink, int index, const unsigned char *rgba, int width, int height,
                                   skv_error *err)
{
    const char *ref = sink->refs[index], *out = sink->paths[index];
    if (access(ref, F_OK) != 0) {
        skv_result r = capture_write_png(ref, width, height, rgba, err);
        if (r == SKV_OK) print_error("%s: no reference there yet: wrote this render as it", ref);
        return r;
    }
    int w = 0, h = 0, channels = 0;
    unsigned char *expected = stbi_load(ref, &w, &h, &channels, 4);
    if (!expected) return skv_fail(err, SKV_ERR_FILE, "cannot read the reference %s: %s", ref, stbi_failure_reason());
    if (w != width || h != height) {
        stbi_image_free(expected);
        return skv_fail(err, SKV_ERR_REF, "the reference %s is %dx%d, the render %dx%d (see --size)", ref, w, h, width,
                        height);
    }
    skv_image_diff diff = imagecmp_measure(rgba, expected, width, height, SKV_REF_TOLERANCE);
    skv_result r = SKV_OK;
    if (diff.fraction > sink->ref_threshold) {
        char diff_path[PATH_MAX];
        size_t stem = strlen(out) > 4 && strcasecmp(out + strlen(out) - 4, ".png") == 0 ? strlen(out) - 4 : strlen(out);
        snprintf(diff_path, sizeof diff_path, "%.*s.diff.png", (int)stem, out);
        unsigned char *panel = imagecmp_side_by_side(rgba, expected, width, height, SKV_REF_TOLERANCE);
        r = panel ? capture_write_png(diff_path, width * 3, height, panel, err)
                  : skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        free(panel);
        if (r == SKV_OK) {
            print_error("%s: differs from %s: %.3f%% of pixels over %d/255 (threshold %.3f%%); "
                        "actual | expected | difference in %s", out, ref, 100.0 * diff.fraction, SKV_REF_TOLERANCE,
                        100.0 * sink->ref_threshold, diff_path);
            (*sink->refs_differing)++;
        }
    }
    stbi_image_free(expected);
    return r;
}

/* Renders the scene at `seconds` into frame `index` of `sink`. */
static skv_result render_one(skv_scene *scene, skv_renderer *renderer, skv_target *target, double seconds,
                             const frame_sink *sink, int index, skv_error *err)
{
    skv_frame_desc frame;
    scene_frame(scene, seconds, target->width, target->height, &frame);
    target_bind(target);
    render_frame(renderer, &scene->model, &frame);
    unsigned char *rgba = malloc((size_t)target->width * target->height * 4);
    if (!rgba) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    target_read_rgba(target, rgba);
    skv_result r = sink->gif ? capture_gif_frame(sink->gif, rgba, err)
                             : capture_write_png(sink->paths[index], target->width, target->height, rgba, err);
    if (r == SKV_OK && sink->refs) r = compare_with_ref(sink, index, rgba, target->width, target->height, err);
    free(rgba);
    return r;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "[#####.....]  12/48  9.6 frames/s  3.8 s left", redrawn in place. */
static void show_progress(int done, int total, double elapsed)
{
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

/* Headless rendering of `count` frames at `times` into `sink`. */
static skv_result render_headless(skv_scene *scene, const options *o, int count, const frame_sink *sink,
                                  const double *times, skv_error *err)
{
    skv_gpu gpu;
    skv_result r = gpu_headless_create(&gpu, o->debug, err);
    if (r != SKV_OK) return r;
    skv_gl_debug debug = {0};
    if (o->debug && !render_debug_begin(&debug)) {
        gpu_headless_destroy(&gpu);
        return skv_fail(err, SKV_ERR_GPU, "--debug: the driver has no KHR_debug");
    }
    skv_renderer renderer;
    skv_target target;
    r = render_create(&renderer, &scene->model, err);
    if (r == SKV_OK && renderer.textures_too_large)
        print_error("%s: warning: %d texture(s) larger than this driver's %d texels a side; drawn in the material colour",
                    scene->model.path, renderer.textures_too_large, renderer.max_texture_side);
    if (r == SKV_OK && scene->instances > 0) r = render_enable_crowd(&renderer, &scene->model, scene->instances, err);
    if (r == SKV_OK && scene->skinning == SKV_SKINNING_DUAL_QUATERNION)
        r = render_enable_dual_quaternion(&renderer, &scene->model, err);
    if (r == SKV_OK) {
        r = target_create(&target, o->width, o->height, err);
        double start = now_seconds();
        for (int i = 0; r == SKV_OK && i < count; i++) {
            r = render_one(scene, &renderer, &target, times[i], sink, i, err);
            if (r == SKV_OK && sink->progress) show_progress(i + 1, count, now_seconds() - start);
        }
        target_destroy(&target);
    }
    if (r == SKV_OK && debug.errors)
        r = skv_fail(err, SKV_ERR_GPU, "GL reported %d error(s); the first: %s", debug.errors, debug.first);
    render_destroy(&renderer);
    gpu_headless_destroy(&gpu);
    return r;
}

/* --ref PATTERN with --frames: frame i's reference (the pattern holds one
 * %d, checked by frame_pattern_ok). NULL when memory runs out. */
static char **reference_paths(const char *pattern, int count)
{
    char **refs = calloc((size_t)count, sizeof *refs);
    for (int i = 0; refs && i < count; i++) {
        char one[PATH_MAX];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        int n = count > 1 || strchr(pattern, '%') ? snprintf(one, sizeof one, pattern, i)
                                                   : snprintf(one, sizeof one, "%s", pattern);
#pragma GCC diagnostic pop
        refs[i] = n >= 0 && (size_t)n < sizeof one ? strdup(one) : NULL;
        if (!refs[i]) {
            for (int k = 0; k < i; k++) free(refs[k]);
            free(refs);
            return NULL;
        }
    }
    return refs;
}

/* --frames N (--fps F) with --screenshot PATTERN, or --gif FILE: frames
 * from --time on, 1/F apart. A GIF without --frames covers the clip once. */
static skv_result render_sequence(skv_scene *scene, const options *o, skv_error *err)
{
    double fps = o->fps > 0.0 ? o->fps : (o->gif ? 15.0 : 30.0);
    int count = o->frames;
    if (count <= 0) {
        double duration = scene_clip_seconds(scene);
        count = duration > 0.0 ? (int)ceil(duration * fps - 1e-9) : 1;
        if (count > 1000) count = 1000;
    }
    double *times = malloc((size_t)count * sizeof *times);
    char **paths = o->gif ? NULL : calloc((size_t)count, sizeof *paths);
    if (!times || (!o->gif && !paths)) {
        free(times), free(paths);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    skv_result r = SKV_OK;
    for (int i = 0; i < count; i++) {
        times[i] = o->time + i / fps;
        if (paths) {
            size_t size = strlen(o->screenshot) + FRAME_WIDTH_MAX + 12;
            paths[i] = malloc(size);
            if (!paths[i]) {
                r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
                break;
            }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            int length = snprintf(paths[i], size, o->screenshot, i); /* checked by frame_pattern_ok: one %d */
#pragma GCC diagnostic pop
            if (length < 0 || (size_t)length >= size) { /* cannot happen after frame_pattern_ok; never overflow */
                r = skv_fail(err, SKV_ERR_USAGE, "--screenshot %s: the frame name does not fit", o->screenshot);
                break;
            }
        }
    }
    frame_sink sink = {.paths = paths, .progress = isatty(STDOUT_FILENO)};
    char **refs = NULL;
    int differing = 0;
    if (r == SKV_OK && o->ref) {
        refs = reference_paths(o->ref, count);
        if (!refs) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        sink.refs = refs, sink.ref_threshold = o->ref_threshold, sink.refs_differing = &differing;
    }
    skv_gif gif;
    if (r == SKV_OK && o->gif) {
        r = capture_gif_begin(&gif, o->gif, o->width, o->height, fps, err);
        sink.gif = r == SKV_OK ? &gif : NULL;
    }
    if (r == SKV_OK) r = render_headless(scene, o, count, &sink, times, err);
    if (sink.gif) {
        skv_result end = capture_gif_end(&gif, o->gif, r != SKV_OK, err);
        if (r == SKV_OK) r = end;
    }
    if (r == SKV_OK && !sink.progress) {
        if (o->gif) printf("wrote %s (%d frames at %g fps)\n", o->gif, count, fps);
        else printf("wrote %d frames: %s ... %s\n", count, paths[0], paths[count - 1]);
    }
    for (int i = 0; paths && i < count; i++) free(paths[i]);
    for (int i = 0; refs && i < count; i++) free(refs[i]);
    free(paths), free(times), free(refs);
    if (r == SKV_OK && differing)
        r = skv_fail(err, SKV_ERR_REF, "%d of %d frame(s) differ from their --ref images", differing, count);
    return r;
}

/* No display for a window: render a few frames of the clip to PNGs in
 * ./skinview-frames/ and say where. */
static skv_result render_fallback_frames(skv_scene *scene, const options *o, skv_error *err)
{
    enum { FRAMES = 4 };
    const char *folder = "skinview-frames";
    if (mkdir(folder, 0777) != 0 && errno != EEXIST)
        return skv_fail(err, SKV_ERR_OUTPUT, "cannot create %s: %s", folder, strerror(errno));
    const char *base = strrchr(scene->model.path, '/');
    base = base ? base + 1 : scene->model.path;
    char names[FRAMES][512];
    char *paths[FRAMES];
    double times[FRAMES];
    double duration = scene_clip_seconds(scene);
    for (int i = 0; i < FRAMES; i++) {
        times[i] = duration * i / FRAMES;
        snprintf(names[i], sizeof names[i], "%s/%s_%d.png", folder, base, i);
        paths[i] = names[i];
    }
    skv_result r = render_headless(scene, o, FRAMES, &(frame_sink){.paths = paths}, times, err);
    if (r == SKV_OK) {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
        for (int i = 0; i < FRAMES; i++) printf("wrote %s/%s (t = %.3f s)\n", cwd, paths[i], times[i]);
    }
    return r;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) != 0) return SKV_ERR_USAGE;
    char default_path[PATH_MAX + 64];
    const char *path = o.model ? o.model : default_model_path(default_path, sizeof default_path);

    skv_scene scene;
    skv_error err = {{0}};
    skv_import_desc import = {.influences = o.influences, .trusted = o.trust, .timeout_seconds = o.import_timeout,
                              .memory_limit_mb = (int)o.import_memory,
                              .anim_files = o.anim_files, .anim_file_count = o.anim_file_count};
    skv_result r = scene_load(&scene, path, o.anim, &import, &err);
    if (r != SKV_OK) {
        print_error("%s: %s", path, err.message);
        return r;
    }
    skv_view_options view = scene.view;
    view.skeleton = o.skeleton || scene.view.skeleton; /* a stick figure shows its joints */
    view.bind_pose = o.bind_pose;
    view.wireframe = o.wireframe;
    view.normals = o.normals;
    view.grid = o.grid;
    view.axes = o.axes;
    if (o.influence_count) view.shade = SKV_SHADE_INFLUENCES;
    if (o.background) parse_color(o.background, view.background);
    if (o.weights) {
        view.weight_bone = model_find_bone(&scene.model, o.weights);
        if (view.weight_bone < 0) {
            print_error("%s: no bone '%s' (it has %d; see --list)", path, o.weights, scene.model.skeleton.bone_count);
            scene_free(&scene);
            return SKV_ERR_USAGE;
        }
        view.shade = SKV_SHADE_WEIGHTS;
    }
    scene_set_view(&scene, &view);
    for (int i = 0; i < o.morph_count; i++) {
        const char *eq = strrchr(o.morphs[i], '=');
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - o.morphs[i]), o.morphs[i]);
        int target = morph_find_target(&scene.model, name);
        if (target < 0) {
            print_error("%s: --morph: no morph target '%s' (it has %d; see --list)", path, name,
                        scene.model.morph_target_count);
            scene_free(&scene);
            return SKV_ERR_USAGE;
        }
        scene_set_morph(&scene, target, (float)atof(eq + 1));
    }
    if (o.fade >= 0) scene.fade_seconds = o.fade;
    if (o.dual_quaternion) {
        if (o.instances > 0) {
            fprintf(stderr, "skinview: --skinning dq does not combine with --instances (crowds are linear)\n");
            scene_free(&scene);
            return SKV_ERR_USAGE;
        }
        scene.skinning = SKV_SKINNING_DUAL_QUATERNION;
    }
    if (o.blend) {
        r = apply_blend(&scene, o.blend, &err);
        if (r != SKV_OK) {
            print_error("%s: %s", path, err.message);
            scene_free(&scene);
            return r;
        }
    }
    if (o.instances > 0) {
        r = scene_set_instances(&scene, o.instances, o.mixed_clips, &err);
        if (r != SKV_OK) {
            print_error("%s: %s", path, err.message);
            scene_free(&scene);
            return r;
        }
    }
    /* The camera: how it treats the motion, then its angles and zoom. */
    int frame_pose = o.frame && strcmp(o.frame, "pose") == 0;
    if (o.follow || o.in_place || frame_pose) scene_set_motion(&scene, o.follow, o.in_place, frame_pose, o.time);
    scene.camera.yaw = (float)o.camera_azimuth;
    scene.camera.pitch = (float)o.camera_elevation;
    scene.camera.zoom = (float)o.camera_zoom;
    scene.home = scene.camera;
    for (int i = 0; i < scene.model.warning_count; i++)
        print_error("%s: warning: %s", path, scene.model.warnings[i]);

    if (o.list && o.json) print_list_json(&scene);
    else if (o.list) print_list(&scene);
    if (r == SKV_OK && o.export_pose) r = export_pose(&scene, &o, &err);
    if (r == SKV_OK && (o.frames > 0 || o.gif)) {
        r = render_sequence(&scene, &o, &err);
    } else if (r == SKV_OK && o.screenshot) {
        char *paths[1] = {(char *)o.screenshot}, *refs[1] = {(char *)o.ref};
        int differing = 0;
        r = render_headless(&scene, &o, 1,
                            &(frame_sink){.paths = paths, .refs = o.ref ? refs : NULL,
                                          .ref_threshold = o.ref_threshold, .refs_differing = &differing},
                            &o.time, &err);
        if (r == SKV_OK && differing) r = skv_fail(&err, SKV_ERR_REF, "the frame differs from its --ref image");
    }
    int wants_window = o.window_capture || (!o.list && !o.export_pose && !o.screenshot && !o.gif);
    if (r == SKV_OK && wants_window) {
        if (viewer_display_available()) {
            r = viewer_run(&scene, &(skv_viewer_desc){.width = o.width, .height = o.height, .time = o.time,
                                                      .speed = o.speed, .capture_path = o.window_capture,
                                                      .debug = o.debug, .import = &import,
                                                      .screenshot_dir = o.screenshot_dir},
                           &err);
        } else if (o.window_capture) {
            r = skv_fail(&err, SKV_ERR_GPU, "--window-capture needs a display (DISPLAY is not set)");
        } else {
            fprintf(stderr, "skinview: no display; rendering frames headless instead\n");
            r = render_fallback_frames(&scene, &o, &err);
        }
    }
    if (r != SKV_OK) print_error("%s: %s", path, err.message);
    scene_free(&scene);
    return r;
}
