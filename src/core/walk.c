/* walk.c - running a compiled walk (walk.h, walk_compile.c) per frame:
 * the key searches, the samplers' calls, the products, and the frame
 * functions pose_evaluate jumps to. */
#include "walk_internal.h"
#include "anim.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- running -------------------------------------------------------------- */

/* The last float key time at or before tf (search[0] <= tf): the range
 * halved n's number of times whatever tf is, each step a conditional
 * move. A seek's compares are coin flips, and a branch per step lost
 * about half of them to the predictor. A key after one that is already
 * too late stays too late (the times are sorted), so keeping the larger
 * half in both cases is safe. */
static int float_key_before(const float *search, int n, float tf)
{
    const float *base = search;
    for (int len = n; len > 1;) {
        int half = len / 2;
        base = base[half] <= tf ? base + half : base;
        len -= half;
    }
    return (int)(base - search);
}

/* The same with a branch per step, for a few uneven keys: at most four
 * steps, and uneven keys are mostly a few close together and long spans
 * (animation_with_skeleton.fbx: 13 keys one tick apart, then 8 ticks),
 * where most random times fall the same way, the branches are predicted
 * and the pair is known at once; the conditional moves made every step
 * wait for the last (slower seeks there: bench/NOTES.md v7h). */
enum { SEEK_BRANCHES_KEYS = 16 };
static int float_key_before_branches(const float *search, int n, float tf)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (search[mid] <= tf) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* The last float key time at or before tf among the SKV_SEEK_AHEAD keys
 * after `cursor`'s (search[cursor] <= tf), or -1 if tf is at or past
 * the last of them:
 * playback where keys are denser than frames steps over several a frame
 * (ozz's run.fbx, its time lines keyed as one: several keys a frame at
 * 60 fps, and most of its frames come here). The compares are
 * independent, where the
 * search's eight steps each wait for the last one's load. The padding
 * infinities keep the look inside the array. */
static inline int float_key_ahead(const float *search, int cursor, float tf)
{
    int ahead = 0;
    for (int j = 1; j <= SKV_SEEK_AHEAD; j++) ahead += search[cursor + j] <= tf;
    return ahead < SKV_SEEK_AHEAD ? cursor + ahead : -1;
}

/* A first guess at t's key pair, which group_seek settles: the only
 * pair; the even grid's; the keys just after the cursor's; the keys
 * after the seek index's (uneven times: walk_internal.h,
 * walk_seek_index); a search of the float times. */
static inline int seek_guess(const walk_group *grp, double t, int cursor)
{
    int n = grp->key_count;
    if (n == 2) return 0;
    if (grp->key_rate > 0.0) return (int)((t - grp->times[0]) * grp->key_rate);
    float tf = (float)t;
    if (n <= SEEK_BRANCHES_KEYS) return float_key_before_branches(grp->search, n, tf);
    if ((unsigned)cursor < (unsigned)n && grp->search[cursor] <= tf) {
        int i = float_key_ahead(grp->search, cursor, tf);
        if (i >= 0) return i;
    }
    if (walk_seek_indexed(grp)) {
        const walk_seek_index *index = walk_seek_index_of(grp);
        float g = (tf - index->origin) * index->rate;
        int b = g > 0.0f ? (g < (float)(n - 2) ? (int)g : n - 2) : 0;
        int k = index->key[b];
        if (grp->search[k] <= tf) {
            int i = float_key_ahead(grp->search, k, tf);
            if (i >= 0) return i;
        }
    }
    return float_key_before(grp->search, n, tf);
}

/* group_key's search: t strictly inside the keys and not in the
 * cursor's two pairs (a seek, or playback that steps over more than one
 * key a frame: 120 Hz mocap at 60 fps). An exact grid (grp->grid) reads
 * no key time: its pair and factor are t x rate's whole part and the
 * rest, as the exact times give them (kernels.h's solo_grid reasons so
 * for one channel); a cold seek then waits on its keys' lines alone.
 * Other evenly spaced times compute the
 * pair (key_rate), the others look at the keys after the cursor's
 * (seek_guess) or search the float times (4 bytes a key, in cache);
 * either guess is then settled on the exact times, where floats
 * round two keys together or the grid is off by one, so any guess gives
 * the reference's pair. Inline: out of line it cost the walks of several
 * groups instructions in playback too, where it does not run. */
static inline int group_seek(const walk_group *grp, double t, int *cursor, float *f)
{
    const double *times = grp->times;
    int n = grp->key_count;
    if (grp->grid) { /* t inside the keys: 0 < g < n - 1, g - i exact (Sterbenz) */
        double g = t * grp->key_rate;
        int i = g < (double)(n - 2) ? (int)g : n - 2;
        *cursor = i;
        double x = g - i;
        *f = (float)(x > 1.0 ? 1.0 : x);
        return i;
    }
    int i = seek_guess(grp, t, *cursor);
    i = i < n - 2 ? i : n - 2;
    while (i > 0 && times[i] > t) i--;
    while (i + 2 < n && times[i + 1] <= t) i++;
    *cursor = i;
    double x = (t - times[i]) * grp->inv_span[i];
    *f = (float)(x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x);
    return i;
}

/* group_key's playback step: the cursor's pair holds t, or the next pair
 * does (keys further apart than frames: every other frame or so); -1
 * for anything else. Then t is inside the keys, and t - times[i] >= 0,
 * so x >= 0: only the top is clamped, in float, the same value as
 * clamping in double first. One unsigned compare bounds the cursor (-1:
 * none). t on the pair's first key is left to group_key_rest: where two
 * keys share the first key's time, the reference takes the first of them
 * there (t not after times[0]), which the next pair's step would not.
 * Marked likely: GCC then lays the frame functions out for it, the rest
 * after (walk_pose_all's prologue shorter). */
static inline int group_step(const walk_group *grp, double t, int *cursor, float *f)
{
    const double *times = grp->times;
    int n = grp->key_count, i = *cursor;
    if ((unsigned)i < (unsigned)(n - 1) && times[i] < t) {
        if (__builtin_expect(t < times[i + 1] || (i + 2 < n && t < times[i + 2] && (*cursor = ++i, 1)), 1)) {
            float x = (float)((t - times[i]) * grp->inv_span[i]);
            *f = x < 1.0f ? x : 1.0f;
            return i;
        }
    }
    return -1;
}

/* group_key past group_step: before the first key and after the last,
 * inline (playback holds there when a group's keys end before the clip
 * does), else group_seek. */
static inline int group_key_rest(const walk_group *grp, double t, int *cursor, float *f)
{
    const double *times = grp->times;
    int n = grp->key_count;
    if (!(t > times[0])) {
        *f = 0.0f;
        return 0;
    }
    if (t >= times[n - 1]) {
        *f = 1.0f;
        return n - 2;
    }
    return group_seek(grp, t, cursor, f);
}

/* A group's key pair and factor at t: i = 0, f = 0 before the first key,
 * i = count - 2, f = 1 after the last. Playback steps the cursor
 * (group_step); a jump goes to group_seek. */
static inline int group_key(const walk_group *grp, double t, int *cursor, float *f)
{
    int i = group_step(grp, t, cursor, f);
    return i >= 0 ? i : group_key_rest(grp, t, cursor, f);
}

int walk_solo_key_at(const skv_solo *solo, double ticks, int *cursor, float *f)
{
    return group_key(solo->group, ticks, cursor, f);
}

/* A group of whole vectors at `ticks`: its key pair, then its lanes. */
static inline void pose_group_at(const walk_group *grp, double ticks, int *cursor, float *work,
                                  const skv_kernels *kernels)
{
    float f;
    int i = group_key(grp, ticks, cursor, &f);
    if (grp->solo) { /* one channel, without lanes */
        kernels->sample_solo(grp->keys + (size_t)i * SKV_EACH_KEY_FLOATS, f, grp->out[0], work);
        return;
    }
    if (grp->arc) {
        const float *arc = grp->keys + (size_t)i * grp->key_floats;
        if (grp->compact) kernels->sample_arc_compact(arc, f, grp->out, grp->channel_count, work, walk_group_compact(grp));
        else kernels->sample_arc(arc, f, grp->out, grp->channel_count, work);
        return;
    }
    if (grp->compact) {
        const float *a = grp->keys + (size_t)i * grp->key_floats;
        kernels->sample_compact(a, a + grp->key_floats, f, grp->out, grp->channel_count, work,
                                walk_group_compact(grp));
        return;
    }
    const float *a = grp->keys + (size_t)i * grp->key_floats;
    kernels->sample(a, a + grp->key_floats, f, grp->out, grp->channel_count, work);
}

/* pose_group_at with the group's cursor in `cursors`, or none (NULL: a
 * search every time). */
static inline void pose_group(const walk_group *grp, double ticks, int *cursors, float *work,
                              const skv_kernels *kernels)
{
    int scratch = -1;
    pose_group_at(grp, ticks, cursors ? &cursors[grp->channel * 3] : &scratch, work, kernels);
}

/* A crowd's palette rows: the prepared pairs, or run_rows. Out of line:
 * inlined into run_products, its branches were on every frame's path,
 * which the 1-bone files (WusonSMD, WusonBlitz) felt. */
static __attribute__((noinline)) void walk_rows(const skv_walk *w, float *work, float *palette,
                                                const skv_kernels *kernels)
{
    if (w->rows_pairs)
        kernels->rows_palette(w->rows_pairs, (w->palette_count + 1) / 2, work, palette);
    else
        kernels->run_rows(w->palette, w->palette_count, work, w->constants, palette);
}

/* The frame's products: the globals the palette needs, then the palette. */
static inline int run_products(const skv_walk *w, float *work, float *palette, const skv_kernels *kernels, int rows)
{
    typedef void (*run_fn)(const skv_walk_step *, int, float *, const mat4 *, float *);
    if (w->global_count > 0) /* none where every moving node hangs under an identity */
        (*(const run_fn *)((const char *)kernels + w->globals_run))(w->globals, w->global_count, work, w->constants,
                                                                    work);
    if (__builtin_expect(rows, 0)) /* a crowd's */
        walk_rows(w, work, palette, kernels);
    else
        (*(const run_fn *)((const char *)kernels + w->palette_run))(w->palette, w->palette_count, work, w->constants,
                                                                    palette);
    return w->deferred_count > 0;
}

/* Every moving channel in one group of whole vectors, none loose (most small files): without the general loop's batches and
 * lists, whose frame and bookkeeping are a fixed cost that 1-4 bones
 * feel. walk_pose_all is kept out of line: this path's frame stays small. */
static inline int walk_pose_one(const skv_walk *w, double ticks, int *cursors, float *work, float *palette,
                                const skv_kernels *kernels, int rows)
{
    pose_group(&w->groups[0], ticks, cursors, work, kernels);
    return run_products(w, work, palette, kernels, rows);
}

/* The small groups' gathered lanes, padded to a multiple of 4 with the
 * last channel (its local written again), sampled; returns 0, the batch's
 * new count. */
static int each_flush(const float **keys, float *f, int32_t *out, int count, float *work, const skv_kernels *kernels)
{
    int padded = (count + 3) / 4 * 4;
    for (int l = count; l < padded; l++) keys[l] = keys[l - 1], f[l] = f[l - 1], out[l] = out[l - 1];
    kernels->sample_each(keys, f, out, padded, work);
    return 0;
}

/* The loose channels' locals, each key array sampled on its own. Out of
 * line: inlined into walk_pose_all, its sampling (keys.h's slerp
 * inline) cost the walks without loose channels instructions a frame in
 * walk_pose_all's prologue. */
static __attribute__((noinline)) void pose_loose(const skv_walk *w, const skv_clip *clip, double ticks, int *cursors,
                                                 float *work)
{
    for (int k = 0; k < w->loose_count; k++) {
        const skv_channel *ch = &clip->channels[w->loose[k]];
        int scratch[3] = {-1, -1, -1};
        int *cur = cursors ? &cursors[w->loose[k] * 3] : scratch;
        float t[3], q[4], s[3];
        keys_channel_trs_from(ch, ticks, cur, t, q, s); /* each key array from its cursor */
        keys_local(t, q, s, (vec4 *)(work + (size_t)(w->node_count + ch->node) * 16));
    }
}

static __attribute__((noinline)) int walk_pose_all(const skv_walk *w, const skv_clip *clip, double ticks,
                                                   int *cursors, float *work, float *palette,
                                                   const skv_kernels *kernels, int rows)
{
    /* The small groups' channels, gathered into shared vectors. */
    enum { EACH_BATCH = 16 };
    const float *each_keys[EACH_BATCH];
    float each_f[EACH_BATCH];
    int32_t each_out[EACH_BATCH];
    int each_count = 0;
    for (int g = 0; g < w->group_count; g++) {
        const walk_group *grp = &w->groups[g];
        if (!grp->each) {
            pose_group(grp, ticks, cursors, work, kernels);
            continue;
        }
        int scratch = -1;
        float f;
        int i = group_key(grp, ticks, cursors ? &cursors[grp->channel * 3] : &scratch, &f);
        int n = grp->channel_count; /* < 4 */
        if (each_count + n > EACH_BATCH) each_count = each_flush(each_keys, each_f, each_out, each_count, work, kernels);
        /* Channel m's key i: its keys follow one another, the channels'
         * one block after the other. */
        const float *key = grp->keys + (size_t)i * SKV_EACH_KEY_FLOATS;
        size_t channel_floats = (size_t)grp->key_count * SKV_EACH_KEY_FLOATS;
        for (int m = 0; m < n; m++, key += channel_floats) {
            each_keys[each_count] = key;
            each_f[each_count] = f;
            each_out[each_count++] = grp->out[m];
        }
    }
    if (each_count > 0) each_flush(each_keys, each_f, each_out, each_count, work, kernels);
    if (w->loose_count > 0) pose_loose(w, clip, ticks, cursors, work);
    return run_products(w, work, palette, kernels, rows);
}

static inline int walk_pose_inline(const skv_walk *w, const skv_clip *clip, double ticks, int *cursors, float *work,
                                   float *palette, const skv_kernels *kernels, int rows)
{
    if (w->one) return walk_pose_one(w, ticks, cursors, work, palette, kernels, rows);
    if (w->group_count == 0 && w->loose_count == 0) /* nothing moves in this clip */
        return run_products(w, work, palette, kernels, rows);
    return walk_pose_all(w, clip, ticks, cursors, work, palette, kernels, rows);
}

int walk_pose(const skv_walk *w, const skv_clip *clip, double ticks, int *cursors, float *work, float *palette,
              const skv_kernels *kernels, int rows)
{
    return walk_pose_inline(w, clip, ticks, cursors, work, palette, kernels, rows);
}

/* The frame functions (walk.h, walk_frame; the compile picks one).
 * frame_general, frame_one and frame_vector are built twice where GCC
 * targets x86-64 (FRAME_BUILDS: the body is NAME_at): plain, and for a
 * CPU with FMA (NAME_fma; FRAME_FOR_CPU picks), where the clip time's
 * fused multiply-add (keys_ticks_from, past the first loop) is one
 * instruction instead of libm's call, the same exact result (it rounds
 * once either way): a dozen instructions a frame fewer, no time
 * measurably saved (bench/NOTES.md). */
#define FRAME_FUNCTION(attributes, name, body)                                                                         \
    attributes static void name(const skv_walk *w, const skv_clip *clip, double seconds, skv_pose *pose)               \
    {                                                                                                                  \
        body(w, clip, seconds, pose);                                                                                  \
    }
#if defined(__x86_64__) && defined(__GNUC__)
#define FRAME_BUILDS(name)                                                                                             \
    FRAME_FUNCTION(, name, name##_at)                                                                                  \
    FRAME_FUNCTION(__attribute__((target("fma"))), name##_fma, name##_at)
#define FRAME_FOR_CPU(name) (__builtin_cpu_supports("fma") ? name##_fma : name)
#else
#define FRAME_BUILDS(name) FRAME_FUNCTION(, name, name##_at)
#define FRAME_FOR_CPU(name) (name)
#endif

static inline __attribute__((always_inline)) void frame_general_at(const skv_walk *w, const skv_clip *clip,
                                                                   double seconds, skv_pose *pose)
{
    double ticks = keys_ticks_from(seconds, clip->ticks_per_second, clip->duration_ticks, &pose->clip_loops);
    int deferred = walk_pose_inline(w, clip, ticks, pose->cursors, pose->work, (float *)pose->palette, pose->kernels,
                                    pose->palette_rows);
    pose->globals_owed = deferred ? w : NULL;
}
FRAME_BUILDS(frame_general)

/* The short path (one group, nothing loose: most small files) in a frame
 * of its own; the cursors exist (pose_evaluate comes here only with this
 * clip's), so the group's is taken as it is. */
static inline __attribute__((always_inline)) void frame_one_at(const skv_walk *w, const skv_clip *clip,
                                                               double seconds, skv_pose *pose)
{
    double ticks = keys_ticks_from(seconds, clip->ticks_per_second, clip->duration_ticks, &pose->clip_loops);
    const walk_group *grp = &w->groups[0];
    float *work = pose->work;
    const skv_kernels *kernels = pose->kernels;
    pose_group_at(grp, ticks, &pose->cursors[grp->channel * 3], work, kernels);
    pose->globals_owed = run_products(w, work, (float *)pose->palette, kernels, pose->palette_rows) ? w : NULL;
}
FRAME_BUILDS(frame_one)

/* A walk of one channel (kernels.h solo_palette): the group's key pair
 * and one kernel call, in a frame that holds only the little it uses. */
static void frame_solo(const skv_walk *w, const skv_clip *clip, double seconds, skv_pose *pose)
{
    if (pose->palette_rows) { /* a crowd's rows: run_rows */
        frame_one(w, clip, seconds, pose);
        return;
    }
    double ticks = keys_ticks_from(seconds, clip->ticks_per_second, clip->duration_ticks, &pose->clip_loops);
    const walk_group *grp = &w->groups[0];
    float f;
    int i = group_key(grp, ticks, &pose->cursors[grp->channel * 3], &f);
    pose->globals_owed = w->deferred_count > 0 ? w : NULL; /* first: the kernel's call is then a tail call */
    pose->kernels->solo_palette(grp->keys + (size_t)i * SKV_EACH_KEY_FLOATS, f, grp->out[0], pose->work, w->palette,
                                w->palette_count, w->constants, (float *)pose->palette);
}

/* A walk of one time group with affine products (kernels.h
 * vector_palette): the group's key pair and one kernel call, made last
 * (globals_owed set first) so that it is a tail call. In playback's case
 * (keys_ticks_step, group_step) the FMA build makes no other
 * call, so it keeps no stack frame and saves two registers, not five
 * (the plain build calls libm's fma there): saves and restores are on
 * the chain to the kernel, which a few-bone frame feels.
 * A time past group_step (a seek, a time off the keys) goes to
 * frame_vector_key with the clip time computed; a crowd's rows, a loop's
 * first frame or a time out of range to frame_vector_rest, the full path.
 * Both out of line, both the same values. */
static inline __attribute__((always_inline)) void vector_call(const skv_walk *w, skv_pose *pose, int i, float f)
{
    const walk_group *grp = &w->groups[0];
    const float *a = grp->keys + (size_t)i * grp->key_floats;
    pose->globals_owed = w->owed;
    typedef void (*vector_fn)(const float *, const float *, float, const int32_t *, float *, const skv_walk_lists *,
                              float *);
    (*(const vector_fn *)((const char *)pose->kernels + w->vector_run))(a, a + grp->key_floats, f, grp->out, pose->work,
                                                                       &w->lists, (float *)pose->palette);
}

static __attribute__((noinline)) void frame_vector_key(const skv_walk *w, skv_pose *pose, double ticks)
{
    const walk_group *grp = &w->groups[0];
    float f;
    int i = group_key_rest(grp, ticks, &pose->cursors[grp->channel * 3], &f);
    vector_call(w, pose, i, f);
}

static __attribute__((noinline)) void frame_vector_rest(const skv_walk *w, const skv_clip *clip, double seconds,
                                                        skv_pose *pose)
{
    if (pose->palette_rows) { /* a crowd's rows: run_rows */
        frame_one(w, clip, seconds, pose);
        return;
    }
    double ticks = keys_ticks_from(seconds, clip->ticks_per_second, clip->duration_ticks, &pose->clip_loops);
    const walk_group *grp = &w->groups[0];
    float f;
    int i = group_key(grp, ticks, &pose->cursors[grp->channel * 3], &f);
    vector_call(w, pose, i, f);
}

/* frame_vector's body, for FRAME_BUILDS. */
static inline __attribute__((always_inline)) void frame_vector_at(const skv_walk *w, const skv_clip *clip,
                                                                  double seconds, skv_pose *pose)
{
    double ticks;
    if (__builtin_expect(pose->palette_rows != 0, 0) ||
        !keys_ticks_step(seconds, clip->ticks_per_second, clip->duration_ticks, pose->clip_loops, &ticks)) {
        frame_vector_rest(w, clip, seconds, pose);
        return;
    }
    const walk_group *grp = &w->groups[0];
    float f;
    int i = group_step(grp, ticks, &pose->cursors[grp->channel * 3], &f);
    if (__builtin_expect(i < 0, 0)) {
        frame_vector_key(w, pose, ticks);
        return;
    }
    vector_call(w, pose, i, f);
}

FRAME_BUILDS(frame_vector)

/* The builds for this CPU. */
static skv_walk_frame general_frame(void)
{
    return FRAME_FOR_CPU(frame_general);
}

static skv_walk_frame one_frame(void)
{
    return FRAME_FOR_CPU(frame_one);
}

static skv_walk_frame vector_frame(void)
{
    return FRAME_FOR_CPU(frame_vector);
}

/* frame_solo from the prepared pairs: the whole frame in the kernel
 * (kernels.h, solo_frame or solo_frame_weighted), a tail call without a
 * frame here. */
static inline void frame_terms_any(const skv_walk *w, const skv_clip *clip, double seconds, skv_pose *pose,
                                   int weighted)
{
    if (pose->palette_rows) { /* a crowd's rows: run_rows */
        frame_one(w, clip, seconds, pose);
        return;
    }
    pose->globals_owed = w->owed;
    (weighted ? pose->kernels->solo_frame_weighted : pose->kernels->solo_frame)(
        &w->solo, seconds, clip->ticks_per_second, clip->duration_ticks, pose->cursors + w->solo_cursor, pose->work,
        (float *)pose->palette, &pose->clip_loops);
}

static void frame_terms(const skv_walk *w, const skv_clip *clip, double seconds, skv_pose *pose)
{
    frame_terms_any(w, clip, seconds, pose, 0);
}

static void frame_terms_weighted(const skv_walk *w, const skv_clip *clip, double seconds, skv_pose *pose)
{
    frame_terms_any(w, clip, seconds, pose, 1);
}

void walk_fixed(const skv_walk *w, float *work, float *palette, const skv_kernels *kernels, int rows)
{
    (rows ? kernels->run_rows : kernels->run)(w->fixed, w->fixed_count, work, w->constants, palette);
}

void walk_deferred(const skv_walk *w, float *work, const skv_kernels *kernels)
{
    walk_deferred_run(w, w->deferred, w->deferred_count, work, kernels);
}

int walk_deferred_count(const skv_walk *w)
{
    return w->deferred_count;
}

int walk_deferred_except(const skv_walk *w, const unsigned char *skip, int node_count, skv_walk_step *steps)
{
    int count = 0;
    for (int k = 0; k < w->deferred_count; k++) {
        int32_t out = w->deferred[k].out; /* a global's byte offset in work */
        int n = out >= 0 && (size_t)out < (size_t)node_count * sizeof(mat4) ? (int)((size_t)out / sizeof(mat4)) : -1;
        if (n < 0 || !skip[n]) steps[count++] = w->deferred[k];
    }
    return count;
}

void walk_deferred_run(const skv_walk *w, const skv_walk_step *steps, int count, float *work,
                       const skv_kernels *kernels)
{
    if (w->terms) kernels_solo_local(&w->solo, work); /* solo_frame leaves it unformed */
    kernels->run(steps, count, work, w->constants, work);
}

/* A walk where nothing moves (a clip of one pose: Testwuson's Wuson_Bind,
 * most HL1 .mdl idles, a one-frame SMD): every palette entry is fixed,
 * written when the clip was settled (walk_fixed), and no global is formed
 * a frame; what is left is whether pose_globals owes the deferred ones.
 * The general frame took the long way to the same (the clip time, the
 * empty group loop, an empty product call). */
static void frame_still(const skv_walk *w, const skv_clip *clip, double seconds, skv_pose *pose)
{
    (void)clip, (void)seconds;
    pose->globals_owed = w->owed;
}

int walk_is_still(const skv_walk *w)
{
    return w->sample_count == 0 && w->global_count == 0 && w->palette_count == 0;
}

skv_walk_frame walk_frame_for(const skv_walk *w)
{
    return walk_is_still(w)    ? frame_still
         : w->terms            ? (w->solo.weighted ? frame_terms_weighted : frame_terms)
         : w->solo_palette     ? frame_solo
         : w->vector_palette   ? vector_frame()
         : w->one              ? one_frame()
                               : general_frame();
}
