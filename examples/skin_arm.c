/* skin_arm.c - skinning on the CPU: the arm of arm.h posed with
 * pose_evaluate, then its points blended by skin_blend (skin.h), the
 * same sum of weighted bone matrices Skinview's vertex shader computes,
 * and their bounds taken with skin_bounds.
 *
 *   cc -I examples skin_arm.c $(pkg-config --cflags --libs skinview_anim) -o skin_arm
 *   ./skin_arm    prints the skinned arm's bounds at a few times of clip
 *                 "bend" (the forearm swings up: the upper bound follows
 *                 the hand, (1 + cos a, sin a)); exits 1 if a point
 *                 leaves its bone's circle */
#include "arm.h"

#include <stdio.h>

int main(void)
{
    skv_model arm;
    skv_walks *walks = NULL; /* what pose_evaluate runs, compiled from the model (walks.h) */
    skv_pose pose;
    float *skinned = NULL;
    if (arm_build(&arm, 1) != 0 || walks_create(&walks, &arm) != SKV_OK || pose_create(&pose, &arm.skeleton) != SKV_OK ||
        !(skinned = malloc((size_t)arm.vertex_count * 3 * sizeof(float)))) {
        fprintf(stderr, "skin_arm: out of memory\n");
        return 1;
    }
    int bad = 0;
    static const double times[] = {0.0, 0.5, 0.75};
    for (int i = 0; i < 3; i++) {
        pose_evaluate(&pose, walks, 0, times[i]);
        /* Positions only (normals NULL), in model space. */
        skin_blend(&arm, pose.palette, skinned, NULL);
        /* The scene would apply arm.upright; here it is the identity. */
        float lo[3], hi[3];
        skin_bounds(skinned, arm.vertex_count, arm.upright, lo, hi);
        printf("t = %.2f s: bounds (%.4f, %.4f, %.4f) - (%.4f, %.4f, %.4f)\n", times[i], lo[0], lo[1], lo[2], hi[0],
               hi[1], hi[2]);
        /* A rotation keeps distances: each point stays as far from the
         * joint it turns about (the shoulder up to the elbow, then the
         * elbow) as it was in bind pose. */
        for (int v = 0; v < arm.vertex_count; v++) {
            float x = arm.positions[v * 3], *p = &skinned[v * 3];
            vec3 joint = {x < 1.0f ? 0.0f : 1.0f, 0.0f, 0.0f};
            float radius = x < 1.0f ? x : x - 1.0f;
            bad |= fabsf(glm_vec3_distance(p, joint) - radius) > 1e-5f;
        }
    }
    free(skinned);
    pose_destroy(&pose);
    walks_destroy(walks);
    model_free(&arm);
    if (bad) fprintf(stderr, "skin_arm: a skinned point left its bone's circle\n");
    return bad;
}
