/* textures.c - a model's textures: embedded images and files beside the
 * model, kept as the image file's bytes at import (checked, not decoded),
 * and decoded into texels afterwards on a pool of threads. */
#include "private/import_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

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

/* Appends a texture; takes `rgba` or `encoded` (malloc'd), freeing it on
 * failure. Neither: the caller's allocation failed. */
static int add_texture(importer *im, skv_texture texture, const char *key)
{
    if (!texture.rgba && !texture.encoded) return texture_out_of_memory(im);
    skv_model *model = im->model;
    skv_texture *grown = realloc(model->textures, (size_t)(model->texture_count + 1) * sizeof *grown);
    if (grown) model->textures = grown;
    char **keys = realloc(im->texture_keys, (size_t)(model->texture_count + 1) * sizeof *keys);
    if (keys) im->texture_keys = keys;
    char *key_copy = grown && keys ? strdup(key) : NULL; /* resolve_texture compares every key */
    if (!key_copy) {
        free(texture.rgba);
        free(texture.encoded);
        return texture_out_of_memory(im);
    }
    grown[model->texture_count] = texture;
    keys[model->texture_count] = key_copy;
    return model->texture_count++;
}

/* Textures are refused (with a warning; the material colour is drawn)
 * past these, before any decoding: a 100-byte PNG can claim gigabytes of
 * texels, and a side beyond the GL driver's GL_MAX_TEXTURE_SIZE (16384 on
 * llvmpipe and most desktop GPUs) fails the upload. */
#define SKV_MAX_TEXTURE_SIDE 16384
#define SKV_MAX_TEXTURE_BYTES ((size_t)256 << 20)

static int texture_too_large(importer *im, unsigned width, unsigned height)
{
    if (width > SKV_MAX_TEXTURE_SIDE || height > SKV_MAX_TEXTURE_SIDE)
        snprintf(im->texture_refused, sizeof im->texture_refused, "%ux%u texels, more than %d on a side", width,
                 height, SKV_MAX_TEXTURE_SIDE);
    else if ((size_t)width * height * 4 > SKV_MAX_TEXTURE_BYTES)
        snprintf(im->texture_refused, sizeof im->texture_refused, "%ux%u texels, more than %zu MiB decoded", width,
                 height, SKV_MAX_TEXTURE_BYTES >> 20);
    else
        return 0;
    return 1;
}

/* An image file's bytes, taken over by the texture and kept for
 * import_decode_textures once stb_image has read a valid header from
 * them (freed here if it cannot). */
static int texture_from_owned(importer *im, unsigned char *bytes, int size, const char *key)
{
    int w, h, channels;
    if (size <= 0 || !stbi_info_from_memory(bytes, size, &w, &h, &channels) || w <= 0 || h <= 0 ||
        texture_too_large(im, w, h)) {
        free(bytes);
        return -1;
    }
    return add_texture(im, (skv_texture){.width = w, .height = h, .encoded = bytes, .encoded_size = size}, key);
}

static int texture_from_memory(importer *im, const unsigned char *bytes, int size, const char *key)
{
    if (size <= 0) return -1;
    unsigned char *copy = malloc((size_t)size);
    if (!copy) return texture_out_of_memory(im);
    memcpy(copy, bytes, (size_t)size);
    return texture_from_owned(im, copy, size, key);
}

static int texture_from_embedded(importer *im, const struct aiTexture *tex, const char *key)
{
    if (tex->mHeight == 0) /* compressed (PNG, JPEG ...): mWidth is the byte size */
        return texture_from_memory(im, (const unsigned char *)tex->pcData, (int)tex->mWidth, key);

    /* Raw BGRA texels. */
    if (texture_too_large(im, tex->mWidth, tex->mHeight)) return -1;
    size_t count = (size_t)tex->mWidth * tex->mHeight;
    unsigned char *rgba = malloc(count * 4);
    for (size_t i = 0; rgba && i < count; i++) {
        rgba[i * 4 + 0] = tex->pcData[i].r;
        rgba[i * 4 + 1] = tex->pcData[i].g;
        rgba[i * 4 + 2] = tex->pcData[i].b;
        rgba[i * 4 + 3] = tex->pcData[i].a;
    }
    return add_texture(im, (skv_texture){.width = (int)tex->mWidth, .height = (int)tex->mHeight, .rgba = rgba}, key);
}

/* -2: no such file (the caller tries another name), -1: unreadable. */
static int texture_from_file(importer *im, const char *file, const char *key)
{
    if (access(file, F_OK) != 0) return -2;
    struct stat st;
    if (stat(file, &st) == 0 && !S_ISREG(st.st_mode)) { /* read_whole_file refuses it too, after opening */
        snprintf(im->texture_refused, sizeof im->texture_refused, "%s is not a regular file", file);
        return -1;
    }
    long size = 0;
    errno = 0;
    unsigned char *bytes = read_whole_file(file, &size);
    if (!bytes && (errno == EACCES || errno == EPERM)) /* the guarded import's sandbox (sandbox.h) */
        snprintf(im->texture_refused, sizeof im->texture_refused,
                 "%s is outside the model's folder, the only one the guarded import may read (--trust reads it)",
                 file);
    else if (!bytes && errno == ENOMEM)
        texture_out_of_memory(im);
    return bytes ? texture_from_owned(im, bytes, (int)size, key) : -1; /* no copy of the file */
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

    /* A file: as given relative to the model's folder, then by base name. */
    char file[4096];
    if (ref[0] == '/') snprintf(file, sizeof file, "%s", ref);
    else snprintf(file, sizeof file, "%s/%s", im->folder, ref);
    int t = texture_from_file(im, file, ref);
    if (t == -2) {
        snprintf(file, sizeof file, "%s/%s", im->folder, base_name(ref));
        t = texture_from_file(im, file, ref);
    }
    return t;
}

/* --- texture decoding ---------------------------------------------------- */

typedef struct decode_job {
    skv_texture *textures;
    int count;
    int next; /* shared; taken under the lock */
    int failed;
    pthread_mutex_t lock;
} decode_job;

static void *decode_worker(void *arg)
{
    decode_job *job = arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        int t = job->next < job->count ? job->next++ : -1;
        pthread_mutex_unlock(&job->lock);
        if (t < 0) return NULL;
        skv_texture *tex = &job->textures[t];
        if (!tex->encoded) continue;
        int w, h, channels;
        /* libstb's stb_image allocates with malloc; it keeps no state
         * between calls (the flip setting is never changed here). */
        unsigned char *rgba = stbi_load_from_memory(tex->encoded, tex->encoded_size, &w, &h, &channels, 4);
        free(tex->encoded);
        tex->encoded = NULL;
        tex->encoded_size = 0;
        if (rgba && w == tex->width && h == tex->height) {
            tex->rgba = rgba;
        } else {
            free(rgba);
            pthread_mutex_lock(&job->lock);
            job->failed++;
            pthread_mutex_unlock(&job->lock);
        }
    }
}

int import_decode_textures(skv_model *model)
{
    decode_job job = {.textures = model->textures, .count = model->texture_count};
    int pending = 0;
    for (int t = 0; t < model->texture_count; t++) pending += model->textures[t].encoded != NULL;
    if (pending == 0) return 0;
    pthread_mutex_init(&job.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = (int)(cores < 1 ? 1 : cores > 8 ? 8 : cores);
    if (workers > pending) workers = pending;
    pthread_t threads[8];
    int started = 0;
    for (int i = 1; i < workers; i++)
        if (pthread_create(&threads[started], NULL, decode_worker, &job) == 0) started++;
    decode_worker(&job); /* this thread works too; alone if none started */
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&job.lock);
    if (job.failed)
        model_warn(model, "%d texture(s) could not be decoded; their materials are drawn untextured", job.failed);
    return job.failed;
}
