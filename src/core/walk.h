/* walk.h - the hierarchy walk of a clip, compiled into flat lists.
 *
 * final[b] = globalInverse * global(node of b) * offset[b] is what
 * skeleton_pose + skin_palette (anim.h) compute node by node. Per clip
 * most of that is the same every frame: which nodes have keys that move,
 * which nodes never move, which chains of nodes stay rigid. walk_compile
 * settles all of it once per clip, when the clip is first posed, into an
 * skv_walk that only this module sees inside:
 * - channels whose T, R and S keys share their times are put in time
 *   groups; each group keeps its own copy of the keys, structure of arrays
 *   (kernels.h: one channel per SIMD lane), rotations turned into one
 *   hemisphere, and its key times as floats in their own array (a seek's
 *   binary search reads 4 bytes a key) next to the exact double times, or,
 *   where they are evenly spaced, keys per tick (a seek computes its pair);
 *   time groups whose times differ become one, keyed at the union of
 *   their times, where that at most triples their keys (a key added on
 *   a segment with the value the segment has there leaves the curve as
 *   it is); a group of one channel that shares no vectors is
 *   sampled without lanes (kernels.h, sample_solo),
 *   and a walk of one such channel with unit rotation keys has its key
 *   pairs prepared so that a frame is a sum of matrices (solo_frame); several
 *   small groups share vectors (sample_each); a grouped channel whose
 *   parent is a constant similarity (a root under a scaling or turning
 *   globalInverse) has that parent taken into its copy of the keys, so
 *   its sampled local is its global;
 * - the other moving channels ("loose") are sampled one by one;
 * - then a list of 4x4 products forms the globals the palette needs and
 *   the palette (kernels.h, run_affine where every right-hand operand is
 *   exactly affine, which the compile checks).
 * The model's keys are never written. */
#ifndef SKV_WALK_H
#define SKV_WALK_H

#include "kernels.h"
#include "error.h"
#include "model.h"
#include "walks.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct skv_walk skv_walk;

/* Bytes of prepared data a model's walks hold, bounded per model
 * (walk_compile.c: each clip of a file compiles a walk): key pairs of
 * one-channel walks, time groups' arcs, merges past three times their
 * keys; and the clips' keys prepared for layered frames (layer_lanes.c,
 * walks_clip_lanes). */
typedef struct skv_walk_bytes {
    size_t terms, arcs, merges, lanes;
} skv_walk_bytes;

/* The walk of `clip` (NULL: the rest pose) for the model's skeleton;
 * NULL if memory runs out. `held`: what the model's other walks hold
 * (the budgets' room), this walk's own added. walk_free releases it
 * (NULL is fine). */
skv_walk *walk_compile(const skv_model *model, const skv_clip *clip, skv_walk_bytes *held);
void walk_free(skv_walk *walk);

/* A model's walks (walks.h), compiled on first use. A clip's slot: its
 * walk once `ready` is set (NULL then: memory ran out, and pose_evaluate
 * takes the reference path). */
typedef struct skv_walk_slot {
    skv_walk *walk;
    atomic_int ready;
    /* The clip's keys prepared for layered frames (layer_lanes.h), made
     * on the first layered frame that reads the clip, once `lanes_ready`. */
    struct skv_clip_lanes *lanes;
    atomic_int lanes_ready;
} skv_walk_slot;

struct skv_walks {
    const skv_model *model;
    /* Drawn from one counter for all walks by walks_create and
     * walks_forget: a pose settled on these walks as they were
     * (skv_pose walk_generation) sees the number change and settles
     * again, as it does for other walks made at the same address. */
    unsigned generation;
    int clip_count;        /* clips with a slot: the model's at the last walks_create or walks_forget */
    skv_walk_slot *clips;  /* per clip */
    skv_walk_slot rest;    /* the rest pose */
    skv_walk_bytes held;   /* written where walks are compiled: under walks.c's lock, or by walks_forget */
};

/* Clip c's walk (0 <= c; -1: the rest pose), compiled on its first call;
 * NULL if memory ran out, or for a clip the model gained since the last
 * walks_forget could not make room (pose_evaluate then takes the
 * reference path). Safe from several threads at once: one compiles, the
 * others wait for it. */
const skv_walk *walks_clip_compile(skv_walks *walks, int c);
/* Clip c's keys prepared for layered frames (layer_lanes.h; 0 <= c),
 * made on its first call; NULL if memory ran out or c has no slot. Safe
 * from several threads at once, as walks_clip_compile. */
const struct skv_clip_lanes *walks_clip_lanes(skv_walks *walks, int c);
/* The fast path, inline: once compiled, one acquire load (a plain load on
 * x86) and no call. */
static inline const skv_walk *walks_clip(skv_walks *walks, int c)
{
    if (c < walks->clip_count) {
        const skv_walk_slot *slot = c >= 0 ? &walks->clips[c] : &walks->rest;
        if (atomic_load_explicit(&slot->ready, memory_order_acquire)) return slot->walk;
    }
    return walks_clip_compile(walks, c);
}

/* One frame of the walk (returns whether it skipped globals that
 * walk_deferred forms, which the caller needs every frame): the moving channels sampled at `ticks` into
 * work's locals (`cursors`: 3 per channel of the clip, the last keys used;
 * NULL to search every time), then the globals the palette needs and the
 * palette's moving entries. `work`: node_count globals then node_count
 * locals, 64-byte aligned. rows: the palette as a crowd's 3x4 rows,
 * streamed (kernels.h, run_rows; the caller fences). */
int walk_pose(const skv_walk *w, const skv_clip *clip, double ticks, int *cursors, float *work, float *palette,
              const skv_kernels *kernels, int rows);

/* pose_evaluate's frame once everything is settled (pose.c tests it:
 * the pose's fixed entries, kernels and cursors are for this clip): the
 * clip time and walk_pose in one call, with the pose's own work block,
 * palette, kernels and cursors, and its globals_owed set. One frame
 * between pose_evaluate (which jumps here) and the kernels, where a 1-3
 * bone file's frame was mostly the calls in between. */
struct skv_pose;
typedef void (*skv_walk_frame)(const skv_walk *w, const skv_clip *clip, double seconds, struct skv_pose *pose);
/* The walk's compile picks the function (one for a walk where nothing
 * moves, which forms nothing; one for a walk of one channel, kernels.h
 * solo_palette; one for a walk of one time group with affine products,
 * kernels.h vector_palette or vector_wide; one for any other walk of one
 * group; one for the rest) and keeps it as the walk's first
 * member: one indirect jump, straight into the walk's own kind of
 * frame (C11 6.7.2.1: a pointer to a struct, converted, points to its
 * first member). */
static inline void walk_frame(const skv_walk *w, const skv_clip *clip, double seconds, struct skv_pose *pose)
{
    (*(const skv_walk_frame *)(const void *)w)(w, clip, seconds, pose);
}

/* Nothing moves in it: its frame has nothing to form and reads no clip
 * (walk.c, frame_still); the rest pose's walk is one. */
int walk_is_still(const skv_walk *w);

/* The palette entries that never move in this clip (once per clip change). */
void walk_fixed(const skv_walk *w, float *work, float *palette, const skv_kernels *kernels, int rows);

/* The globals walk_pose skips (the palette does not need them). */
void walk_deferred(const skv_walk *w, float *work, const skv_kernels *kernels);

/* walk_deferred's steps less those forming the globals of the nodes
 * `skip` marks, into `steps` (room for walk_deferred_count), in the
 * walk's order; how many. A step kept reads the globals of nodes above
 * its own: the caller sees to it that those are formed before it runs
 * (pose.c's layered frame splits the steps of the nodes it does not form
 * again in two: those its products read, and the globals their steps
 * read, run first; the others owed to pose_globals). */
int walk_deferred_count(const skv_walk *w);
int walk_deferred_except(const skv_walk *w, const unsigned char *skip, int node_count, skv_walk_step *steps);

/* walk_deferred with `steps` (walk_deferred_except's) for the walk's own. */
void walk_deferred_run(const skv_walk *w, const skv_walk_step *steps, int count, float *work,
                       const skv_kernels *kernels);

/* What a compiled walk holds, for tests and the benchmark. */
typedef struct skv_walk_stats {
    int moving;     /* channels whose keys move */
    int groups;     /* time groups */
    int grouped;    /* moving channels in them */
    int each;       /* of those, in groups too small for a vector (sampled together, kernels.h sample_each) */
    int solo;       /* of those, sampled one by one without lanes (kernels.h sample_solo) */
    int loose;      /* moving channels sampled one by one */
    int globals;    /* products per frame forming globals */
    int palette;    /* products per frame forming palette entries */
    int fixed;      /* palette entries written once per clip */
    int deferred;   /* globals only pose_globals forms */
    size_t key_bytes; /* the groups' copies of keys and times */
    int affine;     /* the products take kernels.h's run_affine */
    int folded;     /* moving channels under a constant similarity, taken into their keys (no global product) */
    int solo_palette; /* one moving channel, its frame one kernel call (kernels.h solo_palette) */
    int solo_terms; /* of those, its key pairs prepared once, the frame kernels.h's solo_frame (1) or, for rotation keys not of unit length, solo_frame_weighted (2) */
    int merged;     /* time lines keyed as one group at the union of their times (0: none) */
    int vector_palette; /* one time group, affine products: its frame one kernel call (kernels.h vector_palette, or vector_wide past 4 channels) */
    int translations; /* of vector_palette's palette steps, those whose offset only translates */
    int t_fixed;    /* vector_palette's group has one T in all its keys: not lerped */
    int leaves;     /* vector_palette's palette entries formed as A (L b) (kernels.h skv_walk_lists, leaves) */
    int leaf_translations; /* of those, the ones whose b only translates */
    int even;       /* time groups whose keys are evenly spaced: a seek computes its key pair */
    int rows_prepared; /* a crowd's rows take the palette's prepared steps (kernels.h rows_palette) */
    int chain;      /* the globals take kernels.h's run_chain (most steps read the step before's product) */
    int arc;        /* grouped channels whose key pairs are prepared arcs (kernels.h sample_arc) */
    int still;      /* nothing moves: the frame forms nothing (every palette entry fixed) */
    int compact;    /* grouped channels whose keys are compacted (kernels.h skv_compact) */
} skv_walk_stats;
void walk_stats(const skv_walk *w, skv_walk_stats *out);

#endif
