/* anim_ref.c - the reference evaluator: key sampling, hierarchy walk and
 * palette written the way the textbook does, node by node. It is the
 * specification pose_evaluate (pose.c) is tested against, and what the
 * independent evaluators of tests/tools/oracle check. */
#include "anim.h"
#include "walk.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The clip's time is walk.h's walk_clip_ticks (fmod's remainder bit for
 * bit, without its call): one definition, inline there so that
 * pose_evaluate's frame pays no call for it, and the same ticks here. */
double anim_clip_ticks(const skv_clip *clip, double seconds)
{
    return walk_clip_ticks(clip, seconds);
}

/* Index of the last key with time <= t (0 if t is before the first key).
 * Keys are sorted by the importer. */
static int key_before(const double *first_time, size_t stride, int count, double t)
{
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        double mt = *(const double *)((const char *)first_time + (size_t)mid * stride);
        if (mt <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Interpolation factor between keys at t0 and t1, in [0, 1]. */
static float key_factor(double t0, double t1, double t)
{
    double span = t1 - t0;
    if (!(span > 0.0)) return 0.0f;
    double f = (t - t0) / span;
    return (float)(f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f);
}

void anim_sample_vec3(const skv_vec3_key *keys, int count, double t, float out[3])
{
    if (count == 1 || !(t > keys[0].time)) {
        memcpy(out, keys[0].value, 3 * sizeof(float));
        return;
    }
    if (t >= keys[count - 1].time) {
        memcpy(out, keys[count - 1].value, 3 * sizeof(float));
        return;
    }
    int i = key_before(&keys[0].time, sizeof keys[0], count, t);
    float f = key_factor(keys[i].time, keys[i + 1].time, t);
    for (int a = 0; a < 3; a++)
        out[a] = keys[i].value[a] + f * (keys[i + 1].value[a] - keys[i].value[a]);
}

static inline void quat_slerp(const float a[4], const float b[4], float f, float out[4])
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sign = 1.0f;
    if (d < 0.0f) { /* q and -q are one rotation: take the shorter arc */
        d = -d;
        sign = -1.0f;
    }
    float wa, wb;
    if (d > 0.9995f) {
        /* Under ~1.8 degrees apart: normalised lerp is within 1e-6 of slerp
         * and avoids dividing by a vanishing sine. */
        wa = 1.0f - f;
        wb = f;
    } else {
        float theta = acosf(d), s = sinf(theta);
        wa = sinf((1.0f - f) * theta) / s;
        wb = sinf(f * theta) / s;
    }
    wb *= sign;
    float len2 = 0.0f;
    for (int k = 0; k < 4; k++) {
        out[k] = wa * a[k] + wb * b[k];
        len2 += out[k] * out[k];
    }
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] *= inv;
}

void anim_quat_slerp(const float a[4], const float b[4], float f, float out[4])
{
    quat_slerp(a, b, f, out);
}

/* A key's quaternion at unit length (identity for a zero one). */
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

void anim_sample_quat(const skv_quat_key *keys, int count, double t, float out[4])
{
    if (count == 1 || !(t > keys[0].time)) {
        anim_quat_slerp(keys[0].value, keys[0].value, 0.0f, out); /* normalises */
        return;
    }
    if (t >= keys[count - 1].time) {
        anim_quat_slerp(keys[count - 1].value, keys[count - 1].value, 0.0f, out);
        return;
    }
    int i = key_before(&keys[0].time, sizeof keys[0], count, t);
    float f = key_factor(keys[i].time, keys[i + 1].time, t);
    anim_quat_slerp(keys[i].value, keys[i + 1].value, f, out);
}

void anim_quat_mat4(const float q[4], mat4 out)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        glm_mat4_identity(out);
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    versor unit = {q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv};
    glm_quat_mat4(unit, out);
}

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
        anim_sample_vec3(ch->positions, ch->position_count, ticks, t);
        anim_sample_quat(ch->rotations, ch->rotation_count, ticks, q);
        anim_sample_vec3(ch->scales, ch->scale_count, ticks, s);
        /* local = T * R * S, written out: rotation columns scaled. */
        anim_quat_mat4(q, local[n]);
        for (int a = 0; a < 3; a++) glm_vec4_scale(local[n][a], s[a], local[n][a]);
        local[n][3][0] = t[0];
        local[n][3][1] = t[1];
        local[n][3][2] = t[2];
        local[n][3][3] = 1.0f;
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

