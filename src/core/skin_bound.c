/* skin_bound.c - clusters of vertices and the bounds of their skinned
 * points (skin_bound.h). */
#include "skin_bound.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "morph.h"

/* Vertices per cluster and clusters per group: a cluster's bound costs
 * about as much as blending a few of its vertices, so it pays where a
 * cluster holds tens of them; groups let a pose pass over most of a big
 * mesh with a few bounds. */
#define CLUSTER_SIZE 64
#define GROUP_SIZE 64
/* Within one bone's vertices, the order they are clustered in: along a
 * Z-order curve over their box, MORTON_BITS per axis, so that a run of
 * them is a compact patch (a strip of one ring of a tube would be cut by
 * a line of equal extremes along the tube in every ring). Sorted by
 * RADIX_BITS at a time. */
#define MORTON_BITS 10
#define RADIX_BITS 10
#define RADIX (1 << RADIX_BITS)

/* Weights within this of summing to 1 blend within the convex hull of the
 * bones' images, give or take what skin_bound_prepare's margin holds. */
#define WEIGHT_SUM_SLACK 1e-5
/* The margin, relative to the size of the numbers involved, by which the
 * bounds stay above float rounding (blend, transform, shift, dot: tens of
 * roundings of 2^-24 each, and the weights' slack above). */
#define ROUNDING_MARGIN 1e-4
/* Beyond this the float arithmetic may overflow: no bound is trusted. */
#define TRUSTED_REACH 1e30

/* The bone that weighs most on vertex v, or -1 where v is outside the
 * convex-hull rule. */
static int main_bone(const skv_model *model, int v, const float rest[3])
{
    for (int a = 0; a < 3; a++)
        if (!isfinite(rest[a])) return -1;
    double sum = 0.0;
    float best = 0.0f;
    int bone_best = -1;
    for (int i = 0, count = model_influence_count(model, v); i < count; i++) {
        int bone;
        float w = model_influence(model, v, i, &bone);
        if (w == 0.0f) continue; /* skin_blend passes over it too */
        if (!(w > 0.0f) || !isfinite(w) || bone < 0 || bone >= model->skeleton.bone_count) return -1;
        sum += w;
        if (w > best) best = w, bone_best = bone;
    }
    return fabs(sum - 1.0) <= WEIGHT_SUM_SLACK ? bone_best : -1;
}

/* The low MORTON_BITS bits of x, two zero bits after each. */
static uint32_t spread_bits(uint32_t x)
{
    x &= (1u << MORTON_BITS) - 1u;
    x = (x | (x << 16)) & 0x030000FFu;
    x = (x | (x << 8)) & 0x0300F00Fu;
    x = (x | (x << 4)) & 0x030C30C3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

/* Sorts order[0 .. n) along the Z-order curve over the box lo..hi
 * (stable), using `scratch` (n ints), `key` and `key_scratch` (n each)
 * and `count` (RADIX + 1 ints). */
static void sort_by_place(const float *rest, int *order, int n, const float lo[3], const float hi[3], int *scratch,
                          uint32_t *key, uint32_t *key_scratch, int *count)
{
    const float cells = (float)(1u << MORTON_BITS);
    float scale[3];
    for (int a = 0; a < 3; a++) scale[a] = hi[a] > lo[a] ? cells / (hi[a] - lo[a]) : 0.0f;
    for (int i = 0; i < n; i++) {
        const float *p = &rest[(size_t)order[i] * 3];
        uint32_t code = 0;
        for (int a = 0; a < 3; a++) {
            float f = (p[a] - lo[a]) * scale[a];
            uint32_t c = f > 0.0f ? (f < cells ? (uint32_t)f : (1u << MORTON_BITS) - 1u) : 0u;
            code |= spread_bits(c) << a;
        }
        key[i] = code;
    }
    int *from = order, *to = scratch;
    uint32_t *key_from = key, *key_to = key_scratch;
    for (int shift = 0; shift < 3 * MORTON_BITS; shift += RADIX_BITS) {
        memset(count, 0, (RADIX + 1) * sizeof *count);
        for (int i = 0; i < n; i++) count[((key_from[i] >> shift) & (RADIX - 1)) + 1]++;
        for (int d = 0; d < RADIX; d++) count[d + 1] += count[d];
        for (int i = 0; i < n; i++) {
            int at = count[(key_from[i] >> shift) & (RADIX - 1)]++;
            to[at] = from[i], key_to[at] = key_from[i];
        }
        int *t = from;
        from = to, to = t;
        uint32_t *k = key_from;
        key_from = key_to, key_to = k;
    }
    if (from != order) memcpy(order, from, (size_t)n * sizeof *order);
}

static void box_empty(float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++) lo[a] = FLT_MAX, hi[a] = -FLT_MAX;
}

static void box_add(float lo[3], float hi[3], const float p[3])
{
    for (int a = 0; a < 3; a++) {
        if (p[a] < lo[a]) lo[a] = p[a];
        if (p[a] > hi[a]) hi[a] = p[a];
    }
}

/* Appends to bound->bones the bones vertex v blends that are not yet
 * stamped `stamp` in `seen`. */
static int add_vertex_bones(skv_skin_bound *bound, int v, int *seen, int stamp, int at)
{
    const skv_model *model = bound->model;
    for (int i = 0, count = model_influence_count(model, v); i < count; i++) {
        int bone;
        if (model_influence(model, v, i, &bone) == 0.0f || seen[bone] == stamp) continue;
        seen[bone] = stamp;
        bound->bones[at++] = bone;
    }
    return at;
}

skv_result skin_bound_create(skv_skin_bound *bound, const skv_model *model)
{
    memset(bound, 0, sizeof *bound);
    bound->model = model;
    const int n = model->vertex_count, bone_count = model->skeleton.bone_count;
    const int slots = model->influence_lists ? 0 : model->influence_slots;
    size_t influences = slots ? (size_t)n * (size_t)slots : (size_t)(model->influence_start ? model->influence_start[n] : 0);
    int *lead = malloc(((size_t)n + 1) * sizeof *lead), *scratch = malloc(((size_t)n + 1) * sizeof *scratch);
    int *count = calloc((size_t)(bone_count > RADIX ? bone_count : RADIX) + 2, sizeof *count);
    uint32_t *key = malloc(((size_t)n + 1) * 2 * sizeof *key);
    int *seen = malloc(((size_t)bone_count + 1) * sizeof *seen);
    bound->order = malloc(((size_t)n + 1) * sizeof *bound->order);
    bound->always = malloc(((size_t)n + 1) * sizeof *bound->always);
    /* Every cluster's bones plus every group's: at most twice the influences. */
    bound->bones = malloc((2 * influences + 1) * sizeof *bound->bones);
    bound->used = malloc(((size_t)bone_count + 1) * sizeof *bound->used);
    if (model->morph_target_count) bound->rest_owned = malloc(((size_t)n * 3 + 1) * sizeof *bound->rest_owned);
    if (!lead || !scratch || !count || !key || !seen || !bound->order || !bound->always || !bound->bones || !bound->used ||
        (model->morph_target_count && !bound->rest_owned)) {
        free(lead), free(scratch), free(count), free(seen), free(key);
        skin_bound_destroy(bound);
        return SKV_ERR_MEMORY;
    }
    if (bound->rest_owned) {
        int cursor = 0;
        for (int v = 0; v < n; v++) {
            float normal[3];
            morph_vertex(model, NULL, morph_mesh_of_vertex(model, v, &cursor), v, &bound->rest_owned[(size_t)v * 3],
                         normal);
        }
        bound->rest = bound->rest_owned;
    } else {
        bound->rest = model->positions;
    }
    const float *rest = bound->rest;

    /* By main bone (counting sort), the rest apart. */
    bound->always_finite = 1;
    for (int v = 0; v < n; v++) {
        lead[v] = main_bone(model, v, &rest[(size_t)v * 3]);
        if (lead[v] < 0) {
            bound->always[bound->always_count++] = v;
            for (int a = 0; a < 3; a++)
                if (!isfinite(rest[(size_t)v * 3 + a])) bound->always_finite = 0;
        } else {
            count[lead[v] + 1]++;
        }
    }
    for (int b = 0; b < bone_count; b++) count[b + 1] += count[b];
    bound->clustered = n - bound->always_count;
    for (int v = 0; v < n; v++)
        if (lead[v] >= 0) bound->order[count[lead[v]]++] = v;

    /* Each bone's run: sorted by place when it makes more than one cluster,
     * then cut into clusters, clusters into groups. */
    int clusters_max = bound->clustered / CLUSTER_SIZE + bone_count + 1;
    bound->clusters = malloc((size_t)clusters_max * sizeof *bound->clusters);
    bound->groups = malloc((size_t)clusters_max * sizeof *bound->groups);
    if (!bound->clusters || !bound->groups) {
        free(lead), free(scratch), free(count), free(seen), free(key);
        skin_bound_destroy(bound);
        return SKV_ERR_MEMORY;
    }
    for (int b = 0; b < bone_count; b++) seen[b] = -1;
    int stamp = 0, bones_at = 0;
    for (int run = 0; run < bound->clustered;) {
        int end = run;
        while (end < bound->clustered && lead[bound->order[end]] == lead[bound->order[run]]) end++;
        if (end - run > CLUSTER_SIZE) {
            float lo[3], hi[3];
            box_empty(lo, hi);
            for (int i = run; i < end; i++) box_add(lo, hi, &rest[(size_t)bound->order[i] * 3]);
            sort_by_place(rest, &bound->order[run], end - run, lo, hi, scratch, key, key + (size_t)n + 1, count);
        }
        for (int at = run; at < end;) {
            skv_skin_span *group = &bound->groups[bound->group_count++];
            *group = (skv_skin_span){.first = bound->cluster_count};
            box_empty(group->lo, group->hi);
            int group_stamp = ++stamp;
            /* The group's bones after its clusters' (filled below). */
            for (int k = 0; k < GROUP_SIZE && at < end; k++) {
                skv_skin_span *c = &bound->clusters[bound->cluster_count++];
                *c = (skv_skin_span){.first = at, .count = end - at < CLUSTER_SIZE ? end - at : CLUSTER_SIZE,
                                     .bone_first = bones_at};
                box_empty(c->lo, c->hi);
                int cluster_stamp = ++stamp;
                for (int i = c->first; i < c->first + c->count; i++) {
                    box_add(c->lo, c->hi, &rest[(size_t)bound->order[i] * 3]);
                    bones_at = add_vertex_bones(bound, bound->order[i], seen, cluster_stamp, bones_at);
                }
                c->bone_count = bones_at - c->bone_first;
                for (int a = 0; a < 3; a++) group->lo[a] = fminf(group->lo[a], c->lo[a]), group->hi[a] = fmaxf(group->hi[a], c->hi[a]);
                at += c->count;
                group->count++;
            }
            group->bone_first = bones_at;
            for (int k = group->first; k < group->first + group->count; k++) {
                const skv_skin_span *c = &bound->clusters[k];
                for (int j = c->bone_first; j < c->bone_first + c->bone_count; j++)
                    if (seen[bound->bones[j]] != group_stamp) {
                        seen[bound->bones[j]] = group_stamp;
                        bound->bones[bones_at++] = bound->bones[j];
                    }
            }
            group->bone_count = bones_at - group->bone_first;
        }
        run = end;
    }
    /* The bones blended at all, and how far from the origin the rest reaches. */
    ++stamp;
    for (int k = 0; k < bound->cluster_count; k++) {
        const skv_skin_span *c = &bound->clusters[k];
        for (int j = c->bone_first; j < c->bone_first + c->bone_count; j++)
            if (seen[bound->bones[j]] != stamp) {
                seen[bound->bones[j]] = stamp;
                bound->used[bound->used_count++] = bound->bones[j];
            }
        for (int a = 0; a < 3; a++)
            bound->rest_reach[a] = fmaxf(bound->rest_reach[a], fmaxf(fabsf(c->lo[a]), fabsf(c->hi[a])));
    }
    free(lead), free(scratch), free(count), free(seen), free(key);
    /* The bones' and the always-blended lists were sized for the worst
     * case (every influence twice, every vertex): down to what they hold. */
    int *fit = realloc(bound->bones, ((size_t)bones_at + 1) * sizeof *fit);
    if (fit) bound->bones = fit;
    fit = realloc(bound->always, ((size_t)bound->always_count + 1) * sizeof *fit);
    if (fit) bound->always = fit;
    /* Per bone, BLOCKS blocks of 4 vectors of 4 (16-byte aligned). */
    bound->coefficients = aligned_alloc(16, ((size_t)bone_count + 1) * SKIN_BOUND_MAX_FUNCTIONS * 4 * sizeof *bound->coefficients);
    if (!bound->coefficients) {
        skin_bound_destroy(bound);
        return SKV_ERR_MEMORY;
    }
    return SKV_OK;
}

void skin_bound_destroy(skv_skin_bound *bound)
{
    free(bound->rest_owned);
    free(bound->order);
    free(bound->always);
    free(bound->clusters);
    free(bound->groups);
    free(bound->bones);
    free(bound->used);
    free(bound->coefficients);
    memset(bound, 0, sizeof *bound);
}

/* Four floats, one per function of a block of four (GCC's vector
 * extension: SSE on x86-64, plain code elsewhere). */
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
#define BLOCKS (SKIN_BOUND_MAX_FUNCTIONS / 4)

static inline v4f v4f_all(float x)
{
    return (v4f){x, x, x, x};
}

static inline v4f v4f_abs(v4f x)
{
    return (v4f)((v4i)x & (v4i){0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff});
}

int skin_bound_prepare(skv_skin_bound *bound, const mat4 *palette, const mat4 transform, int count,
                       const double (*dir)[3], const double *offset)
{
    if (count > SKIN_BOUND_MAX_FUNCTIONS) count = SKIN_BOUND_MAX_FUNCTIONS;
    bound->function_count = count;
    const int blocks = (count + 3) / 4;
    /* The directions a block at a time, lane by function (0 past count). */
    v4f d[BLOCKS][3];
    for (int f = 0; f < blocks * 4; f++)
        for (int r = 0; r < 3; r++) d[f / 4][r][f % 4] = f < count ? (float)dir[f][r] : 0.0f;
    /* The size of the numbers: the largest |coordinate| any product in
     * the blend and the transform can reach, from the absolute values of
     * the matrices and the rest positions. */
    double reach = 0.0;
    v4f *coefficients = (v4f *)(void *)bound->coefficients;
    for (int u = 0; u < bound->used_count; u++) {
        const int b = bound->used[u];
        const float(*m)[4] = palette[b];
        double size[3];
        float affine[3][4];
        for (int r = 0; r < 3; r++) {
            /* Row r of transform * m (the position's part: m's rows 0..2). */
            double abs_row[4];
            for (int c = 0; c < 4; c++) {
                double sum = 0.0, abs_sum = 0.0;
                for (int k = 0; k < 3; k++) {
                    sum += (double)transform[k][r] * (double)m[c][k];
                    abs_sum += fabs((double)transform[k][r]) * fabs((double)m[c][k]);
                }
                if (c == 3) sum += transform[3][r], abs_sum += fabs((double)transform[3][r]);
                affine[r][c] = (float)sum;
                abs_row[c] = abs_sum;
            }
            size[r] = abs_row[0] * bound->rest_reach[0] + abs_row[1] * bound->rest_reach[1] +
                      abs_row[2] * bound->rest_reach[2] + abs_row[3];
            /* The blend before the transform: its own size. */
            double blended = fabs((double)m[0][r]) * bound->rest_reach[0] + fabs((double)m[1][r]) * bound->rest_reach[1] +
                             fabs((double)m[2][r]) * bound->rest_reach[2] + fabs((double)m[3][r]);
            if (blended > size[r]) size[r] = blended;
        }
        for (int r = 0; r < 3; r++) {
            if (!(size[r] < TRUSTED_REACH)) return 0; /* NaN too */
            if (size[r] > reach) reach = size[r];
        }
        /* Function f's coefficients of (rest x, y, z, 1): dir[f] . the
         * affine's columns, in float (the margin holds its rounding). */
        v4f *out = &coefficients[(size_t)b * BLOCKS * 4];
        for (int j = 0; j < blocks; j++)
            for (int c = 0; c < 4; c++)
                out[j * 4 + c] = d[j][0] * v4f_all(affine[0][c]) + d[j][1] * v4f_all(affine[1][c]) +
                                 d[j][2] * v4f_all(affine[2][c]);
    }
    v4f add[BLOCKS];
    for (int f = 0; f < blocks * 4; f++) {
        if (f >= count) {
            add[f / 4][f % 4] = -FLT_MAX; /* a lane past count: never reaches anything */
            continue;
        }
        double d1 = fabs(dir[f][0]) + fabs(dir[f][1]) + fabs(dir[f][2]);
        if (!isfinite(d1) || !(fabs(offset[f]) < TRUSTED_REACH)) return 0;
        double margin = ROUNDING_MARGIN * (d1 * reach + fabs(offset[f])) + FLT_MIN;
        bound->margin[f] = margin;
        add[f / 4][f % 4] = (float)(offset[f] + margin);
    }
    for (int u = 0; u < bound->used_count; u++) {
        v4f *out = &coefficients[(size_t)bound->used[u] * BLOCKS * 4];
        for (int j = 0; j < blocks; j++) out[j * 4 + 3] += add[j];
    }
    return 1;
}

void skin_bound_span(const skv_skin_bound *bound, const skv_skin_span *span, float *upper)
{
    const int blocks = (bound->function_count + 3) / 4;
    v4f centre[3], half[3], top[BLOCKS];
    for (int a = 0; a < 3; a++) {
        centre[a] = v4f_all(0.5f * span->lo[a] + 0.5f * span->hi[a]);
        half[a] = v4f_all(0.5f * span->hi[a] - 0.5f * span->lo[a]);
    }
    for (int j = 0; j < blocks; j++) top[j] = v4f_all(-INFINITY);
    const v4f *coefficients = (const v4f *)(const void *)bound->coefficients;
    for (int i = span->bone_first; i < span->bone_first + span->bone_count; i++) {
        const v4f *k = &coefficients[(size_t)bound->bones[i] * BLOCKS * 4];
        for (int j = 0; j < blocks; j++, k += 4) {
            v4f t = k[0] * centre[0] + k[1] * centre[1] + k[2] * centre[2] + k[3] + v4f_abs(k[0]) * half[0] +
                    v4f_abs(k[1]) * half[1] + v4f_abs(k[2]) * half[2];
            v4i more = t > top[j];
            top[j] = (v4f)(((v4i)t & more) | ((v4i)top[j] & ~more));
        }
    }
    for (int f = 0; f < bound->function_count; f++) upper[f] = top[f / 4][f % 4];
}
