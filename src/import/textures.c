/* textures.c - a model's textures: embedded images and files beside the
 * model, checked by their headers as the materials name them, then
 * decoded into texels (images.h) on a pool of threads at the end of the
 * conversion, within the import's memory and time. In the guarded child
 * that is all inside its sandbox; an image it may not read (outside the
 * model's folder) is left for the parent to read and have decoded in a
 * second sandboxed child (outside_textures_decode). */
#include "private/import_internal.h"
#include "private/blob.h"
#include "private/images.h"
#include "private/sandbox.h"
#include "text.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- materials and textures ---------------------------------------------- */

/* The whole of a regular file in a malloc'd buffer (NULL if it cannot be
 * read). Opened without blocking and checked after opening: a FIFO's
 * open waits for a writer forever, a device never ends. */
unsigned char *read_whole_file(const char *path, long *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char *bytes = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1L << 30)) {
        *size = (long)st.st_size;
        bytes = malloc((size_t)*size);
        for (long done = 0; bytes && done < *size;) {
            ssize_t got = read(fd, bytes + done, (size_t)(*size - done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) { /* an error, or the file shrank */
                free(bytes);
                bytes = NULL;
            } else {
                done += got;
            }
        }
    }
    close(fd);
    return bytes;
}

/* Why a texture's memory could not be had: the guarded child's budget,
 * usually (the conversion runs under it too). */
static int texture_out_of_memory(importer *im)
{
    snprintf(im->texture_refused, sizeof im->texture_refused,
             "out of memory (the guarded import's budget: --import-memory)");
    return -1;
}

/* Appends a texture with its source (taking `source.bytes`, malloc'd,
 * freeing it on failure); `file`: an image left for the parent (model.h).
 * Neither bytes nor file: the caller's allocation failed. */
static int add_texture(importer *im, texture_source source, const char *file, const char *key)
{
    if (!source.bytes && !source.texels && !file) return texture_out_of_memory(im);
    skv_model *model = im->model;
    size_t count = (size_t)model->texture_count + 1;
    skv_texture *grown = realloc(model->textures, count * sizeof *grown);
    if (grown) model->textures = grown;
    char **keys = realloc(im->texture_keys, count * sizeof *keys);
    if (keys) im->texture_keys = keys;
    texture_source *sources = realloc(im->texture_sources, count * sizeof *sources);
    if (sources) im->texture_sources = sources;
    char *key_copy = grown && keys && sources ? strdup(key) : NULL; /* resolve_texture compares every key */
    char *file_copy = key_copy && file ? strdup(file) : NULL;
    if (!key_copy || (file && !file_copy)) {
        free(key_copy);
        free(source.bytes);
        return texture_out_of_memory(im);
    }
    grown[model->texture_count] = (skv_texture){.file = file_copy};
    keys[model->texture_count] = key_copy;
    sources[model->texture_count] = source;
    return model->texture_count++;
}

/* Textures are refused (with a warning; the material colour is drawn)
 * past these, before any decoding: a 100-byte PNG can claim gigabytes of
 * texels, and a side beyond the GL driver's GL_MAX_TEXTURE_SIZE (16384 on
 * llvmpipe and most desktop GPUs) fails the upload. */
#define SKV_MAX_TEXTURE_SIDE 16384
#define SKV_MAX_TEXTURE_BYTES ((size_t)256 << 20)

static int texture_too_large(char *why, size_t size, unsigned width, unsigned height)
{
    if (width > SKV_MAX_TEXTURE_SIDE || height > SKV_MAX_TEXTURE_SIDE)
        snprintf(why, size, "%ux%u texels, more than %d on a side", width, height, SKV_MAX_TEXTURE_SIDE);
    else if ((size_t)width * height * 4 > SKV_MAX_TEXTURE_BYTES)
        snprintf(why, size, "%ux%u texels, more than %zu MiB decoded", width, height, SKV_MAX_TEXTURE_BYTES >> 20);
    else
        return 0;
    return 1;
}

/* An image's header checked (image_probe, the size limits): 0 with
 * `info` filled, or -1 with why in `why`. */
static int texture_header(const unsigned char *bytes, size_t size, image_info *info, char *why, size_t why_size)
{
    if (size == 0) {
        snprintf(why, why_size, "an empty image");
        return -1;
    }
    if (image_probe(bytes, size, info, why, why_size) != 0) return -1;
    return texture_too_large(why, why_size, (unsigned)info->width, (unsigned)info->height) ? -1 : 0;
}

/* An image file's bytes, taken over by the texture and kept for
 * textures_decode once its header checks out (freed here if not). */
static int texture_from_owned(importer *im, unsigned char *bytes, size_t size, const char *key)
{
    image_info info;
    if (texture_header(bytes, size, &info, im->texture_refused, sizeof im->texture_refused) != 0) {
        free(bytes);
        return -1;
    }
    texture_source source = {.bytes = bytes, .size = size, .width = info.width, .height = info.height,
                             .working_bytes = info.working_bytes};
    return add_texture(im, source, NULL, key);
}

static int texture_from_memory(importer *im, const unsigned char *bytes, size_t size, const char *key)
{
    if (size == 0) return -1;
    unsigned char *copy = malloc(size);
    if (!copy) return texture_out_of_memory(im);
    memcpy(copy, bytes, size);
    return texture_from_owned(im, copy, size, key);
}

static int texture_from_embedded(importer *im, const struct aiTexture *tex, const char *key)
{
    if (tex->mHeight == 0) /* compressed (PNG, JPEG ...): mWidth is the byte size */
        return texture_from_memory(im, (const unsigned char *)tex->pcData, tex->mWidth, key);

    /* Raw BGRA texels: nothing to decode, but they are decoded all the
     * same into the texture, at the end, within the budget. */
    if (texture_too_large(im->texture_refused, sizeof im->texture_refused, tex->mWidth, tex->mHeight)) return -1;
    size_t count = (size_t)tex->mWidth * tex->mHeight;
    unsigned char *rgba = malloc(count * 4);
    if (!rgba) return texture_out_of_memory(im);
    for (size_t i = 0; i < count; i++) {
        rgba[i * 4 + 0] = tex->pcData[i].r;
        rgba[i * 4 + 1] = tex->pcData[i].g;
        rgba[i * 4 + 2] = tex->pcData[i].b;
        rgba[i * 4 + 3] = tex->pcData[i].a;
    }
    texture_source source = {.texels = rgba, .width = (int)tex->mWidth, .height = (int)tex->mHeight};
    return add_texture(im, source, NULL, key);
}

uint64_t scene_texel_estimate(const struct aiScene *scene)
{
    uint64_t bytes = 0;
    for (unsigned i = 0; scene->mTextures && i < scene->mNumTextures; i++) {
        const struct aiTexture *tex = scene->mTextures[i];
        if (!tex) continue;
        image_info info;
        char why[200];
        if (tex->mHeight) bytes += (uint64_t)tex->mWidth * tex->mHeight * 4u;
        else if (image_probe((const unsigned char *)tex->pcData, tex->mWidth, &info, why, sizeof why) == 0)
            bytes += (uint64_t)info.width * (uint64_t)info.height * 4u;
    }
    return bytes;
}

/* Is `path` beneath `folder` (both real paths)? */
static int beneath(const char *path, const char *folder)
{
    size_t n = strlen(folder);
    if (n == 1 && folder[0] == '/') return 1;
    return strncmp(path, folder, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The real path of the folder an outside image may be read beneath: the
 * model's folder's parent (a game pack's ../Textures), not the root.
 * "" where there is none. */
static void image_reach(const char *folder, char *out, size_t size)
{
    char real[PATH_MAX];
    out[0] = '\0';
    if (!realpath(folder, real)) return;
    char *slash = strrchr(real, '/');
    if (!slash || slash == real) return; /* the folder is the root or just under it */
    *slash = '\0';
    snprintf(out, size, "%s", real);
}

/* Why `file` (really `real`, a link's target, say) is not read: outside
 * what a model reaches. */
static void refuse_outside(char *why, size_t size, const char *file, const char *real)
{
    /* A long path is cut, as any warning's (the return value tested so
     * that the compiler knows it is meant). */
    int written = real && strcmp(file, real) != 0
                      ? snprintf(why, size, "%s (really %s) is outside the model's folder and its parent's, where no "
                                 "file is read", file, real)
                      : snprintf(why, size, "%s is outside the model's folder and its parent's, where no file is read",
                                 file);
    if (written < 0) snprintf(why, size, "a file outside the model's folder and its parent's");
}

/* -2: no such file (the caller tries another name), -1: refused or
 * unreadable (im->texture_refused says why where it can). The model's
 * folder and below may be read; beneath its parent, only images, which
 * the guarded child cannot reach: those become the parent's to read
 * (skv_texture.file); anything else is refused by name. Judged by the
 * file's real path: a link is where it points. */
static int texture_from_file(importer *im, const char *file, const char *key)
{
    if (access(file, F_OK) != 0) return -2;
    char real[PATH_MAX], folder[PATH_MAX], reach[PATH_MAX];
    if (!realpath(file, real) || !realpath(im->folder, folder)) {
        snprintf(im->texture_refused, sizeof im->texture_refused, "%s cannot be resolved: %s", file, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(real, &st) == 0 && !S_ISREG(st.st_mode)) { /* read_whole_file refuses it too, after opening */
        snprintf(im->texture_refused, sizeof im->texture_refused, "%s is not a regular file", file);
        return -1;
    }
    int inside = beneath(real, folder);
    if (!inside) {
        image_reach(im->folder, reach, sizeof reach);
        if (!reach[0] || !beneath(real, reach)) {
            refuse_outside(im->texture_refused, sizeof im->texture_refused, file, real);
            return -1;
        }
    }
    long size = 0;
    errno = 0;
    unsigned char *bytes = read_whole_file(real, &size);
    if (!bytes && !inside && (errno == EACCES || errno == EPERM) && im->budget && im->budget->guarded)
        /* The guarded child's sandbox reaches the model's folder only
         * (sandbox.h): the parent reads it, as an image alone. */
        return add_texture(im, (texture_source){0}, real, key);
    if (!bytes && errno == ENOMEM) return texture_out_of_memory(im);
    if (!bytes) {
        snprintf(im->texture_refused, sizeof im->texture_refused, "%s cannot be read: %s", file,
                 errno ? strerror(errno) : "empty, or not a regular file");
        return -1;
    }
    return texture_from_owned(im, bytes, (size_t)size, key); /* no copy of the file */
}

const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Resolves a material's texture reference: "*N" embedded, an embedded
 * texture whose file name matches, or a file beside the model. */
int resolve_texture(importer *im, const char *reference)
{
    char ref[AI_MAXLEN + 1];
    snprintf(ref, sizeof ref, "%s", reference);
    for (char *c = ref; *c; c++)
        if (*c == '\\') *c = '/';

    for (int t = 0; t < im->model->texture_count; t++)
        if (strcmp(im->texture_keys[t], ref) == 0) return t;

    const struct aiScene *scene = im->scene;
    if (ref[0] == '*') {
        char *end;
        long index = strtol(ref + 1, &end, 10);
        if (*end == '\0' && index >= 0 && index < (long)scene->mNumTextures)
            return texture_from_embedded(im, scene->mTextures[index], ref);
        return -1;
    }
    for (unsigned i = 0; i < scene->mNumTextures; i++) {
        const struct aiTexture *tex = scene->mTextures[i];
        char name[AI_MAXLEN + 1];
        snprintf(name, sizeof name, "%.*s", (int)tex->mFilename.length, tex->mFilename.data);
        for (char *c = name; *c; c++)
            if (*c == '\\') *c = '/';
        if (name[0] && strcmp(base_name(name), base_name(ref)) == 0) return texture_from_embedded(im, tex, ref);
    }

    /* A file: as given relative to the model's folder, then by base name
     * there, then in a Textures folder beside it (game packs and the DirectX
     * books keep Models/ and Textures/ side by side). */
    char file[4096];
    if (ref[0] == '/') snprintf(file, sizeof file, "%s", ref);
    else snprintf(file, sizeof file, "%s/%s", im->folder, ref);
    int t = texture_from_file(im, file, ref);
    static const char *const beside[] = {"%s/%s", "%s/../Textures/%s", "%s/../textures/%s"};
    for (size_t i = 0; t == -2 && i < sizeof beside / sizeof beside[0]; i++) {
        snprintf(file, sizeof file, beside[i], im->folder, base_name(ref));
        t = texture_from_file(im, file, ref);
    }
    return t;
}

/* --- texture decoding ---------------------------------------------------- */

/* Which name a warning gives texture `t`: the reference of the first
 * material slot that uses it. */
static const char *texture_name(const skv_model *model, int t)
{
    for (int m = 0; m < model->material_count; m++)
        for (int k = 0; k < SKV_TEX_SLOTS; k++)
            if (model->materials[m].textures[k] == t && model->materials[m].texture_paths[k])
                return model->materials[m].texture_paths[k];
    return "(unnamed)";
}

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

typedef struct decode_item {
    const unsigned char *bytes;
    size_t size;
    int width, height; /* as the header said: the texels must be that */
    image_limits limits;
    unsigned char *texels; /* out */
    char why[200];         /* out, where texels is NULL */
} decode_item;

typedef struct decode_job {
    decode_item *items;
    int count;
    int next; /* shared; taken under the lock */
    pthread_mutex_t lock;
} decode_job;

static void decode_one(decode_item *item)
{
    if (item->limits.deadline > 0.0 && monotonic_seconds() > item->limits.deadline) {
        snprintf(item->why, sizeof item->why, "the import's time ran out first (--import-timeout)");
        return;
    }
    int w = 0, h = 0;
    item->texels = image_decode(item->bytes, item->size, &item->limits, &w, &h, item->why, sizeof item->why);
    if (item->texels && (w != item->width || h != item->height)) {
        free(item->texels);
        item->texels = NULL;
        snprintf(item->why, sizeof item->why, "it decoded to %dx%d where its header said %dx%d", w, h, item->width,
                 item->height);
    }
}

static void *decode_worker(void *arg)
{
    decode_job *job = arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        int i = job->next < job->count ? job->next++ : -1;
        pthread_mutex_unlock(&job->lock);
        if (i < 0) return NULL;
        decode_one(&job->items[i]);
    }
}

/* Decodes `count` items on up to as many threads as there are cores (8
 * at most). Where no thread can start (the guarded child's sandbox
 * allows none for a user who is not root: RLIMIT_NPROC), on this one. */
static void decode_all(decode_item *items, int count)
{
    decode_job job = {.items = items, .count = count};
    if (count == 0) return;
    pthread_mutex_init(&job.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = (int)(cores < 1 ? 1 : cores > 8 ? 8 : cores);
    if (workers > count) workers = count;
    pthread_t threads[8];
    int started = 0;
    for (int i = 1; i < workers; i++)
        if (pthread_create(&threads[started], NULL, decode_worker, &job) == 0) started++;
    decode_worker(&job); /* this thread works too; alone if none started */
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&job.lock);
}

/* Of the import's budget, what texels may take: a quarter, for they are
 * held several times over on their way to the screen (the block, the GL
 * driver's copy, its mipmaps); the rest is the model's, and the
 * decoders'. */
static uint64_t texel_allowance(uint64_t budget)
{
    return budget / 4;
}

skv_result textures_decode(importer *im)
{
    skv_model *model = im->model;
    const import_budget *budget = im->budget;
    decode_item *items = model->texture_count ? calloc((size_t)model->texture_count, sizeof *items) : NULL;
    int *item_of = model->texture_count ? malloc((size_t)model->texture_count * sizeof *item_of) : NULL;
    if (model->texture_count && (!items || !item_of)) {
        free(items);
        free(item_of);
        return skv_fail(im->err, SKV_ERR_MEMORY, "out of memory");
    }
    /* One budget for the model and its texels: what the model takes
     * already comes off first, then each texture's texels in the
     * materials' order, before anything is decoded; a texture that does
     * not fit is left out with a warning, not the model. */
    uint64_t left = 0;
    if (budget && budget->memory_bytes) {
        uint64_t used = blob_size(model), texels = texel_allowance(budget->memory_bytes);
        left = used < budget->memory_bytes ? budget->memory_bytes - used : 1;
        if (left > texels) left = texels;
    }
    int count = 0;
    for (int t = 0; t < model->texture_count; t++) {
        texture_source *src = &im->texture_sources[t];
        item_of[t] = -1;
        uint64_t texels = (uint64_t)src->width * (uint64_t)src->height * 4u;
        if (!src->bytes && !src->texels) continue; /* the parent's to read (file) */
        if (left && texels + src->working_bytes > left) {
            model_warn(model, "texture '%s' not decoded: its %dx%d texels take %llu MiB to decode, more than the %llu "
                       "MiB left of what the import's budget allows texels (a quarter of --import-memory); drawn "
                       "untextured", texture_name(model, t),
                       src->width, src->height, (unsigned long long)((texels + src->working_bytes + (1u << 20) - 1) >> 20),
                       (unsigned long long)(left >> 20));
            continue;
        }
        if (src->texels) { /* already texels (Assimp's raw images) */
            model->textures[t].rgba = src->texels, src->texels = NULL;
            model->textures[t].width = src->width, model->textures[t].height = src->height;
        } else {
            items[count] = (decode_item){.bytes = src->bytes, .size = src->size, .width = src->width,
                                         .height = src->height,
                                         .limits = {.max_bytes = left ? texels + src->working_bytes : 0,
                                                    .deadline = budget ? budget->deadline : 0.0}};
            item_of[t] = count++;
        }
        if (left) left -= texels;
    }
    decode_all(items, count);
    for (int t = 0; t < model->texture_count; t++) {
        texture_source *src = &im->texture_sources[t];
        decode_item *item = item_of[t] >= 0 ? &items[item_of[t]] : NULL;
        if (item && item->texels) {
            model->textures[t].rgba = item->texels;
            model->textures[t].width = item->width, model->textures[t].height = item->height;
        } else if (item) {
            model_warn(model, "texture '%s' could not be decoded: %s; drawn untextured", texture_name(model, t),
                       item->why);
        }
        free(src->bytes);
        free(src->texels);
        src->bytes = src->texels = NULL;
    }
    free(items);
    free(item_of);
    return SKV_OK;
}

/* --- images outside the model's folder ------------------------------------ */

/* An outside image as the parent vetted it: its bytes and header. */
typedef struct outside_image {
    int texture;
    unsigned char *bytes;
    size_t size;
    image_info info;
} outside_image;

typedef struct outside_job {
    const skv_model *model; /* the parent's, as the child inherits it */
    outside_image *images;
    int count;
    uint64_t budget; /* bytes the texels may take */
    double deadline;
} outside_job;

/* In the second child: the images decoded into a copy of the textures,
 * handed back with the model (whose other arrays are the parent's own,
 * and go back unchanged: the parent takes only the texels). */
static skv_result outside_in_child(void *arg, guard_channel *channel, skv_model *out, int64_t *extra, skv_error *err)
{
    const outside_job *job = arg;
    (void)channel;
    *extra = 0;
    *out = *job->model;
    out->textures = malloc((size_t)job->model->texture_count * sizeof *out->textures);
    if (!out->textures) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    for (int t = 0; t < out->texture_count; t++) out->textures[t] = (skv_texture){0};
    decode_item *items = calloc((size_t)job->count, sizeof *items);
    if (!items) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    uint64_t left = job->budget;
    for (int i = 0; i < job->count; i++) {
        const outside_image *image = &job->images[i];
        uint64_t texels = (uint64_t)image->info.width * (uint64_t)image->info.height * 4u;
        items[i] = (decode_item){.bytes = image->bytes, .size = image->size, .width = image->info.width,
                                 .height = image->info.height,
                                 .limits = {.max_bytes = texels + image->info.working_bytes, .deadline = job->deadline}};
        if (texels + image->info.working_bytes > left) {
            snprintf(items[i].why, sizeof items[i].why, "its texels pass the import's memory budget (--import-memory)");
            items[i].bytes = NULL;
            continue;
        }
        left -= texels;
    }
    /* Items refused above have no bytes: decode_one must not see them. */
    for (int i = 0; i < job->count; i++)
        if (items[i].bytes) decode_one(&items[i]);
    out->warnings = NULL, out->warning_count = 0; /* only this job's: the parent keeps its own */
    for (int i = 0; i < job->count; i++) {
        skv_texture *tex = &out->textures[job->images[i].texture];
        if (items[i].texels) {
            tex->rgba = items[i].texels;
            tex->width = items[i].width, tex->height = items[i].height;
        } else {
            model_warn(out, "texture '%s' could not be decoded: %s; drawn untextured",
                       texture_name(job->model, job->images[i].texture), items[i].why);
        }
    }
    free(items);
    return SKV_OK;
}

/* The parent's part for a texture a guarded child left (skv_texture.file):
 * the path is judged again here (the child is not trusted with it): a
 * regular file beneath the model's folder's parent whose header is an
 * image's (images.h); then its bytes are read. 0, or -1 with why. */
static int vet_outside_image(const char *model_path, const char *file, outside_image *image, char *why, size_t size)
{
    char model_real[PATH_MAX], folder[PATH_MAX], reach[PATH_MAX], real[PATH_MAX];
    /* Beside the real file, as the child resolved it (a link to a model
     * reads beside its target). */
    sandbox_folder_of(realpath(model_path, model_real) ? model_real : model_path, folder, sizeof folder);
    image_reach(folder, reach, sizeof reach);
    int resolved = realpath(file, real) != NULL;
    if (!reach[0] || !resolved || !beneath(real, reach)) {
        refuse_outside(why, size, file, resolved ? real : NULL);
        return -1;
    }
    long bytes_read = 0;
    errno = 0;
    image->bytes = read_whole_file(real, &bytes_read);
    if (!image->bytes) {
        snprintf(why, size, "%s cannot be read: %s", file, errno ? strerror(errno) : "empty, or not a regular file");
        return -1;
    }
    image->size = (size_t)bytes_read;
    if (texture_header(image->bytes, image->size, &image->info, why, size) != 0) {
        free(image->bytes);
        image->bytes = NULL;
        return -1;
    }
    return 0;
}

/* A texture refused before decoding, as the conversion refuses one
 * (materials.c, material_texture): its slots name no texture, and one
 * warning in the same words. */
static void refuse_texture(skv_model *model, int t, const char *why)
{
    int warned = 0;
    for (int m = 0; m < model->material_count; m++) {
        skv_material *mat = &model->materials[m];
        for (int k = 0; k < SKV_TEX_SLOTS; k++) {
            if (mat->textures[k] != t) continue;
            mat->textures[k] = -1;
            if (k == SKV_TEX_BASE_COLOR) mat->texture = -1;
            if (warned++) continue;
            model_warn(model, "texture '%s' of material '%s' not loaded: %s; %s",
                       mat->texture_paths[k] ? mat->texture_paths[k] : "(unnamed)", mat->name ? mat->name : "",
                       why, k == SKV_TEX_BASE_COLOR ? "using the material colour" : "drawn without it");
        }
    }
}

/* Takes the second child's texels for the vetted images into `model`:
 * only where a texture comes back at the size the parent read in its
 * header; the child's warnings too. `decoded` is freed. */
static skv_result adopt_outside_texels(skv_model *model, skv_model *decoded, const outside_image *images, int count,
                                       skv_error *err)
{
    if (decoded->texture_count != model->texture_count) {
        model_free(decoded);
        return skv_fail(err, SKV_ERR_IMPORT, "the guarded decoding's textures do not fit the model");
    }
    for (int i = 0; i < count; i++) {
        skv_texture *from = &decoded->textures[images[i].texture], *to = &model->textures[images[i].texture];
        if (!from->rgba) continue;
        if (from->width != images[i].info.width || from->height != images[i].info.height) {
            model_warn(model, "texture '%s' not loaded: its decoding came back at %dx%d, not the %dx%d of its "
                       "header; drawn untextured", texture_name(model, images[i].texture), from->width, from->height,
                       images[i].info.width, images[i].info.height);
            continue;
        }
        /* Out of the job's block, which goes with it. */
        size_t bytes = (size_t)from->width * (size_t)from->height * 4u;
        unsigned char *texels = malloc(bytes);
        if (!texels) {
            model_free(decoded);
            return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        }
        memcpy(texels, from->rgba, bytes);
        *to = (skv_texture){.width = from->width, .height = from->height, .rgba = texels};
    }
    for (int w = 0; w < decoded->warning_count; w++) model_warn(model, "%s", decoded->warnings[w]);
    model_free(decoded);
    return SKV_OK;
}

skv_result outside_textures_decode(const char *path, const skv_import_desc *desc, double seconds_left,
                                   skv_model *model, skv_error *err)
{
    int pending = 0;
    for (int t = 0; t < model->texture_count; t++) pending += model->textures[t].file != NULL;
    if (pending == 0) return SKV_OK;
    outside_image *images = calloc((size_t)pending, sizeof *images);
    if (!images) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    int count = 0;
    for (int t = 0; t < model->texture_count; t++) {
        skv_texture *tex = &model->textures[t];
        if (!tex->file) continue;
        char why[PATH_MAX + 200];
        if (vet_outside_image(path, tex->file, &images[count], why, sizeof why) == 0)
            images[count++].texture = t;
        else
            refuse_texture(model, t, why);
        free(tex->file);
        tex->file = NULL;
    }
    skv_result r = SKV_OK;
    if (count > 0 && seconds_left <= 0.0) {
        model_warn(model, "%d texture(s) outside the model's folder not decoded: the import's time ran out first "
                   "(--import-timeout)", count);
    } else if (count > 0) {
        /* Its own sandbox, which reads no file at all (the bytes are its
         * inheritance), and what is left of the import's time and memory. */
        skv_import_desc limits = desc ? *desc : (skv_import_desc){0};
        limits.timeout_seconds = seconds_left;
        limits.anim_files = NULL, limits.anim_file_count = 0;
        uint64_t used = blob_size(model), budget = import_memory_budget(path, desc), texels = 0;
        for (int t = 0; t < model->texture_count; t++)
            texels += (uint64_t)model->textures[t].width * (uint64_t)model->textures[t].height * 4u;
        uint64_t allowance = texel_allowance(budget), left = used < budget ? budget - used : 0;
        if (left > allowance - (texels < allowance ? texels : allowance))
            left = allowance - (texels < allowance ? texels : allowance);
        outside_job job = {model, images, count, left,
                           monotonic_seconds() + 0.8 * seconds_left};
        skv_model decoded;
        int64_t extra = 0;
        skv_error why = {{0}};
        r = guarded_import(NULL, &limits, outside_in_child, &job, used, &decoded, &extra, &why);
        if (r == SKV_OK) {
            r = adopt_outside_texels(model, &decoded, images, count, err);
        } else if (r != SKV_ERR_MEMORY) {
            /* The model stands without them: say why once. */
            model_warn(model, "%d texture(s) outside the model's folder not decoded: %s", count, why.message);
            r = SKV_OK;
        } else {
            skv_fail(err, r, "%s", why.message);
        }
    }
    for (int i = 0; i < count; i++) free(images[i].bytes);
    free(images);
    return r;
}

/* --- an image on its own (import.h, import_image) ---------------------- */

skv_result import_image(const char *path, const skv_import_desc *desc, int *width, int *height, unsigned char **rgba,
                        skv_error *err)
{
    *width = *height = 0;
    *rgba = NULL;
    long size = 0;
    errno = 0;
    outside_image image = {.texture = 0};
    image.bytes = read_whole_file(path, &size);
    if (!image.bytes)
        return skv_fail(err, SKV_ERR_FILE, "cannot read %s: %s", path,
                        errno ? strerror(errno) : "empty, or not a regular file");
    image.size = (size_t)size;
    char why[256];
    /* Not a texture's limits: the image is compared with a render, which
     * may be as large as --size takes (16384 a side, 1 GiB of texels), and
     * never goes to the GPU; past that side no render can match it. */
    int refused = image_probe(image.bytes, image.size, &image.info, why, sizeof why) != 0;
    if (!refused && (image.info.width > SKV_MAX_TEXTURE_SIDE || image.info.height > SKV_MAX_TEXTURE_SIDE)) {
        snprintf(why, sizeof why, "%dx%d texels, more than %d on a side", image.info.width, image.info.height,
                 SKV_MAX_TEXTURE_SIDE);
        refused = 1;
    }
    if (refused) {
        free(image.bytes);
        return skv_fail(err, SKV_ERR_FILE, "cannot read %s: %s", path, why);
    }
    /* A model of one texture, the image's bytes its child's inheritance:
     * decoded in a sandbox that reads no file, within the import's time
     * and memory, as a model's textures outside its folder are. */
    skv_model holder;
    skv_result made = guard_holder_create(&holder, 1, 1, err);
    if (made != SKV_OK) {
        free(image.bytes);
        return made;
    }
    skv_import_desc limits = desc ? *desc : (skv_import_desc){0};
    limits.anim_files = NULL, limits.anim_file_count = 0;
    if (limits.memory_limit_mb <= 0) {
        /* No budget given: one that holds this image's texels in a
         * texture's share of it (texel_allowance), the default's at least;
         * the default alone refused references past about 50 million
         * texels, renders skinview makes. */
        uint64_t texels = (uint64_t)image.info.width * (uint64_t)image.info.height * 4u + image.info.working_bytes;
        uint64_t least = import_memory_budget(path, &limits), need = 4u * texels;
        limits.memory_limit_mb = (int)(((need > least ? need : least) + ((1u << 20) - 1)) >> 20);
    }
    double seconds = limits.timeout_seconds > 0 ? limits.timeout_seconds : 60.0;
    uint64_t budget = import_memory_budget(path, &limits);
    outside_job job = {&holder, &image, 1, texel_allowance(budget), monotonic_seconds() + 0.8 * seconds};
    skv_model decoded;
    int64_t extra = 0;
    skv_error child_err = {{0}};
    skv_result r = guarded_import(NULL, &limits, outside_in_child, &job, blob_size(&holder), &decoded, &extra,
                                  &child_err);
    free(image.bytes);
    model_free(&holder);
    if (r != SKV_OK) return skv_fail(err, r, "cannot read %s: %s", path, child_err.message);
    const skv_texture *got = decoded.texture_count == 1 ? &decoded.textures[0] : NULL;
    if (!got || !got->rgba || got->width != image.info.width || got->height != image.info.height) {
        /* The decoder's reason, out of the child's texture warning
         * (outside_in_child's words); the child's line as it is else. */
        const char *said = decoded.warning_count > 0 && decoded.warnings[0] ? decoded.warnings[0]
                                                                             : "its decoding did not match its header";
        const char *cause = strstr(said, "could not be decoded: ");
        cause = cause ? cause + strlen("could not be decoded: ") : said;
        const char *end = strstr(cause, "; drawn untextured");
        /* The child is not trusted: its words escaped to one line. */
        char cut[300], line[400];
        snprintf(cut, sizeof cut, "%.*s", (int)(end ? (size_t)(end - cause) : strlen(cause)), cause);
        r = skv_fail(err, SKV_ERR_FILE, "cannot read %s: %s", path, text_line(line, sizeof line, cut, 200));
        model_free(&decoded);
        return r;
    }
    size_t bytes = (size_t)got->width * (size_t)got->height * 4u;
    *rgba = malloc(bytes);
    if (!*rgba) {
        model_free(&decoded);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    memcpy(*rgba, got->rgba, bytes);
    *width = got->width, *height = got->height;
    model_free(&decoded);
    return SKV_OK;
}
