/* crowd.h - many characters of one model, posed on all cores.
 *
 * Each character has its own time offset (and clip), its own pose buffers
 * and key cursors, and writes its palette into one buffer, character after
 * character: the renderer hands that buffer to the GPU as it is and draws
 * every character in one instanced draw per mesh (render.h). */
#ifndef SKV_CROWD_H
#define SKV_CROWD_H

#include <pthread.h>

#include "anim.h"
#include "error.h"
#include "layers.h"
#include "model.h"
#include "walks.h"

typedef struct skv_crowd {
    skv_walks *walks; /* the characters pose through them */
    const skv_model *model; /* theirs */
    int count;
    int bone_count;   /* palette matrices per character */
    skv_pose *poses;  /* per character */
    int *clips;       /* per character: clip index, or -1 */
    double *offsets;  /* per character: seconds added to the scene time */
    const skv_layers *layers; /* crowd_set_layers: every character's (NULL: none) */
    /* count * bone_count palette entries, character-major, each a 3x4
     * row-major matrix (SKV_ROWS_FLOATS floats: rows 0-2 of the 4x4, the
     * bottom row is 0 0 0 1), written with streaming stores; the renderer
     * uploads it as it is (3 texels per bone). */
    float *palettes;

    /* Per thread (the caller first, then each worker) one pose work block,
     * lent to each character it poses: it stays in the cache. */
    float *scratch;
    size_t scratch_floats; /* per thread */
    struct skv_crowd_worker {
        struct skv_crowd *crowd;
        int index;
    } *worker_args;

    /* A small pool of worker threads (pthreads); the calling thread
     * works too. Characters are handed out in chunks from `next`. */
    int worker_count;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake, finished;
    unsigned generation; /* bumped per evaluation; workers wait for a new one */
    int busy;            /* workers still on the current generation */
    int stop;
    int synced;          /* lock and conditions initialised */
    int next;            /* next character to take (under lock) */
    double seconds;
} skv_crowd;

/* `count` characters of the walks' model posed through `walks` (which,
 * with their model, must outlive the crowd) playing `clip`, or with
 * `mixed_clips` cycling through all clips; time offsets spread evenly
 * over the clip. `threads`: total threads to pose with, 0 = one per
 * core. SKV_ERR_MEMORY when memory or threads run out. */
skv_result crowd_create(skv_crowd *crowd, skv_walks *walks, int count, int clip, int mixed_clips, int threads);
void crowd_destroy(skv_crowd *crowd);

/* Every character plays `layers` (compiled for the crowd's model, kept
 * by the caller while the crowd uses them; NULL: none) over its clip, at
 * its own time (layers.h, pose_evaluate_layers). */
void crowd_set_layers(skv_crowd *crowd, const skv_layers *layers);

/* Poses every character at scene time `seconds` into crowd->palettes. */
void crowd_evaluate(skv_crowd *crowd, double seconds);

/* The number of grid columns for `count` characters (the grid is about
 * square), shared by the renderer and the camera: character i stands at
 * column i % columns, row i / columns, on the ground plane (x, z) of the
 * upright scene, as far apart as the scene chooses (scene.h:
 * grid_spacing). */
int crowd_columns(int count);

#endif
