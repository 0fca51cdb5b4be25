/* options.c - the option table, its parser and --help. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "headless.h"
#include "imagecmp.h"
#include "import.h"
#include "text.h"

/* How an option's value is read, and where it goes. */
typedef enum option_kind {
    OPT_GROUP,    /* not an option: the --help heading of those after it */
    OPT_HELP,     /* --help: sets o->help */
    OPT_VERSION,  /* --version: sets o->version */
    OPT_FLAG,     /* no value: the int field becomes 1 */
    OPT_TEXT,     /* kept as given (a file, a clip or bone name); a file name's extension checked */
    OPT_NUMBER,   /* double in [min, max] */
    OPT_INTEGER,  /* whole number in [min, max], into an int */
    OPT_WHOLE,    /* whole number in [min, max], kept as a double */
    OPT_SIZE,     /* WxH, into two ints (field, field + 1) */
    OPT_COLOR,    /* #rrggbb or r,g,b, into float[3]; sets has_background; or transparent / none */
    OPT_CHOICE,   /* one of `choices`, into an int: its value in choice_values */
    OPT_WORD,     /* one of `choices`, kept as that word (a const char *) */
    OPT_REPEATED, /* appended to a const char *[] (field), counted in count_field */
    OPT_MORPH,    /* NAME=W, W a finite number; repeated like OPT_REPEATED */
    OPT_BLEND,    /* A,B,W with W in 0..1: the text, and blend_a, blend_b, blend_weight */
    OPT_LAYER,    /* --layer SPEC (options_parse_layer), into layers[layer_count++] */
} option_kind;

typedef struct option_spec {
    const char *name;  /* "--time"; the heading for OPT_GROUP; NULL ends the table */
    option_kind kind;
    size_t field;      /* offsetof(skv_options, ...) */
    const char *value; /* the value's name in --help, e.g. "SECONDS" */
    const char *help;  /* lines separated by '\n' */
    double min, max;   /* OPT_NUMBER, OPT_INTEGER, OPT_WHOLE */
    int exclusive_min; /* min itself is not allowed */
    const char *choices[4];   /* OPT_CHOICE, OPT_WORD: up to 3, NULL after the last */
    int choice_values[3];     /* OPT_CHOICE: their values */
    size_t count_field; /* OPT_REPEATED, OPT_MORPH */
    int max_count;
    size_t given;       /* when not 0: an int field set to 1 when the option is given */
    /* OPT_TEXT: the extensions a file name must end with (space-separated;
     * NULL: any text), whether "-" (standard output) is one, what
     * completes the value (skv_option_info.completes; NULL: "text"). */
    const char *extensions;
    int to_stdout;
    const char *completes;
} option_spec;

#define F(x) offsetof(skv_options, x)
#define OPTION(n, k, f, v, h, ...) {.name = n, .kind = k, .field = f, .value = v, .help = h, __VA_ARGS__}
#define GROUP(n) {.name = n, .kind = OPT_GROUP}
static const option_spec option_table[] = {
    GROUP("input"),
    OPTION("--anim-file", OPT_REPEATED, F(anim_files), "FILE",
     "add FILE's clips, bound to the model's nodes by name\n(namespace prefixes like mixamorig: ignored); repeatable",
     .count_field = F(anim_file_count), .max_count = SKV_MAX_ANIM_FILES, .completes = "file"),
    OPTION("--retarget", OPT_FLAG, F(retarget), NULL,
     "retarget the --anim-file clips onto the model's skeleton\n(joints matched by name, then by humanoid naming scheme:\nMixamo, CMU BVH, Biped, Unreal, Rigify, VRM)"),
    OPTION("--bone-map", OPT_TEXT, F(bone_map), "MAP.json",
     "with --retarget: {\"modelJoint\": \"fileJoint\", ...} matched\nbefore the automatic matches (implies --retarget)",
     .completes = "file"),
    OPTION("--influences", OPT_CHOICE, F(influences), "4|8|all",
           "bone influences blended per vertex (default: every one,\nfrom per-vertex lists, where a vertex has "
           "more than 4;\nelse 4 slots); 4 or 8: the largest in slots; all: lists\nfor every model",
           .choices = {"4", "8", "all"}, .choice_values = {4, 8, SKV_INFLUENCES_ALL}),
    OPTION("--list", OPT_FLAG, F(list), NULL,
     "print meshes (and their morph targets), materials, the\nbone tree and clips (and their morph channels), then exit"),
    OPTION("--json", OPT_FLAG, F(json), NULL, "with --list: the summary as JSON"),

    GROUP("time and clips"),
    OPTION("--anim", OPT_TEXT, F(anim), "N|NAME", "clip to play (index or name; default 0)", .completes = "clip"),
    OPTION("--time", OPT_NUMBER, F(time), "SECONDS", "time on the clip (looped over its duration; -1e6..1e6)",
           .min = -1e6, .max = 1e6, .given = F(has_time)),
    OPTION("--speed", OPT_NUMBER, F(speed), "X", "playback speed in the window (default 1; -1000..1000)", .min = -1000, .max = 1000),
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
    OPTION("--morph", OPT_MORPH, F(morphs), "NAME=W",
     "morph target NAME (its name, or its number in --list)\nweighs W whatever the clip says; repeatable",
     .count_field = F(morph_count), .max_count = SKV_MAX_MORPHS, .completes = "morph"),

    GROUP("views"),
    OPTION("--skeleton", OPT_FLAG, F(skeleton), NULL, "joints and bones over the mesh"),
    OPTION("--weights", OPT_TEXT, F(weights), "BONE", "colour vertices by BONE's weight (name or index)", .completes = "bone"),
    OPTION("--influence-count", OPT_FLAG, F(influence_count), NULL, "colour vertices by how many bones move them"),
    OPTION("--wireframe", OPT_FLAG, F(wireframe), NULL, "triangle edges over the mesh"),
    OPTION("--normals", OPT_FLAG, F(normals), NULL, "vertex normals as short lines"),
    OPTION("--grid", OPT_FLAG, F(grid), NULL, "a floor grid under the model"),
    OPTION("--axes", OPT_FLAG, F(axes), NULL, "an X/Y/Z gizmo in the corner"),
    OPTION("--background", OPT_COLOR, F(background), "COLOR",
           "#rrggbb or r,g,b (0..1); transparent (or none): alpha 0\nwhere nothing is drawn (PNG, WebM)",
           .choices = {"transparent", "none"}),
    OPTION("--bind-pose", OPT_FLAG, F(bind_pose), NULL,
     "draw the bind pose beside the animated mesh (with\n--export-pose: export the bind pose)"),
    OPTION("--skinning", OPT_CHOICE, F(dual_quaternion), "linear|dq", "linear blend (default) or dual-quaternion skinning",
     .choices = {"linear", "dq"}, .choice_values = {0, 1}),
    OPTION("--instances", OPT_INTEGER, F(instances), "N", "a crowd: N copies on a grid, each at its own time offset", .min = 1, .max = 1000000),
    OPTION("--mixed-clips", OPT_FLAG, F(mixed_clips), NULL, "with --instances: copies cycle through the model's clips"),

    GROUP("outputs"),
    OPTION("--size", OPT_SIZE, F(width), "WxH", "image / window size (default 800x600; 1..16384 each)", .given = F(has_size)),
    OPTION("--screenshot", OPT_TEXT, F(screenshot), "FILE.png",
           "render one frame offscreen at --time, no display needed\n(- : to standard output)", .extensions = "png",
           .to_stdout = 1, .completes = "file"),
    OPTION("--export-pose", OPT_TEXT, F(export_pose), "FILE.obj",
           "write the skinned mesh at --time as Wavefront OBJ\n(- : to standard output)", .extensions = "obj",
           .to_stdout = 1, .completes = "file"),
    OPTION("--gif", OPT_TEXT, F(gif), "FILE.gif", "the clip as an animated GIF (once round, or --frames;\n- : to standard output)",
           .extensions = "gif", .to_stdout = 1, .completes = "file"),
    OPTION("--video", OPT_TEXT, F(video), "FILE",
           "the clip as a video (once round, or --frames): .mp4\n(H.264), .webm (VP9; with alpha when --background is\n"
           "transparent), .mkv (H.264)",
           .extensions = "mp4 webm mkv", .completes = "file"),
    OPTION("--frames", OPT_INTEGER, F(frames), "N",
           "N frames from --time on: with --screenshot out_%04d.png,\n--gif or --video", .min = 1, .max = 100000),
    OPTION("--fps", OPT_NUMBER, F(fps), "F", "frames per second of --frames / --gif / --video\n(30; GIF 15)",
           .min = 0, .max = 1000, .exclusive_min = 1),
    OPTION("--thumbnail", OPT_INTEGER, F(thumbnail), "SIZE",
           "with --screenshot: a SIZExSIZE frame of the pose halfway\nthrough the clip (or at --time), framed on it, on a\n"
           "transparent background (file managers' thumbnailer)",
           .min = 1, .max = SKV_MAX_THUMBNAIL),
    OPTION("--ref", OPT_TEXT, F(ref), "REF.png",
     "compare the --screenshot with REF (one %d with --frames): a\npixel differs when a channel is off by more than "
     "24/255; a\nmismatch writes OUT.diff.png and exits 10; a missing REF\nis status 10 too (see --ref-create)",
     .extensions = "png", .completes = "file"),
    OPTION("--ref-create", OPT_FLAG, F(ref_create), NULL, "with --ref: write a missing REF from the render"),
    OPTION("--ref-threshold", OPT_NUMBER, F(ref_threshold), "F", "fraction of pixels allowed to differ (default 0.0025)", .min = 0, .max = 1),
    OPTION("--msaa", OPT_INTEGER, F(msaa), "N", "samples per pixel for the window and --screenshot\n(default 4; 1 = off; 1..64, at most what the driver takes)",
           .min = 1, .max = 64),
    OPTION("--window-capture", OPT_TEXT, F(window_capture), "FILE.png",
     "open the window, draw one paused frame at --time,\nsave what the window shows (no HUD), close", .extensions = "png",
     .completes = "file"),
    OPTION("--screenshot-dir", OPT_TEXT, F(screenshot_dir), "DIR",
     "the window's S key saves there (default: beside the model)", .completes = "dir"),

    GROUP("camera"),
    OPTION("--frame", OPT_WORD, F(frame), "clip|pose", "frame the whole clip (default) or the pose at --time",
     .choices = {"clip", "pose"}),
    OPTION("--follow", OPT_FLAG, F(follow), NULL, "the camera follows the root motion (window: T)"),
    OPTION("--in-place", OPT_FLAG, F(in_place), NULL, "take the root's horizontal travel out (window: I)"),
    OPTION("--camera-azimuth", OPT_NUMBER, F(camera_azimuth), "DEG", "camera angle right of the front (default 25)", .min = -360, .max = 360),
    OPTION("--camera-elevation", OPT_NUMBER, F(camera_elevation), "DEG", "camera angle above the ground (default 15)", .min = -89, .max = 89),
    OPTION("--camera-zoom", OPT_NUMBER, F(camera_zoom), "Z", "distance x Z from the framed one (default 1)", .min = 0.05, .max = 100),

    GROUP("import safety"),
    OPTION("--import-timeout", OPT_NUMBER, F(import_timeout), "S",
     "give up on a file Assimp has not read in S seconds\n(default 60; 0.001..86400)", .min = 1e-3, .max = 86400),
    OPTION("--import-memory", OPT_WHOLE, F(import_memory), "MB",
     "address space Assimp may take to read a file, guarded or\nnot (default 768 or 16x the file; 1..1048576)", .min = 1, .max = 1048576),
    OPTION("--trust", OPT_FLAG, F(trust), NULL, "read and convert the file here, not in the sandboxed\nchild process"),

    GROUP("general"),
    OPTION("--debug", OPT_FLAG, F(debug), NULL, "OpenGL debug context: any GL error fails the run (status 7)"),
    OPTION("--version", OPT_VERSION, 0, NULL, "print versions (skinview, Assimp and its package) and exit"),
    OPTION("--help", OPT_HELP, 0, NULL, "this text (also -h)"),
    {.name = NULL},
};
#undef OPTION
#undef GROUP
#undef F

/* Widest side of --size. */
#define SKV_MAX_SIZE 16384

/* What a good value of `s` is, as a bad one is told. */
static void describe_expected(const option_spec *s, char *out, size_t size)
{
    switch (s->kind) {
    case OPT_NUMBER:
        if (s->exclusive_min) snprintf(out, size, "a number over %g, up to %g", s->min, s->max);
        else snprintf(out, size, "a number in %g..%g", s->min, s->max);
        return;
    case OPT_INTEGER:
    case OPT_WHOLE:
        snprintf(out, size, "a whole number in %g..%g", s->min, s->max);
        return;
    case OPT_SIZE:
        snprintf(out, size, "WxH, width and height in 1..%d, e.g. 800x600", SKV_MAX_SIZE);
        return;
    case OPT_COLOR:
        snprintf(out, size, "#rrggbb, r,g,b with each in 0..1, or transparent (none)");
        return;
    case OPT_CHOICE:
    case OPT_WORD: {
        int used = snprintf(out, size, "one of");
        for (int k = 0; k < 3 && s->choices[k] && used > 0 && (size_t)used < size; k++)
            used += snprintf(out + used, size - (size_t)used, "%s %s", k ? "," : "", s->choices[k]);
        return;
    }
    case OPT_BLEND:
        snprintf(out, size, "A,B,W: two clips (index or name) and a weight in 0..1, e.g. Walk,Run,0.5");
        return;
    case OPT_MORPH:
        snprintf(out, size, "NAME=W: a morph target (name or number) and a number, e.g. smile=0.8");
        return;
    case OPT_TEXT:
        if (s->extensions) {
            int used = snprintf(out, size, "a file name ending");
            const char *e = s->extensions;
            for (int k = 0; *e && used > 0 && (size_t)used < size; k++) {
                size_t n = strcspn(e, " ");
                used += snprintf(out + used, size - (size_t)used, "%s .%.*s", k == 0 ? "" : strchr(e, ' ') ? "," : " or",
                                 (int)n, e);
                e += n;
                e += strspn(e, " ");
            }
            if (s->to_stdout && used > 0 && (size_t)used < size) snprintf(out + used, size - (size_t)used, ", or - for standard output");
            return;
        }
        snprintf(out, size, "%s", s->value ? s->value : "a value");
        return;
    default:
        snprintf(out, size, "no value");
        return;
    }
}

int options_info(int index, skv_option_info *info)
{
    static char expects[sizeof option_table / sizeof option_table[0]][160];
    const char *group = "";
    int k = 0;
    for (const option_spec *s = option_table; s->name; s++) {
        if (s->kind == OPT_GROUP) {
            group = s->name;
            continue;
        }
        if (k++ != index) continue;
        int takes_value = s->kind > OPT_FLAG;
        size_t at = (size_t)(s - option_table);
        if (takes_value) describe_expected(s, expects[at], sizeof expects[at]);
        *info = (skv_option_info){.group = group, .name = s->name, .value = s->value, .help = s->help,
                                  .expects = takes_value ? expects[at] : NULL,
                                  .choices = s->choices[0] ? s->choices : NULL,
                                  .completes = !takes_value ? NULL
                                               : s->completes ? s->completes
                                               : (s->kind == OPT_CHOICE || s->kind == OPT_WORD) ? "word"
                                                                                                  : "text",
                                  .extensions = s->extensions};
        return 1;
    }
    return 0;
}

void options_print_help(FILE *out)
{
    enum { HELP_COLUMN = 24 };
    fprintf(out,
            "usage: skinview [MODEL...] [options]   (--name VALUE or --name=VALUE)\n"
            "  MODEL...              model files (Collada, FBX, MD5, glTF, X, ...), each in\n"
            "                        turn with the same options; output names take\n"
            "                        " SKV_MODEL_FIELD " (the model file's name less its extension);\n"
            "                        without one, the bundled %s\n",
            SKV_DEFAULT_MODEL);
    for (const option_spec *s = option_table; s->name; s++) {
        if (s->kind == OPT_GROUP) {
            fprintf(out, "%s:\n", s->name);
            continue;
        }
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
                 "  9 out of memory, 10 differs from --ref or no --ref image; with several\n"
                 "  models, that of the first that failed\n");
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

void options_quote(char *out, size_t size, const char *text, size_t length)
{
    /* text_line reads a string: the span's start, long enough that any
     * cut falls inside it (a character it shows is at most 4 bytes). */
    char part[4 * SKV_QUOTE_MAX + 8];
    size_t n = length < sizeof part - 1 ? length : sizeof part - 1;
    memcpy(part, text, n);
    part[n] = '\0';
    text_line(out, size, part, SKV_QUOTE_MAX);
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
            char shown[SKV_QUOTE_MAX + 1];
            options_quote(shown, sizeof shown, part, (size_t)length);
            for (;;) {
                const char *plus = name;
                while (plus < end && *plus != '+') plus++;
                if (plus == name) {
                    snprintf(why, why_size, "an empty bone name in '%s'", shown);
                    return -1;
                }
                if (out->mask_count == SKV_MAX_LAYER_MASK) {
                    snprintf(why, why_size, "more than %d bones in '%s'", SKV_MAX_LAYER_MASK, shown);
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
            /* strtod stops where the field does (at ':' or the end): the
             * field is a plain decimal, however many digits it has. */
            double w = plain_decimal(part + 7, length - 7) ? strtod(part + 7, NULL) : NAN;
            if (!(w >= 0.0 && w <= 1.0)) {
                char shown[SKV_QUOTE_MAX + 1];
                options_quote(shown, sizeof shown, part + 7, (size_t)(length - 7));
                snprintf(why, why_size, "weight '%s' is not a number in [0, 1]", shown);
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
                char shown[SKV_QUOTE_MAX + 1];
                options_quote(shown, sizeof shown, part, (size_t)length);
                snprintf(why, why_size, "bad field '%s'", shown);
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

int options_is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
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

/* Does `path` end with one of the space-separated `extensions` (".png";
 * any case)? */
static int has_extension(const char *path, const char *extensions)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return 0;
    size_t length = strlen(dot + 1);
    for (const char *e = extensions; *e;) {
        size_t n = strcspn(e, " ");
        if (n == length && length > 0 && strncasecmp(e, dot + 1, n) == 0) return 1;
        e += n;
        e += strspn(e, " ");
    }
    return 0;
}

/* A device or a pipe (/dev/null, /dev/stdout, a FIFO): written as it is,
 * it has no file type for a name to misstate. */
static int is_device(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The option that writes files ending like `path`, other than `s`: a
 * hint for a name given to the wrong flag. NULL when none. */
static const option_spec *writer_of(const option_spec *s, const char *path)
{
    /* The table's first writer of an extension is its main one (--screenshot before --ref for .png). */
    for (const option_spec *t = option_table; t->name; t++)
        if (t != s && t->kind == OPT_TEXT && t->extensions && has_extension(path, t->extensions)) return t;
    return NULL;
}

static const option_spec *find_option(const char *name, size_t length)
{
    for (const option_spec *s = option_table; s->name; s++)
        if (s->kind != OPT_GROUP && strlen(s->name) == length && strncmp(s->name, name, length) == 0) return s;
    return NULL;
}

/* Edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours), case ignored; stops counting past `limit`. */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb, int limit)
{
    enum { MAX = 64 };
    if (la >= MAX || lb >= MAX) return limit + 1;
    int d[MAX][MAX];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best) best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb] > limit ? limit + 1 : d[la][lb];
}

/* The options a misspelt `name` (length `length`, "--" or "-" in front)
 * most likely meant, into `out` as "--a" or "--a or --b": those it is the
 * start of (at least 3 letters), else the closest by edit distance (at most
 * 1 edit for short names, 2, or a third of the name). Empty when none is
 * close. */
static void suggest(const char *name, size_t length, char *out, size_t size)
{
    out[0] = '\0';
    char wanted[80];
    /* "-time" and "time" are read as "--time". */
    size_t dashes = strspn(name, "-");
    if (length - dashes == 0 || length - dashes + 2 >= sizeof wanted) return;
    snprintf(wanted, sizeof wanted, "--%.*s", (int)(length - dashes), name + dashes);
    size_t wl = strlen(wanted);
    const option_spec *found[3];
    int count = 0;
    if (wl >= 5)
        for (const option_spec *s = option_table; s->name && count < 3; s++)
            if (s->kind != OPT_GROUP && strncasecmp(s->name, wanted, wl) == 0) found[count++] = s;
    if (count == 0) {
        int limit = wl - 2 <= 4 ? 1 : wl - 2 <= 9 ? 2 : (int)(wl - 2) / 3;
        int best = limit + 1;
        for (const option_spec *s = option_table; s->name; s++) {
            if (s->kind == OPT_GROUP) continue;
            int d = edit_distance(wanted, wl, s->name, strlen(s->name), limit);
            if (d < best) best = d, count = 0;
            if (d == best && d <= limit && count < 3) found[count++] = s;
        }
    }
    size_t used = 0;
    for (int k = 0; k < count && used < size; k++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", k == 0 ? "" : k + 1 == count ? " or " : ", ",
                                 found[k]->name);
}

/* Stores `value` for option `s`; -1 when the value is bad, -2 when a
 * repeatable option was given too often. */
static int store_value(const option_spec *s, const char *value, skv_options *o)
{
    char *field = (char *)o + s->field;
    double v;
    switch (s->kind) {
    case OPT_TEXT:
        if (s->extensions && !(s->to_stdout && options_is_stdout(value)) && !has_extension(value, s->extensions) &&
            !is_device(value))
            return -1;
        *(const char **)field = value; /* the file itself is checked where it is used */
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
        if (strcmp(value, "transparent") == 0 || strcmp(value, "none") == 0) {
            o->transparent = 1;
            o->has_background = 0;
            return 0;
        }
        if (parse_color(value, (float *)field) != 0) return -1;
        o->has_background = 1;
        o->transparent = 0;
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

/* The one line for a bad value: what was given, what is expected, and for
 * a file name meant for another output, which. */
static skv_result bad_value(const option_spec *s, const char *value, skv_error *err)
{
    char expected[200];
    describe_expected(s, expected, sizeof expected);
    const option_spec *other = s->kind == OPT_TEXT && s->extensions ? writer_of(s, value) : NULL;
    if (other)
        return skv_fail(err, SKV_ERR_ARGUMENT, "bad value for %s: '%s' (expected %s; %s writes that)", s->name, value,
                        expected, other->name);
    return skv_fail(err, SKV_ERR_ARGUMENT, "bad value for %s: '%s' (expected %s)", s->name, value, expected);
}

/* Does the output name hold SKV_MODEL_FIELD? */
static int names_model(const char *path)
{
    return path && strstr(path, SKV_MODEL_FIELD) != NULL;
}

/* Rules between options, once all are read. */
static skv_result check_combinations(skv_options *o, skv_error *err)
{
    int sequences = (o->gif != NULL) + (o->video != NULL);
    if (sequences > 1 || (sequences && o->screenshot))
        return skv_fail(err, SKV_ERR_ARGUMENT, "one of --screenshot, --gif and --video per run");
    if (o->frames > 0 && !sequences && (!o->screenshot || !headless_frame_pattern_ok(o->screenshot)))
        return skv_fail(err, SKV_ERR_ARGUMENT,
                        "--frames needs --screenshot with one %%d in the name (e.g. out_%%04d.png; width up to %d), "
                        "--gif or --video", SKV_FRAME_WIDTH_MAX);
    if (o->ref && (!o->screenshot || options_is_stdout(o->screenshot)))
        return skv_fail(err, SKV_ERR_ARGUMENT, "--ref compares the --screenshot PNG with a reference: give --screenshot "
                        "a file");
    if (o->ref && o->frames > 0 && !headless_frame_pattern_ok(o->ref))
        return skv_fail(err, SKV_ERR_ARGUMENT, "with --frames, --ref needs one %%d in the name, like --screenshot");
    if (o->ref_create && !o->ref) return skv_fail(err, SKV_ERR_ARGUMENT, "--ref-create goes with --ref");
    if (o->screenshot_dir) {
        struct stat st;
        if (stat(o->screenshot_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return skv_fail(err, SKV_ERR_ARGUMENT, "--screenshot-dir %s: not a folder", o->screenshot_dir);
    }
    if (o->json && !o->list) return skv_fail(err, SKV_ERR_ARGUMENT, "--json goes with --list");
    if (o->layer_count > 0 && o->blend)
        return skv_fail(err, SKV_ERR_ARGUMENT, "--layer does not combine with --blend (give the base clip with --anim)");
    if (o->blend && o->instances > 0)
        return skv_fail(err, SKV_ERR_ARGUMENT,
                        "--blend does not combine with --instances (a crowd's characters play one clip each)");
    if (o->dual_quaternion && o->instances > 0)
        return skv_fail(err, SKV_ERR_ARGUMENT, "--skinning dq does not combine with --instances (crowds are linear)");
    /* Alpha: PNG and VP9 keep it; GIF and H.264 have none. */
    if (o->transparent && o->gif)
        return skv_fail(err, SKV_ERR_ARGUMENT, "--background transparent: a GIF has no alpha channel (--video "
                        "out.webm keeps it)");
    if (o->transparent && o->video && !has_extension(o->video, "webm"))
        return skv_fail(err, SKV_ERR_ARGUMENT, "--background transparent: H.264 (%s) has no alpha channel; a .webm "
                        "video (VP9) keeps it", o->video);
    if (o->video && (o->width % 2 || o->height % 2))
        return skv_fail(err, SKV_ERR_ARGUMENT, "--video needs an even width and height (the colour is stored at half "
                        "size): not %dx%d", o->width, o->height);
    if (o->thumbnail) {
        if (!o->screenshot || o->frames > 0)
            return skv_fail(err, SKV_ERR_ARGUMENT, "--thumbnail writes one --screenshot FILE.png (or -)");
        if (o->has_size) return skv_fail(err, SKV_ERR_ARGUMENT, "--thumbnail SIZE sets the size: no --size with it");
        o->width = o->height = o->thumbnail;
        if (!o->has_background) o->transparent = 1;
    }
    /* Standard output takes one output, and nothing else is printed there. */
    const char *outputs[] = {o->screenshot, o->export_pose, o->gif};
    int to_stdout = 0;
    for (size_t k = 0; k < sizeof outputs / sizeof outputs[0]; k++) to_stdout += options_is_stdout(outputs[k]);
    if (to_stdout > 1) return skv_fail(err, SKV_ERR_ARGUMENT, "only one output can go to standard output (-)");
    if (to_stdout && o->list)
        return skv_fail(err, SKV_ERR_ARGUMENT, "--list prints on standard output: no output to - with it");
    if (o->model_count > 1) {
        /* Each model writes its own files: the names must tell them apart. */
        const char *named[] = {o->screenshot, o->export_pose, o->gif, o->video, o->ref, o->window_capture};
        const char *flags[] = {"--screenshot", "--export-pose", "--gif", "--video", "--ref", "--window-capture"};
        for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
            if (options_is_stdout(named[k]))
                return skv_fail(err, SKV_ERR_ARGUMENT, "%s -: standard output takes one model's output, not %d",
                                flags[k], o->model_count);
            if (named[k] && !names_model(named[k]))
                return skv_fail(err, SKV_ERR_ARGUMENT,
                                "%s %s: with %d models each needs its own file: put " SKV_MODEL_FIELD
                                " in the name (the model file's name less its extension)",
                                flags[k], named[k], o->model_count);
        }
    }
    return SKV_OK;
}

void options_free(skv_options *o)
{
    free(o->models);
    o->models = NULL;
    o->model_count = 0;
}

skv_result options_parse(int argc, char **argv, skv_options *o, skv_error *err)
{
    /* The camera's defaults are camera.h's framing rule. */
    *o = (skv_options){.speed = 1.0, .width = 800, .height = 600, .fade = -1.0, .ref_threshold = SKV_REF_MAX_FRACTION,
                       .camera_azimuth = 25.0, .camera_elevation = 15.0, .camera_zoom = 1.0};
    o->models = calloc((size_t)(argc > 0 ? argc : 1), sizeof *o->models);
    if (!o->models) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    skv_result r = SKV_OK;
    for (int i = 1; r == SKV_OK && i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') { /* a model ("-" alone is a file name too) */
            o->models[o->model_count++] = a;
            continue;
        }
        if (strcmp(a, "-h") == 0) a = "--help";
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        size_t length = eq ? (size_t)(eq - a) : strlen(a);
        const option_spec *s = find_option(a, length);
        if (!s) {
            char guess[160];
            suggest(a, length, guess, sizeof guess);
            if (guess[0])
                r = skv_fail(err, SKV_ERR_ARGUMENT, "unknown option %.*s; did you mean %s? (see --help)", (int)length,
                             a, guess);
            else r = skv_fail(err, SKV_ERR_ARGUMENT, "unknown option %.*s (see --help)", (int)length, a);
            break;
        }
        int takes_value = s->kind > OPT_FLAG;
        if (!takes_value) {
            if (eq) {
                r = skv_fail(err, SKV_ERR_ARGUMENT, "%s takes no value", s->name);
                break;
            }
            if (s->kind == OPT_HELP) o->help = 1;
            else if (s->kind == OPT_VERSION) o->version = 1;
            else *(int *)((char *)o + s->field) = 1;
            if (o->help || o->version) return SKV_OK; /* as soon as seen, whatever follows */
            continue;
        }
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value) {
            char expected[200];
            describe_expected(s, expected, sizeof expected);
            r = skv_fail(err, SKV_ERR_ARGUMENT, "%s needs a value (%s)", s->name, expected);
            break;
        }
        int stored = store_value(s, value, o);
        if (stored == -2) r = skv_fail(err, SKV_ERR_ARGUMENT, "at most %d %s options", s->max_count, s->name);
        else if (stored == -3) {
            char shown[SKV_QUOTE_MAX + 1];
            options_quote(shown, sizeof shown, value, strlen(value));
            r = skv_fail(err, SKV_ERR_ARGUMENT, "bad %s '%s': %s", s->name, shown, o->layer_error);
        }
        else if (stored != 0) r = bad_value(s, value, err);
        else if (s->given) *(int *)((char *)o + s->given) = 1;
    }
    if (r == SKV_OK) r = check_combinations(o, err);
    if (r != SKV_OK) options_free(o);
    return r;
}
