/* model.c - freeing and small queries on skv_model; the error helper. */
#include "model.h"

#include "error.h"
#include "text.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

skv_result skv_fail(skv_error *err, skv_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static void free_strings(char **strings, int count)
{
    if (!strings) return;
    for (int i = 0; i < count; i++) free(strings[i]);
    free(strings);
}

/* Frees `p` unless it lies in the model's mapped block (model.h); any
 * `p` where `model` is NULL. */
static void free_owned(const skv_model *model, void *p)
{
    uintptr_t at = (uintptr_t)p, block = model ? (uintptr_t)model->block : 0;
    if (!block || at < block || at - block >= model->block_size) free(p);
}

/* A clip's parts, its keys only where they are not in `model`'s block. */
static void clip_free(const skv_model *model, skv_clip *clip)
{
    for (int i = 0; i < clip->channel_count; i++) {
        free_owned(model, clip->channels[i].positions);
        free_owned(model, clip->channels[i].rotations);
        free_owned(model, clip->channels[i].scales);
        free_owned(model, clip->channels[i].position_tangents);
        free_owned(model, clip->channels[i].rotation_tangents);
        free_owned(model, clip->channels[i].scale_tangents);
    }
    free(clip->channels);
    for (int i = 0; i < clip->morph_channel_count; i++) {
        free_owned(model, clip->morph_channels[i].times);
        free_owned(model, clip->morph_channels[i].weights);
        free_owned(model, clip->morph_channels[i].tangents);
    }
    free(clip->morph_channels);
    free(clip->node_channel);
    free(clip->name);
    free(clip->source);
    free_strings(clip->retarget_from, clip->retarget_node_count);
    memset(clip, 0, sizeof *clip);
}

void model_clip_free(skv_clip *clip)
{
    clip_free(NULL, clip);
}

/* `*p` (`bytes` long) copied out of `model`'s block if it lies there. */
static int own_copy(const skv_model *model, void **p, size_t bytes)
{
    uintptr_t at = (uintptr_t)*p, block = (uintptr_t)model->block;
    if (!*p || !block || at < block || at - block >= model->block_size) return 1;
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) return 0;
    memcpy(copy, *p, bytes);
    *p = copy;
    return 1;
}

skv_result model_clip_own(const skv_model *model, skv_clip *clip)
{
    int ok = 1;
    for (int i = 0; ok && i < clip->channel_count; i++) {
        skv_channel *ch = &clip->channels[i];
        ok = own_copy(model, (void **)&ch->positions, (size_t)ch->position_count * sizeof *ch->positions) &&
             own_copy(model, (void **)&ch->rotations, (size_t)ch->rotation_count * sizeof *ch->rotations) &&
             own_copy(model, (void **)&ch->scales, (size_t)ch->scale_count * sizeof *ch->scales) &&
             own_copy(model, (void **)&ch->position_tangents, (size_t)ch->position_count * 6 * sizeof(float)) &&
             own_copy(model, (void **)&ch->rotation_tangents, (size_t)ch->rotation_count * 8 * sizeof(float)) &&
             own_copy(model, (void **)&ch->scale_tangents, (size_t)ch->scale_count * 6 * sizeof(float));
    }
    for (int i = 0; ok && i < clip->morph_channel_count; i++) {
        skv_morph_channel *mc = &clip->morph_channels[i];
        size_t targets = mc->mesh >= 0 && mc->mesh < model->mesh_count
                             ? (size_t)model->meshes[mc->mesh].morph_target_count
                             : 0;
        ok = own_copy(model, (void **)&mc->times, (size_t)mc->key_count * sizeof *mc->times) &&
             own_copy(model, (void **)&mc->weights, (size_t)mc->key_count * targets * sizeof *mc->weights) &&
             own_copy(model, (void **)&mc->tangents, (size_t)mc->key_count * targets * 2 * sizeof(float));
    }
    return ok ? SKV_OK : SKV_ERR_MEMORY;
}

void model_free(skv_model *model)
{
    if (!model) return;
    free(model->path);
    free_owned(model, model->positions);
    free_owned(model, model->normals);
    free_owned(model, model->uvs);
    free_owned(model, model->tangents);
    free_owned(model, model->bone_ids);
    free_owned(model, model->weights);
    free_owned(model, model->influence_start);
    free_owned(model, model->influences);
    free_owned(model, model->indices);
    free_strings(model->morph_target_names, model->morph_target_count);
    free(model->morph_default_weights);
    free_owned(model, model->morph_position_deltas);
    free_owned(model, model->morph_normal_deltas);
    for (int i = 0; i < model->mesh_count; i++) free(model->meshes[i].name);
    free(model->meshes);
    for (int i = 0; i < model->material_count; i++) {
        free(model->materials[i].name);
        for (int k = 0; k < SKV_TEX_SLOTS; k++) free(model->materials[i].texture_paths[k]);
    }
    free(model->materials);
    for (int i = 0; i < model->texture_count; i++) {
        free_owned(model, model->textures[i].rgba);
        free(model->textures[i].file);
    }
    free(model->textures);

    skv_skeleton *sk = &model->skeleton;
    free_strings(sk->node_names, sk->node_count);
    free(sk->parents);
    free(sk->rest_local);
    free_strings(sk->bone_names, sk->bone_count);
    free(sk->bone_node);
    free(sk->bone_offset);
    free(sk->bone_from_file);

    for (int c = 0; c < model->clip_count; c++) clip_free(model, &model->clips[c]);
    free(model->clips);
    free_strings(model->warnings, model->warning_count);
    if (model->block) munmap(model->block, model->block_size);
    memset(model, 0, sizeof *model);
}

void model_warn(skv_model *model, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char **grown = realloc(model->warnings, (size_t)(model->warning_count + 1) * sizeof *grown);
    if (!grown) return;
    model->warnings = grown;
    grown[model->warning_count] = strdup(line);
    if (grown[model->warning_count]) model->warning_count++;
}

/* `text` as an index below `count` (digits only), else -1. */
static int parse_index(const char *text, int count)
{
    if (!*text) return -1;
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p)) return -1;
    long index = strtol(text, NULL, 10);
    return index >= 0 && index < count ? (int)index : -1;
}

int model_find_clip(const skv_model *model, const char *name_or_index)
{
    for (int i = 0; i < model->clip_count; i++)
        if (model->clips[i].name && strcmp(model->clips[i].name, name_or_index) == 0) return i;
    return parse_index(name_or_index, model->clip_count);
}

int model_bone_from_file(const skv_model *model, int bone)
{
    const skv_skeleton *sk = &model->skeleton;
    if (bone < 0 || bone >= sk->bone_count) return 0;
    return !sk->bone_from_file || sk->bone_from_file[bone];
}

int model_find_bone(const skv_model *model, const char *name_or_index)
{
    const skv_skeleton *sk = &model->skeleton;
    for (int i = 0; i < sk->bone_count; i++)
        if (strcmp(sk->bone_names[i], name_or_index) == 0) return i;
    return parse_index(name_or_index, sk->bone_count);
}

/* model_find_node by the names' bytes, or (printed) as --list --json
 * prints them. */
static int find_node(const skv_model *model, const char *name, int printed)
{
    const skv_skeleton *sk = &model->skeleton;
    int found = -1, named = 0, joint = -1, joints = 0;
    for (int n = 0; n < sk->node_count; n++) {
        if (!sk->node_names || !sk->node_names[n]) continue;
        if (printed ? !text_same_as_json(sk->node_names[n], name) : strcmp(sk->node_names[n], name) != 0) continue;
        found = n, named++;
        for (int b = 0; b < sk->bone_count; b++)
            if (sk->bone_node[b] == n && model_bone_from_file(model, b)) {
                joint = n, joints++;
                break;
            }
    }
    if (named <= 1) return found;
    return joints == 1 ? joint : -2;
}

int model_find_node(const skv_model *model, const char *name)
{
    int node = find_node(model, name, 0);
    return node != -1 ? node : find_node(model, name, 1);
}

int model_over_limit_vertices(const skv_model *model)
{
    int total = 0;
    for (int i = 0; i < model->mesh_count; i++) total += model->meshes[i].over_limit_vertices;
    return total;
}

static const struct {
    unsigned note;
    const char *key, *text;
} clip_notes[] = {
    {SKV_CLIP_KEYS_PAST_END, "keys_past_end", "keys run past the file's duration: played to the last key"},
    {SKV_CLIP_PIVOTS_FOLDED, "pivots_folded",
     "FBX pivot helper nodes folded into the nodes whose channels carry the whole transform"},
    {SKV_CLIP_LINEAR_NOT_CURVE, "linear_not_curve",
     "the file's Bezier/Hermite/step curves are met only at their keys (they could not be read beside Assimp, "
     "which reads no tangents): between keys the motion is interpolated linearly (slerp)"},
    {SKV_CLIP_CURVES_SAMPLED, "curves_sampled",
     "the file's Bezier/Hermite/step curves (which Assimp plays as lines) read from the file and sampled into "
     "linear keys that follow them to 1e-4"},
};

const char *model_clip_note_key(unsigned note)
{
    for (size_t i = 0; i < sizeof clip_notes / sizeof clip_notes[0]; i++)
        if (clip_notes[i].note == note) return clip_notes[i].key;
    return NULL;
}

const char *model_clip_note_text(unsigned note)
{
    for (size_t i = 0; i < sizeof clip_notes / sizeof clip_notes[0]; i++)
        if (clip_notes[i].note == note) return clip_notes[i].text;
    return NULL;
}
