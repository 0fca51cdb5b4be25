/* test_anim_keys.c - the ground floor both evaluators stand on (keys.h):
 * a key array's value at a clip time (lerp, slerp, clamping, one key,
 * steps), and the clip time itself (fmod's remainder bit for bit, in the
 * plain build, the FMA build and from the frames' loop count, and as the
 * one-channel frame kernels hand it to the walk's search). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"

static void test_vec3_keys(void)
{
    skv_vec3_key keys[3] = {{2.0, {0, 0, 0}, 0}, {4.0, {10, 20, 30}, 0}, {8.0, {10, 20, 70}, 0}};
    float out[3];
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 3, 2.0, out); /* at a key */
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0);
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 3, 4.0, out);
    CHECK(out[0] == 10 && out[1] == 20 && out[2] == 30);
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 3, 3.0, out); /* between */
    CHECK_NEAR(out[0], 5.0, 1e-6);
    CHECK_NEAR(out[1], 10.0, 1e-6);
    CHECK_NEAR(out[2], 15.0, 1e-6);
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 3, 7.0, out);
    CHECK_NEAR(out[2], 60.0, 1e-5);
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 3, -5.0, out); /* before the first key: clamped */
    CHECK(out[0] == 0 && out[2] == 0);
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 3, 100.0, out); /* after the last: clamped */
    CHECK(out[0] == 10 && out[2] == 70);
    keys_sample_vec3(SKV_KEY_LINEAR, keys, NULL, 1, 3.0, out); /* one key */
    CHECK(out[0] == 0 && out[1] == 0);
    keys_sample_vec3(SKV_KEY_LINEAR, &keys[1], NULL, 1, -1.0, out);
    CHECK(out[2] == 30);

    /* Duplicate times (a step): finite, and one of the two values. */
    skv_vec3_key step[3] = {{0.0, {0, 0, 0}, 0}, {1.0, {1, 0, 0}, 0}, {1.0, {5, 0, 0}, 0}};
    keys_sample_vec3(SKV_KEY_LINEAR, step, NULL, 3, 1.0, out);
    CHECK(isfinite(out[0]) && (out[0] == 1 || out[0] == 5));
    keys_sample_vec3(SKV_KEY_LINEAR, step, NULL, 3, 0.5, out);
    CHECK_NEAR(out[0], 0.5, 1e-6);
    skv_vec3_key same[2] = {{2.0, {3, 0, 0}, 0}, {2.0, {4, 0, 0}, 0}};
    keys_sample_vec3(SKV_KEY_LINEAR, same, NULL, 2, 2.0, out);
    CHECK(isfinite(out[0]));
}

static void test_slerp(void)
{
    float a[4], b[4], out[4], expect[4];
    axis_angle(0, 0, 1, 0.0, a);
    axis_angle(0, 0, 1, M_PI / 2, b);
    keys_slerp(a, b, 0.5f, out);
    axis_angle(0, 0, 1, M_PI / 4, expect);
    CHECK(quat_angle(out, expect) < 1e-5);
    keys_slerp(a, b, 0.25f, out);
    axis_angle(0, 0, 1, M_PI / 8, expect);
    CHECK(quat_angle(out, expect) < 1e-5);

    /* Shortest path: -b is the same rotation; the midpoint must still be 45
     * degrees, not the long way round. */
    float neg_b[4] = {-b[0], -b[1], -b[2], -b[3]};
    keys_slerp(a, neg_b, 0.5f, out);
    axis_angle(0, 0, 1, M_PI / 4, expect);
    CHECK(quat_angle(out, expect) < 1e-5);

    /* Nearly equal keys (5e-4 rad apart): cglm 0.8.8 returns `a` here. */
    axis_angle(0, 1, 0, 0.0005, b);
    keys_slerp(a, b, 0.5f, out);
    CHECK_NEAR(quat_angle(out, a), 0.00025, 2e-5);

    /* Output is unit length even from non-unit input. */
    float big[4] = {0, 0, 2, 0}, unit_len;
    keys_slerp(a, big, 0.3f, out);
    unit_len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    CHECK_NEAR(unit_len, 1.0, 1e-6);

    /* Rotation keys sample with clamping too. */
    skv_quat_key keys[2];
    keys[0].time = 0.0;
    axis_angle(1, 0, 0, 0.0, keys[0].value);
    keys[1].time = 10.0;
    axis_angle(1, 0, 0, 1.0, keys[1].value);
    keys_sample_quat(SKV_KEY_LINEAR, keys, NULL, 2, 5.0, out);
    axis_angle(1, 0, 0, 0.5, expect);
    CHECK(quat_angle(out, expect) < 1e-5);
    keys_sample_quat(SKV_KEY_LINEAR, keys, NULL, 2, 50.0, out);
    CHECK(quat_angle(out, keys[1].value) < 1e-6);
    keys_sample_quat(SKV_KEY_LINEAR, keys, NULL, 2, -1.0, out);
    CHECK(quat_angle(out, keys[0].value) < 1e-6);

    /* Zero quaternion: identity, not NaN. */
    mat4 m;
    keys_quat_mat4((float[4]){0, 0, 0, 0}, m);
    CHECK(m[0][0] == 1 && m[1][1] == 1 && m[2][2] == 1 && m[0][1] == 0);
}

/* keys_ticks_from of a clip, as walk.c's frames take it. */
static double clip_ticks_from(const skv_clip *clip, double seconds, double *loops)
{
    return keys_ticks_from(seconds, clip->ticks_per_second, clip->duration_ticks, loops);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* keys_ticks built as walk.c's FMA frames build it (FRAME_BUILDS: its fma
 * one instruction, not libm's call): the same remainder bit for bit. */
__attribute__((target("fma"))) static double clip_ticks_fma(const skv_clip *clip, double seconds)
{
    return keys_clip_ticks(clip, seconds);
}
__attribute__((target("fma"))) static double clip_ticks_from_fma(const skv_clip *clip, double seconds, double *loops)
{
    return keys_ticks_from(seconds, clip->ticks_per_second, clip->duration_ticks, loops);
}
#define HAS_FMA() __builtin_cpu_supports("fma")
#else
#define clip_ticks_fma keys_clip_ticks
#define clip_ticks_from_fma clip_ticks_from
#define HAS_FMA() 0
#endif

/* keys_ticks_from (the frames' clip time, from the pose's loop count
 * of the frame before) against fmod, bit for bit, and the count it keeps
 * the loops before t (past the first loop; loops * duration + the time is
 * t exactly, so fma gives t); both builds. Returns the mismatches. */
static int clip_ticks_from_differ(const skv_clip *clip, double t, double *loops, double *fma_loops)
{
    double d = clip->duration_ticks, want = fmod(t, d);
    for (int build = 0; build < 1 + !!HAS_FMA(); build++) { /* the builtin gives a feature bit, not 1 */
        double *count = build ? fma_loops : loops;
        double got = build ? clip_ticks_from_fma(clip, t, count) : clip_ticks_from(clip, t, count);
        if (memcmp(&got, &want, sizeof got) != 0 || (t >= d && t < ldexp(d, 30) && fma(*count, d, got) != t))
            return 1;
    }
    return 0;
}

static void test_clip_ticks(void)
{
    skv_clip clip = {.duration_ticks = 100.0, .ticks_per_second = 25.0};
    CHECK_NEAR(keys_clip_ticks(&clip, 1.0), 25.0, 1e-9);
    CHECK_NEAR(keys_clip_ticks(&clip, 5.0), 25.0, 1e-9); /* 125 looped over 100 */
    CHECK_NEAR(keys_clip_ticks(&clip, -1.0), 75.0, 1e-9);
    clip.duration_ticks = 0.0; /* zero-length clip: time 0, no NaN */
    CHECK(keys_clip_ticks(&clip, 3.0) == 0.0);
    clip.duration_ticks = 10.0;
    CHECK(keys_clip_ticks(&clip, NAN) == 0.0);

    /* The loop is taken without fmod (anim_ref.c, loop_ticks): it must
     * give fmod's remainder bit for bit, at every loop count, on awkward
     * durations (not a multiple of the time step, subnormal, huge) and
     * times past the 2^30 loops where it hands over to fmod. */
    static const double durations[] = {1.0, 0.7, 1.0 / 3.0, 2.4583333333333335, 4.9e-324, 1e300, 123456.789};
    unsigned seed = 12345u;
    int differ = 0, tried = 0;
    /* The frames' loop count, carried from call to call: jumps, and
     * counts left by other durations. */
    double loops_from = 0.0, fma_loops_from = 0.0;
    for (size_t d = 0; d < sizeof durations / sizeof durations[0]; d++) {
        clip.duration_ticks = durations[d];
        clip.ticks_per_second = 1.0;
        for (int k = 0; k < 4000; k++) {
            seed = seed * 1103515245u + 12345u;
            double loops = k < 64 ? (double)k * 0.5 : ldexp((double)(seed >> 8) / 16777216.0, k % 40);
            double t = durations[d] * loops + (k % 3 == 0 ? 0.0 : durations[d] * (double)(seed & 255) / 256.0);
            if (!isfinite(t)) continue;
            double got = keys_clip_ticks(&clip, t), want = fmod(t, durations[d]);
            differ += memcmp(&got, &want, sizeof got) != 0;
            if (HAS_FMA()) {
                got = clip_ticks_fma(&clip, t);
                differ += memcmp(&got, &want, sizeof got) != 0;
            }
            differ += clip_ticks_from_differ(&clip, t, &loops_from, &fma_loops_from);
            tried++;
        }
        /* Playback: steps of 0.37 durations, from 0 and from 2^29 loops;
         * times just short of a loop's end (the quotient rounds up to the
         * next loop there). */
        for (int start = 0; start < 2; start++) {
            double loops = 0.0, fma_loops = 0.0, t0 = start ? ldexp(durations[d], 29) : 0.0;
            for (int k = 0; k < 3000; k++) {
                double t = t0 + durations[d] * 0.37 * k;
                if (!isfinite(t)) break;
                differ += clip_ticks_from_differ(&clip, t, &loops, &fma_loops);
                double short_of_end = nextafter(durations[d] * (k + 1), 0.0);
                if (k < 500 && isfinite(short_of_end))
                    differ += clip_ticks_from_differ(&clip, short_of_end, &loops, &fma_loops);
                tried++;
            }
        }
    }
    skv_clip played = {.duration_ticks = 21.0, .ticks_per_second = 30.0};
    double loops = 0.0, fma_loops = 0.0;
    for (int k = 0; k < 5000; k++) {
        double want = fmod(k / 60.0 * 30.0, 21.0), got = clip_ticks_from(&played, k / 60.0, &loops);
        differ += memcmp(&got, &want, sizeof got) != 0;
        if (HAS_FMA()) {
            got = clip_ticks_from_fma(&played, k / 60.0, &fma_loops);
            differ += memcmp(&got, &want, sizeof got) != 0;
        }
    }
    CHECK(loops == floor(5000 / 60.0 * 30.0 / 21.0)); /* the count kept */
    CHECK(tried > 50000);
    CHECK(differ == 0);

    /* The frame kernels inline the same loop, built for their instruction
     * set (the FMA instruction in place of libm's fma): the time each
     * hands to the walk's search, every kernel, bit for bit fmod's too. */
    _Alignas(16) float rows[2 * SKV_EACH_KEY_FLOATS];
    _Alignas(64) float pair[SKV_SOLO_PAIR_FLOATS(0)];
    skv_solo solo;
    identity_solo(rows, pair, &solo);
    int kernels = 0;
    differ = tried = 0;
    for (int kernel = SKV_WALK_PORTABLE; kernel < SKV_WALK_KERNEL_COUNT; kernel++) {
        const skv_kernels *kn = kernels_get((skv_walk_kernel)kernel);
        if (!kn) continue;
        kernels++;
        seed = 12345u;
        for (size_t d = 0; d < sizeof durations / sizeof durations[0]; d++)
            for (int k = 0; k < 4000; k++) {
                seed = seed * 1103515245u + 12345u;
                double loops = k < 64 ? (double)k * 0.5 : ldexp((double)(seed >> 8) / 16777216.0, k % 40);
                double t = durations[d] * loops + (k % 3 == 0 ? 0.0 : durations[d] * (double)(seed & 255) / 256.0);
                if (!isfinite(t)) continue;
                int cursor = -1;
                _Alignas(64) mat4 local;
                (k % 2 ? kn->solo_frame_weighted : kn->solo_frame)(&solo, t, 1.0, durations[d], &cursor,
                                                                   (float *)local, NULL, &loops_from);
                double want = fmod(t, durations[d]);
                differ += memcmp(&searched_ticks, &want, sizeof want) != 0;
                tried++;
            }
    }
    CHECK(tried > 20000 * kernels);
    CHECK(differ == 0);
}


/* The modes besides linear (keys.h), on values worked out by hand: STEP
 * holds a key's value until the next; CUBIC is the Hermite spline of the
 * keys and their tangents (glTF's Appendix C), a rotation normalised. */
static void test_modes(void)
{
    skv_vec3_key keys[3] = {{0.0, {0, 0, 0}, 0}, {2.0, {1, 10, 0}, 0}, {4.0, {3, 10, 4}, 0}};
    float out[3];
    keys_sample_vec3(SKV_KEY_STEP, keys, NULL, 3, 1.99, out);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0);
    keys_sample_vec3(SKV_KEY_STEP, keys, NULL, 3, 2.0, out); /* at the key: the key's */
    CHECK(out[0] == 1 && out[1] == 10);
    keys_sample_vec3(SKV_KEY_STEP, keys, NULL, 3, 3.5, out);
    CHECK(out[0] == 1 && out[2] == 0);
    /* Cubic: per key in-tangent then out-tangent, 3 floats each, per tick.
     * Between keys 0 and 1 (dt 2): x with no tangents is smoothstep,
     * 3f^2 - 2f^3 (0.5 at the middle); y 0 -> 10 with key 0's out-tangent
     * 1 a tick: + (f^3 - 2f^2 + f) dt = 0.25 at f 0.5, and key 1's
     * in-tangent 4: + (f^3 - f^2) dt 4 = -1. */
    float tangents[18] = {0};
    tangents[0 * 6 + 3 + 1] = 1.0f; /* key 0 out, y */
    tangents[1 * 6 + 0 + 1] = 4.0f; /* key 1 in, y */
    keys_sample_vec3(SKV_KEY_CUBIC, keys, tangents, 3, 1.0, out);
    CHECK_NEAR(out[0], 0.5, 1e-6);
    CHECK_NEAR(out[1], 5.0 + 0.25 - 1.0, 1e-5);
    keys_sample_vec3(SKV_KEY_CUBIC, keys, tangents, 3, 0.5, out); /* f 0.25 */
    double f = 0.25;
    CHECK_NEAR(out[0], 3 * f * f - 2 * f * f * f, 1e-6);
    CHECK_NEAR(out[1], 10 * (3 * f * f - 2 * f * f * f) + (f * f * f - 2 * f * f + f) * 2 * 1 + (f * f * f - f * f) * 2 * 4,
               1e-5);
    keys_sample_vec3(SKV_KEY_CUBIC, keys, tangents, 3, 9.0, out); /* past the end: the last key */
    CHECK(out[0] == 3 && out[2] == 4);
    /* A cubic rotation: components splined, then normalised; with no
     * tangents a quarter turn about z halfway is the normalised mean of
     * the ends' components (not the slerp: cubic has no shorter arc). */
    skv_quat_key rot[2] = {{0.0, {0, 0, 0, 1}}, {1.0, {0, 0, (float)M_SQRT1_2, (float)M_SQRT1_2}}};
    float q[4], qt[16] = {0};
    keys_sample_quat(SKV_KEY_CUBIC, rot, qt, 2, 0.5, q);
    float mid[4] = {0, 0, (float)(M_SQRT1_2 / 2), (float)((1 + M_SQRT1_2) / 2)};
    float len = sqrtf(mid[2] * mid[2] + mid[3] * mid[3]);
    CHECK_NEAR(q[2], mid[2] / len, 1e-6);
    CHECK_NEAR(q[3], mid[3] / len, 1e-6);
    CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-6);
    keys_sample_quat(SKV_KEY_STEP, rot, NULL, 2, 0.99, q);
    CHECK(q[3] == 1.0f && q[2] == 0.0f);
}

/* The fast path keeps every channel that is not linear loose (sampled by
 * keys.h as the reference does): the random model with some arrays made
 * STEP and some CUBIC (with tangents) poses as the reference does. */
static void test_modes_fast_path(void)
{
    random_model_build();
    unsigned seed = 5;
    int changed = 0;
    for (int c = 0; c < RM_CLIPS; c++)
        for (int k = 0; k < rm.clips[c].channel_count; k++) {
            skv_channel *ch = &rm.channels[c][k];
            if (k % 3 == 0 && ch->position_count > 1) ch->position_mode = SKV_KEY_STEP, changed++;
            if (k % 3 == 1 && ch->rotation_count > 1) {
                ch->rotation_mode = SKV_KEY_CUBIC;
                ch->rotation_tangents = malloc((size_t)ch->rotation_count * 8 * sizeof(float));
                for (int i = 0; i < ch->rotation_count * 8; i++) ch->rotation_tangents[i] = 0.05f * frand(&seed);
                changed++;
            }
            if (k % 3 == 2 && ch->scale_count > 1) {
                ch->scale_mode = SKV_KEY_CUBIC;
                ch->scale_tangents = malloc((size_t)ch->scale_count * 6 * sizeof(float));
                for (int i = 0; i < ch->scale_count * 6; i++) ch->scale_tangents[i] = 0.1f * frand(&seed);
                changed++;
            }
        }
    CHECK(changed > 10);
    walks_destroy(rm.walks);
    rm.walks = compiled_walks(&rm.model);
    skv_pose fast, ref;
    CHECK(pose_create(&fast, &rm.model.skeleton) == SKV_OK && pose_create(&ref, &rm.model.skeleton) == SKV_OK);
    double worst = 0.0;
    for (int c = 0; c < RM_CLIPS; c++)
        for (int i = 0; i < 97; i++) {
            double t = 0.023 * i + 0.001 * c;
            pose_evaluate(&fast, rm.walks, c, t);
            pose_evaluate_reference(&ref, &rm.model, c, t);
            for (int b = 0; b < rm.model.skeleton.bone_count; b++)
                for (int col = 0; col < 4; col++)
                    for (int row = 0; row < 4; row++)
                        worst = fmax(worst, fabs(fast.palette[b][col][row] - ref.palette[b][col][row]));
        }
    CHECK(worst < 1e-5);
    if (!(worst < 1e-5)) fprintf(stderr, "modes: fast path off the reference by %g\n", worst);
    pose_destroy(&fast);
    pose_destroy(&ref);
    for (int c = 0; c < RM_CLIPS; c++)
        for (int k = 0; k < rm.clips[c].channel_count; k++) {
            free(rm.channels[c][k].rotation_tangents);
            free(rm.channels[c][k].scale_tangents);
        }
    random_model_free();
}

int main(void)
{
    test_modes();
    test_modes_fast_path();
    test_vec3_keys();
    test_slerp();
    test_clip_ticks();
    return check_summary();
}
