/* clips.c - clips: keys copied and checked, channels bound to nodes,
 * durations, one-channel clips merged per time line; and the clips of
 * another file bound to a model's skeleton (import_add_clips). */
#include "private/import_internal.h"
#include "anim.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_ds.h>

/* Stable insertion sort by time, for the rare file whose keys are out of
 * order: keys sharing a time (a step) keep their order. */
#define SORT_KEYS_BY_TIME(keys, n)                                \
    for (int i_ = 1; i_ < (n); i_++) {                            \
        __typeof__((keys)[0]) key_ = (keys)[i_];                  \
        int j_ = i_;                                              \
        for (; j_ > 0 && (keys)[j_ - 1].time > key_.time; j_--)   \
            (keys)[j_] = (keys)[j_ - 1];                          \
        (keys)[j_] = key_;                                        \
    }

/* Keys that all hold the same value say what one key says at every time:
 * the caller keeps one, and a channel of single keys is fixed (anim.h). */
static int all_keys_equal(const void *keys, int n, size_t stride, size_t value_offset, size_t value_size)
{
    const char *first = (const char *)keys + value_offset;
    for (int i = 1; i < n; i++)
        if (memcmp(first, first + (size_t)i * stride, value_size) != 0) return 0;
    return 1;
}

/* Copies vector keys, dropping non-finite ones and sorting by time. With
 * none left, one key holding `fallback`. Returns the count, -1 on OOM. */
static int copy_vec3_keys(const struct aiVectorKey *src, unsigned count, const float fallback[3],
                          skv_vec3_key **out, int *unsorted, int *dropped)
{
    *out = malloc((count ? count : 1) * sizeof **out);
    if (!*out) return -1;
    int n = 0;
    for (unsigned i = 0; i < count; i++) {
        const struct aiVectorKey *k = &src[i];
        if (!isfinite(k->mTime) || !(fabsf(k->mValue.x) <= SKV_MAX_MAGNITUDE) ||
            !(fabsf(k->mValue.y) <= SKV_MAX_MAGNITUDE) || !(fabsf(k->mValue.z) <= SKV_MAX_MAGNITUDE)) {
            (*dropped)++; /* non-finite, or overflows once multiplied */
            continue;
        }
        if (n > 0 && k->mTime < (*out)[n - 1].time) *unsorted = 1;
        skv_vec3_key *key = &(*out)[n++];
        key->time = k->mTime;
        key->value[0] = k->mValue.x, key->value[1] = k->mValue.y, key->value[2] = k->mValue.z;
        key->zero = 0.0f;
    }
    if (n == 0) (*out)[n++] = (skv_vec3_key){0.0, {fallback[0], fallback[1], fallback[2]}, 0.0f};
    if (*unsorted) SORT_KEYS_BY_TIME(*out, n);
    return all_keys_equal(*out, n, sizeof **out, offsetof(skv_vec3_key, value), sizeof (*out)->value) ? 1 : n;
}

static int copy_quat_keys(const struct aiQuatKey *src, unsigned count, const float fallback[4],
                          skv_quat_key **out, int *unsorted, int *dropped)
{
    *out = malloc((count ? count : 1) * sizeof **out);
    if (!*out) return -1;
    int n = 0;
    for (unsigned i = 0; i < count; i++) {
        const struct aiQuatKey *k = &src[i];
        const struct aiQuaternion *q = &k->mValue;
        if (!isfinite(k->mTime) || !(fabsf(q->w) <= SKV_MAX_MAGNITUDE) || !(fabsf(q->x) <= SKV_MAX_MAGNITUDE) ||
            !(fabsf(q->y) <= SKV_MAX_MAGNITUDE) || !(fabsf(q->z) <= SKV_MAX_MAGNITUDE)) {
            (*dropped)++; /* squaring these to normalise overflows */
            continue;
        }
        if (n > 0 && k->mTime < (*out)[n - 1].time) *unsorted = 1;
        (*out)[n++] = (skv_quat_key){k->mTime, {q->x, q->y, q->z, q->w}};
    }
    if (n == 0) (*out)[n++] = (skv_quat_key){0.0, {fallback[0], fallback[1], fallback[2], fallback[3]}};
    if (*unsorted) SORT_KEYS_BY_TIME(*out, n);
    return all_keys_equal(*out, n, sizeof **out, offsetof(skv_quat_key, value), sizeof (*out)->value) ? 1 : n;
}


skv_result convert_clips(importer *im)
{
    const struct aiScene *scene = im->anim_scene;
    skv_model *model = im->model;
    skv_skeleton *sk = &model->skeleton;
    if (scene->mNumAnimations == 0) return SKV_OK;
    model->clips = calloc(scene->mNumAnimations, sizeof *model->clips);
    if (!model->clips) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");

    for (unsigned a = 0; a < scene->mNumAnimations; a++) {
        const struct aiAnimation *src = scene->mAnimations[a];
        skv_clip *clip = &model->clips[model->clip_count++];
        clip->name = dup_name(&src->mName, "clip %d", (int)a);
        clip->file_channels = (int)src->mNumChannels;
        clip->ticks_per_second = src->mTicksPerSecond > 0.0 && isfinite(src->mTicksPerSecond)
                                     ? src->mTicksPerSecond : 25.0;
        clip->node_channel = malloc((size_t)sk->node_count * sizeof *clip->node_channel);
        clip->channels = calloc(src->mNumChannels ? src->mNumChannels : 1, sizeof *clip->channels);
        if (!clip->node_channel || !clip->channels || !clip->name)
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        for (int n = 0; n < sk->node_count; n++) clip->node_channel[n] = -1;

        int missing = 0, unsorted = 0, dropped = 0;
        double last_key = 0.0;
        for (unsigned c = 0; c < src->mNumChannels; c++) {
            const struct aiNodeAnim *na = src->mChannels[c];
            char name[AI_MAXLEN + 1];
            snprintf(name, sizeof name, "%.*s", (int)na->mNodeName.length, na->mNodeName.data);
            int node = channel_node(im, name);
            if (node < 0) {
                missing++;
                continue;
            }
            if (im->folded && im->folded[node]) clip->notes |= SKV_CLIP_PIVOTS_FOLDED;
            if (clip->node_channel[node] >= 0) continue; /* second channel for one node */

            /* Rest pose values fill key arrays the file left empty. */
            float rest_t[3], rest_q[4], rest_s[3];
            anim_decompose(sk->rest_local[node], rest_t, rest_q, rest_s);

            skv_channel *ch = &clip->channels[clip->channel_count];
            ch->node = node;
            ch->position_count = copy_vec3_keys(na->mPositionKeys, na->mNumPositionKeys, rest_t, &ch->positions, &unsorted,
                                                &dropped);
            ch->rotation_count = copy_quat_keys(na->mRotationKeys, na->mNumRotationKeys, rest_q, &ch->rotations, &unsorted,
                                                &dropped);
            ch->scale_count = copy_vec3_keys(na->mScalingKeys, na->mNumScalingKeys, rest_s, &ch->scales, &unsorted, &dropped);
            clip->channel_count++;
            if (ch->position_count < 0 || ch->rotation_count < 0 || ch->scale_count < 0)
                return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
            clip->node_channel[node] = clip->channel_count - 1;
            last_key = fmax(last_key, ch->positions[ch->position_count - 1].time);
            last_key = fmax(last_key, ch->rotations[ch->rotation_count - 1].time);
            last_key = fmax(last_key, ch->scales[ch->scale_count - 1].time);
        }
        if (convert_morph_channels(im, src, clip, &last_key) != 0)
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        /* The Assimp fixes see the clip as converted, and the duration the
         * file gave (FIX_CLIP). */
        fix_context fix = {.path = im->path, .im = im, .anim = src, .anim_index = (int)a, .clip = clip,
                           .duration = im->file_durations ? im->file_durations[a] : src->mDuration};
        if (assimp_fixes_run(FIX_CLIP, &fix) != SKV_OK) return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        clip->duration_ticks = fix.duration;
        if (!(clip->duration_ticks > 0.0) || !isfinite(clip->duration_ticks)) {
            clip->duration_ticks = last_key;
            if (last_key > 0.0)
                model_warn(model, "clip '%s' has no valid duration; using its last key (%g ticks)", clip->name, last_key);
        } else if (last_key > clip->duration_ticks) {
            /* Keys past the end (B3D frame counts, hand-edited files):
             * played to the last key, as engines do. */
            model_warn(model, "clip '%s': keys run past its duration (%g ticks); played to the last key (%g)",
                       clip->name, clip->duration_ticks, last_key);
            clip->duration_ticks = last_key;
            clip->notes |= SKV_CLIP_KEYS_PAST_END;
        }
        if (missing)
            model_warn(model, "clip '%s': %d channel(s) name nodes that do not exist; ignored", clip->name, missing);
        if (unsorted)
            model_warn(model, "clip '%s': keys out of time order; sorted", clip->name);
        if (dropped)
            model_warn(model, "clip '%s': %d key(s) non-finite or beyond 1e15 (they overflow when multiplied); "
                       "dropped", clip->name, dropped);
    }
    return SKV_OK;
}

/* A one-channel clip's time line (ticks per second, duration) and its
 * place in the file, to sort by. */
typedef struct clip_time_line {
    double ticks_per_second, duration_ticks;
    int clip;
} clip_time_line;

static int by_time_line(const void *pa, const void *pb)
{
    const clip_time_line *a = pa, *b = pb;
    if (a->ticks_per_second != b->ticks_per_second) return a->ticks_per_second < b->ticks_per_second ? -1 : 1;
    if (a->duration_ticks != b->duration_ticks) return a->duration_ticks < b->duration_ticks ? -1 : 1;
    return (a->clip > b->clip) - (a->clip < b->clip);
}

/* Files (Collada above all) often hold one clip per animated node, each a
 * single channel on the same time line: they are one motion. Such clips
 * become one clip; different time lines stay apart. In file order, a
 * one-channel clip joins the earliest one-channel clip before it on its
 * time line that has not joined another and does not animate its node
 * yet; else it starts a clip of its own. The clips left keep their order.
 * Grouped by sorting, with a cursor per node into the group's clips that
 * others join, so a file of 100,000 such clips is not 10^10 comparisons. */
skv_result merge_single_channel_clips(importer *im)
{
    skv_model *model = im->model;
    int n = model->clip_count, singles = 0;
    /* A clip that also moves morph targets is a motion of its own. */
    for (int c = 0; c < n; c++) singles += model->clips[c].channel_count == 1 && !model->clips[c].morph_channel_count;
    if (singles < 2) return SKV_OK;
    int node_count = model->skeleton.node_count;
    clip_time_line *order = malloc((size_t)singles * sizeof *order);
    int *joins = malloc((size_t)n * sizeof *joins);      /* per clip: the clip it joins, or -1 */
    int *members = malloc((size_t)n * sizeof *members);  /* per clip: channels it will hold */
    int *bases = malloc((size_t)singles * sizeof *bases); /* this group's clips that others may join */
    int *cursor = calloc((size_t)(node_count > 0 ? node_count : 1), sizeof *cursor); /* per node, into bases */
    if (!order || !joins || !members || !bases || !cursor) {
        free(order), free(joins), free(members), free(bases), free(cursor);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int c = 0, k = 0; c < n; c++) {
        const skv_clip *clip = &model->clips[c];
        joins[c] = -1, members[c] = clip->channel_count;
        if (clip->channel_count == 1 && !clip->morph_channel_count)
            order[k++] = (clip_time_line){clip->ticks_per_second, clip->duration_ticks, c};
    }
    qsort(order, (size_t)singles, sizeof *order, by_time_line);

    int any = 0;
    for (int g = 0; g < singles;) {
        int end = g + 1;
        while (end < singles && order[end].ticks_per_second == order[g].ticks_per_second &&
               order[end].duration_ticks == order[g].duration_ticks)
            end++;
        int base_count = 0;
        for (int i = g; i < end; i++) {
            int c = order[i].clip, node = model->clips[c].channels[0].node;
            /* The bases before cursor[node] all animate `node` already:
             * a base never loses a node, so the cursor only moves on. */
            int k = cursor[node];
            while (k < base_count && model->clips[bases[k]].node_channel[node] >= 0) k++;
            cursor[node] = k;
            if (k < base_count) {
                int b = bases[k];
                joins[c] = b;
                model->clips[b].node_channel[node] = members[b]++;
                any = 1;
            } else {
                bases[base_count++] = c;
            }
        }
        /* Reset only what this group touched. */
        for (int i = g; i < end; i++) cursor[model->clips[order[i].clip].channels[0].node] = 0;
        g = end;
    }
    free(order), free(bases), free(cursor);
    if (!any) {
        free(joins), free(members);
        return SKV_OK;
    }

    /* Channels move over in file order, which is the order they joined in. */
    skv_channel **merged = calloc((size_t)n, sizeof *merged);
    if (!merged) {
        free(joins), free(members);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    for (int c = 0; c < n; c++) {
        if (joins[c] >= 0 || members[c] == model->clips[c].channel_count) continue;
        merged[c] = malloc((size_t)members[c] * sizeof **merged);
        if (!merged[c]) {
            for (int k = 0; k < c; k++) free(merged[k]);
            free(merged), free(joins), free(members);
            return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
        }
        merged[c][0] = model->clips[c].channels[0];
        members[c] = 1; /* from here: channels filled */
    }
    for (int c = 0; c < n; c++) {
        skv_clip *o = &model->clips[c];
        int b = joins[c];
        if (b < 0) continue;
        merged[b][members[b]++] = o->channels[0]; /* keys move over */
        free(o->channels);
        free(o->node_channel);
        free(o->name);
    }
    int write = 0;
    for (int c = 0; c < n; c++) {
        skv_clip *o = &model->clips[c];
        if (joins[c] >= 0) continue;
        if (merged[c]) {
            free(o->channels);
            o->channels = merged[c];
            o->channel_count = o->merged_from = members[c];
        }
        model->clips[write++] = *o;
    }
    free(merged), free(joins), free(members);
    model->clip_count = write;
    return SKV_OK;
}

/* The clips of another file (import_add_clips), bound to `model`'s
 * skeleton: converted into `scratch`, a model that shares that skeleton
 * (folding the file's FBX pivots changes the model's own rest pose), whose
 * clips and warnings the caller then moves over. A channel may also name
 * a node without its namespace prefix. `scratch` is filled even where it
 * fails. */
skv_result bind_clips(skv_model *model, const struct aiScene *scene, const struct aiScene *anim_scene,
                      const double *file_durations, const char *read_path, skv_model *scratch, skv_error *err)
{
    *scratch = (skv_model){.skeleton = model->skeleton, .influence_slots = model->influence_slots};
    importer im = {.scene = scene, .anim_scene = anim_scene, .file_durations = file_durations,
                   .model = scratch, .err = err, .existing = model, .path = read_path};
    skv_skeleton *sk = &model->skeleton;
    for (int n = 0; n < sk->node_count; n++) {
        if (shgeti(im.node_by_name, sk->node_names[n]) < 0) shput(im.node_by_name, sk->node_names[n], n);
        const char *bare = bare_name(sk->node_names[n]);
        if (shgeti(im.node_by_bare, bare) < 0) shput(im.node_by_bare, bare, n);
    }
    skv_result r = fold_fbx_pivots(&im);
    if (r == SKV_OK) r = convert_clips(&im);
    if (r == SKV_OK) r = merge_single_channel_clips(&im);
    importer_free(&im);
    return r;
}
