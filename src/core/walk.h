/* walk.h - the hierarchy walk compiled into a flat list of products.
 *
 * final[b] = globalInverse * global(node of b) * offset[b] is what
 * skeleton_pose + skin_palette (anim.h) compute node by node. Per clip
 * most of that is the same every frame: which nodes have keys that move,
 * which nodes never move, which chains of nodes stay rigid. walk_compile
 * settles all of it once per clip, when the clip is first posed, into a skv_walk (model.h): per frame
 * pose_evaluate samples the moving channels into the pose's locals and
 * runs walk_run over the step lists, nothing else. */
#ifndef SKV_WALK_H
#define SKV_WALK_H

#include "model.h"

/* The walk of `clip` (NULL: the rest pose) for the model's skeleton;
 * NULL if memory runs out. The model keeps it (skv_clip.walk,
 * skv_model.rest_walk): walk_free releases it. */
skv_walk *walk_compile(const skv_model *model, const skv_clip *clip);

/* Compiles the rest pose's walk and every clip's (replacing any there);
 * 0 on success, -1 if memory ran out (those walks stay NULL and
 * pose_evaluate falls back to the reference path for them). */
int walk_compile_all(skv_model *model);

/* What the importer does instead: compiles the rest pose's walk (0, or
 * -1 if memory ran out) and drops every clip's, for walk_clip to compile
 * when the clip is first posed. A file of many clips over many nodes
 * holds a walk per clip only for the clips it plays. */
int walk_compile_rest(skv_model *model);

/* Clip c's walk (0 <= c < clip_count), compiled on its first call and
 * kept in the clip; NULL if memory ran out. Safe from several threads at
 * once (crowds pose on a pool): one compiles, the others wait for it. The
 * model is const to its callers; only this cache in it is written. */
const skv_walk *walk_clip(const skv_model *model, int c);

/* Runs `count` steps in order: out = a * b, operands resolved as
 * skv_walk_step says against `work` (the pose's globals then locals,
 * node_count matrices each), the walk's `constants` and `out`. Uses
 * AVX-512 or AVX2 + FMA where the CPU has them. */
void walk_run(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out);

/* Which code walk_run uses. */
typedef enum skv_walk_kernel {
    SKV_WALK_AUTO,     /* the best this CPU has */
    SKV_WALK_PORTABLE, /* SSE2 on x86-64, plain C elsewhere */
    SKV_WALK_AVX2,     /* AVX2 + FMA, two columns per register */
    SKV_WALK_AVX512    /* AVX-512F, the whole matrix in one register */
} skv_walk_kernel;

/* The kernel SKV_WALK_AUTO picks on this CPU. */
skv_walk_kernel walk_best_kernel(void);

/* walk_run with a chosen kernel (the tests run each against the others);
 * -1 and nothing run if this CPU or build lacks it. */
int walk_run_kernel(skv_walk_kernel kernel, const skv_walk_step *steps, int count, float *work,
                    const mat4 *constants, float *out);

#endif
