/* walks.c - a model's compiled walks (walks.h): one slot per clip and
 * one for the rest pose, each filled by walk_compile (walk_compile.c) on
 * first use, under one lock. */
#include "walk.h"

#include "layer_lanes.h"

#include <pthread.h>
#include <stdlib.h>

/* One counter for every walks: a generation is never handed out twice
 * (while fewer than 2^32 have been), so a pose that settled on walks
 * since freed does not take new ones at the same address for them. */
static atomic_uint generations;

static unsigned next_generation(void)
{
    return atomic_fetch_add_explicit(&generations, 1, memory_order_relaxed) + 1;
}

/* Slots for the model's clips, none compiled; 0 if memory ran out. */
static int make_slots(skv_walks *walks)
{
    int count = walks->model->clip_count;
    skv_walk_slot *slots = malloc((size_t)(count > 0 ? count : 1) * sizeof *slots);
    if (!slots) return 0;
    for (int c = 0; c < count; c++) {
        slots[c].walk = NULL;
        atomic_init(&slots[c].ready, 0);
        slots[c].lanes = NULL;
        atomic_init(&slots[c].lanes_ready, 0);
    }
    free(walks->clips);
    walks->clips = slots;
    walks->clip_count = count;
    return 1;
}

skv_result walks_create(skv_walks **out, const skv_model *model)
{
    *out = NULL;
    skv_walks *walks = calloc(1, sizeof *walks);
    if (!walks) return SKV_ERR_MEMORY;
    walks->model = model;
    walks->generation = next_generation();
    atomic_init(&walks->rest.ready, 0);
    if (!make_slots(walks)) {
        free(walks);
        return SKV_ERR_MEMORY;
    }
    *out = walks;
    return SKV_OK;
}

/* Every slot emptied, its walk freed, and what they held given back. */
static void drop_walks(skv_walks *walks)
{
    walk_free(walks->rest.walk);
    walks->rest.walk = NULL;
    atomic_store_explicit(&walks->rest.ready, 0, memory_order_release);
    for (int c = 0; c < walks->clip_count; c++) {
        walk_free(walks->clips[c].walk);
        walks->clips[c].walk = NULL;
        atomic_store_explicit(&walks->clips[c].ready, 0, memory_order_release);
        clip_lanes_free(walks->clips[c].lanes);
        walks->clips[c].lanes = NULL;
        atomic_store_explicit(&walks->clips[c].lanes_ready, 0, memory_order_release);
    }
    walks->held = (skv_walk_bytes){0};
}

void walks_destroy(skv_walks *walks)
{
    if (!walks) return;
    drop_walks(walks);
    free(walks->clips);
    free(walks);
}

const skv_model *walks_model(const skv_walks *walks)
{
    return walks->model;
}

skv_result walks_forget(skv_walks *walks)
{
    drop_walks(walks);
    walks->generation = next_generation();
    if (walks->model->clip_count == walks->clip_count) return SKV_OK;
    if (make_slots(walks)) return SKV_OK;
    /* The old slots kept: the clips past them have no walk. */
    if (walks->model->clip_count < walks->clip_count) walks->clip_count = walks->model->clip_count;
    return SKV_ERR_MEMORY;
}

skv_result walks_compile_all(skv_walks *walks)
{
    int ok = 1;
    drop_walks(walks); /* every walk's prepared bytes given back first */
    walks->generation = next_generation(); /* poses settled on the dropped walks settle again */
    ok &= (walks->rest.walk = walk_compile(walks->model, NULL, &walks->held)) != NULL;
    atomic_store_explicit(&walks->rest.ready, 1, memory_order_release);
    for (int c = 0; c < walks->clip_count; c++) {
        ok &= (walks->clips[c].walk = walk_compile(walks->model, &walks->model->clips[c], &walks->held)) != NULL;
        atomic_store_explicit(&walks->clips[c].ready, 1, memory_order_release);
    }
    return ok ? SKV_OK : SKV_ERR_MEMORY;
}

/* One lock for every walks: a clip is compiled once in their life, so
 * waiting on another model's compilation costs nothing that matters. */
static pthread_mutex_t compile_lock = PTHREAD_MUTEX_INITIALIZER;

const skv_walk *walks_clip_compile(skv_walks *walks, int c)
{
    if (c >= walks->clip_count) return NULL;
    skv_walk_slot *slot = c >= 0 ? &walks->clips[c] : &walks->rest;
    if (atomic_load_explicit(&slot->ready, memory_order_acquire)) return slot->walk;
    pthread_mutex_lock(&compile_lock);
    if (!atomic_load_explicit(&slot->ready, memory_order_relaxed)) {
        slot->walk = walk_compile(walks->model, c >= 0 ? &walks->model->clips[c] : NULL, &walks->held);
        atomic_store_explicit(&slot->ready, 1, memory_order_release); /* after the walk is written */
    }
    pthread_mutex_unlock(&compile_lock);
    return slot->walk;
}

const struct skv_clip_lanes *walks_clip_lanes(skv_walks *walks, int c)
{
    if (c < 0 || c >= walks->clip_count) return NULL;
    skv_walk_slot *slot = &walks->clips[c];
    if (atomic_load_explicit(&slot->lanes_ready, memory_order_acquire)) return slot->lanes;
    pthread_mutex_lock(&compile_lock);
    if (!atomic_load_explicit(&slot->lanes_ready, memory_order_relaxed)) {
        slot->lanes = clip_lanes_prepare(walks->model, &walks->model->clips[c], &walks->held.lanes);
        atomic_store_explicit(&slot->lanes_ready, 1, memory_order_release); /* after the lanes are written */
    }
    pthread_mutex_unlock(&compile_lock);
    return slot->lanes;
}
