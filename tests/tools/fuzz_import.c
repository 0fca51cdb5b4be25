/* fuzz_import.c - libFuzzer target: arbitrary bytes through Skinview's
 * whole load path.
 *
 * The first byte picks the file type (extension) and the influence slots;
 * the rest is written to a temporary file and loaded with import_model,
 * exactly as the viewer loads a download: Assimp's read and the
 * conversion in the sandboxed child (so their crashes become errors, see
 * src/import/guard.c; a fault in the conversion is contained there too,
 * and unit_blob/bad_input are where it shows), then here the check and
 * adoption of the child's model block, the draw split, pose sampling at
 * odd times, the CPU blends and the framing bounds. Any crash, sanitizer
 * report or leak here is ours. Built by -DSKINVIEW_FUZZ=ON with clang; tests/tools/fuzz.sh runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anim.h"
#include "draws.h"
#include "import.h"
#include "skin.h"
#include "camera.h"

static const char *const extensions[] = {"dae", "fbx", "md5mesh", "gltf", "glb", "x",   "smd",
                                         "bvh", "obj", "ms3d",    "b3d",  "mdl", "ply", "3ds"};
#define EXTENSION_COUNT (sizeof extensions / sizeof extensions[0])

static void exercise(const skv_model *model)
{
    skv_error err;
    skv_draw_set set;
    if (draws_build(model, 12, &set, &err) == SKV_OK) draws_free(&set);
    skv_pose pose;
    skv_walks *walks;
    if (walks_create(&walks, model) != SKV_OK) return;
    if (pose_create(&pose, &model->skeleton) != SKV_OK) {
        walks_destroy(walks);
        return;
    }
    size_t n = (size_t)model->vertex_count;
    float *positions = malloc(n * 3 * sizeof(float) + 1), *normals = malloc(n * 3 * sizeof(float) + 1);
    const double times[] = {0.0, 0.37, -3.0, 1e9};
    for (int clip = -1; clip < model->clip_count && clip < 2; clip++)
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            pose_evaluate(&pose, walks, clip, times[t]);
            if (positions && normals) {
                skin_blend(model, pose.palette, positions, normals);
                skin_blend_all(model, pose.palette, positions);
            }
        }
    float lo[3], hi[3];
    camera_animated_bounds(walks, model->clip_count > 0 ? 0 : -1, 0.0, 4, -1, lo, hi);
    free(positions);
    free(normals);
    pose_destroy(&pose);
    walks_destroy(walks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char folder[64];
    if (!folder[0]) {
        snprintf(folder, sizeof folder, "/tmp/skinview-fuzz-XXXXXX");
        if (!mkdtemp(folder)) abort();
    }
    if (size < 1) return 0;
    char path[128];
    snprintf(path, sizeof path, "%s/input.%s", folder, extensions[(data[0] & 0x7f) % EXTENSION_COUNT]);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);

    skv_model model;
    skv_error err;
    skv_import_desc desc = {.influences = (data[0] & 0x80) ? 8 : 4, .timeout_seconds = 5.0};
    if (import_model(path, &desc, &model, &err) == SKV_OK) {
        exercise(&model);
        model_free(&model);
    }
    unlink(path);
    return 0;
}
