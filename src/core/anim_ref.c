/* anim_ref.c - the reference evaluator: key sampling (keys.h, the ground
 * floor it shares with the fast path), hierarchy walk and palette
 * written the way the textbook does, node by node. It is the
 * specification pose_evaluate (pose.c) is tested against, and what the
 * independent evaluators of tests/tools/oracle check. */
#include "anim.h"
#include "keys.h"
#include "layers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void anim_sample(const skv_skeleton *skeleton, const skv_clip *clip,
                 double ticks, mat4 *local)
{
    for (int n = 0; n < skeleton->node_count; n++) {
        int c = clip ? clip->node_channel[n] : -1;
        if (c < 0) {
            glm_mat4_copy(skeleton->rest_local[n], local[n]);
            continue;
        }
        const skv_channel *ch = &clip->channels[c];
        float t[3], s[3], q[4];
        keys_channel_trs(ch, ticks, t, q, s);
        keys_local(t, q, s, local[n]);
    }
}

void skeleton_pose(const skv_skeleton *skeleton, const mat4 *local, mat4 *global)
{
    for (int n = 0; n < skeleton->node_count; n++) {
        int p = skeleton->parents[n];
        if (p < 0) glm_mat4_copy((vec4 *)local[n], global[n]);
        else glm_mat4_mul((vec4 *)global[p], (vec4 *)local[n], global[n]);
    }
}

void skin_palette(const skv_skeleton *skeleton, const mat4 *global,
                  const mat4 global_inverse, mat4 *palette)
{
    for (int b = 0; b < skeleton->bone_count; b++) {
        int n = skeleton->bone_node[b];
        if (n < 0) {
            glm_mat4_identity(palette[b]);
            continue;
        }
        mat4 node_to_model;
        glm_mat4_mul((vec4 *)global_inverse, (vec4 *)global[n], node_to_model);
        glm_mat4_mul(node_to_model, skeleton->bone_offset[b], palette[b]);
    }
}

void anim_inverse(const mat4 m, mat4 out)
{
    int affine = m[0][3] == 0.0f && m[1][3] == 0.0f && m[2][3] == 0.0f && m[3][3] == 1.0f;
    glm_mat4_inv((vec4 *)m, out);
    if (affine) out[0][3] = 0.0f, out[1][3] = 0.0f, out[2][3] = 0.0f, out[3][3] = 1.0f;
}

/* A quaternion at unit length (identity for a zero one). */
static inline void quat_unit(const float q[4], float out[4])
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] = q[k] * inv;
}

void anim_decompose(const mat4 m, float t_out[3], float q_out[4], float s_out[3])
{
    vec4 t;
    mat4 r;
    vec3 s;
    glm_decompose((vec4 *)m, t, r, s);
    if (glm_mat4_det(r) < 0.0f) { /* mirrored: the reflection goes into the scale */
        glm_vec4_negate(r[0]);
        s[0] = -s[0];
    }
    versor q;
    glm_mat4_quat(r, q);
    memcpy(t_out, t, 3 * sizeof(float));
    quat_unit(q, q_out);
    memcpy(s_out, s, 3 * sizeof(float));
}


/* A node's T, R, S in clip c at `ticks`: its keys, or its rest transform
 * decomposed where c has no channel for it. */
static void ref_node_trs(const skv_skeleton *sk, const skv_clip *c, double ticks, int n, skv_trs *out)
{
    int ch = c ? c->node_channel[n] : -1;
    if (ch >= 0) keys_channel_trs(&c->channels[ch], ticks, out->t, out->r, out->s);
    else anim_decompose(sk->rest_local[n], out->t, out->r, out->s);
}

/* Is node n one of the mask's nodes or below one? No mask: every node. */
static int ref_in_mask(const skv_skeleton *sk, const skv_layer_desc *d, int n)
{
    if (d->mask_count == 0) return 1;
    for (int p = n, steps = 0; p >= 0 && steps <= sk->node_count; p = sk->parents[p], steps++)
        for (int k = 0; k < d->mask_count; k++)
            if (d->mask[k] == p) return 1;
    return 0;
}

static int ref_reference_clip(const skv_layer_desc *d)
{
    return d->reference_clip >= 0 ? d->reference_clip : d->clip;
}

void anim_sample_layers(const skv_model *model, int base, double seconds, const skv_layer_desc *desc, int count,
                        mat4 *local)
{
    const skv_skeleton *sk = &model->skeleton;
    const skv_clip *c = base >= 0 && base < model->clip_count ? &model->clips[base] : NULL;
    double ticks = c ? keys_clip_ticks(c, seconds) : 0.0;
    for (int n = 0; n < sk->node_count; n++) {
        /* A node no clip involved animates keeps its rest matrix. */
        int animated = c && c->node_channel[n] >= 0;
        for (int i = 0; i < count && !animated; i++) {
            animated = model->clips[desc[i].clip].node_channel[n] >= 0;
            if (desc[i].additive) animated |= model->clips[ref_reference_clip(&desc[i])].node_channel[n] >= 0;
        }
        if (!animated) {
            glm_mat4_copy(sk->rest_local[n], local[n]);
            continue;
        }
        skv_trs cur;
        ref_node_trs(sk, c, ticks, n, &cur);
        for (int pass = 0; pass < 2; pass++) /* overrides, then additives, each in order */
            for (int i = 0; i < count; i++) {
                const skv_layer_desc *d = &desc[i];
                if ((d->additive != 0) != pass || !ref_in_mask(sk, d, n)) continue;
                float w = d->weight > 0.0f ? (d->weight < 1.0f ? d->weight : 1.0f) : 0.0f;
                if (w == 0.0f) continue;
                const skv_clip *lc = &model->clips[d->clip];
                skv_trs v;
                ref_node_trs(sk, lc, keys_clip_ticks(lc, seconds), n, &v);
                if (!pass) {
                    layer_override(&cur, &v, w);
                } else {
                    skv_trs ref;
                    ref_node_trs(sk, &model->clips[ref_reference_clip(d)], 0.0, n, &ref);
                    layer_reference_form(&ref);
                    layer_additive(&cur, &v, &ref, w);
                }
            }
        keys_local(cur.t, cur.r, cur.s, local[n]);
    }
}

void pose_evaluate_layers_reference(skv_pose *pose, const skv_model *model, int base, double seconds,
                                    const skv_layer_desc *desc, int count)
{
    pose->walk_clip = -2; /* every palette entry is rewritten here */
    pose->playing_walks = NULL;
    pose->globals_owed = NULL;
    anim_sample_layers(model, base, seconds, desc, count, pose->local);
    skeleton_pose(&model->skeleton, pose->local, pose->global);
    skin_palette(&model->skeleton, pose->global, model->global_inverse, pose->palette);
}
