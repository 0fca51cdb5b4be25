/* test_draws.c - splitting meshes into draws that fit a palette, checked
 * on real models with palettes far smaller than the shader's. */
#include <stdlib.h>

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
    int bad_ids = 0, bad_vertices = 0, over = 0;
    for (int i = 0; i < set.draw_count; i++) {
        const skv_draw *d = &set.draws[i];
        if (d->bone_count > max_bones) over++;
        triangles += d->index_count / 3;
        for (int k = 0; k < d->index_count; k++)
            if (set.indices[d->first_index + k] >= (uint32_t)d->vertex_count) bad_vertices++;
        for (int g = d->base_vertex; g < d->base_vertex + d->vertex_count; g++) {
            int v = set.source_vertex[g];
            /* Local slot -> global bone must give the vertex's own bones. */
            const int slots = model.influence_slots;
            for (int s = 0; s < slots; s++) {
                if (model.weights[v * slots + s] == 0.0f) continue;
                int local = set.bone_ids[g * slots + s];
                if (local >= d->bone_count || d->bones[local] != model.bone_ids[v * slots + s]) bad_ids++;
            }
        }
    }
    printf("%s, %d slots, %d bones per draw: %d bones -> %d draws, %d -> %d vertices\n", path, influences, max_bones,
           model.skeleton.bone_count, set.draw_count, model.vertex_count, set.vertex_count);
    CHECK(over == 0);
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
    }
    return check_summary();
}
