/* keytimes.c - the times of a clip's keys. */
#include "keytimes.h"

#include <stdlib.h>
#include <string.h>

static int compare_seconds(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

skv_result key_times_build(skv_key_times *keys, const skv_model *model, int clip)
{
    memset(keys, 0, sizeof *keys);
    if (clip < 0 || clip >= model->clip_count) return SKV_OK;
    const skv_clip *c = &model->clips[clip];
    keys->duration = c->duration_ticks / c->ticks_per_second;
    size_t total = 0;
    for (int k = 0; k < c->channel_count; k++)
        total += (size_t)c->channels[k].position_count + c->channels[k].rotation_count + c->channels[k].scale_count;
    for (int k = 0; k < c->morph_channel_count; k++) total += (size_t)c->morph_channels[k].key_count;
    if (total == 0) return SKV_OK;
    double *seconds = malloc(total * sizeof *seconds);
    if (!seconds) return SKV_ERR_MEMORY;
    size_t n = 0;
    double last = keys->duration + SKV_KEY_TIME_EPSILON;
#define KEEP(ticks)                                                                        \
    do {                                                                                   \
        double s_ = (ticks) / c->ticks_per_second;                                         \
        if (s_ >= -SKV_KEY_TIME_EPSILON && s_ <= last) seconds[n++] = s_ < 0.0 ? 0.0 : s_; \
    } while (0)
    for (int k = 0; k < c->channel_count; k++) {
        const skv_channel *ch = &c->channels[k];
        for (int i = 0; i < ch->position_count; i++) KEEP(ch->positions[i].time);
        for (int i = 0; i < ch->rotation_count; i++) KEEP(ch->rotations[i].time);
        for (int i = 0; i < ch->scale_count; i++) KEEP(ch->scales[i].time);
    }
    for (int k = 0; k < c->morph_channel_count; k++)
        for (int i = 0; i < c->morph_channels[k].key_count; i++) KEEP(c->morph_channels[k].times[i]);
#undef KEEP
    qsort(seconds, n, sizeof *seconds, compare_seconds);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || seconds[i] - seconds[unique - 1] > SKV_KEY_TIME_EPSILON) seconds[unique++] = seconds[i];
    if (unique == 0) {
        free(seconds);
        return SKV_OK;
    }
    keys->seconds = seconds;
    keys->count = (int)unique;
    return SKV_OK;
}

void key_times_free(skv_key_times *keys)
{
    free(keys->seconds);
    memset(keys, 0, sizeof *keys);
}

int key_times_index(const skv_key_times *keys, double seconds, int *on_key)
{
    /* The last key at or before seconds (+ epsilon): a binary search. */
    int lo = 0, hi = keys->count; /* the answer + 1 is in [lo, hi] */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (keys->seconds[mid] <= seconds + SKV_KEY_TIME_EPSILON) lo = mid + 1;
        else hi = mid;
    }
    int at = lo - 1;
    if (on_key) *on_key = at >= 0 && seconds - keys->seconds[at] <= SKV_KEY_TIME_EPSILON;
    return at;
}

double key_times_next(const skv_key_times *keys, double seconds)
{
    if (keys->count == 0) return seconds;
    int at = key_times_index(keys, seconds, NULL);
    return at + 1 < keys->count ? keys->seconds[at + 1] : keys->seconds[0];
}

double key_times_previous(const skv_key_times *keys, double seconds)
{
    if (keys->count == 0) return seconds;
    int on_key, at = key_times_index(keys, seconds, &on_key);
    int before = on_key ? at - 1 : at; /* between keys: the one before is `at` */
    return before >= 0 ? keys->seconds[before] : keys->seconds[keys->count - 1];
}
