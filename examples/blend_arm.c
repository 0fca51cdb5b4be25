/* blend_arm.c - two clips mixed at a weight, as `skinview --blend A,B,W`
 * does: the arm of arm.h bends its elbow up in clip "bend" and down in
 * clip "droop"; pose_evaluate_blend mixes them per node (positions and
 * scales lerped, rotations slerped), then walks the hierarchy once.
 *
 *   cc -I examples blend_arm.c $(pkg-config --cflags --libs skinview_anim) -o blend_arm
 *   ./blend_arm    prints the hand at a few times and weights; weight 0
 *                  is clip A alone and weight 1 clip B alone, which it
 *                  checks against pose_evaluate of each clip (exits 1 if
 *                  they differ) */
#include "arm.h"

#include <stdio.h>

int main(void)
{
    skv_model arm;
    skv_walks *walks = NULL; /* what pose_evaluate runs, compiled from the model (walks.h) */
    skv_pose blend, single;
    if (arm_build(&arm, 0) != 0 || walks_create(&walks, &arm) != SKV_OK || pose_create(&blend, &arm.skeleton) != SKV_OK ||
        pose_create(&single, &arm.skeleton) != SKV_OK) {
        fprintf(stderr, "blend_arm: out of memory\n");
        return 1;
    }
    const int a = model_find_clip(&arm, "bend"), b = model_find_clip(&arm, "droop");
    int differ = 0;
    static const double times[] = {0.5, 0.75};
    static const float weights[] = {0.0f, 0.25f, 0.5f, 1.0f};
    for (int i = 0; i < 2; i++) {
        double t = times[i];
        for (int k = 0; k < 4; k++) {
            /* Both clips at the same time, as --blend plays them; each
             * clip may have its own time (a cross-fade's are apart). */
            pose_evaluate_blend(&blend, &arm, a, t, b, t, weights[k]);
            vec3 hand;
            arm_hand(blend.palette[1], hand);
            printf("t = %.2f s, w = %.2f: hand at (%.4f, %.4f, %.4f)\n", t, weights[k], hand[0], hand[1], hand[2]);
            if (weights[k] == 0.0f || weights[k] == 1.0f) {
                /* The ends of the blend are the clips themselves. */
                vec3 alone;
                pose_evaluate(&single, walks, weights[k] == 0.0f ? a : b, t);
                arm_hand(single.palette[1], alone);
                differ |= glm_vec3_distance(hand, alone) > 1e-5f;
            }
        }
    }
    pose_destroy(&blend);
    pose_destroy(&single);
    walks_destroy(walks);
    model_free(&arm);
    if (differ) fprintf(stderr, "blend_arm: a blend at weight 0 or 1 is not the clip alone\n");
    return differ;
}
