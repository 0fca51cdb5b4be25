/* retarget_load.c - another file's clips retargeted onto the model's
 * skeleton (--anim-file FILE --retarget, retarget.h): the file imported
 * as a model of its own (guarded, as any), its nodes matched to the
 * model's (a --bone-map first), each of its clips re-expressed once as a
 * clip of the model; and the bone map's JSON. */
#include "private/import_internal.h"
#include "retarget.h"
#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

/* A map of more than this is no bone map (a humanoid has ~60 bones with
 * fingers, a face rig a few hundred). */
#define BONE_MAP_MAX_BYTES (4 << 20)

/* What the guarded child parses: the map file's text. */
typedef struct bone_map_job {
    const char *text;
    size_t size;
} bone_map_job;

/* The reason a text is no bone map, as the model's one warning (the
 * parent says it with the file's name, escaped); else nothing. */
static skv_result map_refused(skv_model *out, skv_error *err, const char *format, const char *what, long at)
{
    char line[400];
    if (what) snprintf(line, sizeof line, format, what);
    else snprintf(line, sizeof line, format, at);
    char *copy = strdup(line);
    char **list = malloc(sizeof *list);
    if (!copy || !list) {
        free(copy), free(list);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    list[0] = copy;
    out->warnings = list, out->warning_count = 1;
    return SKV_OK;
}

/* In a guarded child (the JSON parser sees the file's bytes only in a
 * sandbox): the map's pairs handed back as a holder model's node names,
 * node 1 + 2k the target of pair k and node 2 + 2k its source; a text
 * that is no map as one warning. */
static skv_result bone_map_in_child(void *arg, guard_channel *channel, skv_model *out, int64_t *extra, skv_error *err)
{
    const bone_map_job *job = arg;
    (void)channel;
    *extra = 0;
    const char *end = NULL;
    /* The length takes the terminating NUL in (cJSON asks for one after
     * the value); a NUL byte within the file is no JSON. */
    cJSON *root = strlen(job->text) == job->size ? cJSON_ParseWithLengthOpts(job->text, job->size + 1, &end, 1) : NULL;
    if (!end) end = job->text + strlen(job->text);
    int count = root && cJSON_IsObject(root) ? cJSON_GetArraySize(root) : 0;
    skv_result r = guard_holder_create(out, 1 + 2 * count, 0, err);
    if (r != SKV_OK) {
        cJSON_Delete(root);
        return r;
    }
    if (!root) {
        r = map_refused(out, err, "not valid JSON (at byte %ld)", NULL, (long)(end - job->text));
    } else if (!cJSON_IsObject(root)) {
        r = map_refused(out, err, "not a JSON object {\"targetBone\": \"sourceBone\", ...}", NULL, 0);
    } else {
        int k = 0;
        for (const cJSON *item = root->child; r == SKV_OK && item && k < count; item = item->next, k++) {
            if (!cJSON_IsString(item) || !item->valuestring) {
                r = map_refused(out, err, "the value of '%s' is not a bone name (a string)",
                                item->string ? item->string : "", 0);
                break;
            }
            char **names = out->skeleton.node_names;
            if (!(names[1 + 2 * k] = strdup(item->string ? item->string : "")) ||
                !(names[2 + 2 * k] = strdup(item->valuestring)))
                r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        }
        if (out->warning_count) { /* no pairs with a refusal: the names it has */
            for (int n = 1; n < out->skeleton.node_count; n++) free(out->skeleton.node_names[n]);
            out->skeleton.node_count = 1;
        }
    }
    cJSON_Delete(root);
    return r;
}

skv_result import_bone_map_read(const char *path, skv_bone_map *map, skv_error *err)
{
    memset(map, 0, sizeof *map);
    struct stat st;
    if (stat(path, &st) != 0) return skv_fail(err, SKV_ERR_FILE, "bone map %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return skv_fail(err, SKV_ERR_FILE, "bone map %s: not a regular file", path);
    if (st.st_size > BONE_MAP_MAX_BYTES)
        return skv_fail(err, SKV_ERR_ARGUMENT, "bone map %s: larger than %d MB", path, BONE_MAP_MAX_BYTES >> 20);
    FILE *f = fopen(path, "rb");
    if (!f) return skv_fail(err, SKV_ERR_FILE, "bone map %s: cannot open: %s", path, strerror(errno));
    char *text = malloc((size_t)st.st_size + 1);
    size_t got = text ? fread(text, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!text) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    text[got] = '\0';
    /* Parsed in a sandboxed child of its own, which reads no file (the
     * text is its inheritance), as a model's images outside its folder
     * are decoded. */
    bone_map_job job = {text, got};
    skv_model pairs;
    int64_t extra = 0;
    skv_error why = {{0}};
    skv_result r = guarded_import(NULL, NULL, bone_map_in_child, &job, 0, &pairs, &extra, &why);
    free(text);
    if (r != SKV_OK) return skv_fail(err, r, "bone map %s: %s", path, why.message);
    char line[400];
    const skv_skeleton *sk = &pairs.skeleton;
    if (pairs.warning_count > 0) {
        r = skv_fail(err, SKV_ERR_ARGUMENT, "bone map %s: %s", path,
                     text_line(line, sizeof line, pairs.warnings[0] ? pairs.warnings[0] : "", 300));
    } else if (sk->node_count < 1 || sk->node_count % 2 != 1) {
        r = skv_fail(err, SKV_ERR_IMPORT, "bone map %s: its parse came back malformed", path);
    } else {
        int count = (sk->node_count - 1) / 2;
        map->target = calloc((size_t)(count > 0 ? count : 1), sizeof *map->target);
        map->source = calloc((size_t)(count > 0 ? count : 1), sizeof *map->source);
        if (!map->target || !map->source) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        for (int k = 0; r == SKV_OK && k < count; k++) {
            if (!(map->target[k] = strdup(sk->node_names[1 + 2 * k])) ||
                !(map->source[k] = strdup(sk->node_names[2 + 2 * k])))
                r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            else
                map->count++;
        }
        if (r != SKV_OK) {
            free(map->target[map->count]); /* a pair half made */
            map->target[map->count] = NULL;
        }
    }
    model_free(&pairs);
    if (r != SKV_OK) retarget_map_free(map);
    return r;
}

/* The map's target names all name nodes of the model (checked before its
 * source's file is read). */
static skv_result check_map_targets(const skv_model *model, const skv_bone_map *map, const char *path, skv_error *err)
{
    for (int k = 0; k < map->count; k++) {
        int found = 0;
        for (int n = 0; n < model->skeleton.node_count && !found; n++)
            found = strcmp(model->skeleton.node_names[n], map->target[k]) == 0;
        char line[300];
        if (!found)
            return skv_fail(err, SKV_ERR_ARGUMENT, "bone map %s: the model has no node '%s'", path,
                            text_line(line, sizeof line, map->target[k], 200));
    }
    return SKV_OK;
}

skv_result import_bone_map_check(const skv_model *model, const char *path, skv_error *err)
{
    skv_bone_map map;
    skv_result r = import_bone_map_read(path, &map, err);
    if (r == SKV_OK) r = check_map_targets(model, &map, path, err);
    retarget_map_free(&map);
    return r;
}

skv_result import_retarget_clips(skv_model *model, const char *path, const skv_import_desc *desc,
                                 int only_without_mesh, int *added, skv_error *err)
{
    *added = 0;
    skv_bone_map map = {0};
    skv_result r = desc->bone_map ? import_bone_map_read(desc->bone_map, &map, err) : SKV_OK;
    if (r == SKV_OK && desc->bone_map) r = check_map_targets(model, &map, desc->bone_map, err);
    if (r != SKV_OK) {
        retarget_map_free(&map);
        return r;
    }
    /* The file as a model of its own: its skeleton's rest pose is what its
     * clips turn away from. */
    skv_import_desc alone = *desc;
    alone.anim_files = NULL, alone.anim_file_count = 0, alone.retarget = 0, alone.bone_map = NULL;
    skv_model source;
    skv_error why = {{0}};
    r = import_model(path, &alone, &source, &why);
    if (r != SKV_OK) {
        retarget_map_free(&map);
        return skv_fail(err, r, "animation file %s: %s", path, why.message);
    }
    if (only_without_mesh && !source.skeleton_only) { /* a model: opened in place of this one */
        model_free(&source);
        retarget_map_free(&map);
        *added = -1;
        return SKV_OK;
    }
    int nt = model->skeleton.node_count;
    int *source_of = malloc((size_t)(nt > 0 ? nt : 1) * sizeof *source_of);
    skv_clip *grown = source.clip_count ? realloc(model->clips, (size_t)(model->clip_count + source.clip_count) *
                                                                   sizeof *grown)
                                        : model->clips;
    if (grown) model->clips = grown;
    if (!source_of || !grown) r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    else if (source.clip_count == 0) r = skv_fail(err, SKV_ERR_ANIM, "animation file %s: no clips in it", path);
    if (r == SKV_OK) {
        r = retarget_match(&model->skeleton, &source.skeleton, desc->bone_map ? &map : NULL, source_of, &why);
        if (r != SKV_OK) r = skv_fail(err, r, "bone map %s: %s", desc->bone_map ? desc->bone_map : "", why.message);
    }
    int matched = 0;
    for (int n = 0; r == SKV_OK && n < nt; n++) matched += source_of[n] >= 0;
    if (r == SKV_OK && matched == 0)
        r = skv_fail(err, SKV_ERR_ANIM,
                     "animation file %s: none of its %d nodes matches a node of the model by name or humanoid "
                     "naming scheme (--bone-map names them)",
                     path, source.skeleton.node_count);
    const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int c = 0; r == SKV_OK && c < source.clip_count; c++) {
        skv_clip *clip = &model->clips[model->clip_count];
        r = retarget_clip(model, &source, &source.clips[c], source_of, clip, err);
        if (r != SKV_OK) break;
        if (!(clip->source = strdup(path))) {
            model_clip_free(clip);
            r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
            break;
        }
        model->clip_count++;
        (*added)++;
        if (source.clips[c].morph_channel_count)
            model_warn(model, "%s: clip '%s': its morph target weights are the file's meshes'; left out", file,
                       clip->name);
    }
    free(source_of);
    model_free(&source);
    retarget_map_free(&map);
    return r;
}
