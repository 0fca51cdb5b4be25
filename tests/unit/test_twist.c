/* test_twist.c - why dual quaternions: assets/twist.dae (a closed
 * cylinder whose upper bone twists 90 degrees at 1 s, 180 at 2 s) posed
 * with linear blend and with dual-quaternion skinning (the CPU blends,
 * which shader_exact ties to the shaders). Prints the posed volume and
 * the cross-section at the joint against the rest pose; linear collapses
 * ("candy wrapper"), dual quaternions keep both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "anim.h"
#include "check.h"
#include "import.h"
#include "skin.h"

/* Volume enclosed by the model's triangles (divergence theorem). */
static double volume(const skv_model *m, const float *p)
{
    double sum = 0.0;
    for (int k = 0; k < m->mesh_count; k++) {
        const skv_mesh *mesh = &m->meshes[k];
        for (int i = 0; i < mesh->index_count; i += 3) {
            const uint32_t *tri = &m->indices[mesh->first_index + i];
            const float *a = &p[(mesh->base_vertex + tri[0]) * 3], *b = &p[(mesh->base_vertex + tri[1]) * 3],
                        *c = &p[(mesh->base_vertex + tri[2]) * 3];
            sum += (a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
                    a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6.0;
        }
    }
    return fabs(sum);
}

/* Area of the ring of vertices that sits at the joint (y = 1 at rest),
 * in the plane across the axis, taken in the ring's own order around it. */
static double joint_section(const skv_model *m, const float *p)
{
    int ring[256], count = 0;
    double angle[256];
    for (int v = 0; v < m->vertex_count && count < 256; v++) {
        const float *r = &m->positions[v * 3];
        if (fabsf(r[1] - 1.0f) < 1e-4f && hypotf(r[0], r[2]) > 1e-3f) {
            ring[count] = v;
            angle[count++] = atan2(r[2], r[0]);
        }
    }
    /* Sort by the rest angle (few vertices: insertion sort). */
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && angle[j] < angle[j - 1]; j--) {
            double ta = angle[j]; angle[j] = angle[j - 1]; angle[j - 1] = ta;
            int tv = ring[j]; ring[j] = ring[j - 1]; ring[j - 1] = tv;
        }
    double area = 0.0;
    for (int i = 0; i < count; i++) {
        const float *a = &p[ring[i] * 3], *b = &p[ring[(i + 1) % count] * 3];
        area += (double)a[0] * b[2] - (double)b[0] * a[2];
    }
    return fabs(area) / 2.0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_twist assets/twist.dae\n");
        return 2;
    }
    skv_model model;
    skv_error err;
    CHECK(import_model(argv[1], NULL, &model, &err) == SKV_OK);
    skv_pose pose;
    skv_walks *walks;
    CHECK(walks_create(&walks, &model) == SKV_OK);
    CHECK(pose_create(&pose, &model.skeleton) == SKV_OK);
    size_t n = (size_t)model.vertex_count;
    float *lin = malloc(n * 3 * sizeof(float)), *dq = malloc(n * 3 * sizeof(float));
    skv_dq_bone *bones = malloc((size_t)model.skeleton.bone_count * sizeof *bones);

    double rest_volume = volume(&model, model.positions), rest_section = joint_section(&model, model.positions);
    printf("rest: volume %.4f, joint cross-section %.4f\n", rest_volume, rest_section);
    double seconds[2] = {1.0, 2.0};
    for (int i = 0; i < 2; i++) {
        pose_evaluate(&pose, walks, 0, seconds[i]);
        skin_blend(&model, (const mat4 *)pose.palette, lin, NULL);
        CHECK(skin_dq_palette((const mat4 *)pose.palette, model.skeleton.bone_count, bones) == 0); /* rigid bones */
        skin_blend_dq(&model, bones, dq, NULL);
        double lv = volume(&model, lin) / rest_volume, dv = volume(&model, dq) / rest_volume;
        double ls = joint_section(&model, lin) / rest_section, ds = joint_section(&model, dq) / rest_section;
        printf("twist %3.0f deg: volume linear %5.1f%%, dual quaternion %5.1f%% of rest; "
               "joint cross-section linear %5.1f%%, dual quaternion %5.1f%%\n",
               90.0 * seconds[i], 100 * lv, 100 * dv, 100 * ls, 100 * ds);
        CHECK(fabs(dv - 1.0) < 0.03 && fabs(ds - 1.0) < 0.03);
        if (i == 0) CHECK(ls < 0.6 && lv < 0.97);  /* 90 degrees: cos 45 squared of the section */
        else CHECK(ls < 0.01 && lv < 0.9);         /* 180: the section collapses to the axis */
    }
    free(lin), free(dq), free(bones);
    pose_destroy(&pose);
    walks_destroy(walks);
    model_free(&model);
    return check_summary();
}
