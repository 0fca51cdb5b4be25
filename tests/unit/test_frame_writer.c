/* test_frame_writer.c - the frame writer's contract (frame_writer.h):
 * every frame handed over is written once, in order, with the pixels it
 * was handed over with, while the caller fills the other buffer; a
 * failed write stops the writing and its error comes back, once, from
 * the next submit or from finish. Runs under ThreadSanitizer too
 * (ctest -L threads). */
#include <string.h>
#include <time.h>

#include "check.h"
#include "frame_writer.h"

enum { BYTES = 4096, MOST = 64 };

typedef struct write_log {
    int written[MOST]; /* indices in the order written */
    int count;
    int torn;          /* a buffer changed while it was being written */
    int fail_at;       /* the frame whose write fails, or -1 */
    int slow;          /* sleep during each write: the caller races ahead */
} write_log;

static void pause_briefly(void)
{
    struct timespec t = {0, 200000}; /* 0.2 ms */
    nanosleep(&t, NULL);
}

/* A frame's pixels: every byte its index plus the byte's place. */
static void fill(unsigned char *rgba, int index)
{
    for (int i = 0; i < BYTES; i++) rgba[i] = (unsigned char)(index * 7 + i);
}

static int holds(const unsigned char *rgba, int index)
{
    for (int i = 0; i < BYTES; i++)
        if (rgba[i] != (unsigned char)(index * 7 + i)) return 0;
    return 1;
}

static skv_result write_frame(void *user, int index, unsigned char *rgba, skv_error *err)
{
    write_log *l = user;
    if (!holds(rgba, index)) l->torn++;
    if (l->slow) pause_briefly();
    if (!holds(rgba, index)) l->torn++; /* the caller wrote into it meanwhile */
    if (index == l->fail_at) return skv_fail(err, SKV_ERR_OUTPUT, "frame %d: disk full", index);
    if (l->count < MOST) l->written[l->count++] = index;
    return SKV_OK;
}

static void check_in_order(int frames, int slow, int threaded)
{
    write_log l = {.fail_at = -1, .slow = slow};
    skv_frame_writer *w;
    skv_error err = {{0}};
    CHECK(frame_writer_create(&w, BYTES, write_frame, &l, threaded, &err) == SKV_OK);
    int submitted = 1;
    for (int i = 0; i < frames; i++) {
        unsigned char *rgba = frame_writer_next(w);
        fill(rgba, i);
        submitted &= frame_writer_submit(w, i, &err) == SKV_OK;
    }
    CHECK(submitted);
    CHECK(frame_writer_finish(w, &err) == SKV_OK);
    frame_writer_destroy(w);
    CHECK(l.count == frames && l.torn == 0);
    int ordered = 1;
    for (int i = 0; i < l.count; i++) ordered &= l.written[i] == i;
    CHECK(ordered);
}

static void check_failure(int fail_at, int frames, int slow, int threaded)
{
    write_log l = {.fail_at = fail_at, .slow = slow};
    skv_frame_writer *w;
    skv_error err = {{0}};
    CHECK(frame_writer_create(&w, BYTES, write_frame, &l, threaded, &err) == SKV_OK);
    skv_result first = SKV_OK;
    int at = -1;
    for (int i = 0; i < frames && first == SKV_OK; i++) {
        fill(frame_writer_next(w), i);
        first = frame_writer_submit(w, i, &err);
        if (first != SKV_OK) at = i;
    }
    if (first == SKV_OK) first = frame_writer_finish(w, &err);
    frame_writer_destroy(w);
    CHECK(first == SKV_ERR_OUTPUT);
    char expected[64];
    snprintf(expected, sizeof expected, "frame %d: disk full", fail_at);
    CHECK(strcmp(err.message, expected) == 0);
    /* Reported by a submit after the failed frame's (or by finish); without
     * a thread by the failed frame's own; nothing after it written. */
    CHECK(threaded ? at < 0 || at > fail_at : at == fail_at);
    CHECK(l.count == fail_at && l.torn == 0);
    int ordered = 1;
    for (int i = 0; i < l.count; i++) ordered &= l.written[i] == i;
    CHECK(ordered);
}

int main(void)
{
    /* On the writer's thread, and without one (each frame written in its
     * hand-over): the same contract. */
    for (int threaded = 1; threaded >= 0; threaded--) {
        for (int frames = 0; frames <= 5; frames++) check_in_order(frames, 0, threaded);
        check_in_order(MOST, 0, threaded);
        check_in_order(MOST, 1, threaded);
        check_failure(0, 10, 0, threaded);
        check_failure(3, 10, 1, threaded);
        check_failure(9, 10, 1, threaded);
        check_failure(5, MOST, 0, threaded);
    }
    /* Destroyed without finish: the frames handed over are written. */
    write_log l = {.fail_at = -1};
    skv_frame_writer *w;
    skv_error err;
    CHECK(frame_writer_create(&w, BYTES, write_frame, &l, 1, &err) == SKV_OK);
    for (int i = 0; i < 3; i++) {
        fill(frame_writer_next(w), i);
        CHECK(frame_writer_submit(w, i, &err) == SKV_OK);
    }
    frame_writer_destroy(w);
    CHECK(l.count == 3 && l.torn == 0);
    frame_writer_destroy(NULL);
    return check_summary();
}
