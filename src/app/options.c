/* options.c - the option table, its parser and --help. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "headless.h"
#include "imagecmp.h"
#include "import.h"

/* How an option's value is read, and where it goes. */
typedef enum option_kind {
    OPT_HELP,     /* --help: sets o->help */
    OPT_VERSION,  /* --version: sets o->version */
    OPT_FLAG,     /* no value: the int field becomes 1 */
    OPT_TEXT,     /* kept as given (a file, a clip or bone name) */
    OPT_NUMBER,   /* double in [min, max] */
    OPT_INTEGER,  /* whole number in [min, max], into an int */
    OPT_WHOLE,    /* whole number in [min, max], kept as a double */
    OPT_SIZE,     /* WxH, into two ints (field, field + 1) */
    OPT_COLOR,    /* #rrggbb or r,g,b, into float[3]; sets has_background */
    OPT_CHOICE,   /* one of `choices`, into an int: its value in choice_values */
    OPT_WORD,     /* one of `choices`, kept as that word (a const char *) */
    OPT_REPEATED, /* appended to a const char *[] (field), counted in count_field */
    OPT_MORPH,    /* NAME=W, W a finite number; repeated like OPT_REPEATED */
    OPT_BLEND,    /* A,B,W with W in 0..1: the text, and blend_a, blend_b, blend_weight */
    OPT_LAYER,    /* --layer SPEC (options_parse_layer), into layers[layer_count++] */
} option_kind;

typedef struct option_spec {
    const char *name;  /* "--time"; NULL ends the table */
    option_kind kind;
    size_t field;      /* offsetof(skv_options, ...) */
    const char *value; /* the value's name in --help, e.g. "SECONDS" */
    const char *help;  /* lines separated by '\n' */
    double min, max;   /* OPT_NUMBER, OPT_INTEGER, OPT_WHOLE */
    int exclusive_min; /* min itself is not allowed */
    const char *choices[4];   /* OPT_CHOICE: up to 3, NULL after the last */
    int choice_values[3];     /* OPT_CHOICE: their values */
    size_t count_field; /* OPT_REPEATED, OPT_MORPH */
    int max_count;
} option_spec;

#define F(x) offsetof(skv_options, x)
#define OPTION(n, k, f, v, h, ...) {.name = n, .kind = k, .field = f, .value = v, .help = h, __VA_ARGS__}
static const option_spec option_table[] = {
    OPTION("--anim", OPT_TEXT, F(anim), "N|NAME", "clip to play (index or name; default 0)"),
    OPTION("--anim-file", OPT_REPEATED, F(anim_files), "FILE",
     "add FILE's clips, bound to the model's nodes by name\n(namespace prefixes like mixamorig: ignored); repeatable",
     .count_field = F(anim_file_count), .max_count = SKV_MAX_ANIM_FILES),
    OPTION("--time", OPT_NUMBER, F(time), "SECONDS", "time on the clip (looped over its duration; -1e6..1e6)", .min = -1e6, .max = 1e6),
    OPTION("--speed", OPT_NUMBER, F(speed), "X", "playback speed in the window (default 1; -1000..1000)", .min = -1000, .max = 1000),
    OPTION("--size", OPT_SIZE, F(width), "WxH", "image / window size (default 800x600; 1..16384 each)"),
    OPTION("--screenshot", OPT_TEXT, F(screenshot), "FILE.png", "render one frame offscreen at --time, no display needed"),
    OPTION("--export-pose", OPT_TEXT, F(export_pose), "FILE.obj", "write the skinned mesh at --time as Wavefront OBJ"),
    OPTION("--bind-pose", OPT_FLAG, F(bind_pose), NULL,
     "draw the bind pose beside the animated mesh (with\n--export-pose: export the bind pose)"),
    OPTION("--skeleton", OPT_FLAG, F(skeleton), NULL, "joints and bones over the mesh"),
    OPTION("--weights", OPT_TEXT, F(weights), "BONE", "colour vertices by BONE's weight (name or index)"),
    OPTION("--influence-count", OPT_FLAG, F(influence_count), NULL, "colour vertices by how many bones move them"),
    OPTION("--wireframe", OPT_FLAG, F(wireframe), NULL, "triangle edges over the mesh"),
    OPTION("--normals", OPT_FLAG, F(normals), NULL, "vertex normals as short lines"),
    OPTION("--grid", OPT_FLAG, F(grid), NULL, "a floor grid under the model"),
    OPTION("--axes", OPT_FLAG, F(axes), NULL, "an X/Y/Z gizmo in the corner"),
    OPTION("--background", OPT_COLOR, F(background), "COLOR", "#rrggbb or r,g,b (0..1)"),
    OPTION("--frames", OPT_INTEGER, F(frames), "N", "with --screenshot out_%04d.png: N frames from --time on", .min = 1, .max = 100000),
    OPTION("--fps", OPT_NUMBER, F(fps), "F", "frames per second of --frames / --gif (30; GIF 15)", .min = 0, .max = 1000, .exclusive_min = 1),
    OPTION("--gif", OPT_TEXT, F(gif), "FILE.gif", "the clip as an animated GIF (once round, or --frames)"),
    OPTION("--json", OPT_FLAG, F(json), NULL, "with --list: the summary as JSON"),
    OPTION("--ref", OPT_TEXT, F(ref), "REF.png",
     "compare the --screenshot with REF (one %d with --frames): a\npixel differs when a channel is off by more than "
     "24/255; a\nmismatch writes OUT.diff.png and exits 10; a missing REF is written"),
    OPTION("--ref-threshold", OPT_NUMBER, F(ref_threshold), "F", "fraction of pixels allowed to differ (default 0.0025)", .min = 0, .max = 1),
    OPTION("--follow", OPT_FLAG, F(follow), NULL, "the camera follows the root motion (window: T)"),
    OPTION("--in-place", OPT_FLAG, F(in_place), NULL, "take the root's horizontal travel out (window: I)"),
    OPTION("--frame", OPT_WORD, F(frame), "clip|pose", "frame the whole clip (default) or the pose at --time",
     .choices = {"clip", "pose"}),
    OPTION("--camera-azimuth", OPT_NUMBER, F(camera_azimuth), "DEG", "camera angle right of the front (default 25)", .min = -360, .max = 360),
    OPTION("--camera-elevation", OPT_NUMBER, F(camera_elevation), "DEG", "camera angle above the ground (default 15)", .min = -89, .max = 89),
    OPTION("--camera-zoom", OPT_NUMBER, F(camera_zoom), "Z", "distance x Z from the framed one (default 1)", .min = 0.05, .max = 100),
    OPTION("--screenshot-dir", OPT_TEXT, F(screenshot_dir), "DIR",
     "the window's S key saves there (default: beside the model)"),
    OPTION("--instances", OPT_INTEGER, F(instances), "N", "a crowd: N copies on a grid, each at its own time offset", .min = 1, .max = 1000000),
    OPTION("--mixed-clips", OPT_FLAG, F(mixed_clips), NULL, "with --instances: copies cycle through the model's clips"),
    OPTION("--blend", OPT_BLEND, F(blend), "A,B,W",
     "pose with clips A and B (index or name) mixed at weight W\n(0 = A, 1 = B), both at --time"),
    OPTION("--layer", OPT_LAYER, F(layers), "SPEC",
     "a layer over the clip, repeatable, in order: SPEC =\n"
     "CLIP[:mask=BONE[+BONE...]][:additive[=REFCLIP]][:weight=W]\n"
     "override (default): on the masked nodes and all below\n"
     "them (no mask: all), mixed in at W (0..1, default 1);\n"
     "additive: its difference from REFCLIP's (or its own)\n"
     "first frame added at W; overrides first, then additives",
     .max_count = SKV_MAX_LAYERS),
    OPTION("--fade", OPT_NUMBER, F(fade), "SECONDS", "cross-fade time when switching clips in the window\n(default 0.25; 0..60)",
     .min = 0, .max = 60),
    OPTION("--msaa", OPT_INTEGER, F(msaa), "N", "samples per pixel for the window and --screenshot\n(default 4; 1 = off; 1..64, at most what the driver takes)",
           .min = 1, .max = 64),
    OPTION("--skinning", OPT_CHOICE, F(dual_quaternion), "linear|dq", "linear blend (default) or dual-quaternion skinning",
     .choices = {"linear", "dq"}, .choice_values = {0, 1}),
    OPTION("--influences", OPT_CHOICE, F(influences), "4|8|all",
           "bone influences blended per vertex (default: every one,\nfrom per-vertex lists, where a vertex has "
           "more than 4;\nelse 4 slots); 4 or 8: the largest in slots; all: lists\nfor every model",
           .choices = {"4", "8", "all"}, .choice_values = {4, 8, SKV_INFLUENCES_ALL}),
    OPTION("--morph", OPT_MORPH, F(morphs), "NAME=W",
     "morph target NAME (its name, or its number in --list)\nweighs W whatever the clip says; repeatable",
     .count_field = F(morph_count), .max_count = SKV_MAX_MORPHS),
    OPTION("--import-timeout", OPT_NUMBER, F(import_timeout), "S",
     "give up on a file Assimp has not read in S seconds\n(default 60; 0.001..86400)", .min = 1e-3, .max = 86400),
    OPTION("--import-memory", OPT_WHOLE, F(import_memory), "MB",
     "address space Assimp may take to read a file, guarded or\nnot (default 768 or 16x the file; 1..1048576)", .min = 1, .max = 1048576),
    OPTION("--trust", OPT_FLAG, F(trust), NULL, "read and convert the file here, not in the sandboxed\nchild process"),
    OPTION("--debug", OPT_FLAG, F(debug), NULL, "OpenGL debug context: any GL error fails the run (status 7)"),
    OPTION("--list", OPT_FLAG, F(list), NULL,
     "print meshes (and their morph targets), bones and clips\n(and their morph channels), then exit"),
    OPTION("--window-capture", OPT_TEXT, F(window_capture), "FILE.png",
     "open the window, draw one paused frame at --time,\nsave what the window shows (no HUD), close"),
    OPTION("--version", OPT_VERSION, 0, NULL, "print versions and exit"),
    OPTION("--help", OPT_HELP, 0, NULL, "this text (also -h)"),
    {.name = NULL},
};
#undef OPTION
#undef F

void options_print_help(FILE *out)
{
    enum { HELP_COLUMN = 24 };
    fprintf(out,
            "usage: skinview [MODEL] [options]   (--name VALUE or --name=VALUE)\n"
            "  MODEL                 model file (Collada, FBX, MD5, glTF, X, ...);\n"
            "                        without one, the bundled %s\n",
            SKV_DEFAULT_MODEL);
    for (const option_spec *s = option_table; s->name; s++) {
        int used = fprintf(out, "  %s%s%s", s->name, s->value ? " " : "", s->value ? s->value : "");
        const char *line = s->help;
        while (line) {
            const char *end = strchr(line, '\n');
            if (used >= HELP_COLUMN) { /* the name is too long: its help starts on the next line */
                fputc('\n', out);
                used = 0;
            }
            fprintf(out, "%*s%.*s\n", HELP_COLUMN - used, "", end ? (int)(end - line) : (int)strlen(line), line);
            used = 0;
            line = end ? end + 1 : NULL;
        }
    }
    fprintf(out, "exit status: 0 ok, 2 usage, 3 file missing/unreadable, 4 import failed,\n"
                 "  5 nothing to show, 6 unknown clip, 7 GPU/GL failure, 8 cannot write output,\n"
                 "  9 out of memory, 10 differs from --ref\n");
}

/* Does a SPEC's key part start at `p` (just after a ':')? */
static int layer_key_at(const char *p)
{
    if (strncmp(p, "mask=", 5) == 0 || strncmp(p, "weight=", 7) == 0) return 1;
    return strncmp(p, "additive", 8) == 0 && (p[8] == '=' || p[8] == ':' || p[8] == '\0');
}

/* A plain decimal number (digits, one point, an exponent): no "nan",
 * "inf", hex or spaces, which strtod would take. */
static int plain_decimal(const char *p, int length)
{
    int i = 0, digits = 0;
    if (i < length && (p[i] == '+' || p[i] == '-')) i++;
    for (; i < length && p[i] >= '0' && p[i] <= '9'; i++) digits++;
    if (i < length && p[i] == '.')
        for (i++; i < length && p[i] >= '0' && p[i] <= '9'; i++) digits++;
    if (!digits) return 0;
    if (i < length && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < length && (p[i] == '+' || p[i] == '-')) i++;
        int exp = 0;
        for (; i < length && p[i] >= '0' && p[i] <= '9'; i++) exp++;
        if (!exp) return 0;
    }
    return i == length;
}

int options_parse_layer(const char *spec, skv_layer_spec *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->text = spec;
    out->weight = 1.0;
    int seen_mask = 0, seen_weight = 0, seen_additive = 0;
    const char *part = spec;
    for (int first = 1;; first = 0) {
        const char *end = part;
        while (*end && !(*end == ':' && layer_key_at(end + 1))) end++;
        int length = (int)(end - part);
        if (first) {
            if (length == 0) {
                snprintf(why, why_size, "no clip before the first field");
                return -1;
            }
            out->clip = (skv_text_span){part, length};
        } else if (strncmp(part, "mask=", 5) == 0) {
            if (seen_mask++) {
                snprintf(why, why_size, "mask given twice");
                return -1;
            }
            const char *name = part + 5;
            for (;;) {
                const char *plus = name;
                while (plus < end && *plus != '+') plus++;
                if (plus == name) {
                    snprintf(why, why_size, "an empty bone name in '%.*s'", length, part);
                    return -1;
                }
                if (out->mask_count == SKV_MAX_LAYER_MASK) {
                    snprintf(why, why_size, "more than %d bones in '%.*s'", SKV_MAX_LAYER_MASK, length, part);
                    return -1;
                }
                out->mask[out->mask_count++] = (skv_text_span){name, (int)(plus - name)};
                if (plus == end) break;
                name = plus + 1;
            }
        } else if (strncmp(part, "weight=", 7) == 0) {
            if (seen_weight++) {
                snprintf(why, why_size, "weight given twice");
                return -1;
            }
            char number[64];
            double w = NAN;
            if (plain_decimal(part + 7, length - 7) && length - 7 < (int)sizeof number) {
                snprintf(number, sizeof number, "%.*s", length - 7, part + 7);
                w = strtod(number, NULL);
            }
            if (!(w >= 0.0 && w <= 1.0)) {
                snprintf(why, why_size, "weight '%.*s' is not a number in [0, 1]", length - 7, part + 7);
                return -1;
            }
            out->weight = w;
        } else { /* additive, or additive=REFCLIP (layer_key_at) */
            if (seen_additive++) {
                snprintf(why, why_size, "additive given twice");
                return -1;
            }
            out->additive = 1;
            if (length > 8 && part[8] != '=') {
                snprintf(why, why_size, "bad field '%.*s'", length, part);
                return -1;
            }
            if (length > 8) {
                if (length == 9) {
                    snprintf(why, why_size, "no reference clip after 'additive='");
                    return -1;
                }
                out->reference = (skv_text_span){part + 9, length - 9};
            }
        }
        if (!*end) return 0;
        part = end + 1;
    }
}

int options_parse_number(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end) return -1;
    *out = v;
    return 0;
}

/* A number in the spec's range; NaN and infinities never are (strtod reads
 * "nan" and "inf", and a NaN slips past every comparison). */
static int parse_in_range(const option_spec *s, const char *text, double *out)
{
    double v;
    if (options_parse_number(text, &v) != 0 || !(v >= s->min && v <= s->max)) return -1;
    if (s->exclusive_min && v == s->min) return -1;
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


static const option_spec *find_option(const char *name, size_t length)
{
    for (const option_spec *s = option_table; s->name; s++)
        if (strlen(s->name) == length && strncmp(s->name, name, length) == 0) return s;
    return NULL;
}

/* Stores `value` for option `s`; -1 when the value is bad, -2 when a
 * repeatable option was given too often. */
static int store_value(const option_spec *s, const char *value, skv_options *o)
{
    char *field = (char *)o + s->field;
    double v;
    switch (s->kind) {
    case OPT_TEXT:
        *(const char **)field = value; /* checked where it is used */
        return 0;
    case OPT_NUMBER:
        return parse_in_range(s, value, (double *)field);
    case OPT_INTEGER:
        if (parse_in_range(s, value, &v) != 0 || v != (int)v) return -1;
        *(int *)field = (int)v;
        return 0;
    case OPT_WHOLE:
        if (parse_in_range(s, value, &v) != 0 || v != floor(v)) return -1;
        *(double *)field = v;
        return 0;
    case OPT_SIZE:
        return parse_size(value, (int *)field, (int *)field + 1);
    case OPT_COLOR:
        if (parse_color(value, (float *)field) != 0) return -1;
        o->has_background = 1;
        return 0;
    case OPT_CHOICE:
    case OPT_WORD:
        for (int k = 0; k < 3 && s->choices[k]; k++)
            if (strcmp(value, s->choices[k]) == 0) {
                if (s->kind == OPT_CHOICE) *(int *)field = s->choice_values[k];
                else *(const char **)field = s->choices[k];
                return 0;
            }
        return -1;
    case OPT_BLEND: {
        const char *c1 = strchr(value, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c1 || !c2 || c1 == value || c2 == c1 + 1 || c1 - value >= (long)sizeof o->blend_a ||
            c2 - c1 - 1 >= (long)sizeof o->blend_b || options_parse_number(c2 + 1, &v) != 0 || !(v >= 0.0 && v <= 1.0))
            return -1;
        snprintf(o->blend_a, sizeof o->blend_a, "%.*s", (int)(c1 - value), value);
        snprintf(o->blend_b, sizeof o->blend_b, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
        o->blend_weight = v;
        *(const char **)field = value;
        return 0;
    }
    case OPT_LAYER: {
        if (o->layer_count == s->max_count) return -2;
        char why[256];
        if (options_parse_layer(value, &o->layers[o->layer_count], why, sizeof why) != 0) {
            snprintf(o->layer_error, sizeof o->layer_error, "%s", why);
            return -3;
        }
        o->layer_count++;
        return 0;
    }
    case OPT_MORPH: {
        const char *eq = strrchr(value, '=');
        if (!eq || eq == value || options_parse_number(eq + 1, &v) != 0 || !isfinite(v)) return -1;
    } /* fall through */
    case OPT_REPEATED: {
        int *count = (int *)((char *)o + s->count_field);
        if (*count == s->max_count) return -2;
        ((const char **)field)[(*count)++] = value;
        return 0;
    }
    default:
        return -1;
    }
}

/* Rules between options, once all are read. */
static skv_result check_combinations(const skv_options *o, skv_error *err)
{
    if (o->frames > 0 && !o->gif && (!o->screenshot || !headless_frame_pattern_ok(o->screenshot)))
        return skv_fail(err, SKV_ERR_ARGUMENT,
                        "--frames needs --screenshot with one %%d in the name (e.g. out_%%04d.png; width up to %d) "
                        "or --gif", SKV_FRAME_WIDTH_MAX);
    if (o->ref && (!o->screenshot || o->gif))
        return skv_fail(err, SKV_ERR_ARGUMENT, "--ref compares the --screenshot PNG with a reference: give --screenshot");
    if (o->ref && o->frames > 0 && !headless_frame_pattern_ok(o->ref))
        return skv_fail(err, SKV_ERR_ARGUMENT, "with --frames, --ref needs one %%d in the name, like --screenshot");
    if (o->screenshot_dir) {
        struct stat st;
        if (stat(o->screenshot_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return skv_fail(err, SKV_ERR_ARGUMENT, "--screenshot-dir %s: not a folder", o->screenshot_dir);
    }
    if (o->json && !o->list) return skv_fail(err, SKV_ERR_ARGUMENT, "--json goes with --list");
    if (o->layer_count > 0 && o->blend)
        return skv_fail(err, SKV_ERR_ARGUMENT, "--layer does not combine with --blend (give the base clip with --anim)");
    if (o->dual_quaternion && o->instances > 0)
        return skv_fail(err, SKV_ERR_ARGUMENT, "--skinning dq does not combine with --instances (crowds are linear)");
    return SKV_OK;
}

skv_result options_parse(int argc, char **argv, skv_options *o, skv_error *err)
{
    /* The camera's defaults are camera.h's framing rule. */
    *o = (skv_options){.speed = 1.0, .width = 800, .height = 600, .fade = -1.0, .ref_threshold = SKV_REF_MAX_FRACTION,
                       .camera_azimuth = 25.0, .camera_elevation = 15.0, .camera_zoom = 1.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') { /* the model ("-" alone is a file name too) */
            if (o->model) return skv_fail(err, SKV_ERR_ARGUMENT, "more than one model given (%s, %s)", o->model, a);
            o->model = a;
            continue;
        }
        if (strcmp(a, "-h") == 0) a = "--help";
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        const option_spec *s = find_option(a, eq ? (size_t)(eq - a) : strlen(a));
        if (!s) return skv_fail(err, SKV_ERR_ARGUMENT, "unknown option %s (see --help)", a);
        int takes_value = s->kind > OPT_FLAG;
        if (!takes_value) {
            if (eq) return skv_fail(err, SKV_ERR_ARGUMENT, "%s takes no value", s->name);
            if (s->kind == OPT_HELP) o->help = 1;
            else if (s->kind == OPT_VERSION) o->version = 1;
            else *(int *)((char *)o + s->field) = 1;
            if (o->help || o->version) return SKV_OK; /* as soon as seen, whatever follows */
            continue;
        }
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value) return skv_fail(err, SKV_ERR_ARGUMENT, "%s needs a value", s->name);
        int stored = store_value(s, value, o);
        if (stored == -2) return skv_fail(err, SKV_ERR_ARGUMENT, "at most %d %s options", s->max_count, s->name);
        if (stored == -3) return skv_fail(err, SKV_ERR_ARGUMENT, "bad %s '%s': %s", s->name, value, o->layer_error);
        if (stored != 0) {
            if ((s->kind == OPT_CHOICE || s->kind == OPT_WORD || s->kind == OPT_BLEND) && s->value)
                return skv_fail(err, SKV_ERR_ARGUMENT, "bad value for %s: '%s' (%s)", s->name, value, s->value);
            return skv_fail(err, SKV_ERR_ARGUMENT, "bad value for %s: '%s'", s->name, value);
        }
    }
    return check_combinations(o, err);
}
