/* test_framing.c - the framing's pass that skips vertices (camera.h:
 * camera_framed_bounds_pruned over skin_bound.h's clusters) against the
 * pass that blends every vertex at every sample: the same box and camera,
 * bit for bit, every way the scene frames a model (its clip, the rest
 * pose, one pose, a steady root node, the box alone); and on a sheet whose
 * framing one lightly weighted vertex sets (tests/tools/gen/
 * gltf_light_extreme.py), that vertex kept. Prints the blends each model
 * took both ways (the pruned count includes the blends that look for
 * seeds, so it may pass the other on a small model).
 *
 * Usage: test_framing LIGHT_EXTREME.glb TUBE.glb [MODEL...]
 * (TUBE: gltf_big_skin.py's; the skipping must save most of its blends) */
#include <stdio.h>
#include <string.h>

#include "camera.h"
#include "check.h"
#include "import.h"

typedef struct framing {
    float lo[3], hi[3];
    skv_camera camera;
    long long blends;
} framing;

static void frame(skv_walks *walks, int clip, double start, int samples, int steady, int prune, int with_camera,
                  framing *out)
{
    memset(out, 0, sizeof *out);
    CHECK(camera_framed_bounds_pruned(walks, clip, start, samples, steady, prune, &out->blends, out->lo, out->hi,
                                      with_camera ? &out->camera : NULL) == SKV_OK);
}

static int same(const framing *a, const framing *b)
{
    return memcmp(a->lo, b->lo, sizeof a->lo) == 0 && memcmp(a->hi, b->hi, sizeof a->hi) == 0 &&
           memcmp(&a->camera, &b->camera, sizeof a->camera) == 0;
}

/* One way of framing, pruned and not: the same, bit for bit. Adds the
 * blends to *pruned and *all. */
static void compare(const char *path, skv_walks *walks, int clip, double start, int samples, int steady,
                    int with_camera, long long *pruned, long long *all)
{
    framing p, a;
    frame(walks, clip, start, samples, steady, 1, with_camera, &p);
    frame(walks, clip, start, samples, steady, 0, with_camera, &a);
    CHECK(same(&p, &a));
    if (!same(&p, &a))
        fprintf(stderr,
                "%s: clip %d start %g samples %d steady %d camera %d: box %g %g %g .. %g %g %g, all blended %g %g %g "
                ".. %g %g %g; reach up %.9g / %.9g, front %.9g / %.9g\n",
                path, clip, start, samples, steady, with_camera, p.lo[0], p.lo[1], p.lo[2], p.hi[0], p.hi[1], p.hi[2],
                a.lo[0], a.lo[1], a.lo[2], a.hi[0], a.hi[1], a.hi[2], p.camera.reach_up, a.camera.reach_up,
                p.camera.reach_front, a.camera.reach_front);
    *pruned += p.blends;
    *all += a.blends;
}

/* Every way the scene frames the model (scene.c frame_clip): the whole
 * clip (32 samples), with the root motion taken off, one pose, the rest
 * pose, the box alone (camera_animated_bounds). Returns the blends of the
 * whole-clip framing, pruned, and sets *all to those of blending all. */
static long long compare_model(const char *path, long long *all)
{
    skv_model model;
    skv_error err;
    skv_walks *walks = NULL;
    if (import_model(path, NULL, &model, &err) != SKV_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        CHECK(!"model loads");
        return 0;
    }
    CHECK(walks_create(&walks, &model) == SKV_OK);
    long long pruned = 0, sum = 0, rest_pruned = 0, rest_all = 0;
    int clip = model.clip_count > 0 ? 0 : -1;
    compare(path, walks, clip, 0.0, 32, -1, 1, &pruned, &sum);
    int root = camera_root_motion_node(&model, clip);
    /* A steady node even where the clip has no root motion: node 1 if any. */
    int steady = root >= 0 ? root : (model.skeleton.node_count > 1 ? 1 : -1);
    compare(path, walks, clip, 0.0, 32, steady, 1, &rest_pruned, &rest_all);
    double duration = clip >= 0 ? model.clips[clip].duration_ticks / model.clips[clip].ticks_per_second : 0.0;
    compare(path, walks, clip, 0.37 * duration, 1, -1, 1, &rest_pruned, &rest_all);
    compare(path, walks, -1, 0.0, 32, -1, 1, &rest_pruned, &rest_all);
    compare(path, walks, clip, 0.0, 32, -1, 0, &rest_pruned, &rest_all);
    compare(path, walks, clip, 0.0, 4, steady, 0, &rest_pruned, &rest_all);
    printf("%s: %d vertices; the clip's framing blended %lld of %lld (%.1f%%); the other framings %lld of %lld\n",
           path, model.vertex_count, pruned, sum, sum ? 100.0 * (double)pruned / (double)sum : 0.0, rest_pruned,
           rest_all);
    walks_destroy(walks);
    model_free(&model);
    *all = sum;
    return pruned;
}

/* The sheet's middle vertex, 0.03 on a joint carried 60 units away,
 * alone reaches (1.8, 1.35, 2.25) halfway through: the framed box holds
 * it, with the pruned pass as without. */
static void test_light_extreme(const char *path)
{
    skv_model model;
    skv_error err;
    skv_walks *walks = NULL;
    if (import_model(path, NULL, &model, &err) != SKV_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        CHECK(!"the sheet loads");
        return;
    }
    CHECK(walks_create(&walks, &model) == SKV_OK);
    framing p, a;
    frame(walks, 0, 0.0, 32, -1, 1, 1, &p);
    frame(walks, 0, 0.0, 32, -1, 0, 1, &a);
    CHECK(same(&p, &a));
    CHECK_NEAR(p.hi[0], 1.8, 1e-4);
    CHECK_NEAR(p.hi[1], 1.35, 1e-4);
    CHECK_NEAR(p.hi[2], 2.25, 1e-4);
    CHECK_NEAR(p.lo[0], -1.3660254, 1e-4); /* the sheet's corner */
    /* Most of the sheet stays put: most of its blends are skipped. */
    CHECK(p.blends * 4 < a.blends);
    printf("%s: blended %lld of %lld\n", path, p.blends, a.blends);
    walks_destroy(walks);
    model_free(&model);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_framing LIGHT_EXTREME.glb TUBE.glb [MODEL...]\n");
        return 2;
    }
    test_light_extreme(argv[1]);
    long long all = 0, pruned = compare_model(argv[2], &all);
    CHECK(pruned * 4 < all); /* the tube bends in one joint: most of it cannot reach the extremes */
    for (int i = 3; i < argc; i++) compare_model(argv[i], &all);
    return check_summary();
}
