/* test_guard.c - the guarded import's parent (src/import/guard.c) never
 * waits on its child past the import's deadline (--import-timeout): a
 * child taken over by a hostile file may do anything its sandbox allows,
 * and the window must not freeze. Each case hands guarded_import a work
 * function that misbehaves in the child as such a child could: closes
 * its pipes and sleeps or spins; sleeps or spins with them open; floods
 * the message, block or size pipe; writes a valid block (into the memfd
 * or the pipe) and then sleeps, with or without a message line and with
 * its pipes closed or open. Each must come back with one error line
 * within the timeout and a small margin, its child killed and reaped;
 * a good child's model and a child's own error come back at once.
 *
 * The work runs after sandbox_enter, which leaves it the message, block
 * and size pipes (writable FIFOs, in that order: guarded_import makes
 * them so) and the memfd (a regular file). Each case runs in a process of
 * its own, so that a parent that does hang fails its case (killed after
 * a limit) instead of the test; the child dies with it (PR_SET_PDEATHSIG).
 *
 * Usage: test_guard MODEL (imported trusted: the valid block). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blob.h"
#include "check.h"
#include "import.h"
#include "import_internal.h"

/* The deadline each hanging case runs under, and what it may take past it
 * (a kill and a reap: milliseconds; room for a loaded machine and the
 * sanitizer builds). */
static const double TIMEOUT = 1.0, MARGIN = 0.5;

static skv_model good_model;

enum { FD_MESSAGE, FD_BLOCK, FD_SIZE, FD_MEMFD, FD_KINDS };

/* The child's descriptors, as sandbox_enter left them. */
static void find_fds(int fds[FD_KINDS])
{
    int fifos = 0;
    for (int k = 0; k < FD_KINDS; k++) fds[k] = -1;
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        if (fstat(fd, &st) != 0) continue;
        if (S_ISFIFO(st.st_mode) && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY && fifos < 3) fds[fifos++] = fd;
        else if (S_ISREG(st.st_mode)) fds[FD_MEMFD] = fd;
    }
}

static void close_all(void)
{
    for (int fd = 3; fd < 1024; fd++) close(fd);
}

static void sleep_forever(void)
{
    for (;;) pause();
}

static void spin_forever(void)
{
    volatile unsigned long n = 0;
    for (;;) n++;
}

static void write_all(int fd, const void *bytes, size_t size)
{
    const char *p = bytes;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n <= 0) return;
        p += n, size -= (size_t)n;
    }
}

static void write_block(int fd)
{
    int error = 0;
    skv_error err;
    blob_write_fd(&good_model, 0, fd, &error, &err);
}

typedef enum behaviour {
    GOOD,                    /* hands the model back */
    OWN_ERROR,               /* fails with its own line and code */
    CLOSE_SLEEP,             /* closes its pipes, sleeps */
    CLOSE_SPIN,              /* closes its pipes, spins */
    SLEEP,                   /* sleeps, pipes open */
    SPIN,                    /* spins, pipes open */
    FLOOD_MESSAGE,           /* writes its message pipe without end */
    FLOOD_BLOCK,             /* writes its block pipe past the block's limit */
    TRICKLE_BLOCK,           /* writes its block pipe a byte at a time, never past the limit */
    FLOOD_SIZE,              /* writes its size pipe without end */
    BLOCK_SLEEP,             /* a valid block into the memfd, sleeps, pipes open */
    PIPE_BLOCK_SLEEP,        /* a valid block through the pipe, sleeps, pipes open */
    BLOCK_CLOSE_SLEEP,       /* a valid block, closes its pipes, sleeps: handed over */
    BLOCK_MESSAGE_SLEEP,     /* a valid block and a message, sleeps, pipes open */
    BLOCK_MESSAGE_CLOSE_SLEEP, /* a valid block and a message, closes its pipes, sleeps */
    PIPE_BLOCK_MESSAGE_CLOSE_SLEEP, /* the same through the pipe */
    MESSAGE_CLOSE_SLEEP,     /* a message alone, closes its pipes, sleeps */
    BAD_BLOCK_CLOSE_SLEEP,   /* a malformed block, closes its pipes, sleeps */
    BEHAVIOURS
} behaviour;

static const char *const behaviour_names[BEHAVIOURS] = {
    "hands its model back", "fails with its own error", "closes its pipes and sleeps",
    "closes its pipes and spins", "sleeps with its pipes open", "spins with its pipes open",
    "floods its message pipe", "floods its block pipe", "trickles into its block pipe", "floods its size pipe",
    "writes a valid block and sleeps", "writes a valid block through the pipe and sleeps",
    "writes a valid block, closes its pipes and sleeps",
    "writes a valid block and a message and sleeps",
    "writes a valid block and a message, closes its pipes and sleeps",
    "writes a valid block through the pipe and a message, closes its pipes and sleeps",
    "writes a message, closes its pipes and sleeps", "writes a malformed block, closes its pipes and sleeps"};

static skv_result misbehave(void *arg, guard_channel *channel, skv_model *out, int64_t *extra, skv_error *err)
{
    (void)channel;
    behaviour b = (behaviour)(intptr_t)arg;
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a case's process that hangs and is killed takes this with it */
    int fds[FD_KINDS];
    find_fds(fds);
    static char flood[1 << 16];
    memset(flood, 'x', sizeof flood);
    static const char message[] = "cannot import: a message the child made up";
    switch (b) {
    case GOOD:
        *out = good_model;
        *extra = 0;
        return SKV_OK;
    case OWN_ERROR:
        return skv_fail(err, SKV_ERR_CONTENT, "the child's own error");
    case CLOSE_SLEEP:
        close_all();
        sleep_forever();
        break;
    case CLOSE_SPIN:
        close_all();
        spin_forever();
        break;
    case SLEEP:
        sleep_forever();
        break;
    case SPIN:
        spin_forever();
        break;
    case FLOOD_MESSAGE:
    case FLOOD_BLOCK:
    case FLOOD_SIZE: {
        int fd = fds[b == FLOOD_MESSAGE ? FD_MESSAGE : b == FLOOD_BLOCK ? FD_BLOCK : FD_SIZE];
        for (;;)
            if (write(fd, flood, sizeof flood) < 0) sleep_forever(); /* the parent gave up */
    }
    case TRICKLE_BLOCK:
        for (;;) {
            write_all(fds[FD_BLOCK], "x", 1);
            usleep(10000);
        }
    case BLOCK_SLEEP:
        write_block(fds[FD_MEMFD]);
        sleep_forever();
        break;
    case PIPE_BLOCK_SLEEP:
        write_block(fds[FD_BLOCK]);
        sleep_forever();
        break;
    case BLOCK_CLOSE_SLEEP:
        write_block(fds[FD_MEMFD]);
        close_all();
        sleep_forever();
        break;
    case BLOCK_MESSAGE_SLEEP:
        write_block(fds[FD_MEMFD]);
        write_all(fds[FD_MESSAGE], message, strlen(message));
        sleep_forever();
        break;
    case BLOCK_MESSAGE_CLOSE_SLEEP:
    case PIPE_BLOCK_MESSAGE_CLOSE_SLEEP:
        write_block(fds[b == BLOCK_MESSAGE_CLOSE_SLEEP ? FD_MEMFD : FD_BLOCK]);
        write_all(fds[FD_MESSAGE], message, strlen(message));
        close_all();
        sleep_forever();
        break;
    case MESSAGE_CLOSE_SLEEP:
        write_all(fds[FD_MESSAGE], message, strlen(message));
        close_all();
        sleep_forever();
        break;
    case BAD_BLOCK_CLOSE_SLEEP:
        write_all(fds[FD_MEMFD], "SKVMODEL but not one", 20);
        close_all();
        sleep_forever();
        break;
    case BEHAVIOURS:
        break;
    }
    return SKV_ERR_IMPORT;
}

/* What a case's process reports. */
typedef struct outcome {
    skv_result result;
    double seconds;
    int children_left; /* unreaped children after guarded_import returned */
    char message[sizeof(skv_error)];
} outcome;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs one case in a process of its own; 0 and *out, or -1 if that
 * process did not report within `limit` seconds (killed). */
static int run_case(const char *path, behaviour b, outcome *out, double limit)
{
    int report[2];
    if (pipe(report) != 0) return -1;
    fflush(NULL);
    pid_t runner = fork();
    if (runner < 0) return -1;
    if (runner == 0) {
        close(report[0]);
        skv_import_desc desc = {.timeout_seconds = TIMEOUT, .memory_limit_mb = 64};
        skv_model model;
        int64_t extra = 0;
        skv_error err = {{0}};
        outcome o = {0};
        double start = now();
        o.result = guarded_import(path, &desc, misbehave, (void *)(intptr_t)b, 0, &model, &extra, &err);
        o.seconds = now() - start;
        o.children_left = waitpid(-1, NULL, WNOHANG) != -1 || errno != ECHILD;
        if (o.result == SKV_OK) model_free(&model);
        else snprintf(o.message, sizeof o.message, "%s", err.message);
        write_all(report[1], &o, sizeof o);
        _exit(0);
    }
    close(report[1]);
    double start = now();
    int status = 0, done = 0;
    while (!(done = waitpid(runner, &status, WNOHANG) == runner) && now() - start < limit) usleep(5000);
    if (!done) {
        kill(runner, SIGKILL);
        waitpid(runner, &status, 0);
    }
    ssize_t got = done ? read(report[0], out, sizeof *out) : -1;
    close(report[0]);
    return got == (ssize_t)sizeof *out ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_guard MODEL\n");
        return 2;
    }
    skv_error err = {{0}};
    CHECK(import_model(argv[1], &(skv_import_desc){.trusted = 1}, &good_model, &err) == SKV_OK);
    for (int t = 0; t < good_model.texture_count; t++) { /* the child hands back no texels */
        free(good_model.textures[t].rgba);
        good_model.textures[t] = (skv_texture){0};
    }
    for (behaviour b = 0; b < BEHAVIOURS; b++) {
        outcome o;
        if (run_case(argv[1], b, &o, TIMEOUT + 10.0) != 0) {
            printf("%-80s: still waiting after %g s\n", behaviour_names[b], TIMEOUT + 10.0);
            CHECK(!"the parent waited past its deadline");
            continue;
        }
        printf("%-80s: %.3f s, %s\n", behaviour_names[b], o.seconds, o.result == SKV_OK ? "handed back" : o.message);
        CHECK(!o.children_left);
        CHECK(strchr(o.message, '\n') == NULL);
        switch (b) {
        case GOOD:
        case BLOCK_CLOSE_SLEEP: /* the block is whole and the child said nothing more: taken, the child killed */
            CHECK(o.result == SKV_OK);
            CHECK(o.seconds < TIMEOUT / 2);
            break;
        case OWN_ERROR:
            CHECK(o.result == SKV_ERR_CONTENT && strcmp(o.message, "the child's own error") == 0);
            CHECK(o.seconds < TIMEOUT / 2);
            break;
        case FLOOD_BLOCK: /* past the block's limit: refused at once */
            CHECK(o.result == SKV_ERR_IMPORT && strstr(o.message, "larger than its memory budget"));
            CHECK(o.seconds < TIMEOUT + MARGIN);
            break;
        default:
            CHECK(o.result == SKV_ERR_IMPORT && strstr(o.message, "within 1 s"));
            CHECK(o.seconds >= TIMEOUT * 0.9 && o.seconds < TIMEOUT + MARGIN);
            break;
        }
    }
    model_free(&good_model);
    return check_summary();
}
