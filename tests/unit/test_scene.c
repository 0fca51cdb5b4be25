/* test_scene.c - the scene's clock, its clip cross-fade (the window's
 * clip switch), --blend, and clips added while it plays, on real models,
 * without a GPU.
 *
 * Usage: test_scene Fox.glb [MODEL ANIM] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"
#include "check.h"

static double palette_difference(const skv_model *model, const mat4 *a, const mat4 *b)
{
    double worst = 0.0;
    for (int k = 0; k < model->skeleton.bone_count; k++)
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(a[k][c][r] - b[k][c][r]));
    return worst;
}

/* The largest difference of palette `a` from the reference's `ref`,
 * relative to the reference's largest entry. */
static double palette_gap(const skv_model *model, const mat4 *a, const mat4 *ref)
{
    double scale = 1e-30;
    for (int k = 0; k < model->skeleton.bone_count; k++)
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) scale = fmax(scale, fabs(ref[k][c][r]));
    double gap = palette_difference(model, a, ref);
    return isnan(gap) ? INFINITY : gap / scale;
}

/* The clips of ANIM added to the scene of MODEL while it plays (a clip
 * file dropped on the window: scene_add_clips): the model's clips move
 * and its rest pose may change (ozz's walk.fbx folds pivots into
 * arnaud.fbx's), so the scene's walks must go and its poses settle again:
 * the scene's pose, on its first clip and on the clip added (through its
 * walk, not the reference's path the walks give a clip they have no room
 * for), and the bind-pose copy (the rest pose's walk), each against the
 * reference before and after. Under ASan a pose still using the moved clips or the dropped
 * walks is a use after free. */
static void test_add_clips(const char *model_path, const char *anim_path)
{
    skv_scene scene;
    skv_error err;
    CHECK(scene_load(&scene, model_path, NULL, NULL, &err) == SKV_OK);
    const skv_model *m = scene.model;
    skv_pose ref;
    CHECK(pose_create(&ref, &m->skeleton) == SKV_OK);
    skv_view_options view = scene.view;
    view.bind_pose = 1;
    scene_set_view(&scene, &view);
    int first_new = m->clip_count, added = 0;
    double before = 0.0, after = 0.0;
    int walked = 0; /* frames of the clip added posed through its walk */
    for (int f = 0; f < 20; f++) {
        if (f == 10) {
            skv_result r = scene_add_clips(&scene, anim_path, NULL, 1, &added, &err);
            if (r != SKV_OK) fprintf(stderr, "%s: %s\n", anim_path, err.message);
            CHECK(r == SKV_OK && added >= 1 && m->clip_count == first_new + added);
        }
        if (f == 15) CHECK(scene_set_clip(&scene, first_new, NULL) == SKV_OK);
        double t = f / 30.0;
        skv_frame_desc frame;
        scene_frame(&scene, t, 64, 64, &frame);
        pose_evaluate_reference(&ref, m, scene.clip, t);
        double gap = palette_gap(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette);
        pose_evaluate_reference(&ref, m, -1, 0.0);
        gap = fmax(gap, palette_gap(m, (const mat4 *)scene.bind.palette, (const mat4 *)ref.palette));
        if (f < 10) before = fmax(before, gap);
        else after = fmax(after, gap);
        walked += f >= 15 && scene.pose.playing_walks == scene.walks;
    }
    printf("%s + %s added while playing: the scene's pose and its bind-pose copy from the reference, relative to "
           "its largest entry: %.2g before, %.2g after\n", model_path, anim_path, before, after);
    CHECK(before < 1e-5 && after < 1e-5);
    CHECK(walked == 5);
    pose_destroy(&ref);
    scene_free(&scene);
}

/* A scene moved as a value (the window replacing its scene with a
 * dropped model's: loaded beside it, then copied over it) poses and
 * frames as before the move, its clip switch included, with the struct
 * it was loaded into gone (freed and overwritten here: under ASan a read
 * of it is a use after free). */
static void test_scene_moved(const char *path)
{
    skv_scene *loaded = malloc(sizeof *loaded);
    skv_scene scene;
    skv_error err;
    CHECK(loaded && scene_load(loaded, path, "Walk", NULL, &err) == SKV_OK);
    if (!loaded) return;
    scene = *loaded;
    memset(loaded, 0xa5, sizeof *loaded);
    free(loaded);
    const skv_model *m = scene.model;
    skv_pose ref;
    CHECK(pose_create(&ref, &m->skeleton) == SKV_OK);
    int run = model_find_clip(m, "Run");
    CHECK(run >= 0 && scene_switch_clip(&scene, run, &err) == SKV_OK);
    double worst = 0.0;
    for (int f = 0; f < 10; f++) {
        skv_frame_desc frame;
        scene.fade_clip = -1; /* the clip alone, no cross-fade */
        scene_frame(&scene, f / 30.0, 64, 64, &frame);
        pose_evaluate_reference(&ref, m, run, f / 30.0);
        worst = fmax(worst, palette_gap(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette));
    }
    printf("a scene moved: its pose from the reference %.2g\n", worst);
    CHECK(worst < 1e-5);
    pose_destroy(&ref);
    scene_free(&scene);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_scene Fox.glb [MODEL ANIM]\n");
        return 2;
    }
    if (argc >= 4) test_add_clips(argv[2], argv[3]);
    test_scene_moved(argv[1]);
    skv_scene scene;
    skv_error err;
    CHECK(scene_load(&scene, argv[1], "Walk", NULL, &err) == SKV_OK);
    /* Framed when first drawn, not at load (--list frames nothing), and
     * with the angles set before it: the same camera as framed at once. */
    CHECK(scene.framing_due == 1 && scene.camera.radius == 0.0f);
    scene_set_camera(&scene, 60.0f, 20.0f, 1.25f);
    CHECK(scene.framing_due != 0);
    skv_frame_desc framed_frame;
    CHECK(scene_frame(&scene, 0.0, 64, 64, &framed_frame) == SKV_OK);
    CHECK(scene.framing_due == 0 && scene.camera.radius > 0.0f);
    CHECK(scene.camera.yaw == 60.0f && scene.camera.pitch == 20.0f && scene.camera.zoom == 1.25f);
    skv_camera lazily = scene.camera;
    scene.framing_due = 1; /* framed again from scratch: the same centre and size */
    scene_set_camera(&scene, 60.0f, 20.0f, 1.25f);
    CHECK(scene_frame(&scene, 0.0, 64, 64, &framed_frame) == SKV_OK);
    CHECK(memcmp(&lazily, &scene.camera, sizeof lazily) == 0);
    int walk = model_find_clip(scene.model, "Walk"), run = model_find_clip(scene.model, "Run");
    CHECK(walk >= 0 && run >= 0);
    skv_pose ref;
    CHECK(pose_create(&ref, &scene.model->skeleton) == SKV_OK);
    const skv_model *m = scene.model;

    /* Walk was at 0.2 s when Run was picked; the fade takes 0.5 s of Run. */
    scene.fade_seconds = 0.5;
    CHECK(scene_crossfade_to(&scene, run, 0.2, NULL) == SKV_OK);
    CHECK(scene.clip == run && scene.fade_clip == walk);
    scene_pose(&scene, 0.0);
    pose_evaluate_reference(&ref, m, walk, 0.2);
    double start = palette_difference(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette);
    scene_pose(&scene, 0.25);
    pose_evaluate_reference(&ref, m, walk, 0.45);
    double mid_vs_walk = palette_difference(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette);
    pose_evaluate_reference(&ref, m, run, 0.25);
    double mid_vs_run = palette_difference(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette);
    scene_pose(&scene, 0.5);
    pose_evaluate_reference(&ref, m, run, 0.5);
    double end = palette_difference(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette);
    printf("cross-fade Walk -> Run: start vs Walk %.2g, middle vs Walk %.3g and vs Run %.3g, end vs Run %.2g\n",
           start, mid_vs_walk, mid_vs_run, end);
    CHECK(start < 1e-3 && end < 1e-3);           /* Fox units are centimetres: 1e-3 is float noise */
    CHECK(mid_vs_walk > 0.5 && mid_vs_run > 0.5); /* a real mix, not either clip */
    CHECK(scene.fade_clip == -1);                 /* over */

    /* --blend at 0 and 1 is the clip itself; the blend is turned off by -1. */
    CHECK(scene_set_clip(&scene, walk, NULL) == SKV_OK);
    scene_set_blend(&scene, run, 0.0f);
    scene_pose(&scene, 0.3);
    pose_evaluate_reference(&ref, m, walk, 0.3);
    CHECK(palette_difference(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette) < 1e-3);
    scene_set_blend(&scene, run, 1.0f);
    scene_pose(&scene, 0.3);
    pose_evaluate_reference(&ref, m, run, 0.3);
    CHECK(palette_difference(m, (const mat4 *)scene.pose.palette, (const mat4 *)ref.palette) < 1e-3);
    scene_set_blend(&scene, -1, 0.0f);
    CHECK(scene.blend_clip == -1);

    /* The clock (the window's playback): speed, pause, stop at the end,
     * the timeline's wrap, and a clip switch starting the new clip at 0. */
    CHECK(scene_set_clip(&scene, walk, NULL) == SKV_OK);
    double duration = scene_clip_seconds(&scene);
    CHECK(duration > 0.5);
    scene_set_clock(&scene, 0.1, 2.0);
    scene_advance(&scene, 0.05);
    CHECK(fabs(scene.clock.seconds - 0.2) < 1e-12);
    scene.clock.paused = 1;
    scene_advance(&scene, 10.0);
    CHECK(fabs(scene.clock.seconds - 0.2) < 1e-12);
    scene_seek(&scene, duration + 0.25); /* past the end: the timeline wraps */
    CHECK(scene.clock.paused && fabs(scene_shown_seconds(&scene) - 0.25) < 1e-9);
    scene_seek(&scene, -0.25);
    CHECK(fabs(scene_shown_seconds(&scene) - (duration - 0.25)) < 1e-9);
    scene.clock = (skv_clock){.seconds = duration - 0.1, .speed = 1.0, .stop_at_end = 1};
    scene_advance(&scene, 1.0); /* held on the last frame, paused */
    CHECK(scene.clock.paused && scene.clock.seconds < duration && scene.clock.seconds > duration - 1e-3);
    scene.clock = (skv_clock){.seconds = 0.3, .speed = 1.0};
    CHECK(scene_switch_clip(&scene, run, NULL) == SKV_OK);
    CHECK(scene.clip == run && scene.fade_clip == walk && fabs(scene.fade_from - 0.3) < 1e-12);
    CHECK(scene.clock.seconds == 0.0);
    CHECK(scene_set_clip(&scene, m->clip_count, NULL) == SKV_ERR_ANIM && scene.clip == run);

    /* A reframe (follow, in place: T and I in the window) keeps the angles
     * and zoom the user chose, and so does R after it. */
    scene_set_camera(&scene, 120.0f, 40.0f, 1.5f);
    scene_set_motion(&scene, 1, 0, 0, 0.0);
    CHECK(scene.camera.yaw == 120.0f && scene.camera.pitch == 40.0f && scene.camera.zoom == 1.5f);
    scene.camera.yaw = 10.0f;
    scene_reset_camera(&scene);
    CHECK(scene.camera.yaw == 120.0f && scene.camera.pitch == 40.0f && scene.camera.zoom == 1.5f);
    /* So do a clip switch (N, P) and the bind-pose ghost (B): the camera
     * stays where the user turned it; R still returns to the user's. */
    scene.camera.yaw = 70.0f, scene.camera.pitch = 5.0f;
    CHECK(scene_set_clip(&scene, walk, NULL) == SKV_OK);
    CHECK(scene.camera.yaw == 70.0f && scene.camera.pitch == 5.0f);
    skv_view_options ghost = scene.view;
    ghost.bind_pose = !ghost.bind_pose;
    scene_set_view(&scene, &ghost);
    CHECK(scene.camera.yaw == 70.0f && scene.camera.pitch == 5.0f);
    scene_reset_camera(&scene);
    CHECK(scene.camera.yaw == 120.0f && scene.camera.pitch == 40.0f && scene.camera.zoom == 1.5f);

    pose_destroy(&ref);
    scene_free(&scene);
    return check_summary();
}
