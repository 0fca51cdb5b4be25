/* test_add_clips.c - clips added to a model that poses are playing
 * (import_add_clips, as a file dropped on the viewer adds them): the
 * model's clips move (realloc) and folding the new file's FBX pivots may
 * change its rest pose and parents, so the owner of the model's walks
 * forgets them (walks_forget) and every pose must settle again (the
 * walks' generation). Poses playing clip 0, the clip
 * index the new file takes (out of range before: the rest pose), and the
 * rest pose, own and lent (a crowd's 3x4 rows), are compared with the
 * reference before and after the add, guarded and --trust; and the
 * reference after the add with that of the model imported with the file
 * as --anim-file (the same clips, the same skeleton: the guarded add had
 * left the parents unfolded, 184-437 off on ozz's files). Under the
 * sanitizer build a pose still using the moved clips or the dropped walks
 * is a use after free.
 *
 * Usage: test_add_clips MODEL ANIM [MODEL ANIM]... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "anim.h"
#include "check.h"
#include "import.h"
#include "kernels.h"

enum { POSES = 3, FRAMES = 12 };

/* The largest difference of `pose`'s palette (4x4, or a crowd's 3x4
 * rows) from the reference's, relative to the reference's largest entry. */
static double palette_gap(const skv_pose *pose, const skv_pose *ref, int bones)
{
    double gap = 0.0, scale = 1e-30;
    const float *rows = (const float *)(const void *)pose->palette;
    for (int b = 0; b < bones; b++)
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < (pose->palette_rows ? 3 : 4); r++) {
                float mine = pose->palette_rows ? rows[b * SKV_ROWS_FLOATS + 4 * r + c] : pose->palette[b][c][r];
                double e = fabs(mine - ref->palette[b][c][r]);
                gap = fmax(gap, isnan(e) ? INFINITY : e);
                scale = fmax(scale, fabs(ref->palette[b][c][r]));
            }
    return gap / scale;
}

static void add_while_playing(const char *model_path, const char *anim_path, int trusted)
{
    skv_import_desc desc = {.trusted = trusted};
    skv_model model;
    skv_error err = {{0}};
    if (import_model(model_path, &desc, &model, &err) != SKV_OK) {
        fprintf(stderr, "%s: %s\n", model_path, err.message);
        CHECK(!"model imports");
        return;
    }
    /* The same files read as one: the model with ANIM as --anim-file. */
    skv_import_desc both_desc = {.trusted = trusted, .anim_files = &anim_path, .anim_file_count = 1};
    skv_model both;
    skv_pose both_ref;
    if (import_model(model_path, &both_desc, &both, &err) != SKV_OK) {
        fprintf(stderr, "%s with %s: %s\n", model_path, anim_path, err.message);
        CHECK(!"model and --anim-file import");
        model_free(&model);
        return;
    }
    CHECK(pose_create(&both_ref, &both.skeleton) == SKV_OK);
    skv_walks *walks;
    CHECK(walks_create(&walks, &model) == SKV_OK);
    const skv_skeleton *sk = &model.skeleton;
    int first_new = model.clip_count;
    int clips[POSES] = {0, first_new, -1};
    skv_pose own[POSES], lent[POSES], ref;
    size_t nodes = sk->node_count > 0 ? (size_t)sk->node_count : 1, bones = sk->bone_count > 0 ? (size_t)sk->bone_count : 1;
    size_t rows_bytes = (POSES * bones * SKV_ROWS_FLOATS * sizeof(float) + 63) / 64 * 64; /* aligned_alloc's rule */
    float *work = aligned_alloc(64, 2 * nodes * sizeof(mat4));
    float *rows = aligned_alloc(64, rows_bytes);
    CHECK(work && rows && pose_create(&ref, sk) == SKV_OK);
    for (int p = 0; p < POSES; p++) {
        CHECK(pose_create(&own[p], sk) == SKV_OK);
        CHECK(pose_create_lent(&lent[p], sk, rows + p * bones * SKV_ROWS_FLOATS) == SKV_OK);
    }
    double before = 0.0, after = 0.0, apart = 0.0;
    int added = 0;
    for (int f = 0; f < 2 * FRAMES; f++) {
        if (f == FRAMES) {
            skv_result r = import_add_clips(&model, anim_path, &desc, 0, &added, &err);
            if (r != SKV_OK) fprintf(stderr, "%s: %s\n", anim_path, err.message);
            CHECK(r == SKV_OK && added >= 1 && model.clip_count == first_new + added);
            CHECK(walks_forget(walks) == SKV_OK); /* the owner's part: its walks of the old clips go */
        }
        double t = f / 30.0;
        for (int p = 0; p < POSES; p++) {
            pose_evaluate_reference(&ref, &model, clips[p], t);
            pose_evaluate(&own[p], walks, clips[p], t);
            pose_evaluate_lent(&lent[p], walks, clips[p], t, work);
            double gap = fmax(palette_gap(&own[p], &ref, sk->bone_count), palette_gap(&lent[p], &ref, sk->bone_count));
            if (f < FRAMES) before = fmax(before, gap);
            else after = fmax(after, gap);
            if (f >= FRAMES && model.clip_count == both.clip_count && sk->bone_count == both.skeleton.bone_count) {
                pose_evaluate_reference(&both_ref, &both, clips[p], t);
                apart = fmax(apart, palette_gap(&both_ref, &ref, sk->bone_count));
            }
        }
    }
    printf("%s + %s (%s): %d clip(s) added; max palette difference from the reference, relative to its largest "
           "entry: %.2g before, %.2g after; the reference from the import with --anim-file %.2g\n",
           model_path, anim_path, trusted ? "--trust" : "guarded", added, before, after, apart);
    CHECK(before < 1e-5);
    CHECK(after < 1e-5);
    CHECK(model.clip_count == both.clip_count && apart < 1e-5);
    pose_destroy(&both_ref);
    model_free(&both);
    for (int p = 0; p < POSES; p++) pose_destroy(&own[p]), pose_destroy(&lent[p]);
    pose_destroy(&ref);
    free(work);
    free(rows);
    walks_destroy(walks);
    model_free(&model);
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2)
        for (int trusted = 0; trusted < 2; trusted++) add_while_playing(argv[i], argv[i + 1], trusted);
    CHECK(argc >= 3);
    return check_summary();
}
