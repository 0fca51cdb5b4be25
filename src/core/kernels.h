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

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <cglm/cglm.h>

#include "keys.h" /* the clip time the frame kernels inline (keys_ticks_from) */

/* One step of a compiled walk: out = a * b (4x4). Operands are byte
 * offsets: a and b into the pose's work block (its globals, then its
 * locals) when >= 0, into the walk's constants at ~a / ~b when < 0; out
 * into the work block, or the palette for palette steps. skv_walk_lists
 * is the exception: its constants are at b itself. */
typedef struct skv_walk_step {
    int32_t a, b, out;
} skv_walk_step;

/* Key values of a time group, structure of arrays: per key, per block of
 * SKV_LANE_BLOCK channels, the ten components T x y z, R x y z w, S x y z,
 * each as SKV_LANE_BLOCK floats (one per channel). */
enum { SKV_LANE_BLOCK = 16, SKV_LANE_COMPONENTS = 10 };
/* A key pair of a time group prepared for sample_arc (walk_compile.c, where every
 * rotation key of the group is of unit length), structure of arrays as
 * the keys: per block of SKV_LANE_BLOCK channels, these components, each
 * as SKV_LANE_BLOCK floats. Slerp from q0 to q1, theta apart, is q(f) =
 * cos y m + sin y n, y = (f - 1/2) theta in [-pi/4, pi/4], m the arc's
 * midpoint and n the unit quaternion a quarter turn further, orthogonal
 * to m in the keys' plane: no dot product, angle or normalisation left
 * for the frame. T and S are lerped, T0 + f dT and S0 + f dS. */
enum {
    SKV_ARC_T0 = 0,     /* x y z */
    SKV_ARC_DT = 3,     /* x y z */
    SKV_ARC_M = 6,      /* x y z w */
    SKV_ARC_N = 10,     /* x y z w */
    SKV_ARC_S0 = 14,    /* x y z */
    SKV_ARC_DS = 17,    /* x y z */
    SKV_ARC_THETA = 20,
    SKV_ARC_COMPONENTS = 21
};
#define SKV_ARC_FLOATS(blocks) ((size_t)(blocks) * SKV_LANE_BLOCK * SKV_ARC_COMPONENTS)
/* Where lane l's first component lies in keys or arcs of blocks
 * block_floats long (SKV_KEY_FLOATS(1), SKV_ARC_FLOATS(1)): its block,
 * then its place in the block. */
static inline size_t kernels_lane_at(int l, size_t block_floats)
{
    return (size_t)(l / SKV_LANE_BLOCK) * block_floats + (size_t)(l % SKV_LANE_BLOCK);
}
/* A key of a channel on its own time line (sample_each): T x y z 0,
 * R x y z w, S x y z 0. */
enum { SKV_EACH_KEY_FLOATS = 12 };
/* A one-channel walk's key pair prepared for solo_frame: a head of
 * SKV_SOLO_HEAD floats (the arc's angles and lengths, kernels_solo_arc),
 * then for the local and for each palette entry its SKV_SOLO_TERMS
 * matrices (16 floats each, column-major). */
enum { SKV_SOLO_TERMS = 6, SKV_SOLO_HEAD = 16 };
#define SKV_SOLO_PAIR_FLOATS(count) (SKV_SOLO_HEAD + ((size_t)(count) + 1) * SKV_SOLO_TERMS * 16)
/* A crowd palette entry: 3 rows of 4 floats (kernels' run_rows). */
enum { SKV_ROWS_FLOATS = 12 };
/* Two crowd palette entries' products as rows_palette takes them: for
 * each entry e, a[e] the moving global (byte offset in the work block),
 * b a constant with an exact 0 0 0 1 bottom row, out[e] the entry's byte
 * offset in the rows (48 per entry). b's top three rows are stored here
 * row-major, the two entries' row k side by side in b[k] (walk_compile.c prepares
 * them when compiling: no transpose a frame; 256-bit kernels take a row of
 * both entries in one register). An odd last pair repeats its entry.
 * 128 bytes, two cache lines, b 32-byte aligned. */
typedef struct skv_rows_pair {
    float b[3][8];
    int32_t a[2], out[2];
    int32_t unused[4];
} skv_rows_pair;
#define SKV_KEY_FLOATS(blocks) ((size_t)(blocks) * SKV_LANE_BLOCK * SKV_LANE_COMPONENTS)

/* A time group's keys compacted (walk_compile.c, compact_keys): where no
 * channel's S changes and at most a few channels' T does (most rigs key
 * only rotations past the root: the BVH files, Fox.glb), a key holds the
 * rotations alone, R x y z w each `stride` floats (one per lane; stride
 * the lanes rounded up to 8), then 3 floats (T x y z) per channel whose
 * T moves, the key padded to a multiple of 8 floats
 * (SKV_COMPACT_KEY_FLOATS); the T and S that never change are stored
 * once (`fixed`). sample_compact samples the lanes with that T and S as
 * they are, then lerps the moving T's into their locals
 * (kernels_compact_patch). A key is 2.5x or more smaller than
 * SKV_KEY_FLOATS' (no T, S, nor a whole block of padding lanes): a
 * seek, and playback past the caches, reads that much less. */
typedef struct skv_compact {
    const float *fixed;   /* T x y z, S x y z, each `stride` floats */
    const int32_t *t_out; /* per moving T: its local's byte offset in the work block */
    int stride;           /* a multiple of 8 */
    int t_count;          /* channels whose T moves */
    int t_at;             /* compacted arcs (SKV_CARC_M): floats from a pair to its moving T's */
} skv_compact;
#define SKV_COMPACT_KEY_FLOATS(stride, t_count) (((size_t)4 * (size_t)(stride) + 3 * (size_t)(t_count) + 7) / 8 * 8)

/* A time group's prepared arcs compacted (walk_compile.c, prepare_arcs):
 * a group compact_keys would compact (S fixed in every channel, T in all
 * but a few) whose key pairs are arcs keeps per pair only the rotation's
 * terms, per block of SKV_LANE_BLOCK lanes these components, each as
 * SKV_LANE_BLOCK floats (the arcs' blocks: a vector's components at
 * fixed offsets, as sample_arc loads them): m x y z w, n x y z w, theta;
 * then per channel whose T moves 8 floats: T0 x y z 1, dT x y z 0 (the
 * arc's own, so its T0 + f dT, and the 1 its local has in entry 15). The
 * T and S that never change are skv_compact's `fixed` (stride: the
 * group's lanes; t_at: the pair's floats before its moving T's), per
 * block T x y z, S x y z, 2 S x y z, each as the arc's T0 + f
 * dT gives it for dT = 0 (a -0 as +0). sample_arc_compact samples the
 * lanes with them as they are, then writes the moving T's into their
 * locals: the locals sample_arc forms, bit for bit, from 9 floats a lane
 * a pair instead of 21. */
enum { SKV_CARC_M = 0, SKV_CARC_N = 4, SKV_CARC_THETA = 8, SKV_CARC_COMPONENTS = 9, SKV_CARC_T_FLOATS = 8,
       SKV_CARC_FIXED_COMPONENTS = 9 };
#define SKV_CARC_FLOATS(blocks) ((size_t)(blocks) * SKV_LANE_BLOCK * SKV_CARC_COMPONENTS)
/* The fixed T and S laid out as a pair's blocks, T x y z, S x y z, 2 S x y
 * z (the rotation's scale, which the frame then need not form): a lane's
 * T and S at its rotation terms' offset, one index for both. */
#define SKV_CARC_FIXED_FLOATS(blocks) SKV_CARC_FLOATS(blocks)
/* A compacted pair's floats: 64-byte aligned pairs for AVX-512's loads. */
#define SKV_COMPACT_ARC_FLOATS(blocks, t_count)                                                                        \
    (SKV_CARC_FLOATS(blocks) + ((size_t)SKV_CARC_T_FLOATS * (size_t)(t_count) + 15) / 16 * 16)

/* The moving T's of a compacted pair (keys a and b) at factor f, lerped
 * as the reference lerps them, into their locals' translations. */
static inline void kernels_compact_patch(const float *a, const float *b, float f, const skv_compact *c, float *work)
{
    const float *pa = a + 4 * (size_t)c->stride, *pb = b + 4 * (size_t)c->stride;
    for (int j = 0; j < c->t_count; j++) {
        float *m = (float *)((char *)work + c->t_out[j]) + 12;
        for (int k = 0; k < 3; k++) m[k] = pa[3 * j + k] + f * (pb[3 * j + k] - pa[3 * j + k]);
    }
}

/* A walk's two product lists and its constants, as vector_palette takes
 * them (one pointer, not five arguments). Unlike skv_walk_step's other
 * lists, a b that is a constant (palette, translations, a leaf's first
 * step) holds the constant's byte offset itself, not its complement:
 * every such b is one, and undoing the complement cost each product two
 * instructions. */
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
    /* Leaf entries, each two steps: (L, b, T), T = L b into work at T
     * (b a constant, only translating for the first leaf_translations,
     * as translations' b), then (A, T, out), A T into the palette: an
     * entry A L b whose A is itself a product of the frame, formed as A
     * (L b) so that L b need not wait for A (walk_compile.c, vector_leaves). */
    const skv_walk_step *leaves;
    int global_count, palette_count, translation_count, leaf_count, leaf_translations;
    /* Every key of the group has the same T (T keyed once, as most rigs
     * key their rotating bones): the sampler takes it as it is. */
    int t_fixed;
    /* The group's key pairs are prepared arcs (1: SKV_ARC_FLOATS each;
     * 2, vector_wide's only: compacted, SKV_CARC_M, `compact` their
     * descriptor): vector_palette's a is one, sampled as sample_arc
     * (sample_arc_compact) samples it, and b is not read. One value, not
     * a test of `compact` too: the full arcs' frame makes one test, as
     * before compacted arcs. */
    int arc;
    /* The group's channels: vector_wide samples this many (and the
     * scalar kernel, both entries); vector_palette always 4 lanes. */
    int lanes;
    /* The group's keys compacted (vector_wide's only: past 4 channels),
     * a and b then compacted keys, sampled by sample_compact; else NULL. */
    const skv_compact *compact;
} skv_walk_lists;
/* A walk of one moving channel whose frame is one kernel call
 * (solo_frame), as walk_compile.c prepares it. */
typedef struct skv_solo {
    const double *times;        /* key_count >= 2 key times */
    const double *inv_span;     /* per key pair: 1 / its span (0 for an empty one) */
    int key_count;
    int32_t out;                /* the channel's local: byte offset in the work block */
    const float *terms;         /* per key pair, pair_floats floats (kernels_solo_pair) */
    size_t pair_floats;
    const skv_walk_step *steps, *steps_end; /* the palette's: a the local, b a constant */
    int weighted;               /* pairs prepared for solo_frame_weighted (keys not of unit length) */
    /* The key pair and factor at `ticks` where playback's step does not
     * find them (a seek, a jump, before the first key or after the last):
     * the walk's own search, with `group` (walk.c, group_key). */
    int (*key_at)(const struct skv_solo *solo, double ticks, int *cursor, float *f);
    const void *group;
    /* Keys per tick where the key times are evenly spaced (walk_compile.c,
     * even_key_rate), else 0: a seek then computes its pair in the kernel
     * (kernels_solo_search) instead of calling key_at. */
    double key_rate;
    double key_origin; /* times[0] x key_rate: the seek's estimate is one fused multiply-add */
    /* Key k at exactly k x span from 0, span a power of two (whole
     * ticks: Half-Life MDL, BVH, MD5): t x key_rate is exact, and its
     * whole part and the rest are the pair and the factor, bit for bit
     * what the exact times give (walk_compile.c, exact_grid; the x86
     * kernels' solo_grid seeks so). */
    int exact_grid;
} skv_solo;

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
    /* run_affine for a list most of whose steps read the step before's
     * product (a chain: the walk picks it): that operand taken from the
     * registers it was formed in where the set can (AVX2), not reloaded
     * from where it was just stored. The same products. */
    void (*run_chain)(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out);
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
    /* run_rows for a palette whose steps are prepared in `count` pairs
     * (skv_rows_pair): the same sums in the same order, b's bottom row
     * 0 0 0 1 taken as known, so the same rows. */
    void (*rows_palette)(const skv_rows_pair *pairs, int count, const float *work, float *out);
    void (*fence)(void);
    /* The `lane_count` channels of one time group between keys `a` and
     * `b` (their SKV_KEY_FLOATS blocks) at factor f in [0, 1], each local
     * written as a 4x4 matrix at byte offset out[lane] of `work`. Padding
     * lanes up to the next multiple of `lanes` are computed too (the walk
     * repeats its last channel there). */
    void (*sample)(const float *a, const float *b, float f, const int32_t *out, int lane_count, float *work);
    /* sample on a prepared key pair (SKV_ARC_FLOATS(blocks) floats at
     * `arc`, SKV_ARC_M's layout): the same locals to float rounding (the
     * rotation ~3e-7 from the exact arc's, against the lanes' ~7e-7) with
     * a chain half as long. */
    void (*sample_arc)(const float *arc, float f, const int32_t *out, int lane_count, float *work);
    /* Channels keyed at times of their own, sampled together: lane l
     * between the key at keys[l] and the one SKV_EACH_KEY_FLOATS after it
     * (16-byte aligned), factor f[l]; lane_count a multiple of 4 (the walk
     * repeats its last channel). */
    void (*sample_each)(const float *const *keys, const float *f, const int32_t *out, int lane_count, float *work);
    /* One channel without lanes (a group of one moving channel, where a
     * vector of lanes would mostly compute padding): between the
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
     * run_affine's globals and the palette's steps (lists) into
     * `palette`: the whole arithmetic of a small walk whose products are
     * affine (walk.c), in one call instead of three. Every operand of the
     * globals is in work (a and b >= 0: moving parents and locals; the
     * walk checks); then the palette's translations. */
    void (*vector_palette)(const float *a, const float *b, float f, const int32_t *out, float *work,
                           const skv_walk_lists *lists, float *palette);
    /* vector_palette for more channels (lists->lanes), sampled by the
     * set's own sample or sample_arc: a function of its own, so that
     * vector_palette makes no call and keeps no frame (with the call
     * inside, its saved registers cost every few-bone frame). */
    void (*vector_wide)(const float *a, const float *b, float f, const int32_t *out, float *work,
                        const skv_walk_lists *lists, float *palette);
    /* A whole frame of a walk of one channel whose key pairs are
     * prepared (kernels_solo_pair): the clip's time (keys_ticks_from
     * the pose's `loops`),
     * the key pair (kernels_solo_step), then each palette entry as a sum
     * of six matrices weighted by 1, f, cos y, sin y, f cos y and f sin y,
     * y = (2f - 1) theta: no slerp weights, normalisation, T * R * S or
     * product left for the frame. Palette entry k goes to byte offset
     * solo->steps[k].out of `palette`; `cursor`: the group's. The local,
     * which only globals the palette does not need read, is left
     * unformed: its slot (byte offset solo->out of `work`) holds the pair
     * and factor, and 0 where a local has its 1 (entry 15), until
     * kernels_solo_local forms it. */
    void (*solo_frame)(const skv_solo *solo, double seconds, double ticks_per_second, double duration, int *cursor,
                       float *work, float *palette, double *loops);
    /* solo_frame for pairs prepared with `weighted` (keys not all of unit
     * length): the weights are the reference slerp's own, on the keys as
     * they are, and cos 2psi, sin 2psi of the direction their sum takes
     * stand for cos y and sin y (kernels_solo_arc). */
    void (*solo_frame_weighted)(const skv_solo *solo, double seconds, double ticks_per_second, double duration,
                                int *cursor, float *work, float *palette, double *loops);
    /* sample on compacted keys a and b (skv_compact): the lanes up to
     * lane_count (and padding up to the vector), then the moving T's. */
    void (*sample_compact)(const float *a, const float *b, float f, const int32_t *out, int lane_count, float *work,
                           const skv_compact *compact);
    /* sample_arc on a compacted arc pair (SKV_COMPACT_ARC_FLOATS at `arc`,
     * skv_compact `compact`): the lanes up to lane_count (and padding up
     * to the vector), then the moving T's; the locals sample_arc forms
     * from the full pair, bit for bit. */
    void (*sample_arc_compact)(const float *arc, float f, const int32_t *out, int lane_count, float *work,
                               const skv_compact *compact);
    /* A layered frame's locals (layer_lanes.h) by the lanes' AVX2 build
     * beside these kernels (AVX2's and AVX-512's: the CPU has AVX2 and
     * FMA), the portable build otherwise. */
    int layer_lanes_avx2;
} skv_kernels;

/* solo_frame's key pair i and factor f at `ticks` in playback's case:
 * the cursor's pair holds the time, or the next pair does (then the time
 * is inside the keys and only the top of f is clamped, as walk.c's
 * group_key does it); 0 for anything else, which kernels_solo_seek
 * (evenly spaced keys) or the walk's search (solo->key_at) answers. Inline in each kernel's solo_frame. */
static inline int kernels_solo_step(const skv_solo *solo, double t, int *cursor, int *pair, float *f)
{
    int i = *cursor;
    if (!((unsigned)i < (unsigned)(solo->key_count - 1))) return 0;
    const double *key = solo->times + i;
    if (!(key[0] < t)) return 0; /* on a key: the search (the first key's time may hold two keys) */
    if (!(t < key[1])) { /* the next pair, if there is one */
        if (!(i + 2 < solo->key_count && t < key[2])) return 0;
        *cursor = ++i, key++;
    }
    float x = (float)((t - key[0]) * solo->inv_span[i]);
    *f = x < 1.0f ? x : 1.0f;
    *pair = i;
    return 1;
}

/* solo_frame's key pair and factor where playback's step did not find
 * them, for evenly spaced keys (solo->key_rate > 0; the kernels call
 * solo->key_at, the walk's search, otherwise): (t - times[0]) *
 * key_rate, clamped to the pairs, is t's pair or a neighbour (walk_compile.c,
 * even_key_rate: every time within a quarter spacing of the grid, so the
 * times rise strictly), settled on the exact times. Before the first key
 * that leaves pair 0 at f = 0 and after the last the last pair at f = 1,
 * the pairs and factors group_key gives, so the same palette. f clamped
 * in float: the same value as clamping the double first. No call: inline
 * in each kernel's frame, which keeps no stack frame for it. Its fix-up
 * steps are walk.c group_seek's, written out in each: one shared inline
 * function cost the one-channel frame instructions in playback too, and
 * group_seek's seeks. */
static inline int kernels_solo_seek(const skv_solo *solo, double t, int *cursor, float *f)
{
    const double *times = solo->times;
    int last = solo->key_count - 2;
    /* t x rate - origin: one fused multiply-add where the kernel has FMA
     * (contracted), where (t - times[0]) x rate was a subtraction, then a
     * product, on the seek's critical path (it is latency-bound: bench/NOTES.md
     * v7v). A rounding apart; the steps below settle on the exact times. */
    double g = t * solo->key_rate - solo->key_origin;
    int i = !(g > 0.0) ? 0 : g < (double)last ? (int)g : last;
    while (i > 0 && times[i] > t) i--;
    while (i < last && times[i + 1] <= t) i++;
    *cursor = i;
    float x = (float)((t - times[i]) * solo->inv_span[i]);
    *f = x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
    return i;
}

/* A square taken as at least 2^-30 (arc_one's z, kernels_arc_weight's
 * x^2; the lanes' floors in kernels_x86_lanes.h are the same, but for
 * their arc_weight's 2^-24, see there): every polynomial there
 * rounds to its constant term below that, so the values are the same,
 * but no power of the square falls under float's normal range (a
 * subnormal number is an Intel CPU's microcode assist, ~100+ cycles an
 * instruction: bench/NOTES.md v7r). Written as a comparison, not fmaxf,
 * which GCC calls out of line without -ffinite-math-only; a NaN square
 * stays NaN. */
static inline float kernels_square_floor(float square)
{
    return square < 0x1p-30f ? 0x1p-30f : square;
}

/* sin y and cos y for |y| <= pi/2 (solo_frame's weights): y + y^3 P(y^2)
 * and 1 + y^2 Q(y^2), P of degree 3 and Q of degree 4 fitted for the
 * least largest error there (Remez: 4.6e-9 and 2.4e-10 with these
 * coefficients in double; in float arithmetic, the rounding of the
 * result, ~1.3e-7, dominates). Scalar, inline in each kernel (fused
 * multiply-adds where it is built for FMA). */
static inline void kernels_sin_cos(float y, float *s, float *c)
{
    float y2 = y * y;
    float ps = 2.600054813e-6f, pc = -2.607710599e-7f;
    ps = ps * y2 - 1.980661473e-4f, pc = pc * y2 + 2.476188638e-5f;
    ps = ps * y2 + 8.333017118e-3f, pc = pc * y2 - 1.388840377e-3f;
    ps = ps * y2 - 1.666665673e-1f, pc = pc * y2 + 4.166664183e-2f;
    pc = pc * y2 - 0.5f;
    /* y (1 + y^2 P), not y y^2 P + y: y^3 is subnormal for |y| < 2.3e-13
     * (creeping keys near a pair's middle; twist.dae's held keys before
     * kernels.c's arc_flush), a microcode assist on Intel CPUs
     * (bench/NOTES.md v7r). With fused multiply-adds nothing here is
     * subnormal down to |y| ~ 1e-19; without them (the portable and scalar
     * kernels) Horner's first products, 2.6e-6 y^2, are below |y| ~ 7e-17
     * (keys creeping a float step apart: left, as those kernels run only
     * where FMA is missing). As many instructions, one more rounding (the
     * result's ~1.3e-7 above still dominates). */
    *s = y * (y2 * ps + 1.0f);
    *c = pc * y2 + 1.0f;
}

/* sin y / y and cos y for |y| <= pi/4 (sample_arc's y = (f - 1/2) theta),
 * as 1 + z (s1 + s2 z + s3 z^2) and 1 + z (c1 + c2 z + c3 z^2 + c4 z^3),
 * z = y^2, minimax for the relative error with the constant exactly 1
 * (Remez). With the coefficients in float: sin within 5.9e-9, cos 3.1e-9
 * relative, sin^2 + cos^2 within 1.1e-8 of 1 (the rotation takes q = cos
 * y m + sin y n unnormalised), the angle within 2.6e-9. Taylor's series
 * needs y^9 and y^10 for as little, and z^4 on the frame's chain; a cubic
 * cosine (3.8e-8, sin^2 + cos^2 within 7.3e-8) cost palettes up to 20%
 * of their error against double (a helper's review). */
#define KERNELS_ARC_S1 -0.16666654609548662f
#define KERNELS_ARC_S2 0.008332160761860436f
#define KERNELS_ARC_S3 -0.00019515283192062048f
#define KERNELS_ARC_C1 -0.4999999969447595f
#define KERNELS_ARC_C2 0.0416666203571296f
#define KERNELS_ARC_C3 -0.00138866816479864f
#define KERNELS_ARC_C4 2.4383567315761195e-05f

/* k sinc(k theta) = sin(k theta) / theta for k theta in [0, pi/2]: slerp's
 * weight without its 1 / sin theta (the lanes' arc_weight, scalar).
 * Taylor to x^10, the next term under 4e-8 there; theta 0 gives k. */
static inline float kernels_arc_weight(float k, float theta)
{
    float x = k * theta, x2 = kernels_square_floor(x * x);
    float p = -1.0f / 39916800.0f;
    p = p * x2 + 1.0f / 362880.0f;
    p = p * x2 - 1.0f / 5040.0f;
    p = p * x2 + 1.0f / 120.0f;
    p = p * x2 - 1.0f / 6.0f;
    p = p * x2 + 1.0f;
    return k * p;
}

/* The two weights of a prepared pair at factor f, for its matrices K1 and
 * K2 (Kc and Ks). Unit keys: cos y and sin y, y = (2f - 1) theta (head:
 * 2 theta, -theta). Weighted: the reference's slerp weights wa, wb for
 * the keys' own dot product (head[0]: its angle, 0 where the reference
 * takes normalised lerp), the sum's parts along q0 and p, u = wa |a| + wb
 * |b| cos theta and v = wb |b| sin theta (head 1-3: the lengths and
 * angle), and the direction psi the normalised sum takes: cos 2psi = (u^2
 * - v^2) / (u^2 + v^2), sin 2psi = 2uv / (u^2 + v^2). */
static inline void kernels_solo_arc(const float *head, int weighted, float f, float *c, float *s)
{
    if (!weighted) {
        kernels_sin_cos(f * head[0] + head[1], s, c);
        return;
    }
    float wa = kernels_arc_weight(1.0f - f, head[0]), wb = kernels_arc_weight(f, head[0]);
    float u = wa * head[1] + wb * head[2], v = wb * head[3];
    float uu = u * u, vv = v * v, inv = 1.0f / (uu + vv);
    *c = (uu - vv) * inv;
    *s = 2.0f * u * v * inv;
}

/* What solo_frame leaves in the local's slot instead of the local: the
 * pair i, the factor f, and 0 where a local has its 1 (entry 15). */
static inline void kernels_solo_stash(float *local, int i, float f)
{
    memcpy(local, &i, sizeof i);
    local[1] = f;
    local[15] = 0.0f;
}

/* The local a solo_frame left unformed in `work` (kernels_solo_stash),
 * formed from the prepared pair; a local already formed (the other paths
 * sample it whole: its entry 15 is 1) is left as it is. Plain C: only
 * pose_globals asks for it. */
void kernels_solo_local(const skv_solo *solo, float *work);

/* How far from 1 a rotation key's length may be for kernels_solo_pair's
 * unit pairs and kernels_arc_pair's arcs, which follow the keys' unit
 * arc: float-normalised keys are within ~1.2e-7, the corpus' within
 * 3.4e-7 (Testwuson's and BCN's up to 9.7e-7, which keep the lanes and
 * the weighted pairs). The reference blends keys at their lengths, and
 * keys 1 -+ 8e-7 long on the unit arc were ~4e-7 from it, twice float
 * rounding (a helper's review; test_sample_arc, test_solo_unit_tolerance). */
#define KERNELS_UNIT_KEY 4e-7

/* Prepares the key pair at `key` (two keys as sample_solo reads them,
 * SKV_EACH_KEY_FLOATS apart, rotations in one hemisphere) for solo_frame
 * (`weighted` 0) or solo_frame_weighted, with the palette steps'
 * constants b (their a: the channel's local), into `pair`
 * (SKV_SOLO_PAIR_FLOATS(count) floats, 64-byte aligned). Returns 0,
 * leaving `pair` unusable, for a key of length 0 or not finite, with
 * `weighted` for a key shorter than 1e-9 or longer than 1e17 (the
 * frame's 1 / (u^2 + v^2) would overflow), and
 * without `weighted` for a key not of unit length to KERNELS_UNIT_KEY: the reference
 * normalises slerp's weighted sum, which for keys of other lengths is
 * not the arc solo_frame follows (solo_frame_weighted follows it). */
int kernels_solo_pair(const float *key, int weighted, const skv_walk_step *steps, int count, const mat4 *constants,
                      float *pair);

/* Prepares the key pair a, b (each SKV_KEY_FLOATS(blocks) floats, every
 * lane's rotations in one hemisphere, as walk_compile.c stores them) as an arc
 * for sample_arc, into `arc` (SKV_ARC_FLOATS(blocks) floats, 64-byte
 * aligned), in double precision, rounded once. Returns 0, leaving `arc`
 * unusable, where a lane's rotation key is not of unit length to KERNELS_UNIT_KEY
 * or not finite, or its keys are not in one hemisphere: the reference
 * normalises slerp's weighted sum, which for keys of other lengths is
 * not the arc of their directions (the lanes' sampler follows it). */
int kernels_arc_pair(const float *a, const float *b, int blocks, float *arc);

/* A prepared pair (kernels_arc_pair's `arc`, `blocks` blocks) compacted
 * into `pair` (SKV_COMPACT_ARC_FLOATS(blocks, t_count) floats, 16-byte
 * aligned): its rotation terms, then the T0 and dT of lanes t_lane[0 ..
 * t_count - 1]. With `fixed` not NULL, every lane's T and S too, as
 * skv_compact's `fixed` takes them (SKV_CARC_FIXED_FLOATS(blocks)). */
void kernels_arc_compact(const float *arc, int blocks, const int *t_lane, int t_count, float *pair, float *fixed);

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
