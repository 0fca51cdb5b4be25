/* test_keytimes.c - a clip's key times (src/app/keytimes.c): every
 * channel's position, rotation and scale keys and the morph weights'
 * keys, merged, sorted, the same time once, those past the clip's end
 * left out; the key at a time, the next and previous keys, wrapping round
 * the loop. */
#include <stdlib.h>
#include <string.h>

#include "keytimes.h"
#include "check.h"

int main(void)
{
    /* 10 ticks a second, 2 s. */
    skv_vec3_key a_positions[] = {{.time = 0}, {.time = 10}, {.time = 20}};
    skv_quat_key a_rotations[] = {{.time = 0}, {.time = 5}, {.time = 20}};
    skv_vec3_key a_scales[] = {{.time = 0}};
    skv_vec3_key b_positions[] = {{.time = 0}};
    skv_quat_key b_rotations[] = {{.time = 5.000000001}, {.time = 15}, {.time = 40}}; /* 40: past the end */
    skv_vec3_key b_scales[] = {{.time = -3}};                                         /* before the start */
    skv_channel channels[] = {
        {.positions = a_positions, .position_count = 3, .rotations = a_rotations, .rotation_count = 3,
         .scales = a_scales, .scale_count = 1},
        {.positions = b_positions, .position_count = 1, .rotations = b_rotations, .rotation_count = 3,
         .scales = b_scales, .scale_count = 1},
    };
    double morph_times[] = {12.0};
    skv_morph_channel morphs[] = {{.key_count = 1, .times = morph_times}};
    skv_clip clip = {.name = "c", .duration_ticks = 20, .ticks_per_second = 10, .channel_count = 2,
                     .channels = channels, .morph_channel_count = 1, .morph_channels = morphs};
    skv_model model;
    memset(&model, 0, sizeof model);
    model.clips = &clip;
    model.clip_count = 1;

    skv_key_times keys;
    CHECK(key_times_build(&keys, &model, 0) == SKV_OK);
    const double want[] = {0.0, 0.5, 1.0, 1.2, 1.5, 2.0};
    CHECK(keys.count == 6);
    for (int i = 0; i < keys.count && i < 6; i++) CHECK_NEAR(keys.seconds[i], want[i], 1e-12);
    CHECK_NEAR(keys.duration, 2.0, 1e-12);

    int on;
    CHECK(key_times_index(&keys, 0.0, &on) == 0 && on);
    CHECK(key_times_index(&keys, 0.7, &on) == 1 && !on);
    CHECK(key_times_index(&keys, 1.2 + 1e-9, &on) == 3 && on);
    CHECK(key_times_index(&keys, 1.9999999999, &on) == 5 && on);
    CHECK(key_times_index(&keys, -0.5, &on) == -1 && !on);

    CHECK_NEAR(key_times_next(&keys, 0.0), 0.5, 1e-12);
    CHECK_NEAR(key_times_next(&keys, 0.7), 1.0, 1e-12);
    CHECK_NEAR(key_times_next(&keys, 1.2), 1.5, 1e-12);
    CHECK_NEAR(key_times_next(&keys, 2.0), 0.0, 1e-12); /* round the loop */
    CHECK_NEAR(key_times_previous(&keys, 1.2), 1.0, 1e-12);
    CHECK_NEAR(key_times_previous(&keys, 1.3), 1.2, 1e-12); /* between keys: the one before */
    CHECK_NEAR(key_times_previous(&keys, 0.0), 2.0, 1e-12); /* round the loop */
    key_times_free(&keys);
    CHECK(keys.seconds == NULL && keys.count == 0);

    /* No clip, or a clip index past the model's: no keys; next and
     * previous stay put. */
    CHECK(key_times_build(&keys, &model, -1) == SKV_OK && keys.count == 0);
    CHECK_NEAR(key_times_next(&keys, 0.3), 0.3, 0.0);
    CHECK_NEAR(key_times_previous(&keys, 0.3), 0.3, 0.0);
    CHECK(key_times_index(&keys, 0.3, &on) == -1 && !on);
    CHECK(key_times_build(&keys, &model, 1) == SKV_OK && keys.count == 0);

    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}
