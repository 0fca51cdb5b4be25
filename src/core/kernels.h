/* kernels.h - the animation core's per-frame number crunching, in one
 * table of functions per instruction set, picked once.
 *
 * Two kernels do nearly all of pose_evaluate's arithmetic (walk.h):
 *   run     a list of 4x4 products out = a * b (the compiled walk's steps)
 *   sample  a time group's moving channels at one key pair: T and S
 *           lerped, R on the exact arc (slerp as polynomials), the local
 *           T * R * S formed, one channel per SIMD lane
 * kernels.c holds the plain C versions and the dispatch point
 * (kernels_get); kernels_x86.c every intrinsic (SSE2, AVX2 + FMA,
 * AVX-512). No kernel needs GL or Assimp. */
#ifndef SKV_KERNELS_H
#define SKV_KERNELS_H

#include <stdint.h>
#include <cglm/cglm.h>

/* One step of a compiled walk: out = a * b (4x4). Operands are byte
 * offsets: a and b into the pose's work block (its globals, then its
 * locals) when >= 0, into the walk's constants at ~a / ~b when < 0; out
 * into the work block, or the palette for palette steps. */
typedef struct skv_walk_step {
    int32_t a, b, out;
} skv_walk_step;

/* Key values of a time group, structure of arrays: per key, per block of
 * SKV_LANE_BLOCK channels, the ten components T x y z, R x y z w, S x y z,
 * each as SKV_LANE_BLOCK floats (one per channel). */
enum { SKV_LANE_BLOCK = 16, SKV_LANE_COMPONENTS = 10 };
/* A key of a channel on its own time line (sample_each): T x y z 0,
 * R x y z w, S x y z 0. */
enum { SKV_EACH_KEY_FLOATS = 12 };
/* A crowd palette entry: 3 rows of 4 floats (kernels' run_rows). */
enum { SKV_ROWS_FLOATS = 12 };
#define SKV_KEY_FLOATS(blocks) ((size_t)(blocks) * SKV_LANE_BLOCK * SKV_LANE_COMPONENTS)

/* A walk's two product lists and its constants, as vector_palette takes
 * them (one pointer, not five arguments). */
typedef struct skv_walk_lists {
    const skv_walk_step *globals;
    const skv_walk_step *palette;
    /* Palette steps whose b only translates (affine, its 3x3 exactly the
     * identity: bone offsets of a rig bound along its axes, often): a's
     * columns 0-2 are the product's as they are (a column times 1 plus
     * the others times 0, for finite a), column 3 the same sums as
     * run_palette's. */
    const skv_walk_step *translations;
    const mat4 *constants;
    int global_count, palette_count, translation_count;
    /* Every key of the group has the same T (T keyed once, as most rigs
     * key their rotating bones): the sampler takes it as it is. */
    int t_fixed;
} skv_walk_lists;

/* Which code runs (tests and the benchmark compare them). */
typedef enum skv_walk_kernel {
    SKV_WALK_AUTO,     /* the best this CPU has */
    SKV_WALK_PORTABLE, /* SSE2 on x86-64, plain C elsewhere */
    SKV_WALK_AVX2,     /* AVX2 + FMA: 8 channels, two columns per register */
    SKV_WALK_AVX512,   /* AVX-512F + DQ: 16 channels, a whole matrix per register */
    SKV_WALK_SCALAR,   /* plain C on any CPU */
    SKV_WALK_KERNEL_COUNT
} skv_walk_kernel;

typedef struct skv_kernels {
    const char *name;
    int lanes; /* channels per sample step */
    /* Runs `count` steps in order, operands as skv_walk_step says against
     * `work`, `constants` and `out`. out may not alias a or b of its step. */
    void (*run)(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out);
    /* run where every step's b is affine, its bottom row exactly 0 0 0 1
     * (the walk checks): the products by b's zeros are left out (columns
     * 0-2 take three of a's columns, column 3 adds a's fourth as it is),
     * the sums a * b has with those terms, which are exactly 0 for finite
     * a. */
    void (*run_affine)(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out);
    /* run_affine for steps whose a is always in work and b always a
     * constant (a walk's palette), without testing each operand's kind. */
    void (*run_palette)(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out);
    /* run for a crowd's palette: each product's top three rows, row-major
     * (a 3x4 matrix, 48 bytes: the bottom row of an affine matrix is
     * 0 0 0 1 and the shader does not need it), at out + step.out / 64 *
     * 48, written with non-temporal stores (out 16-byte aligned): the
     * palettes go to memory without being read into the cache first and
     * without evicting what the next character needs. fence() orders them
     * before anything stored after (call it once at the end). */
    void (*run_rows)(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out);
    void (*fence)(void);
    /* The `lane_count` channels of one time group between keys `a` and
     * `b` (their SKV_KEY_FLOATS blocks) at factor f in [0, 1], each local
     * written as a 4x4 matrix at byte offset out[lane] of `work`. Padding
     * lanes up to the next multiple of `lanes` are computed too (the walk
     * repeats its last channel there). */
    void (*sample)(const float *a, const float *b, float f, const int32_t *out, int lane_count, float *work);
    /* Channels keyed at times of their own, sampled together: lane l
     * between the key at keys[l] and the one SKV_EACH_KEY_FLOATS after it
     * (16-byte aligned), factor f[l]; lane_count a multiple of 4 (the walk
     * repeats its last channel). */
    void (*sample_each)(const float *const *keys, const float *f, const int32_t *out, int lane_count, float *work);
    /* One channel without lanes (a walk of one or two moving channels,
     * where a vector of lanes would mostly compute padding): between the
     * key at `key` and the one SKV_EACH_KEY_FLOATS after it (16-byte
     * aligned, sample_each's layout) at factor f, the local written at
     * byte offset `out` of `work`. Same slerp polynomial as the lanes. */
    void (*sample_solo)(const float *key, float f, int32_t out, float *work);
    /* sample_solo, then run_palette's `count` steps into `palette`: the
     * whole arithmetic of a walk of one channel whose palette needs no
     * global product (walk.c), in one call instead of two. */
    void (*solo_palette)(const float *key, float f, int32_t out, float *work, const skv_walk_step *steps, int count,
                         const mat4 *constants, float *palette);
    /* sample of one time group of 1-4 channels (one 4-lane vector), then
     * run_affine's globals and run_palette's palette steps (lists) into
     * `palette`: the whole arithmetic of a small walk whose products are
     * affine (walk.c), in one call instead of three. Every operand of the
     * globals is in work (a and b >= 0: moving parents and locals; the
     * walk checks); then the palette's translations. */
    void (*vector_palette)(const float *a, const float *b, float f, const int32_t *out, float *work,
                           const skv_walk_lists *lists, float *palette);
} skv_kernels;

/* The kernels `which` names; NULL if this CPU or build lacks them.
 * SKV_WALK_AUTO: the best this CPU has, settled on the first call. */
const skv_kernels *kernels_get(skv_walk_kernel which);

/* The kernel SKV_WALK_AUTO stands for here. */
skv_walk_kernel kernels_best(void);

/* Plain C kernels (kernels.c), and the x86 ones (kernels_x86.c: NULL
 * where the CPU lacks the instructions or the build is not x86-64). */
extern const skv_kernels skv_kernels_scalar;
const skv_kernels *kernels_x86(skv_walk_kernel which);

#endif
