/* keytimes.h - the times of a clip's keys: where the window's key jumps
 * land (README "Window controls") and what its HUD counts.
 *
 * Usage:
 *     skv_key_times keys;
 *     if (key_times_build(&keys, &model, clip) == SKV_OK) {
 *         double t = key_times_next(&keys, shown_seconds);
 *         int at = key_times_index(&keys, t, &on_key);
 *         key_times_free(&keys);
 *     }
 * A clip's keys are every key of every channel (position, rotation,
 * scale) and of every morph weight channel, in seconds on the clip's time
 * line, those within 0 .. its duration, ascending, times closer than
 * SKV_KEY_TIME_EPSILON taken as one. */
#ifndef SKV_KEYTIMES_H
#define SKV_KEYTIMES_H

#include "error.h"
#include "model.h"

/* Seconds within which two key times are the same key, and a time is on a
 * key. */
#define SKV_KEY_TIME_EPSILON 1e-6

typedef struct skv_key_times {
    double *seconds; /* count, ascending */
    int count;
    double duration; /* the clip's, seconds */
} skv_key_times;

/* The key times of clip `clip` of `model` (none for -1, a clip without
 * keys in range). SKV_ERR_MEMORY when memory runs out (keys is then
 * empty). */
skv_result key_times_build(skv_key_times *keys, const skv_model *model, int clip);
void key_times_free(skv_key_times *keys);

/* The key at or before `seconds` (0-based), -1 before the first; sets
 * `*on_key` when `seconds` is on it. */
int key_times_index(const skv_key_times *keys, double seconds, int *on_key);

/* The first key after `seconds`, the first key again after the last (the
 * clip loops); the last key before it, the last after the first. No keys:
 * `seconds` itself. */
double key_times_next(const skv_key_times *keys, double seconds);
double key_times_previous(const skv_key_times *keys, double seconds);

#endif
