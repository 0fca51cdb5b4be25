/* frame_writer.c - frames written on a thread of their own (frame_writer.h). */
#include "frame_writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct skv_frame_writer {
    skv_frame_write write;
    void *user;
    unsigned char *buffer[2];
    int fill;              /* the buffer the caller fills next */
    pthread_mutex_t lock;
    pthread_cond_t changed; /* any of the four below changed */
    int queued;            /* the buffer handed over and not yet taken, or -1 */
    int queued_index;
    int writing;           /* the buffer being written, or -1 */
    int stop;              /* the thread ends once the queue is empty */
    skv_result failed;     /* the first failure (SKV_OK: none) */
    skv_error failure;
    int threaded;          /* the thread runs; else submit writes */
    pthread_t thread;
};

static void *writer_run(void *arg)
{
    skv_frame_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->queued < 0 && !w->stop) pthread_cond_wait(&w->changed, &w->lock);
        if (w->queued < 0) break; /* stopped, nothing left */
        int b = w->queued, index = w->queued_index, skip = w->failed != SKV_OK;
        w->queued = -1, w->writing = b;
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->lock);
        skv_error e = {{0}};
        skv_result r = skip ? SKV_OK : w->write(w->user, index, w->buffer[b], &e);
        pthread_mutex_lock(&w->lock);
        if (r != SKV_OK && w->failed == SKV_OK) w->failed = r, w->failure = e;
        w->writing = -1;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

skv_result frame_writer_create(skv_frame_writer **writer, size_t frame_bytes, skv_frame_write write, void *user,
                               int threaded, skv_error *err)
{
    *writer = NULL;
    skv_frame_writer *w = calloc(1, sizeof *w);
    if (!w) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    w->buffer[0] = malloc(frame_bytes > 0 ? frame_bytes : 1);
    w->buffer[1] = malloc(frame_bytes > 0 ? frame_bytes : 1);
    if (!w->buffer[0] || !w->buffer[1]) {
        free(w->buffer[0]);
        free(w->buffer[1]);
        free(w);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    }
    w->write = write, w->user = user;
    w->queued = w->writing = -1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    w->threaded = threaded && pthread_create(&w->thread, NULL, writer_run, w) == 0;
    *writer = w;
    return SKV_OK;
}

unsigned char *frame_writer_next(skv_frame_writer *w)
{
    pthread_mutex_lock(&w->lock);
    while (w->queued == w->fill || w->writing == w->fill) pthread_cond_wait(&w->changed, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->buffer[w->fill];
}

skv_result frame_writer_submit(skv_frame_writer *w, int index, skv_error *err)
{
    if (!w->threaded) {
        if (w->failed == SKV_OK) w->failed = w->write(w->user, index, w->buffer[w->fill], &w->failure);
        if (w->failed != SKV_OK && err) *err = w->failure;
        return w->failed;
    }
    pthread_mutex_lock(&w->lock);
    while (w->queued >= 0 && w->failed == SKV_OK) pthread_cond_wait(&w->changed, &w->lock);
    skv_result r = w->failed;
    if (r == SKV_OK) {
        w->queued = w->fill, w->queued_index = index;
        w->fill ^= 1;
        pthread_cond_broadcast(&w->changed);
    } else if (err) {
        *err = w->failure;
    }
    pthread_mutex_unlock(&w->lock);
    return r;
}

skv_result frame_writer_finish(skv_frame_writer *w, skv_error *err)
{
    pthread_mutex_lock(&w->lock);
    while (w->queued >= 0 || w->writing >= 0) pthread_cond_wait(&w->changed, &w->lock);
    skv_result r = w->failed;
    if (r != SKV_OK && err) *err = w->failure;
    pthread_mutex_unlock(&w->lock);
    return r;
}

void frame_writer_destroy(skv_frame_writer *w)
{
    if (!w) return;
    if (w->threaded) {
        pthread_mutex_lock(&w->lock);
        w->stop = 1;
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
    }
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    free(w->buffer[0]);
    free(w->buffer[1]);
    free(w);
}
