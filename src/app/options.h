/* options.h - the skinview command line: one table of options, from which
 * both the parser and --help are made.
 *
 * Usage:
 *     skv_options o;
 *     skv_error err;
 *     if (options_parse(argc, argv, &o, &err) != SKV_OK) { print err; exit 2 }
 *     if (o.help) options_print_help(stdout);
 *     ... o.models[0 .. o.model_count - 1] ...
 *     options_free(&o);
 *
 * Every option is `--name VALUE` or `--name=VALUE`; values are checked
 * here (ranges, sizes, colours, file name patterns and extensions), so the
 * rest of the program gets only values it can use. The parser prints
 * nothing: a bad command line comes back as SKV_ERR_ARGUMENT with one line
 * in `err` that says what was expected.
 *
 * The table is public through options_info, for whatever else is made
 * from it (a man page, shell completion), so that it cannot drift from
 * --help. */
#ifndef SKV_OPTIONS_H
#define SKV_OPTIONS_H

#include <stdio.h>

#include "error.h"

/* --anim-file may be given this many times; --morph likewise. */
#define SKV_MAX_ANIM_FILES 64
#define SKV_MAX_MORPHS 64
/* --layer may be given this many times (layers.h: SKV_LAYERS_MAX), with
 * up to this many nodes in a mask. */
#define SKV_MAX_LAYERS 32
#define SKV_MAX_LAYER_MASK 64
/* The bundled model opened when none is given. */
#define SKV_DEFAULT_MODEL "mannequin.glb"
/* An output file name's place for the model file's stem (several models
 * per run write one file each). */
#define SKV_MODEL_FIELD "{model}"
/* --thumbnail SIZE: each side in 1..this. */
#define SKV_MAX_THUMBNAIL 4096

/* A part of a command-line argument (not NUL-terminated there). */
typedef struct skv_text_span {
    const char *at; /* NULL: not given */
    int length;
} skv_text_span;

/* --layer CLIP[:mask=BONE[+BONE...]][:additive[=REFCLIP]][:weight=W], read
 * (options_parse_layer); names are resolved against the model later. */
typedef struct skv_layer_spec {
    const char *text; /* as given */
    skv_text_span clip;
    skv_text_span mask[SKV_MAX_LAYER_MASK];
    int mask_count;   /* 0: every node */
    int additive;
    skv_text_span reference; /* additive=REFCLIP; at NULL: the layer's own clip */
    double weight;    /* in [0, 1]; 1 when not given */
} skv_layer_spec;

typedef struct skv_options {
    int help, version; /* --help / -h, --version: print and exit */
    const char **models; /* the MODEL arguments in order (none: the default model) */
    int model_count;
    const char *anim;
    const char *anim_files[SKV_MAX_ANIM_FILES]; /* --anim-file, in order */
    int anim_file_count;
    int retarget;         /* --retarget (--bone-map implies it) */
    const char *bone_map; /* --bone-map MAP.json */
    double time;
    int has_time; /* --time was given */
    double speed;
    int width, height;
    int has_size; /* --size was given */
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
    const char *blend;   /* --blend A,B,W as given; its parts: */
    char blend_a[256], blend_b[256];
    double blend_weight;
    skv_layer_spec layers[SKV_MAX_LAYERS]; /* --layer, in order */
    int layer_count;
    char layer_error[256]; /* why the last --layer was refused */
    int dual_quaternion; /* --skinning dq */
    /* Views. */
    int skeleton, influence_count, wireframe, normals, grid, axes;
    const char *weights; /* bone name or index */
    float background[3];
    int has_background;
    int transparent; /* --background transparent (or none): alpha 0 where nothing is drawn */
    int frames; /* --frames N with --screenshot PATTERN */
    double fps;
    const char *gif;
    const char *video;    /* --video FILE.mp4|.webm|.mkv */
    int thumbnail;        /* --thumbnail SIZE: a SIZExSIZE transparent frame of a telling pose */
    int json;             /* --list --json */
    const char *ref;      /* --ref REF.png (a pattern with --frames) */
    int ref_create;       /* --ref-create: a missing REF is written, not an error */
    double ref_threshold; /* --ref-threshold: fraction of pixels allowed to differ */
    double fade;          /* < 0: default */
    int follow, in_place; /* --follow, --in-place */
    const char *screenshot_dir; /* --screenshot-dir: the window's S key saves there */
    const char *frame;          /* --frame clip|pose */
    double camera_azimuth, camera_elevation, camera_zoom;
    const char *morphs[SKV_MAX_MORPHS]; /* --morph NAME=W, in order */
    int morph_count;
    int msaa; /* --msaa N: samples per pixel (1 = off); 0: the renderer's default */
} skv_options;

/* Fills `o` from the command line (the defaults first). SKV_OK, or
 * SKV_ERR_ARGUMENT with one line in `err` (and nothing to free). */
skv_result options_parse(int argc, char **argv, skv_options *o, skv_error *err);
/* Frees what options_parse allocated (the model list). */
void options_free(skv_options *o);

/* The standard output as a file name ("-"): --screenshot, --export-pose
 * and --gif write there. */
int options_is_stdout(const char *path);

/* One option of the table, for what is generated from it. */
typedef struct skv_option_info {
    const char *group;  /* its --help heading: "input", "time and clips", "views", "outputs", "camera",
                           "import safety", "general" */
    const char *name;   /* "--time" */
    const char *value;  /* the value's name ("SECONDS", "FILE.png"); NULL for a flag */
    const char *help;   /* lines separated by '\n' */
    const char *expects; /* what a good value is, as a bad one is told ("a number in -1e+06..1e+06"); NULL for a flag */
    const char *const *choices; /* the words the value is one of, NULL-terminated; NULL when free */
    /* What completes the value: "file" (extensions: the names it writes or
     * reads end so, space-separated, e.g. "mp4 webm mkv"; NULL: any),
     * "dir", "clip" (of the model on the line), "bone", "morph", "word"
     * (one of `choices`), "text" (anything: a number, a size, a colour). */
    const char *completes;
    const char *extensions;
} skv_option_info;

/* The index-th option in --help's order: 1 and `info` filled, 0 past the
 * last. */
int options_info(int index, skv_option_info *info);

/* --help: generated from the option table. */
void options_print_help(FILE *out);

/* Reads one --layer SPEC into *out: 0, or -1 with the reason (naming the
 * part) in `why`. The SPEC is split only at a ':' that starts "mask=",
 * "weight=" or "additive" (then '=', ':' or the end), so names may hold
 * ':' (Mixamo's "mixamorig:Spine"). */
int options_parse_layer(const char *spec, skv_layer_spec *out, char *why, size_t why_size);

/* `length` bytes of `text` as a message quotes them (text.h, text_line):
 * whole where they fit `size` and SKV_QUOTE_MAX characters, else their
 * start cut at a character and "…": a line that says what is wrong with
 * a long SPEC, not the SPEC. */
enum { SKV_QUOTE_MAX = 80 };
void options_quote(char *out, size_t size, const char *text, size_t length);

/* A number: all of `text`, as strtod reads it. -1 when it is not. */
int options_parse_number(const char *text, double *out);


#endif
