/* crowd.c - posing many characters over a small thread pool. */
#include "crowd.h"
#include "kernels.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Characters per hand-out: big enough that the lock is rare, small enough
 * that the threads finish together. */
enum { CROWD_CHUNK = 32 };

int crowd_columns(int count)
{
    int columns = (int)ceil(sqrt((double)(count > 0 ? count : 1)));
    return columns > 0 ? columns : 1;
}

/* Takes chunks until none are left, posing on thread `thread`'s work
 * block; the palettes' streaming stores are fenced before the caller
 * hears the thread is done. */
static void pose_chunks(skv_crowd *crowd, int thread)
{
    float *work = crowd->scratch + (size_t)thread * crowd->scratch_floats;
    for (;;) {
        pthread_mutex_lock(&crowd->lock);
        int first = crowd->next;
        crowd->next += CROWD_CHUNK;
        pthread_mutex_unlock(&crowd->lock);
        if (first >= crowd->count) break;
        int last = first + CROWD_CHUNK < crowd->count ? first + CROWD_CHUNK : crowd->count;
        for (int i = first; i < last; i++) {
            if (crowd->layers)
                pose_evaluate_layers_lent(&crowd->poses[i], crowd->walks, crowd->clips[i],
                                          crowd->seconds + crowd->offsets[i], crowd->layers, work);
            else
                pose_evaluate_lent(&crowd->poses[i], crowd->walks, crowd->clips[i],
                                   crowd->seconds + crowd->offsets[i], work);
        }
    }
    kernels_get(SKV_WALK_AUTO)->fence();
}

static void *worker_main(void *arg)
{
    struct skv_crowd_worker *me = arg;
    skv_crowd *crowd = me->crowd;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&crowd->lock);
        while (!crowd->stop && crowd->generation == seen) pthread_cond_wait(&crowd->wake, &crowd->lock);
        if (crowd->stop) {
            pthread_mutex_unlock(&crowd->lock);
            return NULL;
        }
        seen = crowd->generation;
        pthread_mutex_unlock(&crowd->lock);

        pose_chunks(crowd, me->index);

        pthread_mutex_lock(&crowd->lock);
        if (--crowd->busy == 0) pthread_cond_signal(&crowd->finished);
        pthread_mutex_unlock(&crowd->lock);
    }
}

skv_result crowd_create(skv_crowd *crowd, skv_walks *walks, int count, int clip, int mixed_clips, int threads)
{
    memset(crowd, 0, sizeof *crowd);
    if (count < 1) return SKV_ERR_MEMORY;
    const skv_model *model = walks->model;
    crowd->walks = walks;
    crowd->model = model;
    crowd->count = count;
    crowd->bone_count = model->skeleton.bone_count > 0 ? model->skeleton.bone_count : 1;
    crowd->poses = calloc((size_t)count, sizeof *crowd->poses);
    crowd->clips = malloc((size_t)count * sizeof *crowd->clips);
    crowd->offsets = malloc((size_t)count * sizeof *crowd->offsets);
    crowd->palettes = aligned_alloc(64, ((size_t)count * (size_t)crowd->bone_count * SKV_ROWS_FLOATS * sizeof(float) + 63) /
                                            64 * 64);
    if (threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores > 0 ? (int)cores : 1;
    }
    size_t nodes = model->skeleton.node_count > 0 ? (size_t)model->skeleton.node_count : 1;
    crowd->scratch_floats = 2 * nodes * 16;
    crowd->scratch = aligned_alloc(64, (size_t)threads * crowd->scratch_floats * sizeof(float));
    crowd->worker_args = calloc((size_t)threads, sizeof *crowd->worker_args);
    if (!crowd->poses || !crowd->clips || !crowd->offsets || !crowd->palettes || !crowd->scratch ||
        !crowd->worker_args) {
        crowd_destroy(crowd);
        return SKV_ERR_MEMORY;
    }
    /* Lent poses have no reference path to fall back on: every clip they
     * play needs its walk. */
    for (int i = 0; i < (mixed_clips ? model->clip_count : 1); i++) {
        if (!walks_clip(walks, mixed_clips ? i : clip)) {
            crowd_destroy(crowd);
            return SKV_ERR_MEMORY;
        }
    }
    for (int i = 0; i < count; i++) {
        int c = mixed_clips && model->clip_count > 0 ? i % model->clip_count : clip;
        crowd->clips[i] = c;
        /* Offsets by the golden ratio: neighbours never move in step. */
        double seconds = c >= 0 ? model->clips[c].duration_ticks / model->clips[c].ticks_per_second : 0.0;
        crowd->offsets[i] = seconds * fmod(i * 0.6180339887498949, 1.0);
        if (pose_create_lent(&crowd->poses[i], &model->skeleton,
                             &crowd->palettes[(size_t)i * crowd->bone_count * SKV_ROWS_FLOATS]) != SKV_OK) {
            crowd->count = i; /* destroy only the poses made */
            crowd_destroy(crowd);
            return SKV_ERR_MEMORY;
        }
    }

    pthread_mutex_init(&crowd->lock, NULL);
    pthread_cond_init(&crowd->wake, NULL);
    pthread_cond_init(&crowd->finished, NULL);
    crowd->synced = 1;
    int wanted = threads - 1; /* the caller is one of them */
    if (wanted > 0) {
        crowd->workers = calloc((size_t)wanted, sizeof *crowd->workers);
        for (int w = 0; crowd->workers && w < wanted; w++) {
            struct skv_crowd_worker *arg = &crowd->worker_args[crowd->worker_count + 1]; /* 0: the caller */
            *arg = (struct skv_crowd_worker){crowd, crowd->worker_count + 1};
            if (pthread_create(&crowd->workers[crowd->worker_count], NULL, worker_main, arg) == 0)
                crowd->worker_count++;
        }
    }
    return SKV_OK;
}

void crowd_destroy(skv_crowd *crowd)
{
    if (crowd->synced) {
        pthread_mutex_lock(&crowd->lock);
        crowd->stop = 1;
        pthread_cond_broadcast(&crowd->wake);
        pthread_mutex_unlock(&crowd->lock);
        for (int w = 0; w < crowd->worker_count; w++) pthread_join(crowd->workers[w], NULL);
        pthread_cond_destroy(&crowd->wake);
        pthread_cond_destroy(&crowd->finished);
        pthread_mutex_destroy(&crowd->lock);
    }
    for (int i = 0; crowd->poses && i < crowd->count; i++) pose_destroy(&crowd->poses[i]);
    free(crowd->workers);
    free(crowd->poses);
    free(crowd->clips);
    free(crowd->offsets);
    free(crowd->palettes);
    free(crowd->scratch);
    free(crowd->worker_args);
    memset(crowd, 0, sizeof *crowd);
}

void crowd_set_layers(skv_crowd *crowd, const skv_layers *layers)
{
    crowd->layers = layers;
}

void crowd_evaluate(skv_crowd *crowd, double seconds)
{
    pthread_mutex_lock(&crowd->lock);
    crowd->seconds = seconds;
    crowd->next = 0;
    crowd->busy = crowd->worker_count;
    crowd->generation++;
    pthread_cond_broadcast(&crowd->wake);
    pthread_mutex_unlock(&crowd->lock);

    pose_chunks(crowd, 0);

    pthread_mutex_lock(&crowd->lock);
    while (crowd->busy > 0) pthread_cond_wait(&crowd->finished, &crowd->lock);
    pthread_mutex_unlock(&crowd->lock);
}
