/* skin_bound.h - how far a skinned mesh can reach, a cluster of vertices
 * at a time.
 *
 * A vertex blended with weights that sum to 1 lies in the convex hull of
 * its bones' images of it (palette[b] * v). So the largest value a linear
 * function of the skinned points takes on a cluster of vertices is at
 * most the largest, over the bones the cluster's vertices use, of that
 * function on the bone's image of the cluster's rest box: its cost is per
 * cluster and bone, not per vertex. Vertices are clustered by the bone
 * that weighs most on them and, within it, by where they are, so that the
 * boxes stay small; neighbouring clusters of one bone are grouped, so that
 * a whole group can be passed over at once. A caller after the extremes of
 * a few linear functions over many poses (camera framing) blends only the
 * clusters whose bound can still beat what it has found.
 *
 * Vertices the convex-hull rule does not cover (weights not summing to 1,
 * no usable influence, a bone outside the palette, a rest position that is
 * not finite) are listed apart, for the caller to blend every time. */
#ifndef SKV_SKIN_BOUND_H
#define SKV_SKIN_BOUND_H

#include <cglm/cglm.h>

#include "error.h"
#include "model.h"

/* The most linear functions skin_bound_prepare takes. */
#define SKIN_BOUND_MAX_FUNCTIONS 24 /* a multiple of 4 */

/* A cluster of vertices, or a group of clusters. */
typedef struct skv_skin_span {
    float lo[3], hi[3];         /* rest box of its vertices */
    int first, count;           /* vertices order[first ..] of a cluster; clusters[first ..] of a group */
    int bone_first, bone_count; /* bones[bone_first ..]: every bone its vertices blend */
} skv_skin_span;

typedef struct skv_skin_bound {
    const skv_model *model;
    const float *rest; /* 3 per vertex: the rest positions skinning starts from (morph defaults applied) */
    float *rest_owned; /* rest, where it is not the model's positions */
    int *order;        /* the clustered vertices, cluster by cluster */
    int clustered;     /* how many */
    int *always;       /* the vertices outside the rule */
    int always_count;
    int always_finite; /* every one of them has a finite rest position */
    int cluster_count, group_count;
    skv_skin_span *clusters, *groups;
    int *bones;
    int *used; /* the bones any cluster blends, once each */
    int used_count;
    float rest_reach[3]; /* largest |rest coordinate| of a clustered vertex, per axis */
    /* skin_bound_prepare's functions, per bone: d . rest + e, d and e
     * made from the palette, the transform and the function (4 floats
     * per bone and function, four functions side by side). */
    int function_count;
    float *coefficients;
    /* Per function: what skin_bound_span adds for rounding. Points of
     * poses that may differ from the caller's by as much (the same time
     * posed by another path) are within it of each other. */
    double margin[SKIN_BOUND_MAX_FUNCTIONS];
} skv_skin_bound;

/* Clusters `model`'s vertices for rest positions with the morph targets
 * at their default weights (what skin_blend blends). The model must
 * outlive `bound`. SKV_ERR_MEMORY when memory runs out. */
skv_result skin_bound_create(skv_skin_bound *bound, const skv_model *model);
void skin_bound_destroy(skv_skin_bound *bound);

/* Prepares `count` (at most SKIN_BOUND_MAX_FUNCTIONS) linear functions of
 * the skinned points with `palette`: function k of a vertex skinned to
 * position x (skin_blend_vertex) is dir[k] . (transform * x) + offset[k],
 * each product and sum in float (upright space less a shift, dotted with
 * a direction). The bounds skin_bound_span gives stay above what that
 * float arithmetic can give, rounding included. Returns 0 where the
 * palette or transform is not finite or too large for the bounds to be
 * trusted (then every vertex is to be blended), else 1. */
int skin_bound_prepare(skv_skin_bound *bound, const mat4 *palette, const mat4 transform, int count,
                       const double (*dir)[3], const double *offset);

/* The upper bound of each prepared function over the vertices of `span`
 * (a cluster or a group) into upper[0 .. count). */
void skin_bound_span(const skv_skin_bound *bound, const skv_skin_span *span, float *upper);

#endif
