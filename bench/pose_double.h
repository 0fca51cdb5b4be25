/* pose_double.h - a clip's palette in double precision, and how far a
 * float evaluation of it may be from it.
 *
 * The exactness check of skinview-bench (and its ctest, bench_exact)
 * holds pose_evaluate (every kernel) and pose_evaluate_reference to this.
 * It is no evaluator of the product: it reads the model's float keys as
 * pose_evaluate_reference does (keys_clip_ticks, keys_before, the
 * clamping, the shorter arc and nlerp chosen on the float dot product,
 * keys_slerp's formula, the step and cubic modes, T * R * S, the walk
 * from the root, globalInverse * global * offset), and does every
 * operation on those inputs in double. What remains between it and a
 * float evaluation is float rounding: no difference of method.
 *
 * Float rounding over a chain of d matrix products grows with d (each
 * product rounds once more, and a rotation error at the root moves every
 * bone below by its lever arm), so no one relative tolerance fits a
 * 3-bone arm and a 130-bone tentacle that curls. Each palette entry
 * comes with a bound instead: a first-order running error bound of the
 * float evaluation, walked down the same chain in double (pose_double.c
 * says how). */
#ifndef SKV_POSE_DOUBLE_H
#define SKV_POSE_DOUBLE_H

#include "error.h"
#include "model.h"

/* A 4x4 matrix in double, column-major as cglm's mat4: m[column][row]. */
typedef double pose_double_mat[4][4];

/* Float's unit roundoff, 2^-24 (half of FLT_EPSILON): every bound below
 * is a multiple of it. */
#define POSE_DOUBLE_U (1.0 / 16777216.0)

/* Constants of the bound (pose_double.c says where each comes from). */
enum {
    /* Rounding of one product's linear part (3 products summed, one
     * rounding each, or one fused multiply-add each): gamma_3. */
    POSE_DOUBLE_MUL_LINEAR = 3,
    /* Of its translation column (4 terms): gamma_4. */
    POSE_DOUBLE_MUL_TRANSLATION = 4,
    /* A sampled rotation matrix (slerp, normalisation, R(q)), in units
     * of u per unit of scale, Frobenius: unit_pose_double measures the
     * float reference's at 10.2 on random key pairs, and the corpus's
     * locals reach the same. */
    POSE_DOUBLE_ROTATION = 16,
    /* A lerped value (translation, scale) against |a| + |b|. */
    POSE_DOUBLE_LERP = 6,
    /* The safety factor on the whole bound: the fast path multiplies in
     * another order (globalInverse folded in at the root, fixed chains
     * multiplied once at compile) than the bound's walk. */
    POSE_DOUBLE_SAFETY = 2,
};

typedef struct pose_double {
    const skv_model *model;
    int node_count, bone_count;
    pose_double_mat *local;   /* per node: its local transform */
    pose_double_mat *global;  /* per node: from the root, globalInverse not in */
    pose_double_mat *palette; /* per bone: globalInverse * global(node) * offset */
    /* Per node: the running bound's state (globalInverse folded in at the
     * root, as the fast path does): the global's linear part and
     * translation, their error bounds (spectral, Euclidean; absolute). */
    double (*chain_linear)[3][3];
    double (*chain_translation)[3];
    double *error_linear, *error_translation;
    int *depth;                /* per node: products from globalInverse to it */
    /* Per bone: bounds on |float - double| of any entry of the palette's
     * linear part (columns 0-2) and of its translation (column 3),
     * absolute, the safety factor in; its depth (node's + the offset). */
    double *bound_linear, *bound_translation;
    int *bone_depth;
} pose_double;

skv_result pose_double_create(pose_double *pd, const skv_model *model); /* SKV_ERR_MEMORY */
void pose_double_destroy(pose_double *pd);

/* Clip `clip` (-1 or out of range: the rest pose) at `seconds`, as
 * pose_evaluate_reference takes them: palette, bounds. */
void pose_double_evaluate(pose_double *pd, int clip, double seconds);

/* One key array at clip time t in double, as keys_sample_vec3 and
 * keys_sample_quat sample it (the same key pair and mode); out: 3 or 4
 * values (a rotation at unit length, x y z w). */
void pose_double_sample_vec3(const skv_channel *ch, int which, double t, double out[3]); /* which: 0 T, 2 S */
void pose_double_sample_quat(const skv_channel *ch, double t, double out[4]);

#endif
