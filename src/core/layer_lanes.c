/* layer_lanes.c - a layered frame's locals a vector of nodes at a time
 * (layer_lanes.h). Values live as structure of arrays, one array per
 * component (T x y z, R x y z w, S x y z), indexed by node: one such block
 * per clip read (the base and each layer), one for the mixed result and
 * one per additive layer's reference. The frame's arithmetic is
 * layer_lanes_frame.h, built here once portable and once for AVX2. */
#include "layer_lanes.h"

#include "keys.h"

/* Functions here pass 8-float vectors only to functions that are
 * inlined (static, always_inline): GCC's note that such a call's ABI
 * differs with AVX is about calls that never happen. */
#pragma GCC diagnostic ignored "-Wpsabi"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { LANES = 8 };
typedef float lv __attribute__((vector_size(32)));
typedef int32_t li __attribute__((vector_size(32)));
typedef float v4 __attribute__((vector_size(16)));

/* A value's components in a block: T at 0, R at 3, S at 7. */
enum { V_T = 0, V_R = 3, V_S = 7, V_COUNT = 10 };

/* A prepared key pair's components, each a vector of lanes: T at a and
 * its change to b, S the same, and the rotation, so that a frame needs
 * no arccosine or division. Keys of unit length: the arc, R(f) = cos y M
 * + sin y N with y = (f - 1/2) theta (R0 = M the arc's middle, R1 = N its
 * direction; both unit). A group's keys not all of unit length
 * (weighted): keys_slerp's sum sin((1 - f) theta) A + sin(f theta) B
 * normalised, with A and B the keys as they are (B on A's side) and theta
 * its angle (0 where it lerps): its pace along the arc depends on the
 * keys' lengths. That sum over sin(theta / 2) is cos y (A + B) + theta
 * cot(theta / 2) (sin y / theta) (B - A), so R0 = A + B, R1 = theta
 * cot(theta / 2) (B - A) (2 (B - A) at theta 0: the lerp) and R(f) = cos
 * y R0 + (f - 1/2) (sin y / y) R1 normalised: the arc's two series and a
 * normalisation. */
enum { P_T0 = 0, P_DT = 3, P_S0 = 6, P_DS = 9, P_R0 = 12, P_R1 = 16, P_THETA = 20, P_COUNT = 21 };

/* |q|^2 of a rotation key the arc takes as unit: a float key normalised
 * is within ~2.4e-7 of it. Further off, the keys' lengths move keys_slerp's
 * pace along the arc away from the arc's (unit_anim_layer_lanes_edges,
 * "near unit": keys written to a few decimals), and the group is
 * weighted. */
#define LANES_UNIT_LEN2_OFF 1e-6
/* A key pair's bytes in a block of lanes: 672, ~9 times a channel's key
 * (72 bytes) where one node holds the block, 1.2 times where 8 do. */
#define PAIR_BYTES ((size_t)P_COUNT * LANES * sizeof(float))

/* What a model's clips' pairs hold together at most (skv_walk_bytes.lanes;
 * as walk_compile.c's budgets): channels on their own time lines cost a
 * block of lanes per key each, 2.4 GB for 60 of them over 2,000 seconds
 * at 30 Hz (260 MB of keys). Past it a time line's channels are sampled
 * one by one (as exact, slower). */
#define LANES_MODEL_BYTES ((size_t)32 << 20)

/* Channels of one clip keyed at the same times: key_count pairs, the last
 * the last key held (the clamp past the end). Its lanes are nodes: blocks
 * of LANES nodes (node-aligned, as the values are), those holding one of
 * its channels, so that a sample is stored a vector at a time and read
 * back as one (scalar stores read back as a vector stall the load). */
typedef struct lane_group {
    int key_count;
    int block_count;
    int weighted; /* keys not all of unit length: pairs as keys_slerp's terms */
    int merged;   /* several lines keyed as one (merge_lines) */
    double *times;
    float *pairs;     /* key_count * block_count * P_COUNT * LANES */
    int *first_node;  /* per block */
    int32_t *lane;    /* per block, LANES: -1 where the node is the group's */
    unsigned char *full; /* per block: every lane the group's */
    /* per block: some lane's T or S changes between keys; where none
     * does, the block's T and S are its first key's, put in the values
     * once (source_make) and not sampled */
    unsigned char *ts_moves;
} lane_group;

struct skv_clip_lanes {
    const skv_clip *clip;
    const skv_trs *delta; /* per node: the reference its values are differences from (clip_lanes_prepare_delta); NULL: none */
    int group_count;
    lane_group *groups;
    int loose_count; /* channels that fit no group: sampled as the reference samples them */
    int *loose;      /* channel indices */
    int constant_count; /* channels that never move: their value once */
    int *constant_node;
    skv_trs *constant;
    size_t bytes; /* the groups' pairs (charged to the model's LANES_MODEL_BYTES) */
};

/* A channel sampled one by one into node `node`'s values. */
typedef struct lane_loose {
    int node;
    const skv_channel *channel;
    int cursor[3];
} lane_loose;

/* One clip a layered frame reads (the base, or a layer's): which of its
 * vectors the frame needs, and where its values go. */
typedef struct lane_source {
    const skv_clip_lanes *clip; /* NULL: the rest pose */
    int *cursor;                /* per group: keys.h's playback cursor */
    int *wanted;                /* per group, the blocks a frame reads, in order */
    int *wanted_count;          /* per group */
    int loose_count;
    lane_loose *loose;
    float *values; /* V_COUNT * stride, per node */
} lane_source;

struct skv_layer_lanes {
    int node_count, stride; /* stride: nodes rounded up to whole vectors */
    int layer_count;
    lane_source *sources; /* the base, then each layer in the order they apply */
    int *additive;
    int32_t *mask;    /* per layer, stride: -1 where the layer mixes the node */
    int *mixes;       /* per layer: first node of each vector with a mask bit, then -1 */
    float *mixed;     /* V_COUNT * stride */
    int *formed;      /* first node of each vector holding a node formed again, then -1 */
    /* Most vectors are: the base's values copied into `mixed` whole (one
     * memcpy; fewer instructions than copying 10 rows of most vectors
     * one by one), else vector by vector. */
    int copy_whole;
    unsigned char *form; /* per node (stride of them): its local formed T * R * S */
};

/* A value's difference from reference `ref` (T, conj R, S): layers.h's
 * additive terms, T - T_ref, conj(R_ref) * R, S - S_ref. */
static void value_delta(const skv_trs *ref, float t[3], float r[4], float s[3])
{
    for (int c = 0; c < 3; c++) t[c] -= ref->t[c], s[c] -= ref->s[c];
    layer_quat_mul(ref->r, r, r);
}

static void put_value(float *values, int stride, int node, const float t[3], const float r[4], const float s[3])
{
    for (int c = 0; c < 3; c++) {
        values[(size_t)(V_T + c) * (size_t)stride + (size_t)node] = t[c];
        values[(size_t)(V_S + c) * (size_t)stride + (size_t)node] = s[c];
    }
    for (int c = 0; c < 4; c++) values[(size_t)(V_R + c) * (size_t)stride + (size_t)node] = r[c];
}

/* --- the frame, per instruction set ----------------------------------- */

#define LL(name) name##_portable
#define LL_TARGET
#if defined(__x86_64__)
#define LL_SQRT(x) portable_sqrt(x)
static inline __attribute__((always_inline)) lv portable_sqrt(lv x)
{
    __m128 lo, hi;
    memcpy(&lo, &x, sizeof lo);
    memcpy(&hi, (const char *)&x + sizeof lo, sizeof hi);
    lo = _mm_sqrt_ps(lo), hi = _mm_sqrt_ps(hi);
    memcpy(&x, &lo, sizeof lo);
    memcpy((char *)&x + sizeof lo, &hi, sizeof hi);
    return x;
}
#else
#define LL_SQRT(x) portable_sqrt(x)
static inline lv portable_sqrt(lv x)
{
    for (int l = 0; l < LANES; l++) x[l] = sqrtf(x[l]);
    return x;
}
#endif
#include "layer_lanes_frame.h"
#undef LL
#undef LL_TARGET
#undef LL_SQRT

#if defined(__x86_64__)
#define LL(name) name##_avx2
#define LL_TARGET __attribute__((target("avx2,fma")))
#define LL_SQRT(x) ((lv)_mm256_sqrt_ps((__m256)(x)))
#define LL_AVX
#include "layer_lanes_frame.h"
#undef LL
#undef LL_TARGET
#undef LL_SQRT
#undef LL_AVX
#endif

void layer_lanes_locals(skv_layer_lanes *ll, int wide, double base_ticks, const double *layer_ticks,
                        const float *layer_weight, mat4 *local)
{
#if defined(__x86_64__)
    if (wide) {
        locals_avx2(ll, base_ticks, layer_ticks, layer_weight, local);
        return;
    }
#endif
    (void)wide;
    locals_portable(ll, base_ticks, layer_ticks, layer_weight, local);
}

/* --- preparing ------------------------------------------------------- */

/* Vectors' memory: every vector a frame loads or stores lies within one
 * cache line (64-byte blocks, strides of whole vectors), zeroed. */
static void *lanes_alloc(size_t bytes)
{
    size_t whole = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, whole > 0 ? whole : 64);
    if (p) memset(p, 0, whole > 0 ? whole : 64);
    return p;
}

#define TIME_OF(first, stride, k) (*(const double *)(const void *)((const char *)(first) + (size_t)(k) * (stride)))

/* The key times a channel's moving arrays share (NULL, *count 1: none
 * moves), or NULL with *count 0 where it does not fit a group: an array
 * of more than one key not linear, arrays keyed at different times,
 * values not finite, rotation keys with |q|^2 more than 1e-5 from 1 (a
 * few decimals' rounding: within it, the group is weighted). */
static const double *channel_grid(const skv_channel *ch, int *count, size_t *stride)
{
    *count = 0;
    const double *grid = NULL;
    int n = 1;
    const double *first[3] = {&ch->positions[0].time, &ch->rotations[0].time, &ch->scales[0].time};
    int counts[3] = {ch->position_count, ch->rotation_count, ch->scale_count};
    int modes[3] = {ch->position_mode, ch->rotation_mode, ch->scale_mode};
    size_t strides[3] = {sizeof(skv_vec3_key), sizeof(skv_quat_key), sizeof(skv_vec3_key)};
    size_t grid_stride = 0;
    for (int a = 0; a < 3; a++) {
        if (counts[a] < 1) return NULL;
        if (counts[a] == 1) continue;
        if (modes[a] != SKV_KEY_LINEAR) return NULL;
        if (!grid) {
            grid = first[a], n = counts[a], grid_stride = strides[a];
            continue;
        }
        if (counts[a] != n) return NULL;
        for (int k = 0; k < n; k++)
            if (TIME_OF(first[a], strides[a], k) != TIME_OF(grid, grid_stride, k)) return NULL;
    }
    for (int k = 0; k < ch->position_count; k++)
        for (int c = 0; c < 3; c++)
            if (!isfinite(ch->positions[k].value[c])) return NULL;
    for (int k = 0; k < ch->scale_count; k++)
        for (int c = 0; c < 3; c++)
            if (!isfinite(ch->scales[k].value[c])) return NULL;
    for (int k = 0; k < ch->rotation_count; k++) {
        const float *q = ch->rotations[k].value;
        for (int c = 0; c < 4; c++)
            if (!isfinite(q[c])) return NULL;
        float len2 = keys_dot(q, q);
        if (!(fabsf(len2 - 1.0f) <= 1e-5f)) return NULL;
    }
    for (int k = 1; k < n; k++)
        if (!(TIME_OF(grid, grid_stride, k) > TIME_OF(grid, grid_stride, k - 1))) return NULL;
    *count = n, *stride = grid_stride;
    return grid;
}

/* Key k of a channel as a group reads it (an array of one key: that key). */
static void channel_key(const skv_channel *ch, int k, float t[3], float r[4], float s[3])
{
    const skv_vec3_key *tk = &ch->positions[ch->position_count > 1 ? k : 0];
    const skv_quat_key *rk = &ch->rotations[ch->rotation_count > 1 ? k : 0];
    const skv_vec3_key *sk = &ch->scales[ch->scale_count > 1 ? k : 0];
    for (int c = 0; c < 3; c++) t[c] = tk->value[c], s[c] = sk->value[c];
    for (int c = 0; c < 4; c++) r[c] = rk->value[c];
}

/* Every rotation key of unit length to LANES_UNIT_LEN2_OFF. */
static int unit_rotations(const skv_channel *ch)
{
    for (int k = 0; k < ch->rotation_count; k++) {
        const float *q = ch->rotations[k].value;
        double len2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
        if (!(fabs(len2 - 1.0) <= LANES_UNIT_LEN2_OFF)) return 0;
    }
    return 1;
}

/* A merged line's key (several time lines keyed as one at the union of
 * their times, as walk_compile.c's merge_time_lines keys a walk's): the
 * channel's value at `time` on the reference's curve (keys.h,
 * keys_linear_vec3_at and keys_linear_quat_at: a key added on a segment
 * leaves the curve as it is), its rotation on the side the reference's
 * turns between the channel's own keys give (walk_compile.c's
 * fill_group_keys: an added key near half a turn from the next own key
 * can have a dot product of the other sign). *own and *sign carry that
 * turn from one key to the next: they start at 0 and 1, and the times
 * come in increasing order. */
static void merged_key(const skv_channel *ch, double time, int *own, float *sign, float t[3], float r[4], float s[3])
{
    keys_linear_vec3_at(ch->positions, ch->position_count, time, t);
    int segment = keys_linear_quat_at(ch->rotations, ch->rotation_count, time, r);
    keys_linear_vec3_at(ch->scales, ch->scale_count, time, s);
    *sign = keys_turns_to(ch->rotations, own, segment, *sign);
    for (int c = 0; c < 4; c++) r[c] *= *sign;
}

/* Lane l of the pair of keys a and b (a group's keys i and i + 1; the
 * last key with itself): T and S as the reference lerps them (a + f (b -
 * a), b - a rounded to float as it rounds it); the rotation on the
 * shorter side as keys_slerp picks it (its float dot's sign), or, `sided`
 * (a merged line's keys, signed already: merged_key), b as it is;
 * `weighted`, the terms of keys_slerp's sum (the keys as they are, its
 * angle: acosf of that dot, 0 above KEYS_NLERP_DOT where it lerps; the
 * terms in double); else the arc from the keys (unit, in double). */
static void prepare_pair(float *pair, int l, const float ta[3], const float ra[4], const float sa[3],
                         const float tb[3], const float rb[4], const float sb[3], int weighted, int sided)
{
    const size_t width = LANES;
    for (int c = 0; c < 3; c++) {
        pair[(P_T0 + c) * width + (size_t)l] = ta[c], pair[(P_DT + c) * width + (size_t)l] = tb[c] - ta[c];
        pair[(P_S0 + c) * width + (size_t)l] = sa[c], pair[(P_DS + c) * width + (size_t)l] = sb[c] - sa[c];
    }
    if (weighted) {
        float d = keys_dot(ra, rb), sign = 1.0f;
        if (d < 0.0f) d = -d, sign = -1.0f;
        float theta = d > KEYS_NLERP_DOT ? 0.0f : acosf(d);
        /* theta cot(theta / 2), 2 at theta 0 (keys_slerp's lerp) */
        double k = theta > 0.0f ? (double)theta / tan(0.5 * (double)theta) : 2.0;
        pair[P_THETA * width + (size_t)l] = theta;
        for (int c = 0; c < 4; c++) {
            double a = ra[c], b = (double)sign * rb[c];
            pair[(P_R0 + c) * width + (size_t)l] = (float)(a + b);
            pair[(P_R1 + c) * width + (size_t)l] = (float)(k * (b - a));
        }
        return;
    }
    double sign = !sided && keys_dot(ra, rb) < 0.0f ? -1.0 : 1.0, a[4], b[4], la = 0.0, lb = 0.0;
    for (int c = 0; c < 4; c++) {
        a[c] = ra[c], b[c] = sign * rb[c];
        la += a[c] * a[c], lb += b[c] * b[c];
    }
    la = sqrt(la), lb = sqrt(lb);
    double sum[4], diff[4], ls = 0.0, ld = 0.0;
    for (int c = 0; c < 4; c++) {
        a[c] /= la, b[c] /= lb;
        sum[c] = a[c] + b[c], diff[c] = b[c] - a[c];
        ls += sum[c] * sum[c], ld += diff[c] * diff[c];
    }
    ls = sqrt(ls), ld = sqrt(ld);
    /* |a + b| = 2 cos(theta / 2), |b - a| = 2 sin(theta / 2): M and N
     * unit, R(f) = cos y M + sin y N gives a at f = 0 and b at 1. */
    pair[P_THETA * width + (size_t)l] = (float)(2.0 * atan2(ld, ls));
    for (int c = 0; c < 4; c++) {
        pair[(P_R0 + c) * width + (size_t)l] = (float)(sum[c] / ls);
        pair[(P_R1 + c) * width + (size_t)l] = ld > 0.0 ? (float)(diff[c] / ld) : 0.0f;
    }
}

/* Lane l of a prepared pair as the difference from `ref` (T, conj R,
 * S): T0 and S0 less the reference's (dT and dS as they are), and both
 * rotation terms left-multiplied by conj R (either form is linear in
 * them; a unit conj R keeps every length the frame's normalisation
 * reads). */
static void pair_delta(float *pair, int l, const skv_trs *ref)
{
    const size_t width = LANES;
    for (int c = 0; c < 3; c++) {
        pair[(P_T0 + c) * width + (size_t)l] -= ref->t[c];
        pair[(P_S0 + c) * width + (size_t)l] -= ref->s[c];
    }
    const float *q = ref->r;
    for (int term = P_R0; term <= P_R1; term += P_R1 - P_R0) {
        double v[4], out[4];
        for (int c = 0; c < 4; c++) v[c] = pair[(size_t)(term + c) * width + (size_t)l];
        out[0] = (double)q[3] * v[0] + (double)q[0] * v[3] + (double)q[1] * v[2] - (double)q[2] * v[1];
        out[1] = (double)q[3] * v[1] - (double)q[0] * v[2] + (double)q[1] * v[3] + (double)q[2] * v[0];
        out[2] = (double)q[3] * v[2] + (double)q[0] * v[1] - (double)q[1] * v[0] + (double)q[2] * v[3];
        out[3] = (double)q[3] * v[3] - (double)q[0] * v[0] - (double)q[1] * v[1] - (double)q[2] * v[2];
        for (int c = 0; c < 4; c++) pair[(size_t)(term + c) * width + (size_t)l] = (float)out[c];
    }
}

void clip_lanes_free(skv_clip_lanes *cl)
{
    if (!cl) return;
    for (int g = 0; g < cl->group_count; g++) {
        free(cl->groups[g].times);
        free(cl->groups[g].pairs);
        free(cl->groups[g].first_node);
        free(cl->groups[g].lane);
        free(cl->groups[g].full);
        free(cl->groups[g].ts_moves);
    }
    free(cl->groups);
    free(cl->loose);
    free(cl->constant_node);
    free(cl->constant);
    free(cl);
}

void clip_lanes_counts(const skv_clip_lanes *cl, int *groups, int *loose, int *constant)
{
    *groups = cl->group_count, *loose = cl->loose_count, *constant = cl->constant_count;
}

/* A time line's hash (its count and times' bits): channels compared key
 * by key only where it matches, so that many lines of one length that
 * differ late cost no search over every key of every line. */
static uint64_t grid_hash(const double *times, size_t stride, int count)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)count;
    for (int k = 0; k < count; k++) {
        uint64_t bits;
        double t = TIME_OF(times, stride, k);
        memcpy(&bits, &t, sizeof bits);
        h = (h ^ bits) * 1099511628211u;
    }
    return h;
}

/* Past three times the keys its lines hold, a merge is still taken where
 * the merged line's pairs take at most this (and fit the model's
 * LANES_MODEL_BYTES): a file whose exporter reduced each curve's keys on
 * its own (ozz's run.fbx: 55 channels on 21 time lines, their union 10.7x
 * the keys) otherwise pays, a frame, a key search per line and a block of
 * lanes per line and block it has a channel in. */
#define LANES_MERGE_BYTES ((size_t)4 << 20)

/* The lines of unit keys (grid_weighted 0) as one keyed at the union of
 * their times (merged_key), where that costs at most three times the keys
 * they hold, or LANES_MERGE_BYTES, and fits what the model's lanes may
 * still hold (`held` of LANES_MODEL_BYTES, less the weighted lines'): a
 * frame then searches one line and samples each block once, whatever the
 * lines were (never more blocks than the lines' together). The merged
 * line is appended (*merged_times its times, owned by the caller); the
 * lines merged keep no block (blocks_of 0) and their nodes go to it.
 * Weighted lines stay apart (keys_slerp's pace along their arcs depends
 * on the keys' lengths, and a key added on a segment changes it).
 * Returns 0 (merged or not), -1 if memory ran out. */
static int merge_lines(const skv_skeleton *sk, const skv_clip *clip, int *group_of, const double **grid,
                       size_t *grid_stride, int *grid_count, int *grid_weighted, int *blocks_of, int *lines,
                       size_t held, double **merged_times)
{
    *merged_times = NULL;
    int unit = 0;
    size_t total = 0, channel_keys = 0, channels = 0, blocks = 0;
    for (int g = 0; g < *lines; g++)
        if (!grid_weighted[g]) unit++, total += (size_t)grid_count[g];
    if (unit < 2) return 0;
    int last_block = -1;
    for (int node = 0; node < sk->node_count; node++) {
        int g = clip->node_channel[node] >= 0 ? group_of[node] : -1;
        if (g < 0 || grid_weighted[g]) continue;
        channels++, channel_keys += (size_t)grid_count[g];
        if (node / LANES != last_block) last_block = node / LANES, blocks++;
    }
    double *all = malloc(total * sizeof *all);
    if (!all) return -1;
    size_t at = 0;
    for (int g = 0; g < *lines; g++) {
        if (grid_weighted[g]) continue;
        for (int k = 0; k < grid_count[g]; k++) all[at++] = TIME_OF(grid[g], grid_stride[g], k);
    }
    size_t count = keys_times_union(all, total);
    size_t bytes = count <= SIZE_MAX / PAIR_BYTES / blocks ? count * blocks * PAIR_BYTES : SIZE_MAX;
    /* What the weighted lines leave: prepare_lanes charges them first, in
     * order, each where it fits, and the merged line (appended) last. */
    size_t room = held < LANES_MODEL_BYTES ? LANES_MODEL_BYTES - held : 0;
    for (int g = 0; g < *lines; g++) {
        size_t weighted = grid_weighted[g] ? (size_t)grid_count[g] * (size_t)blocks_of[g] * PAIR_BYTES : 0;
        if (weighted <= room) room -= weighted;
    }
    int within_keys = count * channels <= 3 * channel_keys;
    if (bytes > room || (!within_keys && bytes > LANES_MERGE_BYTES) || count > INT32_MAX) {
        free(all);
        return 0;
    }
    int m = (*lines)++;
    grid[m] = all, grid_stride[m] = sizeof *all, grid_count[m] = (int)count, grid_weighted[m] = 0;
    blocks_of[m] = (int)blocks;
    for (int node = 0; node < sk->node_count; node++) {
        int g = clip->node_channel[node] >= 0 ? group_of[node] : -1;
        if (g >= 0 && g != m && !grid_weighted[g]) group_of[node] = m;
    }
    for (int g = 0; g < m; g++)
        if (!grid_weighted[g]) blocks_of[g] = 0;
    *merged_times = all;
    return 0;
}

static skv_clip_lanes *prepare_lanes(const skv_model *model, const skv_clip *clip, const skv_trs *delta, size_t *held)
{
    const skv_skeleton *sk = &model->skeleton;
    skv_clip_lanes *cl = calloc(1, sizeof *cl);
    size_t n = sk->node_count > 0 ? (size_t)sk->node_count : 1;
    /* Per node with a channel: its time line, then its group (renumber:
     * lines past the budget none), or -1 loose, -2 constant. Per line (at
     * most one per node, and a merged one): its times, hash, blocks of
     * lanes, and the block it is at (node / LANES while lines are found,
     * the block's index while pairs are filled). */
    int *group_of = malloc(n * sizeof *group_of);
    size_t line_room = n + 1; /* lines: one per node at most, and a merged one (merge_lines) */
    const double **grid = malloc(line_room * sizeof *grid);
    size_t *grid_stride = malloc(line_room * sizeof *grid_stride);
    int *grid_count = malloc(line_room * sizeof *grid_count);
    int *grid_weighted = malloc(line_room * sizeof *grid_weighted);
    uint64_t *hash = malloc(line_room * sizeof *hash);
    int *blocks_of = calloc(line_room, sizeof *blocks_of), *at_block = malloc(line_room * sizeof *at_block);
    int *renumber = malloc(line_room * sizeof *renumber);
    double *merged_times = NULL; /* the merged line's (merge_lines) */
    int merged = -1;             /* its index among the lines, or -1 */
    if (!cl || !group_of || !grid || !grid_stride || !grid_count || !grid_weighted || !hash || !blocks_of ||
        !at_block || !renumber)
        goto fail;
    cl->clip = clip;
    cl->delta = delta;
    cl->groups = calloc(n, sizeof *cl->groups);
    cl->loose = malloc(n * sizeof *cl->loose);
    cl->constant_node = malloc(n * sizeof *cl->constant_node);
    cl->constant = malloc(n * sizeof *cl->constant);
    if (!cl->groups || !cl->loose || !cl->constant_node || !cl->constant) goto fail;
    int lines = 0;
    for (int node = 0; node < sk->node_count; node++) {
        int c = clip->node_channel[node];
        if (c < 0) continue;
        const skv_channel *ch = &clip->channels[c];
        int count;
        size_t stride;
        const double *times = channel_grid(ch, &count, &stride);
        if (count == 0) {
            group_of[node] = -1;
        } else if (count == 1) {
            group_of[node] = -2;
            skv_trs *v = &cl->constant[cl->constant_count];
            keys_channel_trs(ch, 0.0, v->t, v->r, v->s);
            if (delta) value_delta(&delta[node], v->t, v->r, v->s);
            cl->constant_node[cl->constant_count++] = node;
        } else {
            /* Lines apart for unit and other keys: the frame samples a
             * group one way. */
            int weighted = !unit_rotations(ch);
            uint64_t h = grid_hash(times, stride, count) ^ (uint64_t)weighted;
            int g = 0;
            for (; g < lines; g++) {
                if (hash[g] != h || grid_count[g] != count || grid_weighted[g] != weighted) continue;
                int k = 0;
                while (k < count && TIME_OF(grid[g], grid_stride[g], k) == TIME_OF(times, stride, k)) k++;
                if (k == count) break;
            }
            if (g == lines) {
                grid[g] = times, grid_stride[g] = stride, grid_count[g] = count, hash[g] = h, at_block[g] = -1;
                grid_weighted[g] = weighted;
                lines++;
            }
            group_of[node] = g;
            if (node / LANES != at_block[g]) at_block[g] = node / LANES, blocks_of[g]++;
        }
    }
    if (merge_lines(sk, clip, group_of, grid, grid_stride, grid_count, grid_weighted, blocks_of, &lines, *held,
                    &merged_times) != 0)
        goto fail;
    if (merged_times) merged = lines - 1;
    /* The lines whose pairs fit in what the model's lanes may hold
     * (LANES_MODEL_BYTES, with *held what its other clips' hold), in
     * order: the channels of the others sampled one by one, as exact. */
    for (int g = 0; g < lines; g++) {
        size_t room = *held < LANES_MODEL_BYTES ? LANES_MODEL_BYTES - *held : 0;
        size_t bytes = (size_t)grid_count[g] * (size_t)blocks_of[g] * PAIR_BYTES;
        renumber[g] = -1;
        if (bytes > room || blocks_of[g] == 0) continue; /* no blocks: a line merged into another */
        renumber[g] = cl->group_count++;
        *held += bytes, cl->bytes += bytes;
    }
    for (int node = 0; node < sk->node_count; node++) {
        if (clip->node_channel[node] < 0 || group_of[node] == -2) continue;
        if (group_of[node] >= 0) group_of[node] = renumber[group_of[node]];
        if (group_of[node] == -1) cl->loose[cl->loose_count++] = clip->node_channel[node];
    }
    for (int g = 0; g < lines; g++) {
        if (renumber[g] < 0) continue;
        lane_group *grp = &cl->groups[renumber[g]];
        grp->key_count = grid_count[g];
        grp->block_count = blocks_of[g];
        grp->weighted = grid_weighted[g];
        grp->merged = g == merged;
        size_t blocks = (size_t)grp->block_count;
        grp->times = malloc((size_t)grp->key_count * sizeof *grp->times);
        grp->pairs = lanes_alloc((size_t)grp->key_count * blocks * PAIR_BYTES);
        grp->first_node = malloc(blocks * sizeof *grp->first_node);
        grp->lane = lanes_alloc(blocks * LANES * sizeof *grp->lane);
        grp->full = malloc(blocks);
        grp->ts_moves = calloc(blocks, 1);
        if (!grp->times || !grp->pairs || !grp->first_node || !grp->lane || !grp->full || !grp->ts_moves) goto fail;
        for (int k = 0; k < grp->key_count; k++) grp->times[k] = TIME_OF(grid[g], grid_stride[g], k);
    }
    /* Every group's pairs, node by node (at_block[g]: its block being
     * filled, renumbered groups' indices now). */
    for (int g = 0; g < cl->group_count; g++) at_block[g] = -1;
    for (int node = 0; node < sk->node_count; node++) {
        int g = clip->node_channel[node] >= 0 ? group_of[node] : -1;
        if (g < 0) continue;
        lane_group *grp = &cl->groups[g];
        size_t blocks = (size_t)grp->block_count;
        int b = at_block[g];
        if (b < 0 || grp->first_node[b] != node / LANES * LANES) {
            at_block[g] = ++b;
            grp->first_node[b] = node / LANES * LANES;
        }
        int l = node % LANES;
        grp->lane[(size_t)b * LANES + (size_t)l] = -1;
        const skv_channel *ch = &clip->channels[clip->node_channel[node]];
        float ta[3], ra[4], sa[3], tb[3], rb[4], sb[3];
        int own = 0;
        float sign = 1.0f;
        if (grp->merged) merged_key(ch, grp->times[0], &own, &sign, ta, ra, sa);
        else channel_key(ch, 0, ta, ra, sa);
        for (int i = 0; i < grp->key_count; i++) {
            int next = i + 1 < grp->key_count ? i + 1 : i; /* the last key with itself */
            if (grp->merged) merged_key(ch, grp->times[next], &own, &sign, tb, rb, sb);
            else channel_key(ch, next, tb, rb, sb);
            float *pair = grp->pairs + ((size_t)i * blocks + (size_t)b) * P_COUNT * LANES;
            prepare_pair(pair, l, ta, ra, sa, tb, rb, sb, grp->weighted, grp->merged);
            if (delta) pair_delta(pair, l, &delta[node]);
            memcpy(ta, tb, sizeof ta), memcpy(ra, rb, sizeof ra), memcpy(sa, sb, sizeof sa);
        }
    }
    for (int g = 0; g < cl->group_count; g++) {
        lane_group *grp = &cl->groups[g];
        size_t blocks = (size_t)grp->block_count;
        for (size_t k = 0; k < blocks; k++) {
            int full = 1;
            for (int l = 0; l < LANES; l++) {
                if (grp->lane[k * LANES + (size_t)l]) continue;
                full = 0; /* not the group's: the identity (either form, theta 0), never stored */
                for (int i = 0; i < grp->key_count; i++) {
                    float *pair = grp->pairs + ((size_t)i * blocks + k) * P_COUNT * LANES;
                    pair[(P_R0 + 3) * LANES + (size_t)l] = pair[(P_R1 + 3) * LANES + (size_t)l] = 1.0f;
                }
            }
            grp->full[k] = (unsigned char)full;
            for (int i = 0; i < grp->key_count && !grp->ts_moves[k]; i++) {
                const float *pair = grp->pairs + ((size_t)i * blocks + k) * P_COUNT * LANES;
                for (size_t x = 0; x < 3 * LANES; x++)
                    if (pair[P_DT * LANES + x] != 0.0f || pair[P_DS * LANES + x] != 0.0f) grp->ts_moves[k] = 1;
            }
        }
    }
    free(group_of), free(grid), free(grid_stride), free(grid_count), free(grid_weighted), free(hash), free(blocks_of);
    free(at_block);
    free(renumber);
    free(merged_times);
    return cl;
fail:
    free(group_of), free(grid), free(grid_stride), free(grid_count), free(grid_weighted), free(hash), free(blocks_of);
    free(at_block);
    free(renumber);
    free(merged_times);
    if (cl) *held -= cl->bytes;
    clip_lanes_free(cl);
    return NULL;
}

skv_clip_lanes *clip_lanes_prepare(const skv_model *model, const skv_clip *clip, size_t *held)
{
    return prepare_lanes(model, clip, NULL, held);
}

skv_clip_lanes *clip_lanes_prepare_delta(const skv_model *model, const skv_clip *clip, const skv_trs *reference,
                                         size_t *held)
{
    return prepare_lanes(model, clip, reference, held);
}

size_t clip_lanes_bytes(const skv_clip_lanes *cl)
{
    return cl ? cl->bytes : 0;
}

void layer_lanes_destroy(skv_layer_lanes *ll)
{
    if (!ll) return;
    for (int s = 0; ll->sources && s <= ll->layer_count; s++) {
        free(ll->sources[s].cursor);
        free(ll->sources[s].wanted);
        free(ll->sources[s].wanted_count);
        free(ll->sources[s].loose);
        free(ll->sources[s].values);
    }
    free(ll->sources);
    free(ll->additive);
    free(ll->mask);
    free(ll->mixes);
    free(ll->mixed);
    free(ll->formed);
    free(ll->form);
    free(ll);
}

/* A block of values (V_COUNT * stride) holding every node's rest T, R, S;
 * past the last node the identity. */
static float *rest_values(const skv_layers *layers, int node_count, int stride)
{
    float *values = lanes_alloc((size_t)V_COUNT * (size_t)stride * sizeof *values);
    if (!values) return NULL;
    static const float t0[3] = {0.0f, 0.0f, 0.0f}, r0[4] = {0.0f, 0.0f, 0.0f, 1.0f}, s0[3] = {1.0f, 1.0f, 1.0f};
    for (int n = 0; n < stride; n++) {
        if (n < node_count) put_value(values, stride, n, layers->rest[n].t, layers->rest[n].r, layers->rest[n].s);
        else put_value(values, stride, n, t0, r0, s0);
    }
    return values;
}

/* `src` reads clip `cl` (NULL: the rest pose) for the nodes `wanted_node`
 * marks. */
static skv_result source_make(lane_source *src, const skv_clip_lanes *cl, const skv_layers *layers, int node_count,
                              int stride, const unsigned char *wanted_node)
{
    src->clip = cl;
    if (!(src->values = rest_values(layers, node_count, stride))) return SKV_ERR_MEMORY;
    if (!cl) return SKV_OK;
    for (int n = 0; cl->delta && n < node_count; n++) { /* a node without a channel: its rest's difference */
        skv_trs v = layers->rest[n];
        value_delta(&cl->delta[n], v.t, v.r, v.s);
        put_value(src->values, stride, n, v.t, v.r, v.s);
    }
    for (int k = 0; k < cl->constant_count; k++) {
        const skv_trs *v = &cl->constant[k];
        put_value(src->values, stride, cl->constant_node[k], v->t, v->r, v->s);
    }
    size_t blocks = 0;
    for (int g = 0; g < cl->group_count; g++) {
        const lane_group *grp = &cl->groups[g];
        blocks += (size_t)grp->block_count;
        for (int b = 0; b < grp->block_count; b++) { /* T and S that never change: once */
            if (grp->ts_moves[b]) continue;
            const float *pair = grp->pairs + (size_t)b * P_COUNT * LANES;
            for (int l = 0; l < LANES; l++) {
                if (!grp->lane[(size_t)b * LANES + (size_t)l]) continue;
                size_t node = (size_t)grp->first_node[b] + (size_t)l;
                for (int c = 0; c < 3; c++) {
                    src->values[(size_t)(V_T + c) * (size_t)stride + node] = pair[(P_T0 + c) * LANES + l];
                    src->values[(size_t)(V_S + c) * (size_t)stride + node] = pair[(P_S0 + c) * LANES + l];
                }
            }
        }
    }
    src->cursor = calloc(cl->group_count > 0 ? (size_t)cl->group_count : 1, sizeof *src->cursor);
    src->wanted_count = calloc(cl->group_count > 0 ? (size_t)cl->group_count : 1, sizeof *src->wanted_count);
    src->wanted = malloc((blocks > 0 ? blocks : 1) * sizeof *src->wanted);
    src->loose = calloc(cl->loose_count > 0 ? (size_t)cl->loose_count : 1, sizeof *src->loose);
    if (!src->cursor || !src->wanted_count || !src->wanted || !src->loose) return SKV_ERR_MEMORY;
    int *w = src->wanted;
    for (int g = 0; g < cl->group_count; g++) {
        const lane_group *grp = &cl->groups[g];
        for (int b = 0; b < grp->block_count; b++) {
            int want = 0;
            for (int l = 0; l < LANES; l++)
                want |= grp->lane[(size_t)b * LANES + (size_t)l] && wanted_node[grp->first_node[b] + l];
            if (want) w[src->wanted_count[g]++] = b;
        }
        w += grp->block_count;
    }
    for (int k = 0; k < cl->loose_count; k++) {
        const skv_channel *ch = &cl->clip->channels[cl->loose[k]];
        if (wanted_node[ch->node]) src->loose[src->loose_count++] = (lane_loose){.node = ch->node, .channel = ch};
    }
    return SKV_OK;
}

skv_result layer_lanes_create(skv_layer_lanes **out, const skv_model *model, const skv_clip_lanes *const *clips,
                              const skv_layers *layers, uint32_t active, const unsigned char *posed,
                              const unsigned char *layered)
{
    *out = NULL;
    const skv_skeleton *sk = &model->skeleton;
    skv_layer_lanes *ll = calloc(1, sizeof *ll);
    if (!ll) return SKV_ERR_MEMORY;
    int nodes = sk->node_count;
    ll->node_count = nodes;
    ll->stride = (nodes + LANES - 1) / LANES * LANES;
    if (ll->stride == 0) ll->stride = LANES;
    size_t st = (size_t)ll->stride, vectors = st / LANES;
    int order[SKV_LAYERS_MAX];
    for (int k = 0; k < layers->count; k++)
        if (active >> layers->order[k] & 1u) order[ll->layer_count++] = layers->order[k];
    int lc = ll->layer_count;
    ll->sources = calloc((size_t)lc + 1, sizeof *ll->sources);
    ll->additive = calloc((size_t)lc + 1, sizeof *ll->additive);
    ll->mask = lanes_alloc(((size_t)lc + 1) * st * sizeof *ll->mask);
    ll->mixes = malloc(((size_t)lc + 1) * (vectors + 1) * sizeof *ll->mixes);
    ll->mixed = lanes_alloc(V_COUNT * st * sizeof *ll->mixed);
    ll->formed = malloc((vectors + 1) * sizeof *ll->formed);
    ll->form = calloc(st, 1);
    unsigned char *wanted = calloc(st, 1);
    if (!ll->sources || !ll->additive || !ll->mask || !ll->mixes || !ll->mixed || !ll->formed ||
        !ll->form || !wanted)
        goto fail;
    const skv_clip *base = clips[0] ? clips[0]->clip : NULL;
    for (int n = 0; n < nodes; n++) wanted[n] = posed[n] && base && base->node_channel[n] >= 0;
    if (source_make(&ll->sources[0], clips[0], layers, nodes, ll->stride, wanted) != SKV_OK) goto fail;
    int *mixes = ll->mixes;
    for (int j = 0; j < lc; j++) {
        int i = order[j];
        const skv_clip *c = clips[1 + j] ? clips[1 + j]->clip : NULL;
        int32_t *mask = ll->mask + (size_t)j * st;
        for (int n = 0; n < nodes; n++) {
            int in = layered[n] && (layers->node_layers[n] >> i & 1u);
            mask[n] = in ? -1 : 0;
            wanted[n] = (unsigned char)(in && c && c->node_channel[n] >= 0);
        }
        for (size_t v = 0; v < st; v += LANES) {
            int any = 0;
            for (int l = 0; l < LANES; l++) any |= mask[v + (size_t)l];
            if (any) *mixes++ = (int)v;
        }
        *mixes++ = -1;
        if (source_make(&ll->sources[1 + j], clips[1 + j], layers, nodes, ll->stride, wanted) != SKV_OK) goto fail;
        ll->additive[j] = layers->additive[i];
        if (ll->additive[j] && !(clips[1 + j] && clips[1 + j]->delta)) goto fail; /* its lanes must hold differences */
    }
    int *formed = ll->formed;
    for (int n = 0; n < nodes; n++)
        ll->form[n] = posed[n];
    for (size_t v = 0; v < st; v += LANES) {
        int any = 0;
        for (int l = 0; l < LANES; l++) any |= ll->form[v + (size_t)l];
        if (any) *formed++ = (int)v;
    }
    ll->copy_whole = (size_t)(formed - ll->formed) * 2 > vectors;
    *formed = -1;
    free(wanted);
    *out = ll;
    return SKV_OK;
fail:
    free(wanted);
    layer_lanes_destroy(ll);
    return SKV_ERR_MEMORY;
}
