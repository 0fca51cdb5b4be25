/* walk_internal.h - what walk_compile.c (compiling a clip's walk) and
 * walk.c (running it per frame) share and nothing else sees: the walk's
 * layout, and the few calls the compile makes into the running side. */
#ifndef SKV_WALK_INTERNAL_H
#define SKV_WALK_INTERNAL_H

#include "walk.h"

#include <stddef.h>
#include <stdint.h>

/* Moving channels keyed at the same times (often every channel of a
 * file): one key search and one factor serve all; the kernel samples
 * them a vector of lanes at a time from the group's own copy of the keys
 * (kernels.h: SKV_LANE_BLOCK lanes per block, component by component). */
typedef struct walk_group {
    int key_count;     /* >= 2 */
    int channel_count; /* channels in the group */
    /* Fewer channels than a vector holds: its keys are stored channel by
     * channel, SKV_EACH_KEY_FLOATS per key, and its lanes share vectors
     * with the other such groups' (kernels.h, sample_each). */
    unsigned char each;
    /* One channel where no other group shares vectors: sampled without
     * lanes (kernels.h, sample_solo); keys stored as each's. */
    unsigned char solo;
    /* `keys` holds the key pairs prepared as arcs (kernels.h,
     * SKV_ARC_M; prepare_arcs), key_floats apart: sampled by sample_arc.
     * Chars, so that the struct stays 80 bytes (key_rate's comment). */
    unsigned char arc;
    /* `keys` compacted (kernels.h, skv_compact; walk_compile.c,
     * compact_keys), key_floats apart, sampled by sample_compact; with
     * `arc`, the arcs compacted (kernels.h, SKV_CARC_M; prepare_arcs),
     * sampled by sample_arc_compact. The descriptor lies
     * WALK_COMPACT_HEAD bytes before the keys, in their allocation
     * (walk_group_compact). */
    unsigned char compact;
    /* Key k at exactly k / key_rate from 0, a power-of-two span
     * (walk_compile.c, exact_grid: whole ticks, as BVH, HL1 MDL and MD5
     * are keyed): a seek's pair and factor are t x key_rate's whole part
     * and the rest, bit for bit what the exact times give, with no key
     * time read (walk.c, group_seek). */
    unsigned char grid;
    int lane_count;    /* channel_count rounded up to whole blocks (each, solo: channel_count) */
    int channel;       /* the first channel: its cursor serves the group */
    size_t key_floats; /* floats from one key to the next (each, solo: in one channel's keys) */
    float *search;     /* key times as float, then SKV_SEEK_AHEAD infinities: the searches read these;
                        * then, for uneven times (walk_seek_indexed), the seek index (walk_seek_index) */
    double *times;     /* the exact times: the factor and the search's last step */
    double *inv_span;  /* per key pair: 1 / time span (0 for an empty span) */
    /* Key times evenly spaced (every BVH, most baked and mocap clips):
     * keys per tick, so that a seek computes its key pair instead of
     * searching for it; 0 where they are not (even_key_rate). With it the
     * struct is 80 bytes, as before it (`channel` moved up into padding):
     * the frame's loop over the groups indexes them in two instructions. */
    double key_rate;
    float *keys;       /* key_count * SKV_KEY_FLOATS(lane_count / SKV_LANE_BLOCK), 64-byte aligned
                        * (each, solo: channel_count * key_count * SKV_EACH_KEY_FLOATS) */
    int32_t *out;      /* per lane: its local's byte offset in the work block */
} walk_group;

/* A compacted group's descriptor: at the head of its keys' allocation,
 * which keeps the group 80 bytes. */
enum { WALK_COMPACT_HEAD = 64 };
static inline const skv_compact *walk_group_compact(const walk_group *grp)
{
    return (const skv_compact *)(const void *)((const char *)grp->keys - WALK_COMPACT_HEAD);
}

/* Keys walk.c's seek looks at past the cursor's before it searches. */
enum { SKV_SEEK_AHEAD = 8 };

/* Uneven key times (key_rate 0) past this many keys have a seek index
 * after their search floats: a seek's first guess is then one load from
 * it and SKV_SEEK_AHEAD compares on the search line it points to, not a
 * binary search whose every step waits on the last step's load, each a
 * line of its own in a long clip that other work evicted (bench/NOTES.md,
 * 2026-11-29 seeks). Fewer keys: walk.c's few-step search. */
enum { SKV_SEEK_INDEX_KEYS = 16 };
static inline int walk_seek_indexed(const walk_group *grp)
{
    return grp->key_rate == 0.0 && grp->key_count > SKV_SEEK_INDEX_KEYS;
}
/* The index of an indexed group (walk_seek_indexed): key_count - 1
 * buckets splitting the clip's key span evenly, a scale and an origin
 * (as floats: it only guesses), then per bucket the last key whose float
 * time is at or before the bucket's start. */
typedef struct walk_seek_index {
    float rate;   /* buckets per tick */
    float origin; /* the first key's time */
    int32_t key[];
} walk_seek_index;
static inline const walk_seek_index *walk_seek_index_of(const walk_group *grp)
{
    return (const walk_seek_index *)(const void *)(grp->search + grp->key_count + SKV_SEEK_AHEAD);
}
/* Floats the search array takes for `count` keys, an index included
 * where walk_seek_indexed says. */
static inline size_t walk_search_floats(int count, int indexed)
{
    return (size_t)count + SKV_SEEK_AHEAD + (indexed ? 2 + (size_t)count - 1 : 0);
}

/* The hierarchy walk of one clip (or of the rest pose). Nodes that neither
 * move nor hang under anything that moves are posed here, once. A chain
 * of nodes that do not move relative to their parent is multiplied out
 * here too: a bone below one costs one product per frame, not one per
 * node in between. */
struct skv_walk {
    skv_walk_frame frame; /* first: walk.h's walk_frame calls it */
    int node_count;
    int sample_count;        /* moving channels */
    int loose_count;
    int *loose;              /* moving channels sampled one by one (T, R, S keyed at different times) */
    int group_count;
    walk_group *groups;      /* the other moving channels */
    int global_count;
    skv_walk_step *globals;  /* in order: every global the frame needs */
    int palette_count;
    skv_walk_step *palette;  /* palette entries that move */
    int fixed_count;
    skv_walk_step *fixed;    /* palette entries that never move (written once per clip change) */
    int deferred_count;
    skv_walk_step *deferred; /* the other globals, for pose_globals */
    int constant_count;
    mat4 *constants;
    /* Every b of the globals' and the palette's steps is affine (kernels.h,
     * run_affine): the locals always, the constants checked. */
    int affine;
    /* The palette's steps take a from work and b from the constants
     * (kernels.h, run_palette; checked when compiling). */
    int palette_split;
    int one; /* one group, not each, nothing loose: walk_pose's short path */
    /* one, and that group a single solo channel; no global products; the
     * palette's steps on run_palette: the frame is kernels.h's solo_palette,
     * one call (walk_frame). */
    int solo_palette;
    /* solo_palette, its key pairs prepared once (kernels.h,
     * kernels_solo_pair), and `solo` what the frame kernel (solo_frame,
     * or solo_frame_weighted where the rotation keys are not all of unit
     * length) reads. NULL where the pairs would take more than
     * SOLO_TERMS_BYTES, or a key is 0. */
    float *terms;
    size_t terms_bytes;
    size_t arc_bytes;           /* the groups' prepared arcs (prepare_arcs) */
    size_t merge_bytes;         /* the keys of a merge taken past 3x the keys it merged (merge_time_lines) */
    skv_solo solo;
    int solo_cursor;            /* the group's cursor: its index in the pose's cursors */
    /* Which of the kernels' product functions the globals' and the
     * palette's steps take (run, run_affine, run_palette), as offsets in
     * skv_kernels: chosen once here, one load a frame. */
    size_t globals_run, palette_run;
    int folded; /* moving channels whose constant parent went into their keys */
    int merged; /* time lines keyed as one (merge_time_lines); 0: none */
    /* one, its group not solo, affine products with the palette's on
     * run_palette, past 4 channels as vector_frame_fits says: the frame
     * is kernels.h's vector_palette, one call (frame_vector) on `lists`. */
    int vector_palette;
    size_t vector_run; /* its kernel: vector_palette, or vector_wide past 4 channels */
    const skv_walk *owed; /* the walk itself if it defers globals (pose.h globals_owed), else NULL */
    /* The palette's steps as a crowd's rows take them (kernels.h,
     * rows_palette), (palette_count + 1) / 2 pairs, where every a is in
     * work and every b a constant with an exact 0 0 0 1 bottom row; else
     * NULL, and run_rows transposes each b a frame. */
    skv_rows_pair *rows_pairs;
    skv_walk_lists lists;
    skv_walk_step *vector_steps; /* lists' palette steps, then its translations */
    skv_walk_step *vector_globals; /* lists' globals: the walk's less those its leaves took (vector_leaves) */
    skv_walk_step *vector_leaves;  /* lists' leaves, two steps each */
};

/* Key k's time in a key array whose times are `stride` bytes apart from
 * first_time's. */
#define TIME_AT(base, stride, k) (*(const double *)((const char *)(base) + (size_t)(k) * (stride)))

/* solo_frame's search where playback's step does not find the pair
 * (skv_solo's key_at; walk.c). */
int walk_solo_key_at(const skv_solo *solo, double ticks, int *cursor, float *f);

/* The frame function (walk.h, walk_frame) for what the compile settled
 * (w->terms, solo_palette, vector_palette, one; none of them: the
 * general frame), built for this CPU (walk.c). */
skv_walk_frame walk_frame_for(const skv_walk *w);

#endif
