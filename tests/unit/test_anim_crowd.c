/* test_anim_crowd.c - many characters posed on a thread pool (crowd.c):
 * every character's palette rows as its own pose at its own clip and
 * time offset. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"

/* A crowd posed on 3 threads: every character's palette equals its own
 * pose at its own clip and time offset. */
static void test_crowd_matches_poses(void)
{
    random_model_build();
    const skv_model *model = &rm.model;
    skv_crowd crowd;
    CHECK(crowd_create(&crowd, rm.walks, 37, 0, 1, 3) == SKV_OK);
    CHECK(crowd.worker_count == 2);
    skv_pose ref;
    CHECK(pose_create(&ref, &model->skeleton) == SKV_OK);
    double worst = 0.0;
    int clips_seen[2] = {0, 0};
    for (int i = 0; i < crowd.count; i++) clips_seen[crowd.clips[i]]++;
    for (int f = 0; f < 20; f++) worst = fmax(worst, crowd_worst_at(&crowd, model, &ref, f * 0.37));
    printf("crowd of %d on %d threads vs one pose each: max abs difference %.2g\n", crowd.count,
           crowd.worker_count + 1, worst);
    CHECK(worst < 1e-4);
    CHECK(clips_seen[0] > 0 && clips_seen[1] > 0); /* mixed clips */
    CHECK(crowd.offsets[1] != crowd.offsets[2]);
    pose_destroy(&ref);
    crowd_destroy(&crowd);
    random_model_free();
}

int main(void)
{
    test_crowd_matches_poses();
    return check_summary();
}
