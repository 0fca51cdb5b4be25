/* crowd_arm.c - many characters of one model posed on all cores: a crowd
 * (crowd.h) of the arm of arm.h, each character playing clip "bend" from
 * its own time offset, their palettes written into one buffer, character
 * after character, the way Skinview's instanced draw uploads it.
 *
 *   cc -I examples crowd_arm.c $(pkg-config --cflags --libs skinview_anim) -o crowd_arm
 *   ./crowd_arm    poses 1000 arms for a few frames, prints a few hands,
 *                  and checks every hand against pose_evaluate of the
 *                  same clip at that character's time (exits 1 if one
 *                  differs) */
#include "arm.h"

#include <stdio.h>

enum { COUNT = 1000, ROW_FLOATS = 12 }; /* crowd.h: per bone a 3x4 matrix, row after row */

/* The hand of character i: its elbow bone's rows applied to (2, 0, 0, 1). */
static void crowd_hand(const skv_crowd *crowd, int i, vec3 out)
{
    const float *rows = &crowd->palettes[((size_t)i * crowd->bone_count + 1) * ROW_FLOATS];
    for (int r = 0; r < 3; r++) out[r] = rows[r * 4] * 2.0f + rows[r * 4 + 3];
}

int main(void)
{
    skv_model arm;
    skv_walks *walks = NULL; /* compiled from the model; the crowd's threads share them (walks.h) */
    skv_crowd crowd;
    skv_pose check;
    if (arm_build(&arm, 0) != 0 || walks_create(&walks, &arm) != SKV_OK || pose_create(&check, &arm.skeleton) != SKV_OK) {
        fprintf(stderr, "crowd_arm: out of memory\n");
        return 1;
    }
    /* Clip 0 for all (mixed_clips 0: not cycling through the clips);
     * threads 0: one per core, the calling thread among them. */
    if (crowd_create(&crowd, walks, COUNT, 0, 0, 0) != SKV_OK) {
        fprintf(stderr, "crowd_arm: out of memory\n");
        pose_destroy(&check);
        walks_destroy(walks);
        model_free(&arm);
        return 1;
    }
    printf("%d characters, posed by %d threads\n", crowd.count, crowd.worker_count + 1);
    float worst = 0.0f;
    for (int frame = 0; frame < 3; frame++) {
        double t = frame / 60.0; /* scene time: 60 frames a second */
        crowd_evaluate(&crowd, t);
        for (int i = 0; i < crowd.count; i++) {
            vec3 hand, expected;
            crowd_hand(&crowd, i, hand);
            pose_evaluate(&check, walks, crowd.clips[i], t + crowd.offsets[i]);
            arm_hand(check.palette[1], expected);
            float d = glm_vec3_distance(hand, expected);
            if (!(d <= worst)) worst = d; /* NaN counts as the worst */
            if (frame == 2 && i < 3)
                printf("character %d at %.4f s: hand at (%.4f, %.4f, %.4f)\n", i, t + crowd.offsets[i], hand[0],
                       hand[1], hand[2]);
        }
    }
    printf("largest difference from pose_evaluate: %g\n", worst);
    crowd_destroy(&crowd);
    pose_destroy(&check);
    walks_destroy(walks);
    model_free(&arm);
    if (!(worst <= 1e-5f)) {
        fprintf(stderr, "crowd_arm: the crowd's palettes differ from pose_evaluate\n");
        return 1;
    }
    return 0;
}
