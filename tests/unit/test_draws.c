/* test_draws.c - splitting meshes into draws that fit a palette, checked
 * on real models with palettes far smaller than the shader's. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draws.h"
#include "import.h"

static void check_split(const char *path, int max_bones, int influences)
{
    skv_model model;
    skv_error err;
    if (import_model(path, &(skv_import_desc){.influences = influences}, &model, &err) != SKV_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        CHECK(0);
        return;
    }
    skv_draw_set set;
    CHECK(draws_build(&model, max_bones, &set, &err) == SKV_OK);
    CHECK(set.split == (model.skeleton.bone_count > max_bones));
    if (!set.split) {
        /* Shared palette: one draw per mesh on the model's own data. */
        CHECK(set.draw_count == model.mesh_count && set.indices == NULL);
        printf("%s, %d bones per draw: %d bones, shared palette, %d draws\n", path, max_bones,
               model.skeleton.bone_count, set.draw_count);
        draws_free(&set);
        model_free(&model);
        return;
    }
    long triangles = 0;
    int bad_ids = 0, bad_vertices = 0, over = 0, bad_lists = 0;
    for (int i = 0; i < set.draw_count; i++) {
        const skv_draw *d = &set.draws[i];
        if (d->bone_count > max_bones) over++;
        triangles += d->index_count / 3;
        for (int k = 0; k < d->index_count; k++)
            if (set.indices[d->first_index + k] >= (uint32_t)d->vertex_count) bad_vertices++;
        for (int g = d->base_vertex; g < d->base_vertex + d->vertex_count; g++) {
            int v = set.source_vertex[g];
            /* With lists: the copy's list, through the draw's bones, must be
             * the vertex's own list, pair for pair. */
            if (model.influence_lists) {
                int first = model.influence_start[v], count = model.influence_start[v + 1] - first;
                if (set.list_start[g + 1] - set.list_start[g] != count) bad_lists++;
                else
                    for (int i = 0; i < count; i++) {
                        skv_influence local = set.list_pairs[set.list_start[g] + i];
                        if (local.bone < 0 || local.bone >= d->bone_count ||
                            d->bones[local.bone] != model.influences[first + i].bone ||
                            local.weight != model.influences[first + i].weight)
                            bad_lists++;
                    }
            }
            /* Local slot -> global bone must give the vertex's own bones. */
            const int slots = model.influence_slots;
            for (int s = 0; s < slots; s++) {
                if (model.weights[v * slots + s] == 0.0f) continue;
                int local = set.bone_ids[g * slots + s];
                if (local >= d->bone_count || d->bones[local] != model.bone_ids[v * slots + s]) bad_ids++;
            }
        }
    }
    printf("%s, %s, %d bones per draw: %d bones -> %d draws, %d -> %d vertices\n", path,
           influences == SKV_INFLUENCES_ALL ? "lists" : influences == 8 ? "8 slots" : "4 slots", max_bones,
           model.skeleton.bone_count, set.draw_count, model.vertex_count, set.vertex_count);
    CHECK(over == 0);
    CHECK(bad_lists == 0);
    CHECK(!model.influence_lists || (set.list_start && set.list_start[set.vertex_count] > 0));
    CHECK(bad_ids == 0);
    CHECK(bad_vertices == 0);
    CHECK(triangles == model.index_count / 3); /* every triangle drawn once */
    draws_free(&set);
    model_free(&model);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        check_split(argv[i], 12, 4);
        check_split(argv[i], 100, 4);
        check_split(argv[i], 12, 8);
        check_split(argv[i], 12, SKV_INFLUENCES_ALL);
        check_split(argv[i], 100, SKV_INFLUENCES_ALL);
    }
    /* A triangle whose vertices' lists hold more bones than a draw: refused
     * in one line, not drawn with an overfull palette. */
    if (argc > 1) {
        skv_model model;
        skv_error err;
        if (import_model(argv[argc - 1], &(skv_import_desc){.influences = SKV_INFLUENCES_ALL}, &model, &err) == SKV_OK) {
            skv_draw_set set;
            CHECK(draws_build(&model, 2, &set, &err) == SKV_ERR_ARGUMENT);
            CHECK(strstr(err.message, "bones among them") != NULL);
            printf("2 bones per draw, lists: %s\n", err.message);
            /* draws_check_lists (the default's test at load) refuses
             * exactly where draws_build does, at every draw size, with
             * the same line. */
            int agreed = 0;
            for (int max = 1; max <= model.skeleton.bone_count; max++) {
                skv_error built_err, checked_err;
                skv_result built = draws_build(&model, max, &set, &built_err);
                if (built == SKV_OK) draws_free(&set);
                skv_result checked = draws_check_lists(&model, max, &checked_err);
                int same = built == checked && (built == SKV_OK || strcmp(built_err.message, checked_err.message) == 0);
                if (!same) printf("%d bones per draw: draws_build %d (%s), draws_check_lists %d (%s)\n", max, built,
                                  built == SKV_OK ? "" : built_err.message, checked, checked == SKV_OK ? "" : checked_err.message);
                agreed += same;
            }
            CHECK(agreed == model.skeleton.bone_count);
            printf("draws_check_lists agreed with draws_build at 1..%d bones per draw\n", model.skeleton.bone_count);
            model_free(&model);
        } else CHECK(0);
    }
    return check_summary();
}
