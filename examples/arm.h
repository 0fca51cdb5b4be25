/* arm.h - the two-bone arm the examples pose, built in code: a model of
 * your own needs no file and no importer (pose_arm.c builds the same arm
 * with one clip).
 *
 *   nodes/bones  0 "shoulder" at the origin, 1 "elbow" 1 along x from it
 *   clips        0 "bend"  the elbow turns 0 -> +90 degrees about z in 1 s
 *                1 "droop" the elbow turns 0 -> -90 degrees about z in 1 s
 *   vertices     (arm_build with_mesh) ARM_VERTICES points on the x axis
 *                from 0 to 2: up to the elbow on the shoulder's bone, past
 *                it on the elbow's, the one at the elbow half on each
 *
 * So the hand, (2, 0, 0) in bind pose, is at (1 + cos a, sin a, 0) when
 * the elbow has turned by a. Every array is malloc'd: model_free releases
 * the lot, also after arm_build failed half way. */
#ifndef ARM_H
#define ARM_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup: include arm.h first */
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <skinview_anim.h>

enum { ARM_VERTICES = 9 };

/* One clip of one second: the elbow (node 1) from identity to `turn`
 * (x, y, z, w). Channels hold keys per node; nodes without one (the
 * shoulder: node_channel -1) keep their rest transform. */
static inline int arm_clip(skv_clip *clip, const char *name, const float turn[4])
{
    clip->name = strdup(name);
    clip->duration_ticks = 1.0;
    clip->ticks_per_second = 1.0;
    clip->channel_count = 1;
    clip->channels = calloc(1, sizeof(skv_channel));
    clip->node_channel = malloc(2 * sizeof(int));
    if (!clip->name || !clip->channels || !clip->node_channel) return -1;
    clip->node_channel[0] = -1, clip->node_channel[1] = 0;
    skv_channel *ch = &clip->channels[0];
    ch->node = 1;
    ch->position_count = ch->scale_count = 1;
    ch->rotation_count = 2;
    ch->positions = calloc(1, sizeof(skv_vec3_key));
    ch->scales = calloc(1, sizeof(skv_vec3_key));
    ch->rotations = calloc(2, sizeof(skv_quat_key));
    if (!ch->positions || !ch->scales || !ch->rotations) return -1;
    ch->positions[0].value[0] = 1.0f; /* the elbow stays 1 along x */
    ch->scales[0].value[0] = ch->scales[0].value[1] = ch->scales[0].value[2] = 1.0f;
    ch->rotations[0].value[3] = 1.0f; /* identity at 0 s */
    ch->rotations[1].time = 1.0;      /* `turn` at 1 s (ticks) */
    memcpy(ch->rotations[1].value, turn, 4 * sizeof(float));
    return 0;
}

/* The points of the arm and their influences: what skin.h blends. */
static inline int arm_mesh(skv_model *m)
{
    const int n = ARM_VERTICES, slots = 4;
    m->vertex_count = n;
    m->influence_slots = slots; /* packed slots, no per-vertex lists */
    m->positions = calloc((size_t)n * 3, sizeof(float));
    m->normals = calloc((size_t)n * 3, sizeof(float));
    m->bone_ids = calloc((size_t)n * slots, sizeof(uint16_t));
    m->weights = calloc((size_t)n * slots, sizeof(float));
    if (!m->positions || !m->normals || !m->bone_ids || !m->weights) return -1;
    for (int v = 0; v < n; v++) {
        float x = 2.0f * (float)v / (float)(n - 1);
        m->positions[v * 3] = x;
        m->normals[v * 3 + 1] = 1.0f;
        /* Slot 0: the bone that moves it; unused slots weigh 0. */
        m->bone_ids[v * slots] = x < 1.0f ? 0 : 1;
        m->weights[v * slots] = 1.0f;
        if (x == 1.0f) { /* the elbow: half each */
            m->bone_ids[v * slots] = 0, m->weights[v * slots] = 0.5f;
            m->bone_ids[v * slots + 1] = 1, m->weights[v * slots + 1] = 0.5f;
        }
    }
    return 0;
}

static inline int arm_build(skv_model *m, int with_mesh)
{
    memset(m, 0, sizeof *m);
    skv_skeleton *sk = &m->skeleton;
    sk->node_count = sk->bone_count = 2;
    sk->node_names = calloc(2, sizeof(char *));
    sk->bone_names = calloc(2, sizeof(char *));
    sk->parents = malloc(2 * sizeof(int));
    sk->rest_local = malloc(2 * sizeof(mat4));
    sk->bone_node = malloc(2 * sizeof(int));
    sk->bone_offset = malloc(2 * sizeof(mat4));
    m->clips = calloc(2, sizeof(skv_clip));
    if (!sk->node_names || !sk->bone_names || !sk->parents || !sk->rest_local || !sk->bone_node || !sk->bone_offset ||
        !m->clips)
        return -1;
    const char *names[2] = {"shoulder", "elbow"};
    for (int n = 0; n < 2; n++) {
        sk->node_names[n] = strdup(names[n]);
        sk->bone_names[n] = strdup(names[n]);
        if (!sk->node_names[n] || !sk->bone_names[n]) return -1;
        sk->parents[n] = n - 1; /* parent first: the root is node 0 */
        sk->bone_node[n] = n;
        glm_mat4_identity(sk->rest_local[n]);
        glm_mat4_identity(sk->bone_offset[n]);
    }
    sk->rest_local[1][3][0] = 1.0f;   /* the elbow: 1 along x from the shoulder */
    sk->bone_offset[1][3][0] = -1.0f; /* offset = inverse bind matrix of the elbow */
    glm_mat4_identity(m->global_inverse);
    glm_mat4_identity(m->upright);

    const float h = sqrtf(0.5f); /* cos and sin of 45 degrees: quaternions of 90 */
    const float bend[4] = {0.0f, 0.0f, h, h}, droop[4] = {0.0f, 0.0f, -h, h};
    m->clip_count = 2;
    if (arm_clip(&m->clips[0], "bend", bend) != 0 || arm_clip(&m->clips[1], "droop", droop) != 0) return -1;
    return with_mesh ? arm_mesh(m) : 0;
}

/* Where the hand, (2, 0, 0) in bind pose, is under palette entry `m`
 * (the elbow's bone). */
static inline void arm_hand(const mat4 m, vec3 out)
{
    vec4 hand = {2.0f, 0.0f, 0.0f, 1.0f}, moved;
    glm_mat4_mulv((vec4 *)m, hand, moved);
    glm_vec3(moved, out);
}

#endif
