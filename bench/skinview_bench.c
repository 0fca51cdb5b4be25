/* skinview_bench.c - pose evaluation against the textbook walker, load
 * time split, CPU skinning cost.
 *
 *   skinview-bench [--json] [--smoke] [--rounds N] [MODEL...]
 *   skinview-bench --crowd            crowds: posing on all cores, instanced drawing
 *   skinview-bench --crowd-fps [--rounds N] [MODEL...]  characters at 60 fps, 4 slots, 8 and all
 *                                     influences (BCN and Fox by default)
 *   skinview-bench --msaa [--rounds N] the cost of --msaa 1, 2, 4 per frame (llvmpipe here)
 *   skinview-bench --influences [--rounds N] MODEL...   (4 slots, 8, all: CPU and draw cost)
 *   skinview-bench --profile FRAMES [--clip N] [--seek] [--lent] MODEL
 *   skinview-bench --exact [--json] MODEL...          every clip exact, nothing timed
 *   skinview-bench --seeks [--rounds N] [--clip N] [--evict MIB] MODEL...
 *                                     seeks against playback, warm and cold
 *                                     (bench_seeks)
 *   skinview-bench --layers [--rounds N] [MODEL...]   ns/bone: the base clip alone
 *                                     (walk; the layered path without layers), base + 1 layer,
 *                                     base + 2 (robot.glb and Fox.glb by default); then one
 *                                     layer and one more against the nodes of their mask
 *                                     (layers_sweep)
 * (--clip N also picks the clip the timed rows play; default 0)
 *
 * --profile imports MODEL and poses FRAMES frames of one clip (playback
 * at 60 fps, or --seek: random times) and nothing else timed: run it
 * under `valgrind --tool=callgrind --toggle-collect='pose_evaluate*'`
 * to count instructions per bone per frame (bench/ir_per_bone.sh);
 * --lent poses as one crowd character does (pose_evaluate_lent).
 *
 * For each model, in one process and interleaved round by round (these
 * machines are shared and noisy, so only ratios within a run mean much):
 *   naive     the textbook walker on Assimp's own scene: per node per frame
 *             a string search for its channel, a name lookup for its bone,
 *             a linear key search, recursive descent;
 *   v0        pose_evaluate_reference (the first version), for the notes;
 *   playback  Skinview's pose_evaluate, time advancing by 1/60 s;
 *   seek      Skinview's pose_evaluate at random times;
 *   cold      the same seeks, each batch after 64 MiB were written (more
 *             than this machine's L3): every key line they read comes
 *             from memory, as when a user scrubs a long clip that other
 *             work had pushed out of the caches.
 * Each round times a batch of frames; the median round is reported.
 * Playback and seeks each run their batch once untimed first, so that
 * both are timed on warm caches (the naive walker's pass just before had
 * evicted the clip's keys: ozz's walk.fbx, 200 KB of prepared keys, ran
 * 8.5 ns/bone playback against 7.2 with its keys warm; and the seeks of a
 * long clip read lines playback never warms: 01_01.bvh, 3.6 MB of keys,
 * 7.5 ns/bone warm against 20 after the reference's and the naive
 * walker's passes on the AVX-512 EPYC, whose L3 is shared). The
 * naive walker's palette must equal Skinview's (max abs difference relative
 * to the largest matrix entry < 1e-5), else the run fails. Then every clip
 * of every model is checked (exact_clip: each kernel and the reference
 * against the double evaluation, within depth-aware bounds), as --exact
 * does alone. --smoke runs a few frames per model and checks only those
 * (ctest runs it; bench_exact runs --exact over the corpus).
 *
 * Like the importer's tests, this tool sees Assimp types: the baseline
 * walks the aiScene the way tutorial code does. */
#include <limits.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "anim.h"
#include "layers.h"
#include "layer_lanes.h"
#include "scene.h"
#include "crowd.h"
#include "gpu.h"
#include "render.h"
#include "import.h"
#include "import_scene.h"
#include "output.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include "skin.h"
#include "walk.h"
#include "pose_double.h"

#ifndef AI_MAXLEN
#define AI_MAXLEN MAXLEN
#endif

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* --- the textbook walker ------------------------------------------------- */

typedef struct naive {
    const struct aiAnimation *anim;
    const skv_model *model; /* the importer's node list, bindings, bone map */
    struct aiMatrix4x4 global_inverse;
    struct aiMatrix4x4 *rest;   /* per node: the rest transform, as Assimp's matrix */
    struct aiMatrix4x4 *global; /* per node, this frame */
    mat4 *palette;
    unsigned char *bone_done;
    unsigned char *channel_done;
} naive;

static struct aiMatrix4x4 mul(const struct aiMatrix4x4 *a, const struct aiMatrix4x4 *b)
{
    const float *x = &a->a1, *y = &b->a1;
    struct aiMatrix4x4 r;
    float *o = &r.a1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            o[i * 4 + j] = x[i * 4 + 0] * y[0 * 4 + j] + x[i * 4 + 1] * y[1 * 4 + j] + x[i * 4 + 2] * y[2 * 4 + j] +
                           x[i * 4 + 3] * y[3 * 4 + j];
    return r;
}

static struct aiQuaternion slerp(struct aiQuaternion a, struct aiQuaternion b, float f)
{
    float cosom = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (cosom < 0.0f) {
        cosom = -cosom;
        b.x = -b.x, b.y = -b.y, b.z = -b.z, b.w = -b.w;
    }
    float s0 = 1.0f - f, s1 = f;
    if (1.0f - cosom > 1e-6f) {
        float omega = acosf(cosom), sinom = sinf(omega);
        s0 = sinf((1.0f - f) * omega) / sinom;
        s1 = sinf(f * omega) / sinom;
    }
    struct aiQuaternion r = {s0 * a.w + s1 * b.w, s0 * a.x + s1 * b.x, s0 * a.y + s1 * b.y, s0 * a.z + s1 * b.z};
    float len = sqrtf(r.w * r.w + r.x * r.x + r.y * r.y + r.z * r.z);
    if (len > 0.0f) r.w /= len, r.x /= len, r.y /= len, r.z /= len;
    return r;
}

/* Linear key search, as in the tutorials: first key whose successor is later. */
static unsigned find_key(const double *times, size_t stride, unsigned count, double t)
{
    for (unsigned i = 0; i + 1 < count; i++)
        if (t < *(const double *)((const char *)times + (size_t)(i + 1) * stride)) return i;
    return count - 1;
}

static struct aiVector3D lerp_keys(const struct aiVectorKey *k, unsigned n, double t)
{
    unsigned i = find_key(&k[0].mTime, sizeof k[0], n, t);
    if (i + 1 >= n || t <= k[0].mTime) return t <= k[0].mTime ? k[0].mValue : k[i].mValue;
    float f = (float)((t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime));
    struct aiVector3D a = k[i].mValue, b = k[i + 1].mValue;
    return (struct aiVector3D){a.x + f * (b.x - a.x), a.y + f * (b.y - a.y), a.z + f * (b.z - a.z)};
}

static struct aiQuaternion slerp_keys(const struct aiQuatKey *k, unsigned n, double t)
{
    unsigned i = find_key(&k[0].mTime, sizeof k[0], n, t);
    if (i + 1 >= n || t <= k[0].mTime) return slerp(t <= k[0].mTime ? k[0].mValue : k[i].mValue, k[i].mValue, 0.0f);
    float f = (float)((t - k[i].mTime) / (k[i + 1].mTime - k[i].mTime));
    return slerp(k[i].mValue, k[i + 1].mValue, f);
}

/* Walks the importer's flattened node list (parent before child) rather
 * than Assimp's tree, so that nodes are bound as the importer bound them:
 * a name two nodes share (robot.glb's joint and mesh node "Head") goes to
 * the joint, and FBX pivot helpers folded into their node are not applied
 * twice. What stays textbook is the cost: a string search per node for its
 * channel, a linear key search, a name scan of the bone map. */
static void naive_evaluate(naive *nv, const skv_clip *clip, double seconds)
{
    const skv_skeleton *sk = &nv->model->skeleton;
    double ticks = clip ? keys_clip_ticks(clip, seconds) : 0.0;
    memset(nv->bone_done, 0, (size_t)sk->bone_count);
    if (nv->anim) memset(nv->channel_done, 0, nv->anim->mNumChannels);
    for (int n = 0; n < sk->node_count; n++) {
        struct aiMatrix4x4 local = nv->rest[n];
        const char *name = sk->node_names[n];
        for (unsigned c = 0; nv->anim && clip && clip->node_channel[n] >= 0 && c < nv->anim->mNumChannels; c++) {
            const struct aiNodeAnim *ch = nv->anim->mChannels[c];
            if (nv->channel_done[c] || strcmp(ch->mNodeName.data, name) != 0) continue;
            nv->channel_done[c] = 1;
            if (!ch->mNumPositionKeys || !ch->mNumRotationKeys || !ch->mNumScalingKeys) break;
            struct aiVector3D p = lerp_keys(ch->mPositionKeys, ch->mNumPositionKeys, ticks);
            struct aiVector3D s = lerp_keys(ch->mScalingKeys, ch->mNumScalingKeys, ticks);
            struct aiQuaternion q = slerp_keys(ch->mRotationKeys, ch->mNumRotationKeys, ticks);
            float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z, xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
            float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
            local = (struct aiMatrix4x4){(1 - 2 * (yy + zz)) * s.x, 2 * (xy - wz) * s.y, 2 * (xz + wy) * s.z, p.x,
                                         2 * (xy + wz) * s.x, (1 - 2 * (xx + zz)) * s.y, 2 * (yz - wx) * s.z, p.y,
                                         2 * (xz - wy) * s.x, 2 * (yz + wx) * s.y, (1 - 2 * (xx + yy)) * s.z, p.z,
                                         0, 0, 0, 1};
            break;
        }
        int parent = sk->parents[n];
        nv->global[n] = parent >= 0 ? mul(&nv->global[parent], &local) : local;
        /* Name scan of the bone map (as a small std::map is). */
        for (int b = 0; b < sk->bone_count; b++) {
            if (sk->bone_node[b] != n || nv->bone_done[b] || strcmp(sk->node_names[sk->bone_node[b]], name) != 0)
                continue;
            nv->bone_done[b] = 1;
            struct aiMatrix4x4 offset, final_m;
            const float(*o)[4] = sk->bone_offset[b];
            for (int r = 0; r < 4; r++)
                for (int k = 0; k < 4; k++) (&offset.a1)[r * 4 + k] = o[k][r];
            struct aiMatrix4x4 g = mul(&nv->global_inverse, &nv->global[n]);
            final_m = mul(&g, &offset);
            for (int r = 0; r < 4; r++)
                for (int k = 0; k < 4; k++) nv->palette[b][k][r] = (&final_m.a1)[r * 4 + k];
        }
    }
}

/* --- measurement ---------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double palette_difference(const mat4 *a, const mat4 *b, int bones)
{
    double diff = 0.0, scale = 1e-30;
    for (int i = 0; i < bones; i++)
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                diff = fmax(diff, fabs(a[i][c][r] - b[i][c][r]));
                scale = fmax(scale, fabs(b[i][c][r]));
            }
    return diff / scale;
}

/* --- exactness: every clip, every kernel -------------------------------------
 * Each clip of the model at times on its keys and halfway between them,
 * posed by pose_evaluate with each walk kernel this CPU has and by
 * pose_evaluate_reference, both against the double evaluation of the same
 * keys (pose_double.h). A palette entry may differ from the double one by
 * its bound (the float error analysis of its chain: it grows with depth)
 * or by 1e-5 of the palette's largest entry, whichever is larger; fast
 * and reference from each other by twice that. */

enum { EXACT_KEY_TIMES = 24 }; /* on-key times per clip (and as many between) */

typedef struct exact_row {
    double fast_ref, fast_double, ref_double; /* max |difference| / the palette's largest entry */
    double bound;                             /* the largest bound used, / the same */
    double worst_ratio;                       /* max |difference to double| / allowed */
    int depth;                                /* the deepest bone's products */
    int kernels, times, failures;
} exact_row;

static int compare_ticks(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The clip's distinct key times (ticks), sorted; *count of them. */
static double *clip_key_times(const skv_clip *c, int *count)
{
    size_t n = 0;
    for (int i = 0; i < c->channel_count; i++)
        n += (size_t)c->channels[i].position_count + (size_t)c->channels[i].rotation_count +
             (size_t)c->channels[i].scale_count;
    double *t = malloc((n + 1) * sizeof *t);
    if (!t) return NULL;
    n = 0;
    for (int i = 0; i < c->channel_count; i++) {
        const skv_channel *ch = &c->channels[i];
        for (int k = 0; k < ch->position_count; k++) t[n++] = ch->positions[k].time;
        for (int k = 0; k < ch->rotation_count; k++) t[n++] = ch->rotations[k].time;
        for (int k = 0; k < ch->scale_count; k++) t[n++] = ch->scales[k].time;
    }
    if (n == 0) t[n++] = 0.0;
    qsort(t, n, sizeof *t, compare_ticks);
    size_t u = 1;
    for (size_t i = 1; i < n; i++)
        if (t[i] != t[u - 1]) t[u++] = t[i];
    *count = (int)u;
    return t;
}

/* Palette x against the double one, entry by entry, each part against its
 * bound (scaled by `times`) or `floor`; returns max |x - d| and raises
 * *ratio to the largest difference / allowed. */
static double exact_compare(const mat4 *x, const pose_double *pd, const mat4 *y, double times, double floor,
                            double *ratio)
{
    double worst = 0.0;
    for (int b = 0; b < pd->bone_count; b++) {
        double allowed_linear = fmax(floor, times * pd->bound_linear[b]);
        double allowed_translation = fmax(floor, times * pd->bound_translation[b]);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double d = fabs(x[b][c][r] - (y ? (double)y[b][c][r] : pd->palette[b][c][r]));
                worst = fmax(worst, d);
                *ratio = fmax(*ratio, d / (c == 3 && r < 3 ? allowed_translation : allowed_linear));
            }
    }
    return worst;
}

/* Clip `clip` of the model (walks made from it) checked as above; row:
 * what was found. Returns 0 when every entry was within what it may be,
 * 1 when not, -1 when memory ran out. */
static int exact_clip(const skv_model *model, skv_walks *walks, pose_double *pd, int clip, exact_row *row)
{
    memset(row, 0, sizeof *row);
    const skv_clip *c = &model->clips[clip];
    int key_count;
    double *keys = clip_key_times(c, &key_count);
    double *times = malloc(2 * EXACT_KEY_TIMES * sizeof *times);
    /* One pose per kernel, kept over the times: the later frames are
     * playback's (cursors, the settled walk). */
    static const skv_walk_kernel kernels[] = {SKV_WALK_PORTABLE, SKV_WALK_AVX2, SKV_WALK_AVX512, SKV_WALK_SCALAR};
    enum { KERNELS = sizeof kernels / sizeof kernels[0] };
    skv_pose fast[KERNELS], ref;
    int made = 0, ok = keys && times && pose_create(&ref, &model->skeleton) == SKV_OK;
    for (; ok && made < KERNELS; made++) {
        if (pose_create(&fast[made], &model->skeleton) != SKV_OK) {
            pose_destroy(&ref);
            ok = 0;
            break;
        }
        fast[made].walk_kernel = kernels[made];
    }
    if (!ok) {
        for (int k = 0; k < made; k++) pose_destroy(&fast[k]);
        free(keys), free(times);
        return -1;
    }
    /* Evenly spread key times and the midpoints to the next key, ascending
     * (a playback's cursors move forward), in seconds. */
    int n = 0, step = key_count > EXACT_KEY_TIMES ? key_count / EXACT_KEY_TIMES : 1;
    for (int i = 0; i < key_count && n + 2 <= 2 * EXACT_KEY_TIMES; i += step) {
        times[n++] = keys[i] / c->ticks_per_second;
        if (i + 1 < key_count) times[n++] = 0.5 * (keys[i] + keys[i + 1]) / c->ticks_per_second;
    }
    free(keys);
    int failed = 0;
    for (int f = 0; f < n; f++) {
        pose_double_evaluate(pd, clip, times[f]);
        pose_evaluate_reference(&ref, model, clip, times[f]);
        double scale = 1e-30;
        for (int b = 0; b < pd->bone_count; b++)
            for (int k = 0; k < 4; k++)
                for (int r = 0; r < 4; r++) scale = fmax(scale, fabs(pd->palette[b][k][r]));
        double floor = 1e-5 * scale, ratio = 0.0, between = 0.0;
        row->ref_double = fmax(row->ref_double, exact_compare(ref.palette, pd, NULL, 1.0, floor, &ratio) / scale);
        for (int b = 0; b < pd->bone_count; b++) {
            row->bound = fmax(row->bound, fmax(pd->bound_linear[b], pd->bound_translation[b]) / scale);
            row->depth = pd->bone_depth[b] > row->depth ? pd->bone_depth[b] : row->depth;
        }
        for (int k = 0; k < KERNELS; k++) {
            if (!kernels_get(kernels[k])) continue; /* not on this CPU */
            pose_evaluate(&fast[k], walks, clip, times[f]);
            row->fast_double =
                fmax(row->fast_double, exact_compare(fast[k].palette, pd, NULL, 1.0, floor, &ratio) / scale);
            row->fast_ref =
                fmax(row->fast_ref, exact_compare(fast[k].palette, pd, ref.palette, 2.0, floor, &between) / scale);
            row->kernels |= 1 << kernels[k];
        }
        row->worst_ratio = fmax(row->worst_ratio, fmax(ratio, between));
        failed |= ratio > 1.0 || between > 1.0;
    }
    for (int k = 0; k < KERNELS; k++) pose_destroy(&fast[k]);
    row->times = n;
    pose_destroy(&ref);
    free(times);
    return failed;
}

/* Every clip of the model checked (exact_clip), a line each; returns the
 * number of clips that failed (memory running out counts as one). */
static int exact_model(const skv_model *model, const char *name, int json)
{
    skv_walks *walks;
    pose_double pd;
    if (walks_create(&walks, model) != SKV_OK) return 1;
    if (pose_double_create(&pd, model) != SKV_OK) {
        walks_destroy(walks);
        return 1;
    }
    static const char *kernel_names[] = {"auto", "portable", "avx2", "avx512", "scalar"};
    int failed = 0;
    for (int clip = 0; clip < model->clip_count; clip++) {
        exact_row row;
        int result = exact_clip(model, walks, &pd, clip, &row);
        if (result < 0) {
            fprintf(stderr, "skinview-bench: %s: out of memory\n", name);
            failed++;
            break;
        }
        failed += result != 0;
        char used[64] = "";
        for (int k = 1; k < SKV_WALK_KERNEL_COUNT; k++)
            if (row.kernels >> k & 1) {
                if (used[0]) strcat(used, ",");
                strcat(used, kernel_names[k]);
            }
        const char *clip_name = model->clips[clip].name ? model->clips[clip].name : "";
        if (json)
            printf("{\"exact\":\"%s\",\"clip\":%d,\"clip_name\":\"%s\",\"bones\":%d,\"depth\":%d,\"times\":%d,"
                   "\"kernels\":\"%s\",\"fast_ref\":%.3g,\"fast_double\":%.3g,\"ref_double\":%.3g,\"bound\":%.3g,"
                   "\"worst_over_allowed\":%.3f,\"ok\":%s}\n",
                   name, clip, clip_name, model->skeleton.bone_count, row.depth, row.times, used, row.fast_ref,
                   row.fast_double, row.ref_double, row.bound, row.worst_ratio, result ? "false" : "true");
        else
            printf("%-28s %2d %-16.16s %4d %5d %5d %9.2g %9.2g %9.2g %9.2g %6.2f %s %s\n", name, clip, clip_name,
                   model->skeleton.bone_count, row.depth, row.times, row.fast_ref, row.fast_double, row.ref_double,
                   row.bound, row.worst_ratio, used, result ? "NOT EXACT" : "");
    }
    pose_double_destroy(&pd);
    walks_destroy(walks);
    return failed;
}

static void exact_header(void)
{
    printf("%-28s %2s %-16s %4s %5s %5s %9s %9s %9s %9s %6s %s\n", "model", "#", "clip", "bones", "depth", "times",
           "fast-ref", "fast-dbl", "ref-dbl", "bound", "/allow", "kernels");
}

/* exact_model over each file, imported in this process (--trust's
 * import); returns the clips (and files) that failed. */
static int exact_models(const char **models, int count, int json)
{
    int failed = 0, clips = 0;
    if (!json) exact_header();
    for (int i = 0; i < count; i++) {
        skv_model model;
        skv_error err;
        const char *base = strrchr(models[i], '/');
        base = base ? base + 1 : models[i];
        if (import_model(models[i], &(skv_import_desc){.trusted = 1}, &model, &err) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: %s\n", models[i], err.message);
            failed++;
            continue;
        }
        clips += model.clip_count;
        failed += exact_model(&model, base, json);
        model_free(&model);
    }
    if (!json)
        printf("exactness: %d files, %d clips, %d failed (a file not read, a clip not exact; fast-ref: pose_evaluate against "
               "pose_evaluate_reference; -dbl: against the double evaluation; all relative to the "
               "palette's largest entry; /allow: worst difference over what it may be)\n",
               count, clips, failed);
    return failed;
}

typedef struct result {
    int bones, nodes, vertices;
    double naive_ns, playback_ns, seek_ns, cold_seek_ns, reference_ns; /* per frame */
    double max_diff;
    double import_ms, convert_ms, skin_ns_per_vertex;
    double screenshot_ms; /* whole skinview --screenshot process */
} result;

/* Bytes written between cold seek batches: past any L3 here (32 MiB). */
enum { EVICT_BYTES = 64 << 20 };

static int bench_model(const char *path, int rounds, int frames, int kernel, int which_clip, unsigned char *evict,
                       result *res)
{
    memset(res, 0, sizeof *res);
    unsigned flags = aiProcess_Triangulate | aiProcess_GenSmoothNormals | aiProcess_JoinIdenticalVertices |
                     aiProcess_ValidateDataStructure | aiProcess_SortByPType | aiProcess_FlipUVs;
    /* Loads: median of 5 (the first one pays for cold caches and page
     * faults); the last one's scene and model are kept for the rest. */
    enum { LOADS = 5 };
    double import_t[LOADS], convert_t[LOADS];
    const struct aiScene *scene = NULL;
    skv_model model;
    skv_error err;
    for (int l = 0; l < LOADS; l++) {
        if (scene) {
            model_free(&model);
            aiReleaseImport(scene);
        }
        double t0 = now_ns();
        scene = aiImportFile(path, flags);
        double t1 = now_ns();
        if (!scene) {
            fprintf(stderr, "skinview-bench: %s: %s\n", path, aiGetErrorString());
            return -1;
        }
        if (import_scene(scene, path, NULL, &model, &err) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: %s\n", path, err.message);
            aiReleaseImport(scene);
            return -1;
        }
        double t2 = now_ns();
        import_t[l] = (t1 - t0) / 1e6;
        convert_t[l] = (t2 - t1) / 1e6; /* texture decoding included: the conversion's last step */
    }
    res->import_ms = median(import_t, LOADS);
    res->convert_ms = median(convert_t, LOADS);
    res->bones = model.skeleton.bone_count;
    res->nodes = model.skeleton.node_count;
    res->vertices = model.vertex_count;

    int clip = model.clip_count > which_clip ? which_clip : model.clip_count > 0 ? 0 : -1;
    const skv_clip *c = clip >= 0 ? &model.clips[clip] : NULL;
    /* The naive walker takes the same aiAnimation (clips are not merged
     * in the models measured here, so index N is the same motion). */
    naive nv = {.anim = clip >= 0 && (int)scene->mNumAnimations > clip ? scene->mAnimations[clip] : NULL, .model = &model};
    nv.rest = malloc((size_t)res->nodes * sizeof *nv.rest);
    nv.global = malloc((size_t)res->nodes * sizeof *nv.global);
    if (!nv.rest || !nv.global) return -1;
    for (int n = 0; n < res->nodes; n++)
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 4; k++) (&nv.rest[n].a1)[r * 4 + k] = model.skeleton.rest_local[n][k][r];
    struct aiMatrix4x4 root = scene->mRootNode->mTransformation;
    mat4 root_m, inv;
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++) root_m[k][r] = (&root.a1)[r * 4 + k];
    glm_mat4_inv(root_m, inv);
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 4; k++) (&nv.global_inverse.a1)[r * 4 + k] = inv[k][r];

    skv_pose pose;
    nv.palette = malloc((size_t)(res->bones ? res->bones : 1) * sizeof(mat4));
    nv.bone_done = calloc((size_t)(res->bones ? res->bones : 1), 1);
    nv.channel_done = calloc(nv.anim ? nv.anim->mNumChannels + 1 : 1, 1);
    float *positions = malloc((size_t)model.vertex_count * 3 * sizeof(float) + 1);
    skv_walks *walks;
    if (walks_create(&walks, &model) != SKV_OK || pose_create(&pose, &model.skeleton) != SKV_OK || !nv.palette ||
        !positions)
        return -1;
    pose.walk_kernel = kernel;
    for (int b = 0; b < res->bones; b++) glm_mat4_identity(nv.palette[b]);

    double duration = c ? c->duration_ticks / c->ticks_per_second : 0.0;
    double *naive_t = malloc((size_t)rounds * sizeof(double)), *play_t = malloc((size_t)rounds * sizeof(double));
    double *seek_t = malloc((size_t)rounds * sizeof(double)), *skin_t = malloc((size_t)rounds * sizeof(double));
    double *ref_t = malloc((size_t)rounds * sizeof(double)), *cold_t = malloc((size_t)rounds * sizeof(double));
    skv_pose ref_pose;
    if (pose_create(&ref_pose, &model.skeleton) != SKV_OK) return -1;
    unsigned seed = 12345;
    double *seeks = malloc((size_t)frames * sizeof(double));
    for (int f = 0; f < frames; f++) {
        seed = seed * 1103515245u + 12345u;
        seeks[f] = duration * (double)((seed >> 8) & 0xffff) / 65536.0;
    }
    /* Correctness first: same matrices at every playback frame. */
    for (int f = 0; f < frames; f++) {
        naive_evaluate(&nv, c, f / 60.0);
        pose_evaluate(&pose, walks, clip, f / 60.0);
        res->max_diff = fmax(res->max_diff, palette_difference(nv.palette, pose.palette, res->bones));
        pose_evaluate_reference(&ref_pose, &model, clip, f / 60.0);
        res->max_diff = fmax(res->max_diff, palette_difference(nv.palette, ref_pose.palette, res->bones));
    }
    volatile float sink = 0.0f;
    for (int r = 0; r < rounds; r++) {
        double a = now_ns();
        for (int f = 0; f < frames; f++) naive_evaluate(&nv, c, f / 60.0);
        double a2 = now_ns();
        for (int f = 0; f < frames; f++) pose_evaluate(&pose, walks, clip, f / 60.0); /* warm, untimed */
        double b = now_ns();
        for (int f = 0; f < frames; f++) pose_evaluate(&pose, walks, clip, f / 60.0);
        double d = now_ns();
        for (int f = 0; f < frames; f++) pose_evaluate(&pose, walks, clip, seeks[f]); /* warm, untimed */
        double d2 = now_ns();
        for (int f = 0; f < frames; f++) pose_evaluate(&pose, walks, clip, seeks[f]);
        double e = now_ns();
        skin_blend(&model, pose.palette, positions, NULL);
        double g = now_ns();
        for (int f = 0; f < frames; f++) pose_evaluate_reference(&ref_pose, &model, clip, f / 60.0);
        double h = now_ns();
        ref_t[r] = (h - g) / frames;
        sink += nv.palette[0][3][0] + pose.palette[0][3][0] + positions[0];
        naive_t[r] = (a2 - a) / frames;
        play_t[r] = (d - b) / frames;
        seek_t[r] = (e - d2) / frames;
        skin_t[r] = (g - e) / (model.vertex_count ? model.vertex_count : 1);
    }
    /* Cold seeks apart, after the rounds: the eviction would leave the
     * next round's naive walker and skinning cold too. */
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < EVICT_BYTES; i += 64) evict[i] = (unsigned char)(evict[i] + 1);
        double c0 = now_ns();
        for (int f = 0; f < frames; f++) pose_evaluate(&pose, walks, clip, seeks[f]);
        cold_t[r] = (now_ns() - c0) / frames;
    }
    (void)sink;
    res->naive_ns = median(naive_t, rounds);
    res->playback_ns = median(play_t, rounds);
    res->seek_ns = median(seek_t, rounds);
    res->cold_seek_ns = median(cold_t, rounds);
    free(cold_t);
    res->reference_ns = median(ref_t, rounds);
    free(ref_t);
    pose_destroy(&ref_pose);
    res->skin_ns_per_vertex = median(skin_t, rounds);
    free(naive_t), free(play_t), free(seek_t), free(skin_t), free(seeks), free(positions), free(nv.palette), free(nv.bone_done), free(nv.channel_done);
    free(nv.rest), free(nv.global);
    pose_destroy(&pose);
    walks_destroy(walks);
    model_free(&model);
    aiReleaseImport(scene);
    return 0;
}

/* --- crowds ---------------------------------------------------------------- */

/* CPU ms per frame to pose `count` characters on `threads` threads
 * (median of `rounds` rounds of 30 frames). */
static double crowd_pose_ms(skv_walks *walks, int count, int threads, int rounds)
{
    skv_crowd crowd;
    if (crowd_create(&crowd, walks, count, walks_model(walks)->clip_count > 0 ? 0 : -1, 0, threads) != SKV_OK)
        return -1.0;
    double *t = malloc((size_t)rounds * sizeof *t);
    enum { FRAMES = 30 };
    crowd_evaluate(&crowd, 0.0); /* first touch of every buffer */
    for (int r = 0; r < rounds; r++) {
        double a = now_ns();
        for (int f = 0; f < FRAMES; f++) crowd_evaluate(&crowd, (r * FRAMES + f) / 60.0);
        t[r] = (now_ns() - a) / FRAMES / 1e6;
    }
    double ms = median(t, rounds);
    free(t);
    crowd_destroy(&crowd);
    return ms;
}

/* ms per frame of the instanced draw of `count` characters (palettes
 * uploaded, every mesh drawn, glFinish), headless, 512x512. */
static double crowd_draw_ms(const char *path, int count, int rounds)
{
    skv_scene scene;
    skv_error err;
    if (scene_load(&scene, path, NULL, NULL, &err) != SKV_OK) return -1.0;
    skv_gpu gpu;
    skv_renderer renderer;
    skv_target target;
    double ms = -1.0;
    if (scene_set_instances(&scene, count, 0, &err) == SKV_OK && gpu_headless_create(&gpu, 0, &err) == SKV_OK) {
        if (render_create(&renderer, scene.model, &err) == SKV_OK &&
            render_enable_crowd(&renderer, scene.model, count, &err) == SKV_OK &&
            target_create(&target, 512, 512, &err) == SKV_OK) {
            double *t = malloc((size_t)rounds * sizeof *t);
            skv_frame_desc frame;
            scene_frame(&scene, 0.0, 512, 512, &frame); /* poses once; only drawing is timed */
            target_bind(&target);
            render_frame(&renderer, scene.model, &frame);
            glFinish();
            for (int r = 0; r < rounds; r++) {
                double a = now_ns();
                render_frame(&renderer, scene.model, &frame);
                glFinish();
                t[r] = (now_ns() - a) / 1e6;
            }
            ms = median(t, rounds);
            free(t);
            target_destroy(&target);
        }
        render_destroy(&renderer);
        gpu_headless_destroy(&gpu);
    }
    if (ms < 0) fprintf(stderr, "skinview-bench: crowd draw: %s\n", err.message);
    scene_free(&scene);
    return ms;
}

static int bench_crowd(int json)
{
    const char *bcn = "/usr/share/assimp/models/X/BCN_Epileptic.X";
    skv_model model;
    skv_error err;
    skv_walks *walks;
    if (import_model(bcn, &(skv_import_desc){.trusted = 1}, &model, &err) != SKV_OK) {
        fprintf(stderr, "skinview-bench: %s: %s\n", bcn, err.message);
        return 1;
    }
    if (walks_create(&walks, &model) != SKV_OK) {
        fprintf(stderr, "skinview-bench: out of memory\n");
        model_free(&model);
        return 1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* Bytes one character's pose_evaluate_lent writes per frame (clip 0,
     * this CPU's kernels): the palette's moving entries go to memory with
     * streaming stores; locals and globals go to the thread's work block,
     * which stays in the cache; the cursors and the pose's pointers are
     * one or two cache lines of the character's own state. */
    const skv_walk *w = walks_clip(walks, model.clip_count > 0 ? 0 : -1);
    skv_walk_stats st = {0};
    if (w) walk_stats(w, &st);
    size_t palette_bytes = (size_t)st.palette * SKV_ROWS_FLOATS * sizeof(float); /* 3x4 rows, 48 bytes */
    /* Distinct bytes: a padding lane writes its channel's local again. */
    size_t scratch_bytes = (size_t)(st.grouped + st.loose + st.globals) * sizeof(mat4);
    size_t state_bytes = 64 + (size_t)(st.groups + 3 * st.loose) * sizeof(int);
    if (json)
        printf("{\"crowd\":\"bytes\",\"model\":\"BCN_Epileptic.X\",\"palette_bytes_streamed\":%zu,"
               "\"scratch_bytes_in_cache\":%zu,\"state_bytes_at_most\":%zu}\n",
               palette_bytes, scratch_bytes, state_bytes);
    else
        printf("bytes written per BCN character per frame: %zu palette (streamed to memory; %d moving entries x 48), "
               "%zu to the thread's work block (cache), <= %zu of its own state (cursors, pose)\n",
               palette_bytes, st.palette, scratch_bytes, state_bytes);
    int counts[2] = {1000, 10000};
    for (int i = 0; i < 2; i++) {
        double one = crowd_pose_ms(walks, counts[i], 1, 7);
        double all = crowd_pose_ms(walks, counts[i], 0, 7);
        if (json)
            printf("{\"crowd\":\"pose\",\"model\":\"BCN_Epileptic.X\",\"characters\":%d,\"threads\":%ld,"
                   "\"ms_per_frame\":%.3f,\"ms_per_frame_one_thread\":%.3f}\n",
                   counts[i], cores, all, one);
        else
            printf("pose %5d BCN characters: %7.2f ms/frame on %ld threads (%.2f ms on 1: %.2fx)\n", counts[i], all,
                   cores, one, one / all);
    }
    walks_destroy(walks);
    model_free(&model);
    int draws[2] = {100, 1000};
    for (int i = 0; i < 2; i++) {
        double ms = crowd_draw_ms(bcn, draws[i], 9);
        if (json)
            printf("{\"crowd\":\"draw\",\"model\":\"BCN_Epileptic.X\",\"characters\":%d,\"ms_per_frame\":%.3f}\n",
                   draws[i], ms);
        else
            printf("draw %5d BCN characters (instanced, 512x512, llvmpipe here): %7.2f ms/frame\n", draws[i], ms);
    }
    return 0;
}

/* A headless context with a bound 512x512 target, for the drawing
 * benchmarks; prints why not ("skinview-bench: WHAT: ...") and returns 1
 * when there is none. */
static int headless_begin(skv_gpu *gpu, skv_target *target, const char *what)
{
    skv_error err = {{0}};
    if (gpu_headless_create(gpu, 0, &err) != SKV_OK) {
        fprintf(stderr, "skinview-bench: %s: %s\n", what, err.message);
        return 1;
    }
    if (target_create(target, 512, 512, &err) != SKV_OK) {
        fprintf(stderr, "skinview-bench: %s: %s\n", what, err.message);
        gpu_headless_destroy(gpu);
        return 1;
    }
    target_bind(target);
    return 0;
}

/* --crowd-fps: how many characters a frame of 60 fps holds, per model,
 * with 4 slots, 8 slots and every influence (--influences all): per count,
 * the crowd posed on all cores (crowd_evaluate, as the viewer's frame
 * does) and drawn (palettes uploaded, one instanced draw per mesh,
 * glFinish), headless 512x512, at a new time each round; medians of
 * `rounds`. Counts double from 256 while pose + draw fit 1/60 s, then
 * three halvings of the last step find the largest count that fits
 * (within 1/8 of a step). Posing and drawing run one after the other, as
 * in the viewer; a pipelined frame would overlap them. The rate printed
 * is model vertices drawn per second (characters x vertices / draw time). */
typedef struct crowd_frame_ms {
    double pose, draw;
} crowd_frame_ms;

static int crowd_frame_time(skv_scene *scene, skv_renderer *renderer, int count, int rounds, crowd_frame_ms *out,
                            skv_error *err)
{
    if (scene_set_instances(scene, count, 0, err) != SKV_OK) return -1;
    if (render_enable_crowd(renderer, scene->model, count, err) != SKV_OK) return -1;
    double *pose = malloc((size_t)rounds * sizeof *pose), *draw = malloc((size_t)rounds * sizeof *draw);
    if (!pose || !draw) {
        free(pose), free(draw);
        skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        return -1;
    }
    skv_frame_desc frame;
    /* First touch of every buffer, then frames untimed for 0.3 s at least:
     * an idle GPU runs at a fraction of its clock until load brings it up
     * (an H200 idles at 345 MHz of 1980, KINDS.md), as a viewer's first
     * frames do. */
    double warm_until = now_ns() + 0.3e9;
    for (int f = 0; f < 3 || now_ns() < warm_until; f++) {
        scene_frame(scene, f / 60.0, 512, 512, &frame);
        render_frame(renderer, scene->model, &frame);
        glFinish();
    }
    for (int r = 0; r < rounds; r++) {
        double a = now_ns();
        scene_frame(scene, (r + 1) / 60.0, 512, 512, &frame);
        double b = now_ns();
        render_frame(renderer, scene->model, &frame);
        glFinish();
        double c = now_ns();
        pose[r] = (b - a) / 1e6;
        draw[r] = (c - b) / 1e6;
    }
    out->pose = median(pose, rounds);
    out->draw = median(draw, rounds);
    free(pose), free(draw);
    return 0;
}

static int bench_crowd_fps(const char *const *models, int count, int rounds, int json)
{
    static const char *const defaults[] = {"/usr/share/assimp/models/X/BCN_Epileptic.X",
                                           SKV_SOURCE_DIR "/../shared/models/gltf/Fox.glb"};
    if (count == 0) {
        models = defaults;
        count = 2;
    }
    enum { FIRST = 256, MOST = 1 << 22 };
    const double budget_ms = 1000.0 / 60.0;
    skv_gpu gpu;
    skv_target target;
    skv_error err = {{0}};
    if (headless_begin(&gpu, &target, "--crowd-fps")) return 1;
    if (!json) printf("GL renderer: %s; %ld threads posing\n", (const char *)glGetString(GL_RENDERER), sysconf(_SC_NPROCESSORS_ONLN));
    int failed = 0;
    for (int m = 0; m < count; m++)
        for (int k = 0; k < 3; k++) {
            static const int modes[3] = {4, 8, SKV_INFLUENCES_ALL};
            static const char *const mode_names[3] = {"4", "8", "all"};
            int influences = modes[k];
            const char *name = strrchr(models[m], '/') ? strrchr(models[m], '/') + 1 : models[m];
            skv_scene scene;
            skv_renderer renderer;
            if (scene_load(&scene, models[m], NULL, &(skv_import_desc){.influences = influences, .trusted = 1}, &err) !=
                SKV_OK) {
                fprintf(stderr, "skinview-bench: %s: %s\n", models[m], err.message);
                failed = 1;
                continue;
            }
            if (render_create(&renderer, scene.model, &err) != SKV_OK) {
                fprintf(stderr, "skinview-bench: %s: %s\n", models[m], err.message);
                render_destroy(&renderer);
                scene_free(&scene);
                failed = 1;
                continue;
            }
            int fits = 0, step = FIRST, n = FIRST, halvings = 0;
            crowd_frame_ms at_fits = {0, 0};
            while (n <= MOST) {
                crowd_frame_ms t;
                if (crowd_frame_time(&scene, &renderer, n, rounds, &t, &err) != 0) {
                    fprintf(stderr, "skinview-bench: %s, %d characters: %s\n", name, n, err.message);
                    failed = 1; /* a refusal (a split model, the GPU's texel limit) is no count */
                    break;
                }
                int ok = t.pose + t.draw <= budget_ms;
                if (json)
                    printf("{\"crowd_fps\":\"%s\",\"influences\":\"%s\",\"characters\":%d,\"pose_ms\":%.3f,"
                           "\"draw_ms\":%.3f}\n",
                           name, mode_names[k], n, t.pose, t.draw);
                else
                    printf("%-20s %-4s %8d characters: pose %8.2f ms + draw %8.2f ms = %8.2f ms (%.3f G vertices/s) %s\n",
                           name, mode_names[k], n, t.pose, t.draw, t.pose + t.draw,
                           (double)n * scene.model->vertex_count / (t.draw * 1e6), ok ? "fits 60 fps" : "");
                if (ok) {
                    fits = n;
                    at_fits = t;
                }
                if (ok && halvings == 0) {
                    step = n;
                    n *= 2;
                } else {
                    if (++halvings > 3 || step < 2) break;
                    step /= 2;
                    n = ok ? n + step : n - step;
                    if (n <= fits) break;
                }
            }
            if (json)
                printf("{\"crowd_fps\":\"%s\",\"influences\":\"%s\",\"characters_at_60fps\":%d,\"pose_ms\":%.3f,"
                       "\"draw_ms\":%.3f}\n",
                       name, mode_names[k], fits, at_fits.pose, at_fits.draw);
            else
                printf("%-20s %-4s at 60 fps: %d characters (pose %.2f ms, draw %.2f ms)\n", name, mode_names[k],
                       fits, at_fits.pose, at_fits.draw);
            render_destroy(&renderer);
            scene_free(&scene);
        }
    target_destroy(&target);
    gpu_headless_destroy(&gpu);
    return failed;
}

/* --msaa: what multisampling costs per frame (render_frame, resolve,
 * read back: what --screenshot and the window do), 800x600, at 1, 2 and
 * 4 samples (GL 3.3's guaranteed most; llvmpipe's too), rounds interleaved so that load on the machine hits
 * every sample count alike; reported as ms and as ratios to 1 sample. */
static int bench_msaa(int json, int rounds)
{
    static const char *const models[] = {SKV_SOURCE_DIR "/../shared/models/gltf/Fox.glb",
                                         SKV_SOURCE_DIR "/../shared/models/gltf/CesiumMan.glb"};
    enum { WIDTH = 800, HEIGHT = 600, COUNTS = 3 };
    static const int samples[COUNTS] = {1, 2, 4}; /* llvmpipe takes at most 4 */
    skv_gpu gpu;
    skv_error err = {{0}};
    if (gpu_headless_create(&gpu, 0, &err) != SKV_OK) {
        fprintf(stderr, "skinview-bench: --msaa: %s\n", err.message);
        return 1;
    }
    int failed = 0;
    skv_program_set programs; /* the run's: the targets resolve by its program, as skinview's do */
    program_set_create(&programs);
    unsigned char *rgba = malloc((size_t)WIDTH * HEIGHT * 4);
    double *t = malloc((size_t)COUNTS * (size_t)rounds * sizeof *t);
    for (size_t m = 0; m < sizeof models / sizeof models[0] && rgba && t; m++) {
        skv_scene scene;
        skv_renderer renderer;
        skv_target targets[COUNTS];
        int made = 0;
        if (scene_load(&scene, models[m], NULL, NULL, &err) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: %s\n", models[m], err.message);
            failed++;
            continue;
        }
        skv_result r = render_create(&renderer, scene.model, &err);
        for (; r == SKV_OK && made < COUNTS; made++)
            r = target_create_msaa(&targets[made], WIDTH, HEIGHT, samples[made], &programs, &err);
        if (r == SKV_OK) {
            skv_frame_desc frame;
            scene_frame(&scene, 0.5, WIDTH, HEIGHT, &frame); /* posed once: only drawing is timed */
            for (int k = 0; k < COUNTS; k++) { /* first use of each target, untimed */
                target_bind(&targets[k]);
                render_frame(&renderer, scene.model, &frame);
                target_read_rgba(&targets[k], rgba);
            }
            for (int round = 0; round < rounds; round++)
                for (int k = 0; k < COUNTS; k++) {
                    double a = now_ns();
                    target_bind(&targets[k]);
                    render_frame(&renderer, scene.model, &frame);
                    target_read_rgba(&targets[k], rgba);
                    t[k * rounds + round] = (now_ns() - a) / 1e6;
                }
            double base = median(t, rounds);
            const char *name = strrchr(models[m], '/') + 1;
            for (int k = 0; k < COUNTS; k++) {
                double ms = median(t + k * rounds, rounds);
                if (json)
                    printf("{\"msaa\":%d,\"model\":\"%s\",\"size\":\"%dx%d\",\"ms_per_frame\":%.3f,\"ratio_to_1\":%.3f}\n",
                           samples[k], name, WIDTH, HEIGHT, ms, ms / base);
                else
                    printf("%-16s %dx%d  --msaa %d: %7.2f ms/frame (draw + resolve + read back), %.2fx of 1 sample\n",
                           name, WIDTH, HEIGHT, samples[k], ms, ms / base);
            }
        } else {
            fprintf(stderr, "skinview-bench: %s: %s\n", models[m], err.message);
            made--;
            failed++;
        }
        for (int k = 0; k < made; k++) target_destroy(&targets[k]);
        render_destroy(&renderer);
        scene_free(&scene);
    }
    free(rgba);
    free(t);
    program_set_destroy(&programs);
    gpu_headless_destroy(&gpu);
    return failed ? 1 : 0;
}

/* MODEL imported (trusted: the bench times evaluation, not the guard),
 * with clip `clip`; 0, said on stderr, where it fails or has no such clip. */
static int import_with_clip(const char *path, int clip, skv_model *model)
{
    skv_error err;
    if (import_model(path, &(skv_import_desc){.trusted = 1}, model, &err) != SKV_OK) {
        fprintf(stderr, "skinview-bench: %s: %s\n", path, err.message);
        return 0;
    }
    if (clip >= model->clip_count) {
        fprintf(stderr, "skinview-bench: %s: no clip %d (%d clips)\n", path, clip, model->clip_count);
        model_free(model);
        return 0;
    }
    return 1;
}

/* --profile: FRAMES frames of `clip` on MODEL, nothing else; prints the
 * bone count and clip name for bench/ir_per_bone.sh. */
static int profile_model(const char *path, int frames, int clip, int seek, int lent)
{
    skv_model model;
    if (!import_with_clip(path, clip, &model)) return 1;
    /* --lent: one crowd character's path (pose_evaluate_lent: palette
     * rows streamed, locals and globals in a work block of the caller's). */
    skv_pose pose;
    size_t nodes = model.skeleton.node_count > 0 ? (size_t)model.skeleton.node_count : 1;
    size_t bones = model.skeleton.bone_count > 0 ? (size_t)model.skeleton.bone_count : 1;
    float *rows = lent ? aligned_alloc(64, (bones * SKV_ROWS_FLOATS * sizeof(float) + 63) / 64 * 64) : NULL;
    float *work = lent ? aligned_alloc(64, 2 * nodes * sizeof(mat4)) : NULL;
    skv_walks *walks = NULL;
    if ((lent && (!rows || !work)) || walks_create(&walks, &model) != SKV_OK ||
        (lent ? pose_create_lent(&pose, &model.skeleton, rows) : pose_create(&pose, &model.skeleton)) != SKV_OK) {
        free(rows);
        free(work);
        walks_destroy(walks);
        model_free(&model);
        return 1;
    }
    const skv_clip *c = clip >= 0 ? &model.clips[clip] : NULL;
    double duration = c ? c->duration_ticks / c->ticks_per_second : 0.0;
    /* the walk compiled, fixed entries written: not counted per frame */
    if (lent)
        pose_evaluate_lent(&pose, walks, clip, 0.0, work);
    else
        pose_evaluate(&pose, walks, clip, 0.0);
    unsigned seed = 12345;
    volatile float sink = 0.0f;
    for (int f = 0; f < frames; f++) {
        seed = seed * 1103515245u + 12345u;
        double t = seek ? duration * (double)((seed >> 8) & 0xffff) / 65536.0 : (f + 1) / 60.0;
        if (lent)
            pose_evaluate_lent(&pose, walks, clip, t, work);
        else
            pose_evaluate(&pose, walks, clip, t);
        sink += lent ? rows[3] : pose.palette[0][3][0];
    }
    (void)sink;
    const skv_walk *w = walks_clip(walks, clip);
    skv_walk_stats st = {0};
    if (w) walk_stats(w, &st);
    printf("bones %d clip %s frames %d\nwalk: %d moving channels, %d in %d time groups (%d on prepared arcs), %d "
           "loose; %d global and %d palette products per frame (%d palette entries as leaves, A (L b), except "
           "in a crowd's rows); %zu bytes of prepared keys (%d channels' compacted); %d of the time groups evenly "
           "spaced\n",
           model.skeleton.bone_count, c ? c->name : "(rest)", frames, st.moving, st.grouped, st.groups, st.arc,
           st.loose, st.globals, st.palette, st.leaves, st.key_bytes, st.compact, st.even);
    pose_destroy(&pose);
    free(rows);
    free(work);
    walks_destroy(walks);
    model_free(&model);
    return 0;
}

/* --seeks: seeks against playback on one clip, each model in one process,
 * the modes interleaved round by round (ns per bone per frame, medians):
 *   play     playback at 60 fps, its batch run once untimed first (warm);
 *   seek     random times, the same;
 *   cold     the same seeks, each batch after evict_bytes were written
 *            (the main table's cold column): the walk warms within the
 *            batch, the keys a seek reads are cold (a long clip's);
 *   ev-play  playback with evict_bytes written before every frame, each
 *            frame timed alone: everything the frame reads is cold;
 *   ev-seek  random times the same way.
 * cold / play is the issue's ratio (a seek after other work against
 * playback as it runs); ev-seek / ev-play is what a seek costs over a
 * frame that finds the same caches. */
static int bench_seeks(const char *path, int rounds, int clip, size_t evict_bytes, unsigned char *evict, int json)
{
    skv_model model;
    if (!import_with_clip(path, clip, &model)) return 1;
    skv_pose pose;
    skv_walks *walks = NULL;
    if (walks_create(&walks, &model) != SKV_OK || pose_create(&pose, &model.skeleton) != SKV_OK) {
        walks_destroy(walks);
        model_free(&model);
        return 1;
    }
    const skv_clip *c = &model.clips[clip];
    double duration = c->duration_ticks / c->ticks_per_second;
    enum { FRAMES = 240, EV_FRAMES = 40, MODES = 5 };
    double seeks[FRAMES];
    unsigned seed = 12345;
    for (int f = 0; f < FRAMES; f++) {
        seed = seed * 1103515245u + 12345u;
        seeks[f] = duration * (double)((seed >> 8) & 0xffff) / 65536.0;
    }
    double *t = malloc((size_t)rounds * MODES * sizeof *t);
    if (!t) return 1;
    double play0 = 0.0;
    for (int r = 0; r < rounds; r++) {
        for (int f = 0; f < FRAMES; f++) pose_evaluate(&pose, walks, clip, play0 + f / 60.0);
        double a = now_ns();
        for (int f = 0; f < FRAMES; f++) pose_evaluate(&pose, walks, clip, play0 + f / 60.0);
        double b = now_ns();
        for (int f = 0; f < FRAMES; f++) pose_evaluate(&pose, walks, clip, seeks[f]);
        double d = now_ns();
        for (int f = 0; f < FRAMES; f++) pose_evaluate(&pose, walks, clip, seeks[f]);
        double e = now_ns();
        for (size_t i = 0; i < evict_bytes; i += 64) evict[i] = (unsigned char)(evict[i] + 1);
        double g = now_ns();
        for (int f = 0; f < FRAMES; f++) pose_evaluate(&pose, walks, clip, seeks[f]);
        double h = now_ns();
        double ev_play = 0.0, ev_seek = 0.0;
        for (int f = 0; f < EV_FRAMES; f++) {
            for (size_t i = 0; i < evict_bytes; i += 64) evict[i] = (unsigned char)(evict[i] + 1);
            double x = now_ns();
            pose_evaluate(&pose, walks, clip, play0 + (FRAMES + f) / 60.0);
            ev_play += now_ns() - x;
            for (size_t i = 0; i < evict_bytes; i += 64) evict[i] = (unsigned char)(evict[i] + 1);
            x = now_ns();
            pose_evaluate(&pose, walks, clip, seeks[(f * 7 + r) % FRAMES]);
            ev_seek += now_ns() - x;
        }
        /* playback moves on through the clip round by round */
        play0 = fmod(play0 + 4.0, duration > 8.0 ? duration - 8.0 : 1.0);
        t[0 * rounds + r] = (b - a) / FRAMES;
        t[1 * rounds + r] = (e - d) / FRAMES;
        t[2 * rounds + r] = (h - g) / FRAMES;
        t[3 * rounds + r] = ev_play / EV_FRAMES;
        t[4 * rounds + r] = ev_seek / EV_FRAMES;
    }
    double m[MODES], bones = model.skeleton.bone_count > 0 ? model.skeleton.bone_count : 1;
    for (int k = 0; k < MODES; k++) m[k] = median(t + (size_t)k * rounds, rounds) / bones;
    skv_walk_stats st = {0};
    const skv_walk *w = walks_clip(walks, clip);
    if (w) walk_stats(w, &st);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (json)
        printf("{\"model\":\"%s\",\"clip\":%d,\"seconds\":%.3f,\"bones\":%d,\"key_bytes\":%zu,\"play\":%.2f,\"seek\":%.2f,"
               "\"cold\":%.2f,\"ev_play\":%.2f,\"ev_seek\":%.2f}\n",
               base, clip, duration, model.skeleton.bone_count, st.key_bytes, m[0], m[1], m[2], m[3], m[4]);
    else
        printf("%-24s %8.1f %5d %11zu %7.2f %7.2f %7.2f %8.2f %8.2f %7.2f %7.2f\n", base, duration,
               model.skeleton.bone_count, st.key_bytes, m[0], m[1], m[2], m[3], m[4], m[2] / m[0], m[4] / m[3]);
    free(t);
    pose_destroy(&pose);
    walks_destroy(walks);
    model_free(&model);
    return 0;
}

/* The nodes of the subtree under `node` (itself included). */
static int subtree_size(const skv_skeleton *sk, int node, unsigned char *in)
{
    int count = 0;
    for (int n = 0; n < sk->node_count; n++) {
        int p = sk->parents[n];
        in[n] = (unsigned char)(n == node || (p >= 0 && in[p])); /* parents come first */
        count += in[n];
    }
    return count;
}

/* ns a frame of `layers` over clip 0, the median of `rounds` batches. */
static double layered_frame_ns(skv_walks *walks, skv_pose *pose, const skv_layers *layers, int rounds)
{
    enum { FRAMES = 240 };
    double batch[64];
    int n = rounds < 64 ? rounds : 64;
    for (int r = 0; r < n; r++) {
        double t0 = now_ns();
        for (int f = 0; f < FRAMES; f++) pose_evaluate_layers(pose, walks, 0, f / 60.0, layers);
        batch[r] = (now_ns() - t0) / FRAMES;
    }
    return median(batch, n);
}

/* --layers' second part: what a layer costs against the nodes its mask
 * holds. Masks of about 1/16, 1/8, 1/4 and 1/2 of the nodes (the subtree
 * whose size is nearest each, no size twice) and the whole body; over
 * each, one override layer of the clip after the base at 0.5 (the frame:
 * the walk where it still runs, the masked nodes and those below them
 * formed again, once a frame), then an additive layer of the next clip
 * at 0.5 over the same mask more (what each further layer adds: its
 * clip's sampling and mixing there). ns a frame, and as walks (the base
 * alone's frame). */
static int layers_sweep(const skv_model *model, skv_walks *walks, skv_pose *pose, int rounds, int json,
                        const char *name, double walk_ns)
{
    enum { POINTS = 5 };
    const skv_skeleton *sk = &model->skeleton;
    if (sk->node_count < 2) return 0;
    unsigned char *in = malloc((size_t)sk->node_count);
    if (!in) return 1;
    static const double share[POINTS] = {1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0};
    int size[POINTS];
    double one[POINTS], two[POINTS];
    walk_ns = walk_ns > 0.0 ? walk_ns : 1.0;
    if (!json) printf("%s: walk %.0f ns a frame; one layer, then one more, over a mask of:", name, walk_ns);
    for (int k = 0; k < POINTS; k++) {
        int best = -1, best_size = 0;
        double want = share[k] * sk->node_count;
        for (int n = 0; n < sk->node_count && k < POINTS - 1; n++) {
            int count = subtree_size(sk, n, in), taken = count == sk->node_count;
            for (int j = 0; j < k; j++) taken |= size[j] == count;
            if (!taken && (best < 0 || fabs(count - want) < fabs(best_size - want))) best = n, best_size = count;
        }
        size[k] = best >= 0 ? best_size : k < POINTS - 1 ? 0 : sk->node_count; /* 0: fewer sizes than points */
        if (size[k] == 0) continue;
        int mask[1] = {best};
        skv_layer_desc desc[2] = {
            {.clip = 1 % model->clip_count, .mask = best >= 0 ? mask : NULL, .mask_count = best >= 0,
             .weight = 0.5f, .reference_clip = -1},
            {.clip = 2 % model->clip_count, .mask = best >= 0 ? mask : NULL, .mask_count = best >= 0,
             .additive = 1, .weight = 0.5f, .reference_clip = -1},
        };
        for (int count = 1; count <= 2; count++) {
            skv_layers *layers = NULL;
            skv_error err;
            if (layers_create(&layers, model, desc, count, &err) != SKV_OK) {
                fprintf(stderr, "skinview-bench: %s: %s\n", name, err.message);
                free(in);
                return 1;
            }
            (count == 1 ? one : two)[k] = layered_frame_ns(walks, pose, layers, rounds);
            layers_destroy(layers);
        }
        if (json)
            printf("{\"model\":\"%s\",\"walk_ns\":%.1f,\"mask_nodes\":%d,\"one_layer_ns\":%.1f,"
                   "\"two_layers_ns\":%.1f}\n", name, walk_ns, size[k], one[k], two[k]);
        else
            printf("%s %d nodes %.0f ns (%.2f walks) + %.0f (%.2f)", k ? ";" : "", size[k], one[k],
                   one[k] / walk_ns, two[k] - one[k], (two[k] - one[k]) / walk_ns);
    }
    if (!json) printf("\n");
    free(in);
    return 0;
}

/* --layers: ns/bone of a frame of the base clip alone (pose_evaluate's
 * walk, and pose_evaluate_layers with no layer), with one layer (an
 * override at 0.5 on the clip after the base, masked to the subtree of the
 * node half-way down the node list) and with two (that, and an additive
 * layer of the next clip at 0.5 on every node). Playback at 60 frames a
 * second, medians of `rounds` batches of 240 frames. */
static int bench_layers(const char **models, int count, int rounds, int json)
{
    static const char *defaults[] = {SKV_SOURCE_DIR "/../shared/models/gltf/robot.glb",
                                     SKV_SOURCE_DIR "/../shared/models/gltf/Fox.glb"};
    if (count == 0) models = defaults, count = 2;
    enum { FRAMES = 240 };
    for (int i = 0; i < count; i++) {
        skv_model model;
        skv_error err;
        if (import_model(models[i], &(skv_import_desc){.trusted = 1}, &model, &err) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: %s\n", models[i], err.message);
            return 1;
        }
        skv_walks *walks = NULL;
        skv_pose pose;
        if (model.clip_count < 1 || walks_create(&walks, &model) != SKV_OK ||
            pose_create(&pose, &model.skeleton) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: no clip or no memory\n", models[i]);
            return 1;
        }
        int mask[1] = {model.skeleton.node_count / 2};
        skv_layer_desc desc[2] = {
            {.clip = 1 % model.clip_count, .mask = mask, .mask_count = 1, .weight = 0.5f, .reference_clip = -1},
            {.clip = 2 % model.clip_count, .additive = 1, .weight = 0.5f, .reference_clip = -1},
        };
        skv_layers *layers[3] = {NULL, NULL, NULL};
        for (int k = 0; k < 3; k++)
            if (layers_create(&layers[k], &model, desc, k, &err) != SKV_OK) {
                fprintf(stderr, "skinview-bench: %s: %s\n", models[i], err.message);
                return 1;
            }
        double ns[4];
        for (int row = 0; row < 4; row++) { /* walk, 0, 1, 2 layers */
            double batch[64];
            int n = rounds < 64 ? rounds : 64;
            for (int r = 0; r < n; r++) {
                double t0 = now_ns();
                for (int f = 0; f < FRAMES; f++) {
                    double t = f / 60.0;
                    if (row == 0) pose_evaluate(&pose, walks, 0, t);
                    else pose_evaluate_layers(&pose, walks, 0, t, layers[row - 1]);
                }
                batch[r] = (now_ns() - t0) / FRAMES / (model.skeleton.bone_count > 0 ? model.skeleton.bone_count : 1);
            }
            ns[row] = median(batch, n);
        }
        /* How the clips the layered frames read were prepared for lanes
         * (layer_lanes.h): time lines, channels sampled one by one. */
        int lines = 0, loose = 0;
        for (int c = 0; c < 3 && c < model.clip_count; c++) {
            const skv_clip_lanes *cl = walks_clip_lanes(walks, c);
            int g = 0, l = 0, k = 0;
            if (cl) clip_lanes_counts(cl, &g, &l, &k);
            lines += g, loose += l;
        }
        const char *base = strrchr(models[i], '/');
        if (!json) printf("%s: clips 0-2 prepared as %d time lines, %d channels one by one\n", base ? base + 1 : models[i],
                          lines, loose);
        if (json)
            printf("{\"model\":\"%s\",\"bones\":%d,\"nodes\":%d,\"walk_ns_per_bone\":%.2f,\"layered_0\":%.2f,"
                   "\"layered_1\":%.2f,\"layered_2\":%.2f}\n", base ? base + 1 : models[i], model.skeleton.bone_count,
                   model.skeleton.node_count, ns[0], ns[1], ns[2], ns[3]);
        else
            printf("%-14s %3d bones %3d nodes: base alone %6.2f ns/bone (walk), %6.2f (layered path, no layer); "
                   "+1 layer %6.2f (%.2fx the walk); +2 layers %6.2f (%.2fx)\n",
                   base ? base + 1 : models[i], model.skeleton.bone_count, model.skeleton.node_count, ns[0], ns[1],
                   ns[2], ns[2] / ns[0], ns[3], ns[3] / ns[0]);
        for (int k = 0; k < 3; k++) layers_destroy(layers[k]);
        if (layers_sweep(&model, walks, &pose, rounds, json, base ? base + 1 : models[i],
                         ns[0] * (model.skeleton.bone_count > 0 ? model.skeleton.bone_count : 1)) != 0)
            return 1;
        pose_destroy(&pose);
        walks_destroy(walks);
        model_free(&model);
    }
    return 0;
}

/* --influences: the cost of blending 4 slots, 8 slots and every
 * influence (--influences all), per vertex: on the CPU (skin_blend on the
 * slots, skin_blend_all on the lists) and in the shader (one headless
 * 512x512 frame, glFinish; llvmpipe here, so the CPU's cost of running
 * the vertex shader, not a GPU's). Medians of `rounds`. */
static int bench_influences(const char *path, int rounds, int json)
{
    int modes[3] = {4, 8, SKV_INFLUENCES_ALL};
    const char *names[3] = {"4 slots", "8 slots", "all"};
    double cpu_ns[3] = {0}, draw_ms[3] = {0};
    int vertices = 0, most = 0;
    skv_gpu gpu;
    skv_target target;
    skv_error err = {{0}};
    if (headless_begin(&gpu, &target, "--influences")) return 1;
    int failed = 0;
    for (int k = 0; k < 3 && !failed; k++) {
        skv_scene scene;
        skv_renderer renderer;
        if (scene_load(&scene, path, NULL, &(skv_import_desc){.influences = modes[k], .trusted = 1}, &err) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: %s\n", path, err.message);
            failed = 1;
            break;
        }
        const skv_model *m = scene.model;
        vertices = m->vertex_count;
        for (int i = 0; i < m->mesh_count; i++) most = m->meshes[i].max_influences > most ? m->meshes[i].max_influences : most;
        float *positions = malloc((size_t)(vertices > 0 ? vertices : 1) * 3 * sizeof(float));
        double *t = malloc((size_t)rounds * sizeof *t), *d = malloc((size_t)rounds * sizeof *d);
        if (!positions || !t || !d || render_create(&renderer, m, &err) != SKV_OK) {
            fprintf(stderr, "skinview-bench: %s: %s\n", path, positions && t && d ? err.message : "out of memory");
            free(positions), free(t), free(d);
            scene_free(&scene);
            failed = 1;
            break;
        }
        skv_frame_desc frame;
        scene_frame(&scene, 0.5, 512, 512, &frame);
        render_frame(&renderer, m, &frame);
        glFinish();
        for (int r = 0; r < rounds; r++) {
            double a = now_ns();
            if (modes[k] == SKV_INFLUENCES_ALL) skin_blend_all(m, scene.pose.palette, positions);
            else skin_blend(m, scene.pose.palette, positions, NULL);
            double b = now_ns();
            render_frame(&renderer, m, &frame);
            glFinish();
            double c = now_ns();
            t[r] = (b - a) / (vertices > 0 ? vertices : 1);
            d[r] = (c - b) / 1e6;
        }
        cpu_ns[k] = median(t, rounds);
        draw_ms[k] = median(d, rounds);
        free(positions), free(t), free(d);
        render_destroy(&renderer);
        scene_free(&scene);
    }
    target_destroy(&target);
    gpu_headless_destroy(&gpu);
    if (failed) return 1;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (int k = 0; k < 3; k++) {
        if (json)
            printf("{\"influences\":\"%s\",\"model\":\"%s\",\"vertices\":%d,\"max_influences\":%d,"
                   "\"cpu_ns_per_vertex\":%.2f,\"draw_ms_llvmpipe\":%.3f}\n",
                   names[k], base, vertices, most, cpu_ns[k], draw_ms[k]);
        else
            printf("%-28s %6d vertices, up to %d influences, %-7s: CPU blend %6.2f ns/vertex (%.2fx 4 slots), "
                   "draw %7.2f ms (llvmpipe, %.2fx 4 slots)\n",
                   base, vertices, most, names[k], cpu_ns[k], cpu_ns[k] / cpu_ns[0], draw_ms[k],
                   draw_ms[k] / draw_ms[0]);
    }
    return 0;
}

/* Full-process time of `skinview MODEL --screenshot` (median of 3). */
static double screenshot_process_ms(const char *model)
{
    char command[4096];
    snprintf(command, sizeof command, "'%s' '%s' --size 256x256 --screenshot /tmp/skinview-bench-%d.png >/dev/null 2>&1",
             SKV_BINARY, model, (int)getpid());
    double t[3];
    for (int r = 0; r < 3; r++) {
        double a = now_ns();
        if (system(command) != 0) return -1.0;
        t[r] = (now_ns() - a) / 1e6;
    }
    snprintf(command, sizeof command, "/tmp/skinview-bench-%d.png", (int)getpid());
    unlink(command);
    return median(t, 3);
}

/* --png: the PNG encoder of --screenshot (output.c: libspng, level 1,
 * "up" rows) against stb_image_write's, which it replaced, each writing
 * the decoded pixels of every PNG given to a file, interleaved, medians
 * of `rounds`; the two files must hold the same pixels. */
static int bench_png(const char **files, int count, int rounds, int json)
{
    int failed = 0;
    char ours[64], theirs[64];
    snprintf(ours, sizeof ours, "/tmp/skinview-bench-%d-spng.png", (int)getpid());
    snprintf(theirs, sizeof theirs, "/tmp/skinview-bench-%d-stb.png", (int)getpid());
    for (int i = 0; i < count; i++) {
        int w, h, channels;
        unsigned char *rgba = stbi_load(files[i], &w, &h, &channels, 4);
        if (!rgba) {
            fprintf(stderr, "skinview-bench: %s: %s\n", files[i], stbi_failure_reason());
            failed = 1;
            continue;
        }
        double *a = malloc((size_t)rounds * sizeof *a), *b = malloc((size_t)rounds * sizeof *b);
        skv_error err = {{0}};
        for (int r = 0; a && b && r < rounds; r++) {
            double t0 = now_ns();
            if (output_write_png(ours, w, h, rgba, &err) != SKV_OK) failed = 1;
            double t1 = now_ns();
            if (!stbi_write_png(theirs, w, h, 4, rgba, w * 4)) failed = 1;
            double t2 = now_ns();
            a[r] = (t1 - t0) / 1e6, b[r] = (t2 - t1) / 1e6;
        }
        int wa, ha, wb, hb, ca, cb;
        unsigned char *back_a = stbi_load(ours, &wa, &ha, &ca, 4), *back_b = stbi_load(theirs, &wb, &hb, &cb, 4);
        int same = back_a && back_b && wa == w && ha == h && wb == w && hb == h &&
                   memcmp(back_a, rgba, (size_t)w * h * 4) == 0 && memcmp(back_b, rgba, (size_t)w * h * 4) == 0;
        if (!same) {
            fprintf(stderr, "skinview-bench: %s: the encoders' pixels differ from the input's\n", files[i]);
            failed = 1;
        }
        struct stat sa, sb;
        long bytes_a = stat(ours, &sa) == 0 ? (long)sa.st_size : -1, bytes_b = stat(theirs, &sb) == 0 ? (long)sb.st_size : -1;
        double ma = a && b ? median(a, rounds) : 0.0, mb = a && b ? median(b, rounds) : 0.0;
        if (json)
            printf("{\"png\": \"%s\", \"width\": %d, \"height\": %d, \"ours_ms\": %.2f, \"stb_ms\": %.2f, "
                   "\"ratio\": %.3f, \"ours_bytes\": %ld, \"stb_bytes\": %ld}\n",
                   files[i], w, h, ma, mb, mb > 0 ? ma / mb : 0.0, bytes_a, bytes_b);
        else
            printf("%s %dx%d: libspng %.2f ms, stb %.2f ms (%.3fx); %ld vs %ld bytes\n", files[i], w, h, ma, mb,
                   mb > 0 ? ma / mb : 0.0, bytes_a, bytes_b);
        free(a), free(b), free(back_a), free(back_b);
        stbi_image_free(rgba);
    }
    unlink(ours), unlink(theirs);
    return failed;
}

int main(int argc, char **argv)
{
    int layered = 0, exact = 0;
    int json = 0, smoke = 0, crowd = 0, crowd_fps = 0, msaa = 0, rounds = 15, count = 0, kernel = SKV_WALK_AUTO;
    int profile_frames = 0, profile_clip = 0, profile_seek = 0, profile_lent = 0, influences = 0, png = 0;
    int seeks = 0, evict_mib = EVICT_BYTES >> 20;
    const char *models[64];
    static const char *kernels[] = {"auto", "portable", "avx2", "avx512", "scalar"};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: skinview-bench [--json] [--smoke] [--rounds N] [--kernel auto|portable|avx2|avx512|scalar]\n"
                   "                      [--crowd] [--msaa] [MODEL...]\n"
                   "       skinview-bench --crowd-fps [--rounds N] [MODEL...]\n"
                   "       skinview-bench --profile FRAMES [--clip N] [--seek] [--lent] MODEL\n"
                   "       skinview-bench --influences [--rounds N] MODEL...\n"
                   "       skinview-bench --png [--rounds N] PNG...\n"
                   "       skinview-bench --layers [--rounds N] [MODEL...]\n"
                   "       skinview-bench --exact [--json] MODEL...\n"
                   "       skinview-bench --seeks [--rounds N] [--clip N] [--evict MIB] [--json] MODEL...\n");
            return 0;
        } else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            kernel = -1;
            for (int k = 0; k < SKV_WALK_KERNEL_COUNT; k++)
                if (strcmp(name, kernels[k]) == 0) kernel = k;
            if (kernel < 0) {
                fprintf(stderr, "skinview-bench: --kernel: auto, portable, avx2, avx512 or scalar, not '%s'\n", name);
                return 2;
            }
            if (!kernels_get((skv_walk_kernel)kernel)) {
                fprintf(stderr, "skinview-bench: --kernel %s: this CPU lacks it\n", name);
                return 2;
            }
        } else if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--crowd") == 0) crowd = 1;
        else if (strcmp(argv[i], "--crowd-fps") == 0) crowd_fps = 1;
        else if (strcmp(argv[i], "--msaa") == 0) msaa = 1;
        else if (strcmp(argv[i], "--smoke") == 0) smoke = 1;
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) profile_frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--clip") == 0 && i + 1 < argc) profile_clip = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seek") == 0) profile_seek = 1;
        else if (strcmp(argv[i], "--lent") == 0) profile_lent = 1;
        else if (strcmp(argv[i], "--influences") == 0) influences = 1;
        else if (strcmp(argv[i], "--png") == 0) png = 1;
        else if (strcmp(argv[i], "--layers") == 0) layered = 1;
        else if (strcmp(argv[i], "--exact") == 0) exact = 1;
        else if (strcmp(argv[i], "--seeks") == 0) seeks = 1;
        else if (strcmp(argv[i], "--evict") == 0 && i + 1 < argc) evict_mib = atoi(argv[++i]);
        else if (count < 64) models[count++] = argv[i];
    }
    if (rounds < 1) rounds = 1;
    if (exact) {
        if (count == 0) {
            fprintf(stderr, "skinview-bench: --exact takes the models to check\n");
            return 2;
        }
        return exact_models(models, count, json) ? 1 : 0;
    }
    if (seeks) {
        size_t bytes = (size_t)(evict_mib > 0 ? evict_mib : 1) << 20;
        unsigned char *buf = calloc(bytes, 1);
        if (!buf) {
            fprintf(stderr, "skinview-bench: out of memory\n");
            return 1;
        }
        if (!json)
            printf("%-24s %8s %5s %11s %7s %7s %7s %8s %8s %7s %7s\n", "model", "seconds", "bones", "key bytes", "play",
                   "seek", "cold", "ev-play", "ev-seek", "cold/p", "ev s/p");
        int failed = 0;
        for (int i = 0; i < count; i++) failed |= bench_seeks(models[i], rounds, profile_clip, bytes, buf, json);
        free(buf);
        return failed;
    }
    if (crowd) return bench_crowd(json);
    if (layered) return bench_layers(models, count, rounds, json);
    if (crowd_fps) return bench_crowd_fps(models, count, rounds, json);
    if (msaa) return bench_msaa(json, rounds);
    if (png) return bench_png(models, count, rounds, json);
    if (influences) {
        int failed = 0;
        for (int i = 0; i < count; i++) failed |= bench_influences(models[i], rounds, json);
        return failed;
    }
    if (profile_frames > 0) {
        if (count != 1) {
            fprintf(stderr, "skinview-bench: --profile takes one model\n");
            return 2;
        }
        return profile_model(models[0], profile_frames, profile_clip, profile_seek, profile_lent);
    }
    if (count == 0) {
        static const char *defaults[] = {
            SKV_SOURCE_DIR "/assets/worm.dae", SKV_SOURCE_DIR "/assets/snake.fbx", SKV_SOURCE_DIR "/assets/arm.md5mesh",
            "/usr/share/assimp/models/X/BCN_Epileptic.X", "/usr/share/assimp/models/FBX/animation_with_skeleton.fbx",
            SKV_SOURCE_DIR "/../shared/models/gltf/robot.glb", SKV_SOURCE_DIR "/../shared/models/md5/Bob.md5mesh",
            SKV_SOURCE_DIR "/../shared/models/synthetic/tentacle130_8w.gltf"};
        for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) models[count++] = defaults[i];
    }
    int frames = smoke ? 30 : 240;
    unsigned char *evict = malloc(EVICT_BYTES);
    if (!evict) {
        fprintf(stderr, "skinview-bench: out of memory\n");
        return 1;
    }
    memset(evict, 0, EVICT_BYTES);
    if (smoke) rounds = 1;
    int failed = 0;
    if (!json)
        printf("%-28s %5s %5s %10s %9s %9s %9s %9s %8s %9s %9s %8s %9s %8s\n", "model", "bones", "nodes", "naive ns/b",
               "v0 ns/b", "play ns/b", "seek ns/b", "cold ns/b", "speedup", "max diff", "import ms", "convert", "skin ns/v",
               "shot ms");
    for (int i = 0; i < count; i++) {
        result r;
        const char *base = strrchr(models[i], '/');
        base = base ? base + 1 : models[i];
        if (bench_model(models[i], rounds, frames, kernel, profile_clip, evict, &r) != 0) {
            failed++;
            continue;
        }
        r.screenshot_ms = smoke ? 0.0 : screenshot_process_ms(models[i]);
        int bones = r.bones ? r.bones : 1;
        int ok = r.max_diff < 1e-5;
        if (!ok) failed++;
        if (json) {
            printf("{\"model\":\"%s\",\"bones\":%d,\"nodes\":%d,\"naive_ns_per_bone\":%.2f,\"playback_ns_per_bone\":%.2f,"
                   "\"seek_ns_per_bone\":%.2f,\"cold_seek_ns_per_bone\":%.2f,\"speedup\":%.2f,\"max_abs_diff\":%.3g,\"import_ms\":%.3f,"
                   "\"convert_ms\":%.3f,\"skin_ns_per_vertex\":%.2f,\"v0_ns_per_bone\":%.2f,"
                   "\"screenshot_ms\":%.1f,\"kernel\":\"%s\"}\n",
                   base, r.bones, r.nodes, r.naive_ns / bones, r.playback_ns / bones, r.seek_ns / bones,
                   r.cold_seek_ns / bones, r.naive_ns / r.playback_ns, r.max_diff, r.import_ms, r.convert_ms,
                   r.skin_ns_per_vertex, r.reference_ns / bones, r.screenshot_ms,
                   kernels[kernel == SKV_WALK_AUTO ? (int)kernels_best() : kernel]);
        } else {
            printf("%-28s %5d %5d %10.1f %9.1f %9.1f %9.1f %9.1f %7.1fx %9.2g %9.2f %7.1f%% %9.2f %8.1f %s\n", base, r.bones,
                   r.nodes, r.naive_ns / bones, r.reference_ns / bones, r.playback_ns / bones, r.seek_ns / bones,
                   r.cold_seek_ns / bones,
                   r.naive_ns / r.playback_ns, r.max_diff,
                   r.import_ms, 100.0 * r.convert_ms / r.import_ms, r.skin_ns_per_vertex,
                   r.screenshot_ms, ok ? "" : "PALETTES DIFFER");
        }
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    free(evict);
    if (!json) printf("peak RSS %ld MiB (%d MiB of it the cold seeks' eviction buffer); 'convert' is Skinview's processing as a share of Assimp's import time (texture decoding, in parallel, included)\n",
                      usage.ru_maxrss / 1024, EVICT_BYTES >> 20);
    if (!json)
        printf("walk products: %s kernel\n", kernels[kernel == SKV_WALK_AUTO ? (int)kernels_best() : kernel]);
    /* Every clip of every model, every kernel: the exactness check. */
    int not_exact = exact_models(models, count, json);
    if (smoke) printf("%d passed, %d failed; %d clips not exact\n", count - failed, failed, not_exact);
    return failed || not_exact ? 1 : 0;
}
