/* pose_arm.c - libskinview_anim without Skinview's importer: a two-bone
 * arm built in code, its elbow bending over one second, posed with
 * pose_evaluate through the model's walks and checked against the
 * reference evaluator.
 *
 *   cc pose_arm.c $(pkg-config --cflags --libs skinview_anim) -o pose_arm
 *   ./pose_arm        prints where the hand (a vertex on the forearm) is
 *                     at 0, 0.5 and 0.75 s (1 s is 0 again: clips loop);
 *                     exits 1 if the two evaluators differ */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skinview_anim.h>

/* The arm: node 0 "shoulder" at the origin, node 1 "elbow" one unit up
 * the x axis; one bone per node. Every array is malloc'd: model_free
 * releases the lot. */
static int build_arm(skv_model *m)
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
    m->clips = calloc(1, sizeof(skv_clip));
    if (!sk->node_names || !sk->bone_names || !sk->parents || !sk->rest_local || !sk->bone_node || !sk->bone_offset ||
        !m->clips)
        return -1;
    const char *names[2] = {"shoulder", "elbow"};
    for (int n = 0; n < 2; n++) {
        sk->node_names[n] = strdup(names[n]);
        sk->bone_names[n] = strdup(names[n]);
        sk->parents[n] = n - 1;
        sk->bone_node[n] = n;
        glm_mat4_identity(sk->rest_local[n]);
        glm_mat4_identity(sk->bone_offset[n]);
    }
    sk->rest_local[1][3][0] = 1.0f;  /* the elbow: 1 along x from the shoulder */
    sk->bone_offset[1][3][0] = -1.0f; /* offset = inverse bind matrix of the elbow */
    glm_mat4_identity(m->global_inverse);
    glm_mat4_identity(m->upright);

    /* One clip: the elbow turns 90 degrees about z over one second. */
    skv_clip *clip = &m->clips[0];
    m->clip_count = 1;
    clip->name = strdup("bend");
    clip->duration_ticks = 1.0;
    clip->ticks_per_second = 1.0;
    clip->channel_count = 1;
    clip->channels = calloc(1, sizeof(skv_channel));
    clip->node_channel = malloc(2 * sizeof(int));
    if (!clip->channels || !clip->node_channel) return -1;
    clip->node_channel[0] = -1, clip->node_channel[1] = 0;
    skv_channel *ch = &clip->channels[0];
    ch->node = 1;
    ch->position_count = ch->scale_count = 1;
    ch->rotation_count = 2;
    ch->positions = calloc(1, sizeof(skv_vec3_key));
    ch->scales = calloc(1, sizeof(skv_vec3_key));
    ch->rotations = calloc(2, sizeof(skv_quat_key));
    if (!ch->positions || !ch->scales || !ch->rotations) return -1;
    ch->positions[0].value[0] = 1.0f;
    ch->scales[0].value[0] = ch->scales[0].value[1] = ch->scales[0].value[2] = 1.0f;
    ch->rotations[0].value[3] = 1.0f;                                       /* identity */
    ch->rotations[1].time = 1.0;
    ch->rotations[1].value[2] = ch->rotations[1].value[3] = sqrtf(0.5f); /* 90 degrees about z */
    return 0;
}

int main(void)
{
    skv_model arm;
    skv_walks *walks;
    skv_pose pose, reference;
    /* model -> walks -> pose: the walks are what pose_evaluate compiles
     * from the model (each clip on first use); the model stays as built. */
    if (build_arm(&arm) != 0 || walks_create(&walks, &arm) != SKV_OK || pose_create(&pose, &arm.skeleton) != SKV_OK ||
        pose_create(&reference, &arm.skeleton) != SKV_OK) {
        fprintf(stderr, "pose_arm: out of memory\n");
        return 1;
    }
    int differ = 0;
    static const double times[] = {0.0, 0.5, 0.75};
    for (int i = 0; i < 3; i++) {
        double t = times[i];
        pose_evaluate(&pose, walks, 0, t);
        pose_evaluate_reference(&reference, &arm, 0, t);
        /* The hand: 2 along x in bind pose, moved by the elbow's bone. */
        vec4 hand = {2.0f, 0.0f, 0.0f, 1.0f}, moved, check;
        glm_mat4_mulv(pose.palette[1], hand, moved);
        glm_mat4_mulv(reference.palette[1], hand, check);
        printf("t = %.2f s: hand at (%.4f, %.4f, %.4f)\n", t, moved[0], moved[1], moved[2]);
        for (int k = 0; k < 3; k++) differ |= fabsf(moved[k] - check[k]) > 1e-5f;
    }
    pose_destroy(&pose);
    pose_destroy(&reference);
    walks_destroy(walks);
    model_free(&arm);
    if (differ) fprintf(stderr, "pose_arm: pose_evaluate and pose_evaluate_reference differ\n");
    return differ;
}
