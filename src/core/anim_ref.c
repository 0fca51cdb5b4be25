/* anim_ref.c - the reference evaluator: key sampling (keys.h, the ground
 * floor it shares with the fast path), hierarchy walk and palette
 * written the way the textbook does, node by node. It is the
 * specification pose_evaluate (pose.c) is tested against, and what the
 * independent evaluators of tests/tools/oracle check. */
#include "anim.h"
#include "keys.h"

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

