/* walk_compile.c - compiling a clip's hierarchy walk (walk.h): which
 * nodes move, the time groups and their prepared keys, the flat lists of
 * products; walk.c runs what this settles, per frame. */
#include "walk_internal.h"
#include "anim.h"
#include "keys.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void walk_free(skv_walk *walk)
{
    if (!walk) return;
    for (int g = 0; walk->groups && g < walk->group_count; g++) {
        walk_group *grp = &walk->groups[g];
        free(grp->search), free(grp->times), free(grp->inv_span), free(grp->out);
        free(grp->compact ? (void *)((char *)grp->keys - WALK_COMPACT_HEAD) : grp->keys);
    }
    free(walk->loose);
    free(walk->terms);
    free(walk->groups);
    free(walk->globals);
    free(walk->palette);
    free(walk->vector_steps);
    free(walk->rows_pairs);
    free(walk->fixed);
    free(walk->deferred);
    free(walk->vector_globals);
    free(walk->vector_leaves);
    free(walk->constants);
    free(walk);
}

/* --- compiling ------------------------------------------------------------ */

enum { NODE_FIXED, NODE_WORK, NODE_DEFERRED };

typedef struct compiler {
    const skv_skeleton *sk;
    skv_walk *walk;
    unsigned char *state; /* per node: NODE_* */
    int32_t *ref;         /* NODE_FIXED: its global (a constant operand); NODE_WORK: its global in the work block */
    int32_t *anchor;      /* NODE_DEFERRED: global = anchor * chain; anchor is a NODE_WORK global */
    int32_t *chain;       /*   chain: a constant operand */
    int *moving;          /* the channels that move, walk->sample_count of them, node order */
    int32_t *pre;         /* per moving channel: 0, or its constant parent (a similarity) taken into its keys */
    int32_t one, root;    /* the constants identity and globalInverse */
    int32_t local_base;   /* where the locals start in the work block */
} compiler;

static int32_t global_at(int n) { return (int32_t)((size_t)n * sizeof(mat4)); }

/* A new constant; returns its operand (~byte offset). */
static int32_t add_constant(compiler *cc, const mat4 m)
{
    int k = cc->walk->constant_count++;
    glm_mat4_copy((vec4 *)m, cc->walk->constants[k]);
    return ~(int32_t)((size_t)k * sizeof(mat4));
}

static float *constant(compiler *cc, int32_t operand)
{
    return (float *)((char *)cc->walk->constants + ~operand);
}

/* Exactly the identity (a product by it changes no finite value). */
static int is_identity(const float *m)
{
    for (int k = 0; k < 16; k++)
        if (m[k] != (k % 5 == 0 ? 1.0f : 0.0f)) return 0;
    return 1;
}

/* Bottom row exactly 0 0 0 1 (column-major: entries 3, 7, 11, 15). */
static int is_affine(const float *m)
{
    return m[3] == 0.0f && m[7] == 0.0f && m[11] == 0.0f && m[15] == 1.0f;
}

/* Every step's b affine: a local (a sampled T * R * S, >= 0 operands in
 * these lists) or a constant whose bottom row is checked. */
static int steps_affine(compiler *cc, const skv_walk_step *steps, int count)
{
    for (int k = 0; k < count; k++)
        if (steps[k].b < 0 && !is_affine(constant(cc, steps[k].b))) return 0;
    return 1;
}

/* m = translation * s * rotation, s > 0 (columns orthogonal, of one
 * length and right-handed, to 1e-6 relative): its rotation as a unit
 * quaternion and s. A moving node under such a constant parent takes the
 * parent into its keys (fill_group_keys): parent * T * R * S is
 * T(m t) * R(q_m q) * S(s S), each factor interpolated as the key it
 * replaces (lerp commutes with an affine map, slerp with a rotation on
 * the left, which keeps dot products and lengths), so its global is its
 * sampled local, without a product a frame. */
static int similarity(const float *m, float q[4], float *scale)
{
    if (!is_affine(m)) return 0;
    double len2[3], s2 = 0.0;
    for (int i = 0; i < 3; i++) {
        len2[i] = (double)m[4 * i] * m[4 * i] + (double)m[4 * i + 1] * m[4 * i + 1] + (double)m[4 * i + 2] * m[4 * i + 2];
        s2 += len2[i] / 3.0;
    }
    if (!(s2 > 0.0) || !isfinite(s2)) return 0;
    for (int i = 0; i < 3; i++) {
        if (fabs(len2[i] - s2) > 1e-6 * s2) return 0;
        int j = (i + 1) % 3;
        double dot = (double)m[4 * i] * m[4 * j] + (double)m[4 * i + 1] * m[4 * j + 1] + (double)m[4 * i + 2] * m[4 * j + 2];
        if (fabs(dot) > 1e-6 * s2) return 0;
    }
    double det = m[0] * ((double)m[5] * m[10] - (double)m[6] * m[9]) - m[4] * ((double)m[1] * m[10] - (double)m[2] * m[9]) +
                 m[8] * ((double)m[1] * m[6] - (double)m[2] * m[5]);
    if (!(det > 0.0)) return 0;
    float t[3], sc[3];
    anim_decompose((vec4 *)m, t, q, sc);
    *scale = (float)sqrt(s2);
    return 1;
}

static void add_step(skv_walk_step *list, int *count, int32_t a, int32_t b, int32_t out)
{
    list[(*count)++] = (skv_walk_step){a, b, out};
}

/* Every key of an array (`count` keys `stride` bytes apart, `size`
 * bytes of value `offset` bytes into each) bitwise its first, and where
 * the array is cubic (`tangents` not NULL, `tangent_floats` a key) every
 * tangent 0: the array's value at any time is its first key's (lerp and
 * slerp of a key with itself, Hermite between equal keys with flat
 * tangents, give the key to float rounding). */
static int array_held(const void *keys, size_t stride, size_t offset, size_t size, int count, int mode,
                      const float *tangents, int tangent_floats)
{
    const char *first = (const char *)keys + offset;
    for (int k = 1; k < count; k++)
        if (memcmp(first, first + (size_t)k * stride, size) != 0) return 0;
    if (mode == SKV_KEY_CUBIC && count > 1) {
        if (!tangents) return 0;
        for (size_t k = 0; k < (size_t)count * (size_t)tangent_floats; k++)
            if (tangents[k] != 0.0f) return 0;
    }
    return 1;
}

/* A channel whose keys never change (a channel of one key per array, or
 * one whose every array holds its first key: many exporters key joints
 * that hold still, Fox.glb's and the BVH files' T and S on every bone):
 * the same local at every time, posed once per clip (place_node) like a
 * node without a channel, its keys neither stored nor sampled a frame. */
static int channel_constant(const skv_channel *ch)
{
    return array_held(ch->positions, sizeof *ch->positions, offsetof(skv_vec3_key, value), sizeof(float[3]),
                      ch->position_count, ch->position_mode, ch->position_tangents, 6) &&
           array_held(ch->rotations, sizeof *ch->rotations, offsetof(skv_quat_key, value), sizeof(float[4]),
                      ch->rotation_count, ch->rotation_mode, ch->rotation_tangents, 8) &&
           array_held(ch->scales, sizeof *ch->scales, offsetof(skv_vec3_key, value), sizeof(float[3]),
                      ch->scale_count, ch->scale_mode, ch->scale_tangents, 6);
}

/* T * R * S of a channel's first keys (the rotation normalised). */
static void channel_first_local(const skv_channel *ch, mat4 out)
{
    keys_local(ch->positions[0].value, ch->rotations[0].value, ch->scales[0].value, out);
}

/* The key times a channel's arrays of 2+ keys share (most files key T,
 * R and S together); 0 if they differ or every array has one key. */
static int shared_times(const skv_channel *ch, const double **times, size_t *stride, int *count)
{
    const double *t[3] = {&ch->positions[0].time, &ch->rotations[0].time, &ch->scales[0].time};
    size_t st[3] = {sizeof ch->positions[0], sizeof ch->rotations[0], sizeof ch->scales[0]};
    int n[3] = {ch->position_count, ch->rotation_count, ch->scale_count};
    int lead = -1;
    for (int a = 0; a < 3; a++) {
        if (n[a] <= 1) continue;
        if (lead < 0) {
            lead = a;
            continue;
        }
        if (n[a] != n[lead]) return 0;
        for (int k = 0; k < n[a]; k++)
            if (TIME_AT(t[a], st[a], k) != TIME_AT(t[lead], st[lead], k)) return 0;
    }
    if (lead < 0) return 0;
    *times = t[lead], *stride = st[lead], *count = n[lead];
    return 1;
}

/* A channel for a time group (its keys prepared, sampled by the lanes,
 * which interpolate linearly: keys.h, SKV_KEY_LINEAR) where its arrays
 * share their times (shared_times); any other moving channel is sampled
 * one key array at a time (loose: walk.c, through keys_blend). */
static int groupable(const skv_channel *ch, const double **times, size_t *stride, int *count)
{
    return keys_mode(ch) == SKV_KEY_LINEAR && shared_times(ch, times, stride, count);
}

/* --- several time lines keyed as one ------------------------------------
 * Channels keyed at different times (huesitos.fbx: 9 channels on 5 time
 * lines) pay a key pair, a cursor and a lane gathering per time line each
 * frame. Their curves do not change when a key is added on a segment with
 * the value the segment has there (keys.h, keys_linear_vec3_at and
 * keys_linear_quat_at). Every channel keyed at the union of the time
 * lines is then one time group: one key pair and one cursor a frame, its
 * channels in one vector. */

/* |q|^2 of a rotation key that counts as unit: files normalise their
 * keys, but many write them to six decimals (the X files' exporters),
 * each component then up to 5e-7 off, and |q|^2 up to 2 x 5e-7 x
 * (|x| + |y| + |z| + |w|) <= 2e-6 off 1 (Testwuson.X 1.9e-6,
 * BCN_Epileptic.X 1.8e-6: until 2026-11-26 the bound was 1e-6, and
 * Wuson_Walk's 31 channels stayed on 11 lines). The keys a merge adds
 * lie on the reference's own curve (keys_linear_quat_at), and the lanes
 * between them and such keys follow it as closely as between the keys
 * themselves (test_merge_six_decimals, test_merge_near_keys). */
#define UNIT_LEN2_OFF 2.5e-6

/* Every rotation key of unit length to UNIT_LEN2_OFF. Between keys far
 * from unit the reference's speed along its arc depends on their
 * lengths, and a key added on a segment changes it: such channels keep
 * their lines. */
static int unit_rotations(const skv_channel *ch)
{
    for (int k = 0; k < ch->rotation_count; k++) {
        const float *q = ch->rotations[k].value;
        double len2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
        if (!(fabs(len2 - 1.0) <= UNIT_LEN2_OFF)) return 0;
    }
    return 1;
}

/* Keys per tick where a group's times lie within a quarter of their mean
 * spacing of an even grid, 0 otherwise. There (t - times[0]) * rate is
 * within [i - 1/4, i + 5/4) for t's key pair i, so its integer part is
 * i or a neighbour, which group_seek's steps on the exact times settle;
 * the keys are then strictly increasing, too. Rounding (glTF's float
 * seconds times 1000) is far inside the quarter. */
static double even_key_rate(const double *times, int count)
{
    double span = (times[count - 1] - times[0]) / (count - 1);
    if (!(span > 0.0) || !isfinite(span)) return 0.0;
    for (int i = 0; i < count; i++)
        if (!(fabs(times[i] - (times[0] + i * span)) <= 0.25 * span)) return 0.0;
    return 1.0 / span;
}

static int exact_grid(const double *times, int count, double key_rate);

/* An uneven group's seek index (walk_internal.h, walk_seek_index), from
 * its search floats: a guess, which walk.c's seek checks on the search
 * floats and settles on the exact times, so a bucket that holds more
 * keys than the seek looks at, or floats that round a bucket's start
 * differently, cost a search, never a wrong pair. */
static void set_seek_index(walk_group *grp)
{
    int n = grp->key_count, buckets = n - 1;
    walk_seek_index *index = (walk_seek_index *)(void *)(grp->search + n + SKV_SEEK_AHEAD);
    float first = grp->search[0], span = grp->search[n - 1] - first;
    index->origin = first;
    index->rate = span > 0.0f && isfinite(span) ? (float)buckets / span : 0.0f;
    int i = 0;
    for (int b = 0; b < buckets; b++) {
        float start = index->rate > 0.0f ? first + (float)b / index->rate : first;
        while (i + 1 < n - 1 && grp->search[i + 1] <= start) i++;
        index->key[b] = i;
    }
}

/* A group's time arrays for `count` times (the search's floats, then
 * SKV_SEEK_AHEAD infinities for walk.c's look past the cursor; the spans'
 * inverses); 0 if memory ran out. */
static int group_set_times(walk_group *grp, const double *times, int count)
{
    grp->key_count = count;
    grp->key_rate = even_key_rate(times, count);
    int indexed = walk_seek_indexed(grp);
    grp->times = malloc((size_t)count * sizeof *grp->times);
    grp->inv_span = malloc((size_t)count * sizeof *grp->inv_span);
    grp->search = malloc(walk_search_floats(count, indexed) * sizeof *grp->search);
    if (!grp->times || !grp->inv_span || !grp->search) return 0;
    for (int i = 0; i < count; i++) {
        grp->times[i] = times[i];
        grp->search[i] = (float)times[i];
    }
    for (int i = 0; i < SKV_SEEK_AHEAD; i++) grp->search[count + i] = INFINITY;
    for (int i = 0; i + 1 < count; i++) {
        double span = times[i + 1] - times[i];
        grp->inv_span[i] = span > 0.0 ? 1.0 / span : 0.0;
    }
    grp->inv_span[count - 1] = 0.0;
    if (indexed) set_seek_index(grp);
    grp->grid = (unsigned char)exact_grid(times, count, grp->key_rate);
    return 1;
}

/* Past three times the keys, a merge is still taken where the merged
 * group's keys take at most MERGE_GROUP_BYTES, and a model's such merges
 * all together at most MERGE_MODEL_BYTES (w->merge_bytes, charged to the
 * model as the arcs are): a file whose exporter reduced each curve's keys
 * on its own (ozz's run.fbx: 55 channels on 21 time lines, 930 keys, their
 * union 163 times, 10.7x) otherwise pays a key pair, a cursor and a lane
 * gathering per line each frame: keyed as one its frames cost far less,
 * for keys several times the size (bench/NOTES.md v7q). 1 MB of keys
 * leaves their arcs (~2.1x) inside ARC_GROUP_BYTES. */
enum { MERGE_GROUP_BYTES = 1 << 20, MERGE_MODEL_BYTES = 32 << 20 };

/* The time groups as one keyed at the union of their times, where that
 * costs at most three times the keys they hold (Seymour's 5 groups of 11
 * channels need 3x, and gain by it: bench/NOTES.md v7k; three channels
 * on three lines that share no time always reach exactly 3x) or, past
 * that, fits MERGE_GROUP_BYTES and `room` (the model's
 * MERGE_MODEL_BYTES left; charged to w->merge_bytes): every group's
 * times strictly increasing (a step, two keys at one time, stays
 * as it is), every member's rotations unit, and not a single channel
 * that would cost a lane block (below). group_of's groups all become
 * group 0. Returns 0 (kept or merged), -1 if memory ran out. */
static int merge_time_lines(skv_walk *w, const skv_clip *clip, const int *moving_channels, int *group_of, int moving,
                            size_t room)
{
    if (w->group_count < 2) return 0;
    size_t total = 0, channel_keys = 0;
    int channels = 0;
    for (int g = 0; g < w->group_count; g++) {
        const walk_group *grp = &w->groups[g];
        for (int i = 0; i + 1 < grp->key_count; i++)
            if (!(grp->times[i] < grp->times[i + 1])) return 0;
        total += (size_t)grp->key_count;
        channel_keys += (size_t)grp->key_count * (size_t)grp->channel_count;
        channels += grp->channel_count;
    }
    /* Two lines, one of them a single channel (the one-channel sampler),
     * where keyed as one the channels would take a block of 16 lanes more
     * than the other line fills: BCN_Epileptic.X, 16 channels and 1,
     * took two blocks, 15 lanes padding, and its frames got slower on
     * AVX-512. The only shape measured; three lines and more are keyed as
     * one (Testwuson.X's Wuson_Run: 29 channels, 1 and 1). */
    if (w->group_count == 2 && (w->groups[0].channel_count == 1 || w->groups[1].channel_count == 1)) {
        int other = w->groups[0].channel_count == 1 ? w->groups[1].channel_count : w->groups[0].channel_count;
        int blocks = (channels + SKV_LANE_BLOCK - 1) / SKV_LANE_BLOCK;
        if (blocks > (other + SKV_LANE_BLOCK - 1) / SKV_LANE_BLOCK) return 0;
    }
    for (int k = 0; k < moving; k++)
        if (group_of[k] >= 0 && !unit_rotations(&clip->channels[moving_channels[k]])) return 0;
    double *all = malloc(total * sizeof *all);
    if (!all) return -1;
    size_t n = 0;
    for (int g = 0; g < w->group_count; g++)
        for (int i = 0; i < w->groups[g].key_count; i++) all[n++] = w->groups[g].times[i];
    size_t count = keys_times_union(all, total);
    /* The merged keys' bytes: every lane block's keys, as fill_group_keys
     * lays out a vector group (a group of fewer than 4 channels takes less). */
    size_t blocks = ((size_t)channels + SKV_LANE_BLOCK - 1) / SKV_LANE_BLOCK;
    size_t bytes = count <= SIZE_MAX / (SKV_KEY_FLOATS(blocks) * sizeof(float))
                       ? count * SKV_KEY_FLOATS(blocks) * sizeof(float)
                       : SIZE_MAX;
    int within_keys = count * (size_t)channels <= 3 * channel_keys;
    if ((!within_keys && (bytes > MERGE_GROUP_BYTES || bytes > room)) || count > INT32_MAX) {
        free(all);
        return 0;
    }
    if (!within_keys) w->merge_bytes = bytes;
    int lines = w->group_count;
    for (int g = 0; g < lines; g++) {
        walk_group *grp = &w->groups[g];
        free(grp->search), free(grp->times), free(grp->inv_span);
        *grp = (walk_group){0};
    }
    w->group_count = 1;
    int ok = group_set_times(&w->groups[0], all, (int)count);
    free(all);
    if (!ok) return -1;
    w->groups[0].channel_count = channels;
    for (int k = 0; k < moving; k++)
        if (group_of[k] >= 0) group_of[k] = 0;
    w->merged = lines;
    return 0;
}

/* Fills group g's keys: per key, per block of SKV_LANE_BLOCK lanes, T, R,
 * S component by component; rotations turned into the hemisphere of the
 * lane's key before (q and -q are one rotation; the reference's slerp
 * makes the same turn per pair). Lanes past the last channel repeat it. */
static void fill_group_keys(walk_group *grp, const skv_clip *clip, const int *channels, const float *const *pre,
                            int merged)
{
    int blocks = grp->lane_count / SKV_LANE_BLOCK;
    int rows = grp->each || grp->solo; /* channel by channel, a key as three rows */
    /* Where component c of lane l's key k goes. */
    size_t lane_stride = rows ? 1 : SKV_LANE_BLOCK;
    size_t key_stride = rows ? SKV_EACH_KEY_FLOATS : SKV_KEY_FLOATS(blocks);
    static const int each_at[SKV_LANE_COMPONENTS] = {0, 1, 2, 4, 5, 6, 7, 8, 9, 10};
    for (int l = 0; l < grp->lane_count; l++) {
        int member = l < grp->channel_count ? l : grp->channel_count - 1;
        const skv_channel *ch = &clip->channels[channels[member]];
        const float *m = pre[member]; /* the parent taken into the keys, or NULL */
        float m_q[4], m_s = 1.0f;
        if (m && !similarity(m, m_q, &m_s)) m = NULL; /* cannot happen: checked when compiling */
        float *lane = rows ? grp->keys + (size_t)l * (size_t)grp->key_count * SKV_EACH_KEY_FLOATS
                                : grp->keys + kernels_lane_at(l, SKV_KEY_FLOATS(1));
        /* The hemisphere: the reference turns b of each pair (a, b) where
         * the keys' float dot product is < 0, so key k's sign is key k -
         * 1's times that turn, the dot product taken on the keys as the
         * file has them (before a folded parent: its rounding can move a
         * sum near 0 to the other side) and on the key before as it is,
         * not turned (a turned one gives -0 for an exact 0, which does
         * not turn, where the reference's pair is the other arc). */
        float previous[4] = {0}, sign = 1.0f;
        int signed_key = 0; /* merged: the channel's own key whose sign `sign` is */
        for (int k = 0; k < grp->key_count; k++) {
            float *key = lane + (size_t)k * key_stride;
#define COMPONENT(c) key[rows ? (size_t)each_at[c] : (size_t)(c) * lane_stride]
            const float *t = ch->positions[ch->position_count > 1 ? k : 0].value;
            const float *r = ch->rotations[ch->rotation_count > 1 ? k : 0].value;
            const float *s = ch->scales[ch->scale_count > 1 ? k : 0].value;
            float at_t[3], at_r[4], at_s[3];
            int segment = 0; /* merged: the channel's own rotation key that starts r's segment */
            if (merged) { /* the channel's own keys, or a key added on its curve */
                double time = grp->times[k];
                keys_linear_vec3_at(ch->positions, ch->position_count, time, at_t);
                segment = keys_linear_quat_at(ch->rotations, ch->rotation_count, time, at_r);
                keys_linear_vec3_at(ch->scales, ch->scale_count, time, at_s);
                t = at_t, r = at_r, s = at_s;
            }
            const float *file_r = r;
            float mt[3], mr[4], ms[3];
            if (m) {
                for (int a = 0; a < 3; a++) {
                    mt[a] = (float)((double)m[a] * t[0] + (double)m[4 + a] * t[1] + (double)m[8 + a] * t[2] + m[12 + a]);
                    ms[a] = m_s * s[a];
                }
                /* m_q * r, (x, y, z, w) order; by hand: cglm's SIMD
                 * quaternion product wants 16-byte aligned operands. */
                mr[0] = m_q[3] * r[0] + m_q[0] * r[3] + m_q[1] * r[2] - m_q[2] * r[1];
                mr[1] = m_q[3] * r[1] - m_q[0] * r[2] + m_q[1] * r[3] + m_q[2] * r[0];
                mr[2] = m_q[3] * r[2] + m_q[0] * r[1] - m_q[1] * r[0] + m_q[2] * r[3];
                mr[3] = m_q[3] * r[3] - m_q[0] * r[0] - m_q[1] * r[1] - m_q[2] * r[2];
                t = mt, r = mr, s = ms;
            }
            if (merged) {
                /* A merge's key takes the sign of the channel's own key
                 * that starts its segment (keys_linear_quat_at puts an
                 * added key on that key's side), and the turns are the
                 * reference's, between the channel's own keys: a dot
                 * product with an added key near one a half turn away can
                 * fall on the other side of 0 (a helper's review: the
                 * lane went the long way round, 1.67 of the palette;
                 * test_merge_near_keys). */
                sign = keys_turns_to(ch->rotations, &signed_key, segment, sign);
            } else if (k > 0 && keys_dot(previous, file_r) < 0.0f)
                sign = -sign;
            for (int c = 0; c < 4; c++) previous[c] = file_r[c];
            for (int c = 0; c < 3; c++) {
                COMPONENT(c) = t[c];
                COMPONENT(7 + c) = s[c];
            }
            /* Components under 2^-32 of the key's length are 0 here, as
             * kernels.c's arc_flush makes them in arcs: their products
             * in the frame would be subnormal (a microcode assist each on
             * Intel CPUs); the rotation moves by ~2^-30 rad at most. */
            double length = sqrt((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3]);
            for (int c = 0; c < 4; c++) COMPONENT(3 + c) = fabs(r[c]) < 0x1p-32 * length ? 0.0f : sign * r[c];
            if (rows) key[3] = key[11] = 0.0f; /* the rows' 4th floats */
#undef COMPONENT
        }
    }
}

/* Affine with its 3x3 exactly the identity: a product by it only
 * translates (kernels.h, skv_walk_lists). */
static int is_translation(const float *m)
{
    for (int k = 0; k < 12; k++)
        if (m[k] != (k % 5 == 0 ? 1.0f : 0.0f)) return 0;
    return m[15] == 1.0f;
}

/* Every key of a group of whole vectors has its first key's T in every
 * lane (the lerp between two of them gives that T). */
static int t_fixed(const walk_group *grp)
{
    for (int k = 1; k < grp->key_count; k++)
        for (int c = 0; c < 3; c++)
            for (int l = 0; l < grp->lane_count; l++) {
                size_t at = kernels_lane_at(l, SKV_KEY_FLOATS(1)) + (size_t)c * SKV_LANE_BLOCK;
                if (!(grp->keys[(size_t)k * grp->key_floats + at] == grp->keys[at])) return 0;
            }
    return 1;
}

/* The global step writing work offset `out`, or -1. */
static int global_writing(const skv_walk *w, int32_t out)
{
    for (int k = 0; k < w->global_count; k++)
        if (w->globals[k].out == out) return k;
    return -1;
}

/* How many of the frame's steps read work offset `at`. */
static int frame_reads(const skv_walk *w, int32_t at)
{
    int reads = 0;
    for (int k = 0; k < w->global_count; k++) reads += (w->globals[k].a == at) + (w->globals[k].b == at);
    for (int k = 0; k < w->palette_count; k++) reads += w->palette[k].a == at;
    return reads;
}

/* vector_palette's leaves: a palette entry G b whose global G = A L is
 * read by nothing else in the frame, A itself a global of the frame
 * (its step's product) and L a local, is formed as A (L b): L b starts
 * as soon as the sampler has written L, beside A's products, and the
 * entry is one product less deep (a 3-bone chain's frame waited for
 * three products after the sampler, now two: bench/NOTES.md v7o). The
 * same number of products: G's step
 * leaves the frame for the deferred list, at its head (A and L are in
 * work after the frame; deferred steps reading G come after it), as
 * pose_globals forms the globals the palette does not need. Products
 * associated the other way round: the entry differs from G b by float
 * rounding, well inside the reference's tolerance (test_anim_walk). The
 * deferred list has room: each node is in at most one of globals and
 * deferred before. `translating`: per palette step, whether its b only
 * translates. The globals kept (w->vector_globals); -1 if memory ran
 * out. */
static int vector_leaves(skv_walk *w, const char *translating, char *taken, int *leaf_count, int *leaf_translations)
{
    int g = w->global_count, n = w->palette_count;
    w->vector_globals = malloc((size_t)(g > 0 ? g : 1) * sizeof *w->vector_globals);
    w->vector_leaves = malloc((size_t)(2 * n > 0 ? 2 * n : 1) * sizeof *w->vector_leaves);
    char *moved = calloc((size_t)(g > 0 ? g : 1), 1);
    if (!w->vector_globals || !w->vector_leaves || !moved) {
        free(moved);
        return -1;
    }
    int count = 0, translations = 0;
    /* Translating leaves first (leaf_translations), then the others. */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < n; k++) {
            const skv_walk_step *p = &w->palette[k];
            if (taken[k] || translating[k] != (pass == 0)) continue;
            int s = global_writing(w, p->a);
            if (s < 0 || moved[s] || w->globals[s].b < 0 || global_writing(w, w->globals[s].a) < 0 ||
                frame_reads(w, p->a) != 1)
                continue;
            const skv_walk_step *gs = &w->globals[s];
            w->vector_leaves[2 * count] = (skv_walk_step){gs->b, p->b, gs->out};     /* T = L b, in G's place */
            w->vector_leaves[2 * count + 1] = (skv_walk_step){gs->a, gs->out, p->out}; /* A T */
            count++, translations += pass == 0;
            moved[s] = 1, taken[k] = 1;
        }
    int kept = 0, deferred = w->deferred_count;
    for (int k = 0; k < g; k++)
        if (!moved[k]) w->vector_globals[kept++] = w->globals[k];
    if (count > 0) {
        memmove(w->deferred + (g - kept), w->deferred, (size_t)deferred * sizeof *w->deferred);
        for (int k = 0, d = 0; k < g; k++)
            if (moved[k]) w->deferred[d++] = w->globals[k];
        w->deferred_count += g - kept;
    }
    free(moved);
    *leaf_count = count, *leaf_translations = translations;
    return kept;
}

/* vector_palette's lists: its leaves (vector_leaves) taken out, then the
 * palette's steps whose offset only translates apart from the others
 * (their order does not matter: each writes an entry of its own). 0 if
 * memory ran out. */
static int vector_lists(skv_walk *w)
{
    int n = w->palette_count, general = 0;
    /* Per palette step: taken by a leaf (vector_leaves), its b only translating. */
    char *taken = calloc((size_t)(n > 0 ? 2 * n : 1), 1), *translating = taken + n;
    w->vector_steps = malloc((size_t)(n > 0 ? n : 1) * sizeof *w->vector_steps);
    int leaf_count = 0, leaf_translations = 0, globals = -1;
    if (taken && w->vector_steps) {
        for (int k = 0; k < n; k++)
            translating[k] = (char)is_translation((const float *)((const char *)w->constants + ~w->palette[k].b));
        globals = vector_leaves(w, translating, taken, &leaf_count, &leaf_translations);
    }
    if (globals < 0) {
        free(taken);
        return 0;
    }
    for (int k = 0; k < n; k++)
        if (!taken[k] && !translating[k]) w->vector_steps[general++] = w->palette[k];
    int t = general;
    for (int k = 0; k < n; k++)
        if (!taken[k] && translating[k]) w->vector_steps[t++] = w->palette[k];
    free(taken);
    /* Constants as the lists hold them: their byte offsets (kernels.h). */
    for (int k = 0; k < t; k++) w->vector_steps[k].b = ~w->vector_steps[k].b;
    for (int k = 0; k < leaf_count; k++) w->vector_leaves[2 * k].b = ~w->vector_leaves[2 * k].b;
    w->lists = (skv_walk_lists){.globals = w->vector_globals,
                                .palette = w->vector_steps,
                                .translations = w->vector_steps + general,
                                .constants = (const mat4 *)w->constants,
                                .leaves = w->vector_leaves,
                                .global_count = globals,
                                .palette_count = general,
                                .translation_count = t - general,
                                .leaf_count = leaf_count,
                                .leaf_translations = leaf_translations,
                                /* vector_wide's sampler lerps every T */
                                .t_fixed = w->groups[0].channel_count <= 4 && t_fixed(&w->groups[0]),
                                .arc = 0,
                                .lanes = w->groups[0].channel_count};
    return 1;
}

/* The globals' steps reordered by their depth in the list (a step whose
 * a another step writes comes one level after it; stable within a level):
 * in node order a chain's products came one after the other, each waiting
 * for the one before, with the other chains' work too far down the list
 * for the CPU to start it meanwhile; by depth, neighbours are independent.
 * The same products, so the same globals. 0 if memory ran out. */
static int by_depth(skv_walk_step *steps, int count, int node_count)
{
    if (count < 2) return 1;
    int *level_of = malloc((size_t)node_count * sizeof *level_of); /* by global: the level that writes it */
    int *level = malloc((size_t)count * sizeof *level);
    skv_walk_step *sorted = malloc((size_t)count * sizeof *sorted);
    if (!level_of || !level || !sorted) {
        free(level_of), free(level), free(sorted);
        return 0;
    }
    for (int n = 0; n < node_count; n++) level_of[n] = -1;
    int deepest = 0;
    for (int k = 0; k < count; k++) {
        /* An operand >= 0 below the locals' offsets is a global (a
         * parent's; b is a local or a constant, taken too in case). */
        int from = -1;
        for (int o = 0; o < 2; o++) {
            int32_t x = o ? steps[k].b : steps[k].a;
            if (x >= 0 && x < global_at(node_count) && level_of[x / (int32_t)sizeof(mat4)] > from)
                from = level_of[x / (int32_t)sizeof(mat4)];
        }
        level[k] = from + 1;
        level_of[steps[k].out / (int32_t)sizeof(mat4)] = level[k];
        deepest = level[k] > deepest ? level[k] : deepest;
    }
    /* A counting sort: each level's first place, then the steps in turn
     * (one pass per level would be quadratic on a chain of many nodes). */
    int *first = calloc((size_t)deepest + 2, sizeof *first);
    if (!first) {
        free(level_of), free(level), free(sorted);
        return 0;
    }
    for (int k = 0; k < count; k++) first[level[k] + 1]++;
    for (int l = 0; l <= deepest; l++) first[l + 1] += first[l];
    for (int k = 0; k < count; k++) sorted[first[level[k]]++] = steps[k];
    memcpy(steps, sorted, (size_t)count * sizeof *steps);
    free(level_of), free(level), free(sorted), free(first);
    return 1;
}

/* The palette's steps for rows_palette (kernels.h, skv_rows_pair), two
 * to a pair (an odd last one twice): each b's top three rows copied out
 * of the column-major constant, out the entry's place among 48-byte rows.
 * NULL if memory ran out. */
static skv_rows_pair *rows_pairs(const skv_walk *w)
{
    int count = (w->palette_count + 1) / 2;
    skv_rows_pair *pairs = aligned_alloc(64, (size_t)count * sizeof *pairs);
    if (!pairs) return NULL;
    memset(pairs, 0, (size_t)count * sizeof *pairs);
    for (int k = 0; k < 2 * count; k++) {
        const skv_walk_step *step = &w->palette[k < w->palette_count ? k : k - 1];
        const float *b = (const float *)((const char *)w->constants + ~step->b);
        skv_rows_pair *p = &pairs[k / 2];
        for (int r = 0; r < 3; r++)
            for (int j = 0; j < 4; j++) p->b[r][4 * (k % 2) + j] = b[4 * j + r];
        p->a[k % 2] = step->a;
        p->out[k % 2] = step->out / (int32_t)sizeof(mat4) * (int32_t)(SKV_ROWS_FLOATS * sizeof(float));
    }
    return pairs;
}

/* Every operand of the globals' steps in the work block (moving parents
 * and locals, no constant): kernels.h's vector_palette takes them so. */
static int globals_in_work(const skv_walk *w)
{
    for (int k = 0; k < w->global_count; k++)
        if (w->globals[k].a < 0 || w->globals[k].b < 0) return 0;
    return 1;
}

/* vector_palette takes one 4-lane vector; more channels take vector_wide,
 * the sampler of its set (AVX2's 8 lanes, AVX-512's 16) and the same
 * products in one call: frame_one's bookkeeping and two product calls
 * saved (bench/NOTES.md v7p; on AVX-512 too, v7r). Not a chain's globals:
 * run_chain keeps each link in registers, and the affine steps one after
 * the other made the tentacle's frames slower. */
static int vector_frame_fits(const skv_walk *w)
{
    if (w->groups[0].channel_count <= 4) return 1;
    return w->globals_run == offsetof(skv_kernels, run_affine);
}

/* Key k at exactly k x span, span a power of two, key_rate its inverse
 * (kernels.h, skv_solo's exact_grid): whole ticks from 0. */
static int exact_grid(const double *times, int count, double key_rate)
{
    if (!(key_rate > 0.0) || times[0] != 0.0) return 0;
    int exponent;
    double span = 1.0 / key_rate;
    if (frexp(span, &exponent) != 0.5 || span * key_rate != 1.0) return 0;
    for (int i = 1; i < count; i++)
        if (times[i] != (double)i * span) return 0;
    return 1;
}

/* A one-channel walk's pairs as solo_frame takes them take this much at
 * most (a pair is 832 bytes for one palette entry: ~5,000 keys), and a
 * model's walks all together this much: a pair grows with the palette
 * entries on the moving node (38.8 KB for 100, from a 24-byte key), and
 * each clip of a file compiles a walk, so 300 clips of 100 keys held
 * 1.16 GB. Past it a walk samples (solo_palette: as exact, a little
 * slower). */
enum { SOLO_TERMS_BYTES = 4 << 20, SOLO_MODEL_BYTES = 32 << 20 };
/* A group's prepared arcs take this much at most (2.1 times its keys,
 * which they replace: a group of 16 channels and ~3,000 keys), and a
 * model's all together this much, a budget of their own: the pairs
 * above are worth more a frame, and arcs charged to their budget left
 * later clips without them (a helper's review). Past it a group keeps
 * its keys (the lanes' sampler: as exact, a little slower). */
enum { ARC_GROUP_BYTES = 4 << 20, ARC_MODEL_BYTES = 32 << 20 };

/* Every pair of the group prepared into `terms` (`weighted`: for
 * solo_frame_weighted); 0 if one cannot be. */
static int prepare_pairs(const skv_walk *w, int weighted, float *terms, size_t floats)
{
    const walk_group *grp = &w->groups[0];
    for (size_t i = 0; i + 1 < (size_t)grp->key_count; i++)
        if (!kernels_solo_pair(grp->keys + i * SKV_EACH_KEY_FLOATS, weighted, w->palette, w->palette_count,
                               w->constants, terms + i * floats))
            return 0;
    return 1;
}

/* solo_palette's walk: its group's key pairs prepared for solo_frame
 * (w->terms, w->solo), where the palette's steps all take the channel's
 * local: for unit rotation keys, else weighted (kernels.h,
 * solo_frame_weighted, the keys' lengths in the weights); otherwise
 * w->terms stays NULL (out of memory too: the walk works without them). */
static void prepare_terms(skv_walk *w, size_t room)
{
    const walk_group *grp = &w->groups[0];
    size_t floats = SKV_SOLO_PAIR_FLOATS(w->palette_count), pairs = (size_t)grp->key_count - 1;
    size_t bytes = pairs * floats * sizeof(float);
    if (bytes > SOLO_TERMS_BYTES || bytes > room) return;
    for (int k = 0; k < w->palette_count; k++)
        if (w->palette[k].a != grp->out[0]) return;
    float *terms = aligned_alloc(64, pairs * floats * sizeof(float));
    if (!terms) return;
    int weighted = !prepare_pairs(w, 0, terms, floats);
    if (weighted && !prepare_pairs(w, 1, terms, floats)) {
        free(terms);
        return;
    }
    w->terms = terms;
    w->terms_bytes = bytes;
    w->solo = (skv_solo){.times = grp->times, .inv_span = grp->inv_span, .key_count = grp->key_count,
                         .out = grp->out[0], .terms = terms, .pair_floats = floats, .steps = w->palette,
                         .steps_end = w->palette + w->palette_count, .weighted = weighted,
                         .key_at = walk_solo_key_at, .group = grp, .key_rate = grp->key_rate,
                         .key_origin = grp->times[0] * grp->key_rate,
                         .exact_grid = exact_grid(grp->times, grp->key_count, grp->key_rate)};
    w->solo_cursor = grp->channel * 3;
}

/* Moving T's a compacted group patches at most (kernels.h,
 * kernels_compact_patch: a few scalar lerps a frame each): its root's,
 * mostly. */
static int compact_t_most(int channels)
{
    return channels / 8 > 1 ? channels / 8 : 1;
}

#define FULL(k, l, c) grp->keys[(size_t)(k) * kf + kernels_lane_at(l, SKV_KEY_FLOATS(1)) + (size_t)(c) * SKV_LANE_BLOCK]

/* Whether channel l's T keys (the group's full keys) differ. */
static int lane_t_moves(const walk_group *grp, int l)
{
    size_t kf = grp->key_floats;
    for (size_t k = 1; k < (size_t)grp->key_count; k++)
        for (int a = 0; a < 3; a++) {
            float v = FULL(k, l, a), first = FULL(0, l, a);
            if (memcmp(&v, &first, sizeof v) != 0) return 1;
        }
    return 0;
}

/* Whether group g's keys (its full keys) can be compacted, as keys
 * (compact_keys) or arcs (prepare_arcs): a group of whole vectors past 4
 * channels (vector_palette's 4 lanes take the keys as they are) whose
 * every channel's S keys are all one value and whose T keys are too but
 * for compact_t_most channels, the values finite (a lerp between
 * infinities is NaN, which the fixed value would not be); *t_count its
 * channels whose T moves. */
static int compactable(const walk_group *grp, int *t_count)
{
    int n = grp->channel_count;
    if (grp->each || grp->solo || grp->arc || grp->compact || n <= 4) return 0;
    size_t kf = grp->key_floats, keys = (size_t)grp->key_count;
    *t_count = 0;
    for (int l = 0; l < n; l++) {
        int t_moves = 0;
        for (int c = 0; c < 10; c++) {
            if (c >= 3 && c < 7) continue;
            float first = FULL(0, l, c);
            if (!isfinite(first)) return 0;
            for (size_t k = 1; k < keys; k++) {
                float v = FULL(k, l, c);
                if (memcmp(&v, &first, sizeof v) == 0) continue;
                if (c >= 7) return 0; /* S moves */
                t_moves = 1;
                break;
            }
        }
        *t_count += t_moves;
    }
    return *t_count <= compact_t_most(n);
}

/* A compacted group's allocation (kernels.h, skv_compact), its
 * descriptor at the head: `values` key pairs or keys of `floats` floats,
 * then the fixed T and S (fixed_floats), then t_count offsets; NULL if
 * memory ran out. */
static skv_compact *compact_block(size_t values, size_t floats, int stride, size_t fixed_floats, int t_count)
{
    size_t bytes = WALK_COMPACT_HEAD + (values * floats + fixed_floats) * sizeof(float) +
                   (size_t)(t_count > 0 ? t_count : 1) * sizeof(int32_t);
    char *block = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!block) return NULL;
    memset(block, 0, (bytes + 63) / 64 * 64);
    skv_compact *c = (skv_compact *)(void *)block;
    float *fixed = (float *)(void *)(block + WALK_COMPACT_HEAD) + values * floats;
    *c = (skv_compact){.fixed = fixed, .t_out = (int32_t *)(void *)(fixed + fixed_floats), .stride = stride,
                       .t_count = t_count};
    return c;
}

/* Group grp's key pairs as compacted arcs (kernels.h, SKV_CARC_M; the
 * descriptor's stride: the group's lanes), from
 * its full keys through the full arcs (kernels_arc_pair, one pair at a
 * time in `scratch`), so the terms are the arcs' own, bit for bit: the
 * group's keys then, its descriptor in *made. 1 done; 0 where a pair is
 * not an arc, or memory ran out (the group keeps its keys). */
static int compact_arcs(walk_group *grp, int t_count, float *scratch, skv_compact **made)
{
    int n = grp->channel_count, blocks = grp->lane_count / SKV_LANE_BLOCK;
    size_t pairs = (size_t)grp->key_count - 1, floats = SKV_COMPACT_ARC_FLOATS(blocks, t_count);
    int *t_lane = malloc((size_t)(t_count > 0 ? t_count : 1) * sizeof *t_lane), j = 0;
    skv_compact *c = t_lane ? compact_block(pairs, floats, grp->lane_count, SKV_CARC_FIXED_FLOATS(blocks), t_count) : NULL;
    if (!c) {
        free(t_lane);
        return 0;
    }
    for (int l = 0; l < n && j < t_count; l++)
        if (lane_t_moves(grp, l)) {
            ((int32_t *)c->t_out)[j] = grp->out[l];
            t_lane[j++] = l;
        }
    c->t_at = (int)SKV_CARC_FLOATS(blocks);
    float *arcs = (float *)(void *)((char *)c + WALK_COMPACT_HEAD);
    for (size_t i = 0; i < pairs; i++) {
        const float *a = grp->keys + i * grp->key_floats;
        if (!kernels_arc_pair(a, a + grp->key_floats, blocks, scratch)) {
            free(c), free(t_lane);
            return 0;
        }
        kernels_arc_compact(scratch, blocks, t_lane, t_count, arcs + i * floats, i == 0 ? (float *)c->fixed : NULL);
    }
    free(t_lane);
    free(grp->keys);
    grp->keys = arcs;
    grp->key_floats = floats;
    grp->compact = 1;
    *made = c;
    return 1;
}

/* Each group of whole vectors whose every rotation key is of unit length
 * gets its key pairs prepared as arcs (kernels.h, sample_arc), in place
 * of its keys, while `room` (bytes) lasts: the frame then waits on a
 * sine series and two products instead of the slerp's dot product, arc
 * weights, normalisation and division (bench/NOTES.md v7l). A group
 * that cannot keeps its keys (the lanes' sampler).
 * A group that compacts (compactable: S fixed, T moving in a few
 * channels; most rigs past the root) gets its arcs compacted (kernels.h,
 * SKV_CARC_M): its rotation terms alone, 9 floats a lane a pair, not 21,
 * in the arcs' blocks of lanes (a vector's loads at fixed offsets: a
 * stride of the channels rounded up to 8 saved bytes, but the frame
 * computed every load's address and spilled registers, bench/NOTES.md),
 * so a seek or playback past the caches reads less than half; the
 * frame forms the same locals (sample_arc_compact), bit for bit, and
 * takes fewer instructions past one 8-lane vector (no T or S to lerp,
 * 2 S stored): a group of COMPACT_ARC_CHANNELS or fewer keeps its full
 * arcs, as the moving T's patch costs it more than its one vector saves
 * (man.mdl's walk: 96 -> 99 Ir/bone) for at most 384 bytes a pair. Its
 * keys compacted instead (compact_keys, 4 floats a lane a key) were
 * smaller still, but the frame then took the slerp's arithmetic, slower
 * warm (bench/NOTES.md, compacted arcs). Budgets are counted at the
 * full arcs' size, compacted or not: which groups get arcs, in this
 * clip and the model's later ones, stays as it was, and so do their
 * palettes. After vector_lists, which reads the keys. */
enum { COMPACT_ARC_CHANNELS = 8 };
static void prepare_arcs(skv_walk *w, size_t room)
{
    for (int g = 0; g < w->group_count; g++) {
        walk_group *grp = &w->groups[g];
        if (grp->each || grp->solo) continue;
        int blocks = grp->lane_count / SKV_LANE_BLOCK, t_count;
        size_t pairs = (size_t)grp->key_count - 1, pair_floats = SKV_ARC_FLOATS(blocks);
        size_t bytes = pairs * pair_floats * sizeof(float);
        if (bytes > ARC_GROUP_BYTES || bytes > room) continue;
        if (grp->channel_count > COMPACT_ARC_CHANNELS && compactable(grp, &t_count)) {
            float *scratch = aligned_alloc(64, pair_floats * sizeof(float));
            skv_compact *c = NULL;
            int done = scratch && compact_arcs(grp, t_count, scratch, &c);
            free(scratch);
            if (!done) continue; /* not arcs (or out of memory): compact_keys may take the keys */
            grp->arc = 1;
            room -= bytes;
            w->arc_bytes += bytes;
            if (g == 0 && w->vector_palette) w->lists.arc = 2, w->lists.compact = c;
            continue;
        }
        float *arcs = aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!arcs) return;
        int ok = 1;
        for (size_t i = 0; ok && i < pairs; i++) {
            const float *a = grp->keys + i * grp->key_floats;
            ok = kernels_arc_pair(a, a + grp->key_floats, blocks, arcs + i * pair_floats);
        }
        if (!ok) {
            free(arcs);
            continue;
        }
        free(grp->keys);
        grp->keys = arcs;
        grp->key_floats = pair_floats;
        grp->arc = 1;
        room -= bytes;
        w->arc_bytes += bytes;
        if (g == 0 && w->vector_palette) w->lists.arc = 1;
    }
}

/* Group g's keys compacted (kernels.h, skv_compact) where compactable
 * says and it is not on arcs. The values are the full keys' own (folded
 * parents, rotations turned into one hemisphere), so the frame samples
 * the same numbers. 0 if memory ran out (the group keeps its keys). */
static int compact_keys(walk_group *grp, skv_compact **made)
{
    *made = NULL;
    int n = grp->channel_count, t_count;
    if (!compactable(grp, &t_count)) return 1;
    size_t kf = grp->key_floats, keys = (size_t)grp->key_count;
    int stride = (n + 7) / 8 * 8;
    size_t key_floats = SKV_COMPACT_KEY_FLOATS(stride, t_count);
    skv_compact *c = compact_block(keys, key_floats, stride, 6 * (size_t)stride, t_count);
    if (!c) return 0;
    float *out_keys = (float *)(void *)((char *)c + WALK_COMPACT_HEAD);
    float *fixed = (float *)c->fixed;
    int32_t *t_out = (int32_t *)c->t_out;
    int j = 0;
    for (int l = 0; l < stride; l++) {
        int from = l < n ? l : n - 1; /* padding lanes: the last channel again */
        for (int a = 0; a < 3; a++) {
            fixed[(size_t)a * stride + l] = FULL(0, from, a);
            fixed[(size_t)(3 + a) * stride + l] = FULL(0, from, 7 + a);
        }
        for (size_t k = 0; k < keys; k++)
            for (int a = 0; a < 4; a++) out_keys[k * key_floats + (size_t)a * stride + l] = FULL(k, from, 3 + a);
        if (l >= n || !lane_t_moves(grp, l)) continue;
        t_out[j] = grp->out[l];
        for (size_t k = 0; k < keys; k++)
            for (int a = 0; a < 3; a++) out_keys[k * key_floats + 4 * (size_t)stride + 3 * (size_t)j + a] = FULL(k, l, a);
        j++;
    }
    free(grp->keys);
    grp->keys = out_keys;
    grp->key_floats = key_floats;
    grp->compact = 1;
    *made = c;
    return 1;
}
#undef FULL

/* The time group keyed at the `count` times `stride` bytes apart from
 * `times`, a new one if none is yet: its index; -1 if memory ran out. */
static int group_for(skv_walk *w, const double *times, size_t stride, int count)
{
    for (int g = 0; g < w->group_count; g++) {
        const walk_group *grp = &w->groups[g];
        if (grp->key_count != count) continue;
        int same = 1;
        for (int i = 0; i < count && same; i++) same = grp->times[i] == TIME_AT(times, stride, i);
        if (same) return g;
    }
    walk_group *grp = &w->groups[w->group_count];
    int g = w->group_count++; /* counted now: walk_free frees what it got if the rest fails */
    double *own = malloc((size_t)count * sizeof *own);
    int ok = own != NULL;
    for (int i = 0; ok && i < count; i++) own[i] = TIME_AT(times, stride, i);
    ok = ok && group_set_times(grp, own, count);
    free(own);
    return ok ? g : -1;
}

/* The walk's kind of frame, from its groups and products (walk.h,
 * walk_frame): one group and nothing loose (`one`), one channel
 * (solo_palette, its pairs prepared where they fit `terms_room`), one
 * group with affine products (vector_palette); the groups' key pairs
 * prepared as arcs where they fit `arc_room`. First the loose channels
 * (those in no group) are listed. 0 if memory ran out. */
static int settle_frame_kind(skv_walk *w, const int *moving_channels, const int *group_of, size_t terms_room,
                             size_t arc_room)
{
    int loose = 0;
    for (int k = 0; k < w->sample_count; k++)
        if (group_of[k] < 0) w->loose[loose++] = moving_channels[k];
    w->loose_count = loose;
    w->one = w->group_count == 1 && loose == 0 && !w->groups[0].each;
    w->solo_palette = w->one && w->groups[0].solo && w->groups[0].channel_count == 1 && w->global_count == 0 &&
                      w->palette_run == offsetof(skv_kernels, run_palette);
    w->vector_palette = w->one && !w->groups[0].solo && w->affine &&
                        w->palette_run == offsetof(skv_kernels, run_palette) && globals_in_work(w) &&
                        vector_frame_fits(w);
    if (w->vector_palette && !vector_lists(w)) return 0;
    w->vector_run = w->groups[0].channel_count > 4 ? offsetof(skv_kernels, vector_wide)
                                                   : offsetof(skv_kernels, vector_palette);
    if (w->solo_palette) prepare_terms(w, terms_room);
    prepare_arcs(w, arc_room);
    for (int g = 0; g < w->group_count; g++) {
        skv_compact *c;
        if (!compact_keys(&w->groups[g], &c)) return 0;
        if (c && g == 0 && w->vector_palette) w->lists.compact = c;
    }
    return 1;
}

/* Sorts the moving channels (`moving_channels`, w->sample_count of them)
 * into time groups; the channels whose arrays are keyed at times of their
 * own are sampled one by one (w->loose). */
static int group_channels(skv_walk *w, const skv_clip *clip, const int *moving_channels, const int32_t *pre,
                          int32_t local_base, size_t terms_room, size_t arc_room, size_t merge_room)
{
    int moving = w->sample_count;
    size_t cap = moving > 0 ? (size_t)moving : 1;
    int *group_of = malloc(cap * sizeof *group_of);
    int *members = calloc(cap, sizeof *members);
    const float **member_pre = calloc(cap, sizeof *member_pre);
    w->groups = calloc(cap, sizeof *w->groups);
    int ok = group_of && members && member_pre && w->groups;
    for (int k = 0; ok && k < moving; k++) {
        const double *times;
        size_t stride;
        int count;
        group_of[k] = -1;
        if (!groupable(&clip->channels[moving_channels[k]], &times, &stride, &count)) continue;
        group_of[k] = group_for(w, times, stride, count);
        ok = group_of[k] >= 0;
        if (ok) w->groups[group_of[k]].channel_count++;
    }
    if (ok && merge_time_lines(w, clip, moving_channels, group_of, moving, merge_room) != 0) ok = 0;
    int small_groups = 0, small_channels = 0;
    for (int g = 0; ok && g < w->group_count; g++)
        if (w->groups[g].channel_count < 4) small_groups++, small_channels += w->groups[g].channel_count;
    for (int g = 0; ok && g < w->group_count; g++) {
        walk_group *grp = &w->groups[g];
        int n = 0;
        for (int k = 0; k < moving; k++)
            if (group_of[k] == g) {
                member_pre[n] = pre[k] ? (const float *)((const char *)w->constants + ~pre[k]) : NULL;
                members[n++] = moving_channels[k];
            }
        grp->channel = members[0];
        /* One small group alone gains nothing from sharing; a group of
         * one channel takes the one-channel sampler. Two channels take a
         * 4-lane vector, half of it padding: since the lanes' chain was
         * shortened that is cheaper than two one-channel calls (anim_test.x,
         * bench/NOTES.md v7k). */
        grp->each = n < 4 && small_groups > 1 && small_channels > 2;
        grp->solo = !grp->each && n == 1;
        grp->lane_count = grp->each || grp->solo ? n : (n + SKV_LANE_BLOCK - 1) / SKV_LANE_BLOCK * SKV_LANE_BLOCK;
        grp->key_floats = grp->each || grp->solo ? SKV_EACH_KEY_FLOATS : SKV_KEY_FLOATS(grp->lane_count / SKV_LANE_BLOCK);
        size_t key_bytes = grp->each || grp->solo ? (size_t)n * (size_t)grp->key_count * SKV_EACH_KEY_FLOATS * sizeof(float)
                                     : (size_t)grp->key_count * SKV_KEY_FLOATS(grp->lane_count / SKV_LANE_BLOCK) *
                                           sizeof(float);
        grp->keys = aligned_alloc(64, (key_bytes + 63) / 64 * 64);
        grp->out = malloc((size_t)grp->lane_count * sizeof *grp->out);
        if (!grp->keys || !grp->out) {
            ok = 0;
            break;
        }
        for (int l = 0; l < grp->lane_count; l++) /* padding lanes: the last channel's local, written again */
            grp->out[l] = local_base + global_at(clip->channels[members[l < n ? l : n - 1]].node);
        fill_group_keys(grp, clip, members, member_pre, w->merged > 0);
    }
    ok = ok && settle_frame_kind(w, moving_channels, group_of, terms_room, arc_room);
    free(group_of), free(members), free(member_pre);
    return ok ? 0 : -1;
}
/* Every rotation key with a length the reference normalises (its float
 * sum of squares > 0 and finite): a key it takes as the identity (keys.h,
 * keys_quat_mat4) would be the parent's rotation once the parent is
 * taken into the keys, where parent * 0 = 0 gives the identity. */
static int rotations_foldable(const skv_channel *ch)
{
    for (int k = 0; k < ch->rotation_count; k++) {
        const float *q = ch->rotations[k].value;
        float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!(len2 > 0.0f) || !isfinite(len2)) return 0;
    }
    return 1;
}

/* The walk's lists and the compiler's arrays, at their bounds (each node
 * adds at most one step to one list and one constant, each bone one
 * palette entry and one constant), and the first two constants; 0 if
 * memory ran out (compiler_free and walk_free then free what there is). */
static int compiler_start(compiler *cc, const skv_model *model)
{
    const skv_skeleton *sk = &model->skeleton;
    size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1;
    size_t bones = sk->bone_count > 0 ? (size_t)sk->bone_count : 1;
    skv_walk *w = cc->walk = calloc(1, sizeof *w);
    cc->sk = sk;
    if (!w) return 0;
    w->node_count = sk->node_count;
    w->loose = malloc(nodes * sizeof *w->loose);
    w->globals = malloc(nodes * sizeof *w->globals);
    w->deferred = malloc(nodes * sizeof *w->deferred);
    w->palette = malloc(bones * sizeof *w->palette);
    w->fixed = malloc(bones * sizeof *w->fixed);
    w->constants = malloc((nodes + bones + 2) * sizeof(mat4));
    cc->state = malloc(nodes);
    cc->ref = malloc(nodes * sizeof *cc->ref);
    cc->anchor = malloc(nodes * sizeof *cc->anchor);
    cc->chain = malloc(nodes * sizeof *cc->chain);
    cc->moving = malloc(nodes * sizeof *cc->moving);
    cc->pre = calloc(nodes, sizeof *cc->pre);
    if (!w->loose || !w->globals || !w->deferred || !w->palette || !w->fixed || !w->constants || !cc->state ||
        !cc->ref || !cc->anchor || !cc->chain || !cc->moving || !cc->pre)
        return 0;
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    cc->one = add_constant(cc, identity);
    cc->root = add_constant(cc, model->global_inverse);
    cc->local_base = global_at(sk->node_count);
    return 1;
}

static void compiler_free(compiler *cc)
{
    free(cc->state), free(cc->ref), free(cc->anchor), free(cc->chain), free(cc->moving), free(cc->pre);
}

/* Moving node n (its channel ch), its parent p placed: the sampler
 * writes its local each frame, and its global is the local (under an
 * identity, or under a constant similarity taken into its keys) or one
 * product a frame. */
static void place_moving(compiler *cc, const skv_clip *clip, int n, int ch, int p)
{
    skv_walk *w = cc->walk;
    int32_t parent;
    if (p < 0) parent = cc->root;
    else if (cc->state[p] != NODE_DEFERRED) parent = cc->ref[p];
    else {
        /* The first moving child of a rigid chain's end: that
         * global is formed once per frame, for all its children. */
        add_step(w->globals, &w->global_count, cc->anchor[p], cc->chain[p], global_at(p));
        cc->state[p] = NODE_WORK;
        cc->ref[p] = parent = global_at(p);
    }
    int moving_index = w->sample_count++;
    cc->moving[moving_index] = ch; /* sorted into groups and loose ones later (group_channels) */
    cc->state[n] = NODE_WORK;
    const double *unused_times;
    size_t unused_stride;
    int unused_count;
    float unused_q[4], unused_s;
    if (parent < 0 && !is_identity(constant(cc, parent)) &&
        groupable(&clip->channels[ch], &unused_times, &unused_stride, &unused_count) &&
        similarity(constant(cc, parent), unused_q, &unused_s) && rotations_foldable(&clip->channels[ch])) {
        /* Under a constant similarity (a root under a scaling or
         * turning globalInverse, often) and in a time group: the
         * parent goes into the group's copy of the keys
         * (similarity, fill_group_keys) and the local is the
         * global, as under an identity below. */
        cc->pre[moving_index] = parent;
        w->folded++;
        cc->ref[n] = cc->local_base + global_at(n);
        add_step(w->deferred, &w->deferred_count, cc->one, cc->ref[n], global_at(n));
    } else if (parent < 0 && is_identity(constant(cc, parent))) {
        /* Under an identity (often the root with an identity
         * globalInverse, or a scene node that is): the global is
         * the local itself, a product a frame saved; the products
         * read it where the sampler wrote it, and pose_globals
         * copies it into place (identity * local, exact). */
        cc->ref[n] = cc->local_base + global_at(n);
        add_step(w->deferred, &w->deferred_count, cc->one, cc->ref[n], global_at(n));
    } else {
        add_step(w->globals, &w->global_count, parent, cc->local_base + global_at(n), global_at(n));
        cc->ref[n] = global_at(n);
    }
}

/* Node n's place in the walk, its parent's settled (parent-first order):
 * posed once here where nothing above it moves (NODE_FIXED), moving
 * (place_moving), or rigid under a moving node, its global a constant
 * chain from that node's, formed only where needed (NODE_DEFERRED). */
static void place_node(compiler *cc, const skv_clip *clip, int n)
{
    const skv_skeleton *sk = cc->sk;
    int p = sk->parents[n];
    int ch = clip ? clip->node_channel[n] : -1;
    int moves = ch >= 0 && !channel_constant(&clip->channels[ch]);
    mat4 key_local;
    if (ch >= 0 && !moves) channel_first_local(&clip->channels[ch], key_local);
    const float *fixed_local = ch >= 0 ? (const float *)key_local : (const float *)sk->rest_local[n];
    if (!moves && (p < 0 || cc->state[p] == NODE_FIXED)) {
        /* Posed once, here. */
        mat4 g;
        glm_mat4_mul((vec4 *)(p < 0 ? constant(cc, cc->root) : constant(cc, cc->ref[p])), (vec4 *)fixed_local, g);
        cc->state[n] = NODE_FIXED;
        cc->ref[n] = add_constant(cc, g);
    } else if (moves) {
        place_moving(cc, clip, n, ch, p);
    } else if (cc->state[p] == NODE_WORK) {
        /* Rigid under a moving parent: not formed unless needed. */
        cc->state[n] = NODE_DEFERRED;
        cc->anchor[n] = cc->ref[p];
        cc->chain[n] = add_constant(cc, (vec4 *)fixed_local);
    } else {
        /* Rigid under a rigid chain: the chain grows by one node. */
        mat4 chain;
        glm_mat4_mul((vec4 *)constant(cc, cc->chain[p]), (vec4 *)fixed_local, chain);
        cc->state[n] = NODE_DEFERRED;
        cc->anchor[n] = cc->anchor[p];
        cc->chain[n] = add_constant(cc, chain);
    }
}

/* Bone b's palette entry, by its node's place: written once per clip
 * (fixed) where the node is posed once, else a product a frame from the
 * node's global or its chain's moving anchor (the chain folded into the
 * offset). */
static void place_bone(compiler *cc, int b)
{
    const skv_skeleton *sk = cc->sk;
    skv_walk *w = cc->walk;
    int n = sk->bone_node[b];
    int32_t out = global_at(b);
    if (n < 0) {
        add_step(w->fixed, &w->fixed_count, cc->one, cc->one, out); /* stays in bind pose */
    } else if (cc->state[n] == NODE_FIXED) {
        mat4 entry;
        glm_mat4_mul((vec4 *)constant(cc, cc->ref[n]), sk->bone_offset[b], entry);
        add_step(w->fixed, &w->fixed_count, cc->one, add_constant(cc, entry), out);
    } else if (cc->state[n] == NODE_WORK) {
        add_step(w->palette, &w->palette_count, cc->ref[n], add_constant(cc, sk->bone_offset[b]), out);
    } else {
        mat4 folded; /* the rigid chain times the offset */
        glm_mat4_mul((vec4 *)constant(cc, cc->chain[n]), sk->bone_offset[b], folded);
        add_step(w->palette, &w->palette_count, cc->anchor[n], add_constant(cc, folded), out);
    }
}

/* The globals no frame forms (nodes posed once, rigid chains), for
 * pose_globals. */
static void defer_unformed(compiler *cc)
{
    skv_walk *w = cc->walk;
    for (int n = 0; n < cc->sk->node_count; n++) {
        if (cc->state[n] == NODE_FIXED) add_step(w->deferred, &w->deferred_count, cc->one, cc->ref[n], global_at(n));
        else if (cc->state[n] == NODE_DEFERRED)
            add_step(w->deferred, &w->deferred_count, cc->anchor[n], cc->chain[n], global_at(n));
    }
}

/* Which of the kernels' product functions the globals' and the
 * palette's steps take (kernels.h: run, run_affine, run_chain,
 * run_palette), from what the steps are; the palette's steps prepared
 * for a crowd's rows where they can be. */
static void choose_runs(compiler *cc)
{
    skv_walk *w = cc->walk;
    w->affine = steps_affine(cc, w->globals, w->global_count) && steps_affine(cc, w->palette, w->palette_count);
    w->palette_split = 1;
    for (int k = 0; k < w->palette_count; k++) w->palette_split &= w->palette[k].a >= 0 && w->palette[k].b < 0;
    if (w->palette_split && w->palette_count > 0 && steps_affine(cc, w->palette, w->palette_count))
        w->rows_pairs = rows_pairs(w); /* NULL if memory ran out: run_rows serves */
    /* Links: steps reading the step before's product (after by_depth,
     * only where a level holds one node: a tentacle, a long spine). */
    int links = 0;
    for (int k = 1; k < w->global_count; k++) links += w->globals[k].a == w->globals[k - 1].out;
    w->globals_run = !w->affine                          ? offsetof(skv_kernels, run)
                   : links > 0 && 2 * links >= w->global_count ? offsetof(skv_kernels, run_chain)
                                                         : offsetof(skv_kernels, run_affine);
    w->palette_run = !w->affine        ? offsetof(skv_kernels, run)
                   : w->palette_split ? offsetof(skv_kernels, run_palette)
                                      : offsetof(skv_kernels, run_affine);
}

/* What is left of a model's budget (bytes) past what its walks hold. */
static size_t room_left(size_t held, size_t budget)
{
    return held < budget ? budget - held : 0;
}

/* The steps, in order: every node placed (parent-first), every bone's
 * palette entry, the globals left to pose_globals, the frame's globals
 * reordered by depth, the product kernels chosen, then the moving
 * channels sorted into time groups with their keys prepared, and the
 * frame function picked for what all that settled. */
skv_walk *walk_compile(const skv_model *model, const skv_clip *clip, skv_walk_bytes *held)
{
    const skv_skeleton *sk = &model->skeleton;
    size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1;
    size_t bones = sk->bone_count > 0 ? (size_t)sk->bone_count : 1;
    /* Steps address matrices by 32-bit byte offsets. */
    if (nodes + bones + 2 > (size_t)INT32_MAX / (2 * sizeof(mat4))) return NULL;
    compiler cc = {0};
    int ok = compiler_start(&cc, model);
    skv_walk *w = cc.walk;
    for (int n = 0; ok && n < sk->node_count; n++) place_node(&cc, clip, n);
    for (int b = 0; ok && b < sk->bone_count; b++) place_bone(&cc, b);
    if (ok) defer_unformed(&cc);
    ok = ok && by_depth(w->globals, w->global_count, sk->node_count);
    if (ok) choose_runs(&cc);
    ok = ok && (!clip || group_channels(w, clip, cc.moving, cc.pre, cc.local_base,
                                        room_left(held->terms, SOLO_MODEL_BYTES),
                                        room_left(held->arcs, ARC_MODEL_BYTES),
                                        room_left(held->merges, MERGE_MODEL_BYTES)) == 0);
    compiler_free(&cc);
    if (!ok) {
        walk_free(w);
        return NULL;
    }
    w->owed = w->deferred_count > 0 ? w : NULL;
    w->frame = walk_frame_for(w); /* last: it reads what the compile settled */
    held->terms += w->terms_bytes, held->arcs += w->arc_bytes, held->merges += w->merge_bytes;
    return w;
}


void walk_stats(const skv_walk *w, skv_walk_stats *out)
{
    memset(out, 0, sizeof *out);
    out->moving = w->sample_count;
    out->groups = w->group_count;
    out->loose = w->loose_count;
    out->globals = w->global_count;
    out->palette = w->palette_count;
    out->fixed = w->fixed_count;
    out->deferred = w->deferred_count;
    out->affine = w->affine;
    out->rows_prepared = w->rows_pairs != NULL;
    out->chain = w->globals_run == offsetof(skv_kernels, run_chain);
    out->folded = w->folded;
    out->solo_palette = w->solo_palette;
    out->merged = w->merged;
    out->vector_palette = w->vector_palette;
    out->translations = w->vector_palette ? w->lists.translation_count : 0;
    out->t_fixed = w->vector_palette && w->lists.t_fixed;
    out->leaves = w->vector_palette ? w->lists.leaf_count : 0;
    out->leaf_translations = w->vector_palette ? w->lists.leaf_translations : 0;
    out->solo_terms = !w->terms ? 0 : w->solo.weighted ? 2 : 1;
    out->still = walk_is_still(w);
    for (int g = 0; g < w->group_count; g++) {
        const walk_group *grp = &w->groups[g];
        out->grouped += grp->channel_count;
        size_t key_floats = grp->each || grp->solo ? (size_t)grp->channel_count * SKV_EACH_KEY_FLOATS
                                                   : grp->key_floats;
        size_t values = grp->arc ? (size_t)grp->key_count - 1 : (size_t)grp->key_count; /* arcs: one per pair */
        if (grp->compact) { /* and the T and S stored once, the moving T's places */
            const skv_compact *c = walk_group_compact(grp);
            size_t fixed = grp->arc ? SKV_CARC_FIXED_FLOATS(c->stride / SKV_LANE_BLOCK) : 6 * (size_t)c->stride;
            out->key_bytes += fixed * sizeof(float) + (size_t)c->t_count * sizeof(int32_t);
            out->compact += grp->channel_count;
        }
        out->key_bytes += values * key_floats * sizeof(float) +
                          (size_t)grp->key_count * (sizeof(float) + 2 * sizeof(double)) +
                          (walk_search_floats(grp->key_count, walk_seek_indexed(grp)) -
                           walk_search_floats(grp->key_count, 0)) * sizeof(float);
        out->each += grp->each ? grp->channel_count : 0;
        out->solo += grp->solo ? grp->channel_count : 0;
        out->even += grp->key_rate > 0.0;
        out->arc += grp->arc ? grp->channel_count : 0;
    }
}
