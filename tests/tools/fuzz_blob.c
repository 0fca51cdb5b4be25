/* fuzz_blob.c - libFuzzer target: arbitrary bytes as the model block a
 * guarded child hands its parent (src/import/blob.c), and, where the
 * parent accepts one, everything the parent then does with the model.
 *
 * The guarded import's child is assumed compromised (issue #48): the
 * block is all it can send, so a block that blob_read or blob_adopt
 * accepts must be safe for every consumer in the parent. Each input is
 * read both ways (copied, and adopted from a private mapping as
 * guard.c does), which must agree; an accepted model is then drawn into
 * draws (split small, so the split runs), listed (--list, text and
 * JSON), posed through the pose evaluator (each clip and the rest pose,
 * a few times, the reference evaluator and a blend too), skinned on the
 * CPU (linear, every influence, dual quaternions, with its morph
 * weights), framed, and exported as OBJ to /dev/null. Any crash,
 * sanitizer report or leak is a check blob_check lacks.
 *
 * The block's size field is set to the input's size (bytes 16..23), so
 * that inserted and erased bytes reach the offsets' and counts' checks
 * instead of the header's. Seeds: real blocks (fuzz_blob_seeds). Built
 * by -DSKINVIEW_FUZZ=ON with clang; tests/tools/fuzz_blob.sh runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "anim.h"
#include "blob.h"
#include "camera.h"
#include "draws.h"
#include "morph.h"
#include "output.h"
#include "report.h"
#include "skin.h"

static FILE *null_out;

static void pose_and_skin(const skv_model *model)
{
    skv_pose pose;
    if (pose_create(&pose, &model->skeleton) != SKV_OK) return;
    size_t n = (size_t)model->vertex_count, bones = (size_t)model->skeleton.bone_count;
    float *positions = malloc(n * 3 * sizeof(float) + 1), *normals = malloc(n * 3 * sizeof(float) + 1);
    float *weights = malloc((size_t)model->morph_target_count * sizeof(float) + 1);
    skv_dq_bone *dq = malloc((bones ? bones : 1) * sizeof *dq);
    const double times[] = {0.0, 0.37, 1.5};
    int clips = model->clip_count < 3 ? model->clip_count : 3;
    for (int clip = -1; clip < clips && positions && normals && weights && dq; clip++)
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            if (t == 2) pose_evaluate_reference(&pose, model, clip, times[t]);
            else pose_evaluate(&pose, model, clip, times[t]);
            morph_weights(model, clip, times[t], weights);
            skin_blend_morph(model, pose.palette, weights, positions, normals);
            skin_blend_all_morph(model, pose.palette, weights, positions);
            skin_dq_palette(pose.palette, (int)bones, dq);
            skin_blend_dq_morph(model, dq, weights, positions, normals);
            if (t == 1) {
                skv_error err;
                if (model->skeleton_only)
                    output_write_skeleton_obj("/dev/null", model, pose_globals(&pose), model->upright, NULL, &err);
                else
                    output_write_obj("/dev/null", model, positions, normals, model->upright, &err);
            }
        }
    if (model->clip_count > 0) pose_evaluate_blend(&pose, model, 0, 0.2, model->clip_count - 1, 0.7, 0.5f);
    float lo[3], hi[3];
    camera_animated_bounds(model, model->clip_count > 0 ? 0 : -1, 0.0, 2, camera_root_motion_node(model, 0), lo, hi);
    free(positions), free(normals), free(weights), free(dq);
    pose_destroy(&pose);
}

static void exercise(const skv_model *model)
{
    skv_error err;
    skv_draw_set set;
    if (draws_build(model, 12, &set, &err) == SKV_OK) draws_free(&set);
    if (draws_build(model, SKV_MAX_BONES, &set, &err) == SKV_OK) draws_free(&set);
    draws_check_lists(model, 12, &err);
    report_list(null_out, model);
    report_list_json(null_out, model);
    pose_and_skin(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!null_out && !(null_out = fopen("/dev/null", "w"))) abort();
    unsigned char *bytes = malloc(size ? size : 1);
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    if (size >= 24) {
        uint64_t whole = size;
        memcpy(bytes + 16, &whole, sizeof whole);
    }

    skv_model model;
    skv_error err;
    int64_t extra;
    skv_result copied = blob_read(bytes, size, &model, &extra, &err);
    if (copied == SKV_OK) {
        exercise(&model);
        model_free(&model);
    }
    /* Adopted in place, as guard.c maps the child's memfd. */
    size_t mapped_size = size ? size : 1;
    void *mapped = mmap(NULL, mapped_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) abort();
    memcpy(mapped, bytes, size);
    skv_result adopted = blob_adopt(mapped, size, &model, &extra, &err);
    if (adopted == SKV_OK) {
        exercise(&model);
        model_free(&model); /* unmaps it */
    } else {
        munmap(mapped, mapped_size);
    }
    if (copied != adopted) abort(); /* the two readers must agree */
    free(bytes);
    return 0;
}
