/* test_anim_stick.c - the stick figure of a skeleton without a mesh
 * (stick.c): its bone offsets, inverses of the joints' rest globals,
 * exactly affine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"
#include "stick.h"

/* A stick figure's offsets (stick.c: the inverse of each joint's rest
 * global, anim_inverse) come out exact on an FBX-like chain, where
 * glm_mat4_inv left some bottom rows at 0.99999994 or 1.00000012 (ozz's
 * run.fbx: 8 of 55, its walk then on the general products, 146.7 Ir a
 * bone against 132.9). */
static void test_stick_offsets_exact(void)
{
    /* A stick figure over a chain of 60 joints, each turned and moved as
     * an FBX skeleton's are (centimetres). */
    enum { JOINTS = 60 };
    skv_model model;
    memset(&model, 0, sizeof model);
    skv_skeleton *sk = &model.skeleton;
    sk->node_count = JOINTS;
    sk->node_names = calloc(JOINTS, sizeof *sk->node_names);
    sk->parents = malloc(JOINTS * sizeof *sk->parents);
    sk->rest_local = malloc(JOINTS * sizeof *sk->rest_local);
    unsigned char moving[JOINTS];
    CHECK(sk->node_names && sk->parents && sk->rest_local);
    if (!sk->node_names || !sk->parents || !sk->rest_local) return;
    glm_mat4_identity(model.global_inverse);
    model.influence_slots = 4; /* as the importer sets it */
    int figure_off = 0;
    mat4 global = GLM_MAT4_IDENTITY_INIT;
    for (int n = 0; n < JOINTS; n++) {
        char name[16];
        snprintf(name, sizeof name, "joint%d", n);
        sk->node_names[n] = strdup(name);
        sk->parents[n] = n - 1;
        float q[4] = {0.1f * (float)(n % 7) - 0.3f, 0.05f * (float)(n % 5), 0.2f, 1.0f}, len = 0.0f;
        for (int i = 0; i < 4; i++) len += q[i] * q[i];
        for (int i = 0; i < 4; i++) q[i] /= sqrtf(len);
        keys_quat_mat4(q, sk->rest_local[n]);
        sk->rest_local[n][3][0] = 12.5f + (float)n, sk->rest_local[n][3][1] = -3.25f * (float)(n % 3);
        sk->rest_local[n][3][2] = 0.75f;
        moving[n] = 1;
        glm_mat4_mul(global, sk->rest_local[n], global);
        mat4 inverse;
        glm_mat4_inv(global, inverse);
        figure_off += inverse[3][3] != 1.0f || inverse[0][3] != 0.0f || inverse[1][3] != 0.0f || inverse[2][3] != 0.0f;
    }
    CHECK(stick_figure_build(&model, moving) == SKV_OK);
    int offsets_off = 0;
    for (int b = 0; b < sk->bone_count; b++) {
        const mat4 *o = &sk->bone_offset[b];
        offsets_off += (*o)[3][3] != 1.0f || (*o)[0][3] != 0.0f || (*o)[1][3] != 0.0f || (*o)[2][3] != 0.0f;
    }
    printf("stick figure of %d joints: %d offsets off 0 0 0 1 (glm_mat4_inv would leave %d)\n", sk->bone_count,
           offsets_off, figure_off);
    CHECK(sk->bone_count == JOINTS && figure_off > 0 && offsets_off == 0);
    model_free(&model);
}

int main(void)
{
    test_stick_offsets_exact();
    return check_summary();
}
