/* main.c - the skinview command line: parses options, loads the scene,
 * and runs one of --list, --export-pose, --screenshot or the window.
 * The only place that prints errors: one line, naming the file. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "capture.h"
#include "overlay.h"
#include "gpu.h"
#include "import.h"
#include "render.h"
#include "skin.h"
#include "viewer.h"

#ifndef SKV_SOURCE_ASSETS_DIR
#define SKV_SOURCE_ASSETS_DIR "assets"
#endif
#define DEFAULT_MODEL "worm.dae"

typedef struct options {
    const char *model;
    const char *anim;
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
    double fade;       /* < 0: default */
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinview [MODEL] [options]\n"
            "  MODEL                 model file (Collada, FBX, MD5, glTF, X, ...);\n"
            "                        without one, the bundled %s\n"
            "  --anim N|NAME         clip to play (index or name; default 0)\n"
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
            "  --instances N         a crowd: N copies on a grid, each at its own time offset\n"
            "  --mixed-clips         with --instances: copies cycle through the model's clips\n"
            "  --blend A,B,W         pose with clips A and B (index or name) mixed at weight W\n"
            "                        (0 = A, 1 = B), both at --time\n"
            "  --fade SECONDS        cross-fade time when switching clips in the window\n"
            "                        (default 0.25; 0..60)\n"
            "  --skinning linear|dq  linear blend (default) or dual-quaternion skinning\n"
            "  --influences 4|8      bone influences kept per vertex (default 4)\n"
            "  --import-timeout S    give up on a file Assimp has not read in S seconds\n"
            "                        (default 60; 0.001..86400)\n"
            "  --trust               skip the guarded first read in a child process\n"
            "  --debug               OpenGL debug context: any GL error fails the run (status 7)\n"
            "  --list                print meshes, bones and clips, then exit\n"
            "  --window-capture FILE.png  open the window, draw one paused frame at --time,\n"
            "                        save what the window shows (no HUD), close\n"
            "  --version             print versions and exit\n"
            "exit status: 0 ok, 2 usage, 3 file missing/unreadable, 4 import failed,\n"
            "  5 nothing to show, 6 unknown clip, 7 GPU/GL failure, 8 cannot write output\n",
            DEFAULT_MODEL);
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
    static const char *const with_value[] = {"--anim", "--time", "--speed", "--size", "--screenshot", "--export-pose",
                                              "--window-capture", "--influences", "--instances", "--blend", "--fade", "--skinning",
                                              "--weights", "--background", "--frames", "--fps", "--gif",
                                              "--import-timeout"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(arg, with_value[i]) == 0) return 1;
    return 0;
}

/* One "%d"-style conversion (flags and width allowed, e.g. %04d) and no
 * other '%' but "%%": the --frames file name pattern. */
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
        while (*p >= '0' && *p <= '9') p++;
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
                 {"--trust", offsetof(options, trust)}};
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
    *o = (options){.speed = 1.0, .width = 800, .height = 600, .fade = -1.0};
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
            fprintf(stderr, "skinview: %s needs a value\n", a);
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
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "skinview: unknown option %s (see --help)\n", a);
            return -1;
        } else {
            if (o->model) {
                fprintf(stderr, "skinview: more than one model given (%s, %s)\n", o->model, a);
                return -1;
            }
            o->model = a;
            takes_value = 0;
        }
        if (takes_value) i++;
        continue;
    bad_value:
        fprintf(stderr, "skinview: bad value for %s: '%s'\n", a, value);
        return -1;
    }
    if (o->frames > 0 && !o->gif && (!o->screenshot || !frame_pattern_ok(o->screenshot))) {
        fprintf(stderr, "skinview: --frames needs --screenshot with one %%d in the name (e.g. out_%%04d.png) or --gif\n");
        return -1;
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

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') printf("\\%c", *c);
        else if (*c < 0x20) printf("\\u%04x", *c);
        else putchar(*c);
    }
    putchar('"');
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
        printf(",\"vertices\":%d,\"triangles\":%d,\"bones\":%d,\"max_influences\":%d,\"node\":", mesh->vertex_count,
               mesh->index_count / 3, mesh->bone_count, mesh->max_influences);
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
        printf(",\"seconds\":%.6g,\"ticks\":%.6g,\"ticks_per_second\":%g,\"channels\":%d,\"notes\":[",
               clip->duration_ticks / clip->ticks_per_second, clip->duration_ticks, clip->ticks_per_second,
               clip->channel_count);
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
    printf("file: %s\n", m->path);
    printf("assimp: %s\n", import_assimp_version());
    printf("meshes: %d (%d vertices, %d triangles)\n", m->mesh_count, m->vertex_count, m->index_count / 3);
    for (int i = 0; i < m->mesh_count; i++) {
        const skv_mesh *mesh = &m->meshes[i];
        if (mesh->skinned)
            printf("  %d '%s': %d vertices, %d triangles, %d bones, max influences %d", i, mesh->name,
                   mesh->vertex_count, mesh->index_count / 3, mesh->bone_count, mesh->max_influences);
        else
            printf("  %d '%s': %d vertices, %d triangles, no bones (follows its node '%s')", i, mesh->name,
                   mesh->vertex_count, mesh->index_count / 3, m->skeleton.node_names[mesh->node]);
        if (mesh->unweighted_vertices)
            printf(", %d vertices without weights follow the node", mesh->unweighted_vertices);
        if (mesh->over_limit_vertices)
            printf(", %d vertices over %d kept their %d largest", mesh->over_limit_vertices,
                   m->influence_slots, m->influence_slots);
        printf("\n");
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
        printf("  %d '%s': %.3f s (%g ticks at %g ticks/s), %d channels", c, clip->name,
               clip->duration_ticks / clip->ticks_per_second, clip->duration_ticks, clip->ticks_per_second,
               clip->channel_count);
        if (clip->merged_from > 1)
            printf(" (%d one-channel clips of the file on one time line, played together)", clip->merged_from);
        printf("\n");
        for (unsigned bit = 1; bit; bit <<= 1)
            if ((clip->notes & bit) && model_clip_note_text(bit)) printf("      note: %s\n", model_clip_note_text(bit));
    }
}

static skv_result export_pose(skv_scene *scene, const options *o, skv_error *err)
{
    skv_model *m = &scene->model;
    if (scene->view.bind_pose) pose_evaluate(&scene->pose, m, -1, 0.0); /* the rest pose */
    else scene_pose(scene, o->time);
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
} frame_sink;

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
        fprintf(stderr, "skinview: %s: warning: %d texture(s) larger than this driver's %d texels a side; drawn in the "
                "material colour\n", scene->model.path, renderer.textures_too_large, renderer.max_texture_side);
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
            paths[i] = malloc(strlen(o->screenshot) + 32);
            if (!paths[i]) {
                r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
                break;
            }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            sprintf(paths[i], o->screenshot, i); /* checked by frame_pattern_ok: one %d */
#pragma GCC diagnostic pop
        }
    }
    frame_sink sink = {.paths = paths, .progress = isatty(STDOUT_FILENO)};
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
    free(paths), free(times);
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
    skv_import_desc import = {.influences = o.influences, .trusted = o.trust, .timeout_seconds = o.import_timeout};
    skv_result r = scene_load(&scene, path, o.anim, &import, &err);
    if (r != SKV_OK) {
        fprintf(stderr, "skinview: %s: %s\n", path, err.message);
        return r;
    }
    skv_view_options view = scene.view;
    view.skeleton = o.skeleton;
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
            fprintf(stderr, "skinview: %s: no bone '%s' (it has %d; see --list)\n", path, o.weights,
                    scene.model.skeleton.bone_count);
            scene_free(&scene);
            return SKV_ERR_USAGE;
        }
        view.shade = SKV_SHADE_WEIGHTS;
    }
    scene_set_view(&scene, &view);
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
            fprintf(stderr, "skinview: %s: %s\n", path, err.message);
            scene_free(&scene);
            return r;
        }
    }
    if (o.instances > 0) {
        r = scene_set_instances(&scene, o.instances, o.mixed_clips, &err);
        if (r != SKV_OK) {
            fprintf(stderr, "skinview: %s: %s\n", path, err.message);
            scene_free(&scene);
            return r;
        }
    }
    for (int i = 0; i < scene.model.warning_count; i++)
        fprintf(stderr, "skinview: %s: warning: %s\n", path, scene.model.warnings[i]);

    if (o.list && o.json) print_list_json(&scene);
    else if (o.list) print_list(&scene);
    if (r == SKV_OK && o.export_pose) r = export_pose(&scene, &o, &err);
    if (r == SKV_OK && (o.frames > 0 || o.gif)) {
        r = render_sequence(&scene, &o, &err);
    } else if (r == SKV_OK && o.screenshot) {
        char *paths[1] = {(char *)o.screenshot};
        r = render_headless(&scene, &o, 1, &(frame_sink){.paths = paths}, &o.time, &err);
    }
    int wants_window = o.window_capture || (!o.list && !o.export_pose && !o.screenshot && !o.gif);
    if (r == SKV_OK && wants_window) {
        if (viewer_display_available()) {
            r = viewer_run(&scene, &(skv_viewer_desc){.width = o.width, .height = o.height, .time = o.time,
                                                      .speed = o.speed, .capture_path = o.window_capture,
                                                      .debug = o.debug, .import = &import},
                           &err);
        } else if (o.window_capture) {
            r = skv_fail(&err, SKV_ERR_GPU, "--window-capture needs a display (DISPLAY is not set)");
        } else {
            fprintf(stderr, "skinview: no display; rendering frames headless instead\n");
            r = render_fallback_frames(&scene, &o, &err);
        }
    }
    if (r != SKV_OK) fprintf(stderr, "skinview: %s: %s\n", path, err.message);
    scene_free(&scene);
    return r;
}
