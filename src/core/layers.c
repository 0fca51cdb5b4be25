/* layers.c - layers compiled for one model (layers.h): masks resolved to
 * per-node bits, additive references sampled, rest transforms decomposed,
 * once, so that a layered frame (pose.c, pose_evaluate_layers) reads
 * arrays only. */
#include "layers.h"
#include "layer_lanes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* One counter for every layers made (as walks.c's generations): a pose's
 * plan names the layers it was made for by this, not by address. */
static atomic_uint generations;

static int mat_affine(const mat4 m)
{
    return m[0][3] == 0.0f && m[1][3] == 0.0f && m[2][3] == 0.0f && m[3][3] == 1.0f;
}

/* A node's T, R, S in clip c at `ticks`: its keys, or its rest transform
 * where c has no channel for it (anim_ref.c's rule, the same calls). */
static void node_trs(const skv_skeleton *sk, const skv_clip *c, double ticks, int n, skv_trs *out)
{
    int ch = c ? c->node_channel[n] : -1;
    if (ch >= 0) keys_channel_trs(&c->channels[ch], ticks, out->t, out->r, out->s);
    else anim_decompose(sk->rest_local[n], out->t, out->r, out->s);
}

static skv_result check_desc(const skv_model *model, const skv_layer_desc *d, int i, skv_error *err)
{
    if (d->clip < 0 || d->clip >= model->clip_count)
        return skv_fail(err, SKV_ERR_ARGUMENT, "layer %d: no clip %d (the model has %d)", i + 1, d->clip,
                        model->clip_count);
    if (d->additive && d->reference_clip >= model->clip_count)
        return skv_fail(err, SKV_ERR_ARGUMENT, "layer %d: no reference clip %d (the model has %d)", i + 1,
                        d->reference_clip, model->clip_count);
    if (d->mask_count < 0 || (d->mask_count > 0 && !d->mask))
        return skv_fail(err, SKV_ERR_ARGUMENT, "layer %d: a mask of %d nodes without nodes", i + 1, d->mask_count);
    for (int k = 0; k < d->mask_count; k++)
        if (d->mask[k] < 0 || d->mask[k] >= model->skeleton.node_count)
            return skv_fail(err, SKV_ERR_ARGUMENT, "layer %d: no node %d (the model has %d)", i + 1, d->mask[k],
                            model->skeleton.node_count);
    if (!(d->weight >= 0.0f && d->weight <= 1.0f))
        return skv_fail(err, SKV_ERR_ARGUMENT, "layer %d: weight %g not in [0, 1]", i + 1, (double)d->weight);
    return SKV_OK;
}

skv_result layers_create(skv_layers **out, const skv_model *model, const skv_layer_desc *desc, int count,
                         skv_error *err)
{
    *out = NULL;
    if (count < 0 || count > SKV_LAYERS_MAX)
        return skv_fail(err, SKV_ERR_ARGUMENT, "%d layers (at most %d)", count, SKV_LAYERS_MAX);
    for (int i = 0; i < count; i++) {
        skv_result r = check_desc(model, &desc[i], i, err);
        if (r != SKV_OK) return r;
    }
    const skv_skeleton *sk = &model->skeleton;
    size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1;
    skv_layers *l = calloc(1, sizeof *l);
    if (!l) return skv_fail(err, SKV_ERR_MEMORY, "out of memory for the layers");
    l->count = count;
    l->node_count = sk->node_count;
    l->node_layers = calloc(nodes, sizeof *l->node_layers);
    l->animated = calloc(nodes, 1);
    l->rest = malloc(nodes * sizeof *l->rest);
    l->reference = calloc(nodes * (size_t)(count > 0 ? count : 1), sizeof *l->reference);
    size_t bones = sk->bone_count > 0 ? (size_t)sk->bone_count : 0;
    size_t constants = 1 + bones + (size_t)(sk->node_count > 0 ? sk->node_count : 0);
    l->constants = aligned_alloc(64, constants * sizeof(mat4));
    unsigned char *marked = calloc(nodes, 1);
    if (!l->node_layers || !l->animated || !l->rest || !l->reference || !l->constants || !marked) {
        free(marked);
        layers_destroy(l);
        return skv_fail(err, SKV_ERR_MEMORY, "out of memory for the layers");
    }
    for (int n = 0; n < sk->node_count; n++) anim_decompose(sk->rest_local[n], l->rest[n].t, l->rest[n].r, l->rest[n].s);
    l->generation = atomic_fetch_add_explicit(&generations, 1, memory_order_relaxed) + 1;
    glm_mat4_copy((vec4 *)model->global_inverse, l->constants[0]);
    l->affine = 1;
    for (int b = 0; b < sk->bone_count; b++) {
        glm_mat4_copy((vec4 *)sk->bone_offset[b], l->constants[1 + b]);
        l->affine &= mat_affine(sk->bone_offset[b]);
    }
    for (int n = 0; n < sk->node_count; n++) {
        glm_mat4_copy((vec4 *)sk->rest_local[n], l->constants[1 + bones + (size_t)n]);
        l->affine &= mat_affine(sk->rest_local[n]);
    }
    int placed = 0;
    for (int pass = 0; pass < 2; pass++) /* overrides first, then additives, each in the order given */
        for (int i = 0; i < count; i++)
            if ((desc[i].additive != 0) == pass) l->order[placed++] = i;
    for (int i = 0; i < count; i++) {
        const skv_layer_desc *d = &desc[i];
        l->clip[i] = d->clip;
        l->additive[i] = d->additive != 0;
        l->reference_clip[i] = d->additive ? (d->reference_clip >= 0 ? d->reference_clip : d->clip) : -1;
        l->weight[i] = d->weight;
        /* The mask: its nodes marked, then each node that has a marked
         * node at or above it (the parents walked: no order assumed). */
        memset(marked, 0, nodes);
        for (int k = 0; k < d->mask_count; k++) marked[d->mask[k]] = 1;
        for (int n = 0; n < sk->node_count; n++) {
            int in = d->mask_count == 0;
            for (int p = n, steps = 0; !in && p >= 0 && steps <= sk->node_count; p = sk->parents[p], steps++)
                in = marked[p];
            if (in) l->node_layers[n] |= (uint32_t)1 << i;
        }
        const skv_clip *c = &model->clips[d->clip];
        const skv_clip *ref = l->additive[i] ? &model->clips[l->reference_clip[i]] : NULL;
        for (int n = 0; n < sk->node_count; n++) {
            if (c->node_channel[n] >= 0 || (ref && ref->node_channel[n] >= 0)) l->animated[n] = 1;
            if (!ref) continue;
            skv_trs *r = &l->reference[(size_t)i * nodes + (size_t)n];
            node_trs(sk, ref, 0.0, n, r); /* time 0: the first keys */
            layer_reference_form(r);
        }
    }
    free(marked);
    size_t held = 0; /* the layers' own budget of prepared lanes (layer_lanes.c) */
    for (int i = 0; i < count; i++)
        if (l->additive[i])
            l->delta_lanes[i] =
                clip_lanes_prepare_delta(model, &model->clips[l->clip[i]], &l->reference[(size_t)i * nodes], &held);
    *out = l;
    return SKV_OK;
}

void layers_destroy(skv_layers *layers)
{
    if (!layers) return;
    for (int i = 0; i < SKV_LAYERS_MAX; i++) clip_lanes_free(layers->delta_lanes[i]);
    free(layers->node_layers);
    free(layers->animated);
    free(layers->reference);
    free(layers->rest);
    free(layers->constants);
    free(layers);
}

float layers_effective_weight(const skv_layers *layers, int i)
{
    if (i < 0 || i >= layers->count || layers->muted[i]) return 0.0f;
    float w = layers->weight[i];
    return w > 0.0f ? (w < 1.0f ? w : 1.0f) : 0.0f;
}
