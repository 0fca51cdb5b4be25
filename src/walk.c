/* walk.c - compiling a clip's hierarchy walk (walk.h), and the products
 * that run it. */
#include "walk.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SKV_X86_DISPATCH 1
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* --- compiling ------------------------------------------------------------ */

enum { NODE_FIXED, NODE_WORK, NODE_DEFERRED };

typedef struct compiler {
    const skv_skeleton *sk;
    skv_walk *walk;
    unsigned char *state; /* per node: NODE_* */
    int32_t *ref;         /* NODE_FIXED: its global (a constant operand); NODE_WORK: its global in the work block */
    int32_t *anchor;      /* NODE_DEFERRED: global = anchor * chain; anchor is a NODE_WORK global */
    int32_t *chain;       /*   chain: a constant operand */
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

static void add_step(skv_walk_step *list, int *count, int32_t a, int32_t b, int32_t out)
{
    list[(*count)++] = (skv_walk_step){a, b, out};
}

/* Do two channels' packed keys have the same times? */
static int same_times(const skv_packed_keys *a, const skv_packed_keys *b)
{
    if (a->count != b->count) return 0;
    for (int k = 0; k < a->count; k++)
        if (*(const double *)((const char *)a->times + (size_t)k * a->time_stride) !=
            *(const double *)((const char *)b->times + (size_t)k * b->time_stride))
            return 0;
    return 1;
}

/* Sorts the moving channels (w->loose, sample_count of them) into time
 * groups of 4-wide lanes; the channels without packed keys stay loose. */
static int group_lanes(skv_walk *w, const skv_clip *clip, int32_t local_base)
{
    int moving = w->sample_count;
    size_t cap = moving > 0 ? (size_t)moving : 1;
    int *group_of = malloc(cap * sizeof *group_of);
    w->groups = malloc(cap * sizeof *w->groups);
    w->lanes = malloc((cap * 4) * sizeof *w->lanes); /* a group of 1 pads to 4 */
    if (!group_of || !w->groups || !w->lanes) {
        free(group_of);
        return -1;
    }
    for (int k = 0; k < moving; k++) {
        const skv_packed_keys *pk = clip->channels[w->loose[k]].packed;
        group_of[k] = -1;
        if (!pk) continue;
        for (int g = 0; g < w->group_count && group_of[k] < 0; g++)
            if (same_times(w->groups[g].keys, pk)) group_of[k] = g;
        if (group_of[k] < 0) {
            group_of[k] = w->group_count;
            w->groups[w->group_count++] = (skv_walk_group){.keys = pk};
        }
    }
    int lane = 0;
    for (int g = 0; g < w->group_count; g++) {
        skv_walk_group *grp = &w->groups[g];
        grp->first_lane = lane;
        for (int k = 0; k < moving; k++) {
            if (group_of[k] != g) continue;
            const skv_channel *ch = &clip->channels[w->loose[k]];
            w->lanes[lane++] = (skv_walk_lane){
                .t = ch->positions[0].value, .r = ch->rotations[0].value, .s = ch->scales[0].value,
                .t_step = ch->position_count > 1 ? (int32_t)sizeof ch->positions[0] : 0,
                .r_step = ch->rotation_count > 1 ? (int32_t)sizeof ch->rotations[0] : 0,
                .s_step = ch->scale_count > 1 ? (int32_t)sizeof ch->scales[0] : 0,
                .out = local_base + global_at(ch->node), .channel = w->loose[k]};
        }
        while ((lane - grp->first_lane) % 4) {
            w->lanes[lane] = w->lanes[lane - 1]; /* the same local written twice */
            lane++;
        }
        grp->lane_count = lane - grp->first_lane;
    }
    int loose = 0;
    for (int k = 0; k < moving; k++)
        if (group_of[k] < 0) w->loose[loose++] = w->loose[k];
    w->loose_count = loose;
    free(group_of);
    return 0;
}

skv_walk *walk_compile(const skv_model *model, const skv_clip *clip)
{
    const skv_skeleton *sk = &model->skeleton;
    size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1;
    size_t bones = sk->bone_count > 0 ? (size_t)sk->bone_count : 1;
    /* Steps address matrices by 32-bit byte offsets. */
    if (nodes + bones + 2 > (size_t)INT32_MAX / (2 * sizeof(mat4))) return NULL;
    skv_walk *w = calloc(1, sizeof *w);
    compiler cc = {.sk = sk, .walk = w};
    if (w) {
        /* Bounds: each node adds at most one step to one list and one
         * constant, each bone one palette entry and one constant. */
        w->loose = malloc(nodes * sizeof *w->loose);
        w->globals = malloc(nodes * sizeof *w->globals);
        w->deferred = malloc(nodes * sizeof *w->deferred);
        w->palette = malloc(bones * sizeof *w->palette);
        w->fixed = malloc(bones * sizeof *w->fixed);
        w->constants = malloc((nodes + bones + 2) * sizeof(mat4));
        cc.state = malloc(nodes);
        cc.ref = malloc(nodes * sizeof *cc.ref);
        cc.anchor = malloc(nodes * sizeof *cc.anchor);
        cc.chain = malloc(nodes * sizeof *cc.chain);
    }
    if (!w || !w->loose || !w->globals || !w->deferred || !w->palette || !w->fixed || !w->constants ||
        !cc.state || !cc.ref || !cc.anchor || !cc.chain) {
        walk_free(w);
        free(cc.state), free(cc.ref), free(cc.anchor), free(cc.chain);
        return NULL;
    }
    mat4 identity = GLM_MAT4_IDENTITY_INIT;
    int32_t one = add_constant(&cc, identity);
    int32_t root = add_constant(&cc, model->global_inverse);
    const int32_t local_base = global_at(sk->node_count);

    for (int n = 0; n < sk->node_count; n++) {
        int p = sk->parents[n];
        int ch = clip ? clip->node_channel[n] : -1;
        int moves = ch >= 0 && !clip->channels[ch].constant;
        const float *fixed_local = ch >= 0 ? (const float *)clip->channels[ch].constant_local
                                           : (const float *)sk->rest_local[n];
        if (!moves && (p < 0 || cc.state[p] == NODE_FIXED)) {
            /* Posed once, here. */
            mat4 g;
            glm_mat4_mul((vec4 *)(p < 0 ? constant(&cc, root) : constant(&cc, cc.ref[p])), (vec4 *)fixed_local, g);
            cc.state[n] = NODE_FIXED;
            cc.ref[n] = add_constant(&cc, g);
        } else if (moves) {
            int32_t parent;
            if (p < 0) parent = root;
            else if (cc.state[p] != NODE_DEFERRED) parent = cc.ref[p];
            else {
                /* The first moving child of a rigid chain's end: that
                 * global is formed once per frame, for all its children. */
                add_step(w->globals, &w->global_count, cc.anchor[p], cc.chain[p], global_at(p));
                cc.state[p] = NODE_WORK;
                cc.ref[p] = parent = global_at(p);
            }
            w->loose[w->sample_count++] = ch; /* sorted into groups below */
            add_step(w->globals, &w->global_count, parent, local_base + global_at(n), global_at(n));
            cc.state[n] = NODE_WORK;
            cc.ref[n] = global_at(n);
        } else if (cc.state[p] == NODE_WORK) {
            /* Rigid under a moving parent: not formed unless needed. */
            cc.state[n] = NODE_DEFERRED;
            cc.anchor[n] = cc.ref[p];
            cc.chain[n] = add_constant(&cc, (vec4 *)fixed_local);
        } else {
            /* Rigid under a rigid chain: the chain grows by one node. */
            mat4 chain;
            glm_mat4_mul((vec4 *)constant(&cc, cc.chain[p]), (vec4 *)fixed_local, chain);
            cc.state[n] = NODE_DEFERRED;
            cc.anchor[n] = cc.anchor[p];
            cc.chain[n] = add_constant(&cc, chain);
        }
    }

    for (int b = 0; b < sk->bone_count; b++) {
        int n = sk->bone_node[b];
        int32_t out = global_at(b);
        if (n < 0) {
            add_step(w->fixed, &w->fixed_count, one, one, out); /* stays in bind pose */
        } else if (cc.state[n] == NODE_FIXED) {
            mat4 entry;
            glm_mat4_mul((vec4 *)constant(&cc, cc.ref[n]), sk->bone_offset[b], entry);
            add_step(w->fixed, &w->fixed_count, one, add_constant(&cc, entry), out);
        } else if (cc.state[n] == NODE_WORK) {
            add_step(w->palette, &w->palette_count, cc.ref[n], add_constant(&cc, sk->bone_offset[b]), out);
        } else {
            mat4 folded; /* the rigid chain times the offset */
            glm_mat4_mul((vec4 *)constant(&cc, cc.chain[n]), sk->bone_offset[b], folded);
            add_step(w->palette, &w->palette_count, cc.anchor[n], add_constant(&cc, folded), out);
        }
    }
    for (int n = 0; n < sk->node_count; n++) {
        if (cc.state[n] == NODE_FIXED) add_step(w->deferred, &w->deferred_count, one, cc.ref[n], global_at(n));
        else if (cc.state[n] == NODE_DEFERRED)
            add_step(w->deferred, &w->deferred_count, cc.anchor[n], cc.chain[n], global_at(n));
    }
    free(cc.state), free(cc.ref), free(cc.anchor), free(cc.chain);
    if (clip && group_lanes(w, clip, local_base) != 0) {
        walk_free(w);
        return NULL;
    }
    return w;
}

int walk_compile_all(skv_model *model)
{
    int ok = 1;
    walk_free(model->rest_walk);
    ok &= (model->rest_walk = walk_compile(model, NULL)) != NULL;
    for (int c = 0; c < model->clip_count; c++) {
        walk_free(model->clips[c].walk);
        ok &= (model->clips[c].walk = walk_compile(model, &model->clips[c])) != NULL;
        atomic_store_explicit(&model->clips[c].walk_ready, 1, memory_order_release);
    }
    return ok ? 0 : -1;
}

int walk_compile_rest(skv_model *model)
{
    walk_free(model->rest_walk);
    model->rest_walk = walk_compile(model, NULL);
    for (int c = 0; c < model->clip_count; c++) {
        walk_free(model->clips[c].walk);
        model->clips[c].walk = NULL;
        atomic_store_explicit(&model->clips[c].walk_ready, 0, memory_order_relaxed);
    }
    return model->rest_walk ? 0 : -1;
}

/* One lock for every model: a clip is compiled once in its model's life,
 * so waiting on another model's compilation costs nothing that matters. */
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

const skv_walk *walk_clip(const skv_model *model, int c)
{
    /* The model is heap memory the loader owns, not a const object: the
     * cache may be filled through it. */
    skv_clip *clip = (skv_clip *)&model->clips[c];
    if (atomic_load_explicit(&clip->walk_ready, memory_order_acquire)) return clip->walk;
    pthread_mutex_lock(&compile_lock);
    if (!atomic_load_explicit(&clip->walk_ready, memory_order_relaxed)) {
        clip->walk = walk_compile(model, clip);
        atomic_store_explicit(&clip->walk_ready, 1, memory_order_release); /* after the walk is written */
    }
    pthread_mutex_unlock(&compile_lock);
    return clip->walk;
}

/* --- running -------------------------------------------------------------- */

#define OPERAND(x) \
    ((const float *)((x) >= 0 ? (const char *)work + (x) : (const char *)constants + ~(x)))

/* Column-major 4x4: out column j = sum over k of a column k * b[j][k].
 * Each kernel loads both operands before it stores, so out may not
 * alias them (the compiler never makes it). */

#if defined(SKV_X86_DISPATCH)
/* All four columns in one register: b's entries broadcast within each
 * 128-bit lane, a's columns repeated in every lane. */
__attribute__((target("avx512f"))) static void run_avx512(const skv_walk_step *s, int count, float *work,
                                                           const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        __m512 bv = _mm512_loadu_ps(b);
        __m512 r0 = _mm512_mul_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a)), _mm512_permute_ps(bv, 0x00));
        __m512 r1 = _mm512_mul_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 4)), _mm512_permute_ps(bv, 0x55));
        r0 = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 8)), _mm512_permute_ps(bv, 0xaa), r0);
        r1 = _mm512_fmadd_ps(_mm512_broadcast_f32x4(_mm_loadu_ps(a + 12)), _mm512_permute_ps(bv, 0xff), r1);
        _mm512_storeu_ps((float *)((char *)out + s[i].out), _mm512_add_ps(r0, r1));
    }
}

/* Two columns per register. */
__attribute__((target("avx2,fma"))) static void run_avx2(const skv_walk_step *s, int count, float *work,
                                                          const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        __m256 a0 = _mm256_broadcast_ps((const __m128 *)a), a1 = _mm256_broadcast_ps((const __m128 *)(a + 4));
        __m256 a2 = _mm256_broadcast_ps((const __m128 *)(a + 8)), a3 = _mm256_broadcast_ps((const __m128 *)(a + 12));
        float *o = (float *)((char *)out + s[i].out);
        for (int h = 0; h < 2; h++) {
            __m256 bv = _mm256_loadu_ps(b + 8 * h);
            __m256 r0 = _mm256_mul_ps(a0, _mm256_permute_ps(bv, 0x00));
            __m256 r1 = _mm256_mul_ps(a1, _mm256_permute_ps(bv, 0x55));
            r0 = _mm256_fmadd_ps(a2, _mm256_permute_ps(bv, 0xaa), r0);
            r1 = _mm256_fmadd_ps(a3, _mm256_permute_ps(bv, 0xff), r1);
            _mm256_storeu_ps(o + 8 * h, _mm256_add_ps(r0, r1));
        }
    }
}
#endif

/* Any CPU: one column per SSE register, or plain C. */
static void run_portable(const skv_walk_step *s, int count, float *work, const mat4 *constants, float *out)
{
    for (int i = 0; i < count; i++) {
        const float *a = OPERAND(s[i].a), *b = OPERAND(s[i].b);
        float *o = (float *)((char *)out + s[i].out);
#if defined(__SSE2__)
        __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
        __m128 r[4];
        for (int j = 0; j < 4; j++) {
            __m128 bj = _mm_loadu_ps(b + 4 * j);
            r[j] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bj, bj, 0x00)),
                                         _mm_mul_ps(a1, _mm_shuffle_ps(bj, bj, 0x55))),
                              _mm_add_ps(_mm_mul_ps(a2, _mm_shuffle_ps(bj, bj, 0xaa)),
                                         _mm_mul_ps(a3, _mm_shuffle_ps(bj, bj, 0xff))));
        }
        for (int j = 0; j < 4; j++) _mm_storeu_ps(o + 4 * j, r[j]);
#else
        float r[16];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++)
                r[4 * j + k] = a[k] * b[4 * j] + a[4 + k] * b[4 * j + 1] + a[8 + k] * b[4 * j + 2] +
                               a[12 + k] * b[4 * j + 3];
        memcpy(o, r, sizeof r);
#endif
    }
}

skv_walk_kernel walk_best_kernel(void)
{
#if defined(SKV_X86_DISPATCH)
    if (__builtin_cpu_supports("avx512f")) return SKV_WALK_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SKV_WALK_AVX2;
#endif
    return SKV_WALK_PORTABLE;
}

int walk_run_kernel(skv_walk_kernel kernel, const skv_walk_step *steps, int count, float *work,
                    const mat4 *constants, float *out)
{
#if defined(SKV_X86_DISPATCH)
    /* The CPU's features, read once by the C runtime at start-up. */
    int avx512 = __builtin_cpu_supports("avx512f");
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (kernel == SKV_WALK_AVX512 || (kernel == SKV_WALK_AUTO && avx512)) {
        if (!avx512) return -1;
        run_avx512(steps, count, work, constants, out);
        return 0;
    }
    if (kernel == SKV_WALK_AVX2 || (kernel == SKV_WALK_AUTO && avx2)) {
        if (!avx2) return -1;
        run_avx2(steps, count, work, constants, out);
        return 0;
    }
#else
    if (kernel == SKV_WALK_AVX2 || kernel == SKV_WALK_AVX512) return -1;
#endif
    run_portable(steps, count, work, constants, out);
    return 0;
}

void walk_run(const skv_walk_step *steps, int count, float *work, const mat4 *constants, float *out)
{
    walk_run_kernel(SKV_WALK_AUTO, steps, count, work, constants, out);
}
