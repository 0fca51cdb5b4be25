/* test_anim_ref.c - the reference evaluator (anim_ref.c): the hierarchy
 * walk against a recursive one, a channel's local transform, and
 * anim_inverse's exact affine bottom row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "anim_fixtures.h"

/* Random skeleton, walked by skeleton_pose and by a recursive reference. */
static void recursive_global(const skv_skeleton *sk, const mat4 *local, int node, mat4 out)
{
    if (sk->parents[node] < 0) {
        glm_mat4_copy((vec4 *)local[node], out);
        return;
    }
    mat4 parent;
    recursive_global(sk, local, sk->parents[node], parent);
    glm_mat4_mul(parent, (vec4 *)local[node], out);
}

static void test_hierarchy_walk(void)
{
    enum { NODES = 60 };
    int parents[NODES];
    mat4 local[NODES], global[NODES];
    unsigned seed = 7;
    for (int i = 0; i < NODES; i++) {
        parents[i] = i == 0 ? -1 : (int)((frand(&seed) * 0.5f + 0.5f) * (i - 1) + 0.5f);
        float q[4] = {frand(&seed), frand(&seed), frand(&seed), frand(&seed)};
        keys_quat_mat4(q, local[i]);
        local[i][3][0] = frand(&seed), local[i][3][1] = frand(&seed), local[i][3][2] = frand(&seed);
    }
    skv_skeleton sk = {.node_count = NODES, .parents = parents};
    skeleton_pose(&sk, (const mat4 *)local, global);
    double worst = 0.0;
    for (int i = 0; i < NODES; i++) {
        mat4 ref;
        recursive_global(&sk, (const mat4 *)local, i, ref);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(ref[c][r] - global[i][c][r]));
    }
    CHECK(worst < 1e-4);

    /* Palette: final = globalInverse * global(node) * offset. */
    int bone_node[2] = {5, -1};
    mat4 offsets[2], palette[2], gi;
    glm_translate_make(offsets[0], (vec3){1, 2, 3});
    glm_mat4_identity(offsets[1]);
    glm_scale_make(gi, (vec3){2, 2, 2});
    sk.bone_count = 2;
    sk.bone_node = bone_node;
    sk.bone_offset = offsets;
    skin_palette(&sk, (const mat4 *)global, gi, palette);
    mat4 expect;
    glm_mat4_mul(gi, global[5], expect);
    glm_mat4_mul(expect, offsets[0], expect);
    worst = 0.0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(expect[c][r] - palette[0][c][r]));
    CHECK(worst < 1e-5);
    CHECK(palette[1][0][0] == 1 && palette[1][3][0] == 0); /* missing node: identity */
}

/* A channel whose position, rotation and scale arrays differ in length. */
static void test_sample_channel(void)
{
    int parents[2] = {-1, 0};
    mat4 rest[2];
    glm_mat4_identity(rest[0]);
    glm_translate_make(rest[1], (vec3){0, 1, 0});
    skv_vec3_key pos[2] = {{0, {0, 0, 0}, 0}, {10, {10, 0, 0}, 0}};
    skv_quat_key rot[3] = {{0, {0, 0, 0, 1}}, {5, {0, 0, 0, 1}}, {10, {0, 0, 0, 1}}};
    axis_angle(0, 0, 1, M_PI / 2, rot[2].value);
    skv_vec3_key scale[1] = {{0, {2, 2, 2}, 0}};
    skv_channel ch = {.node = 0, .position_count = 2, .rotation_count = 3, .scale_count = 1,
                      .positions = pos, .rotations = rot, .scales = scale};
    int node_channel[2] = {0, -1};
    skv_clip clip = {.duration_ticks = 10, .ticks_per_second = 1, .channel_count = 1, .channels = &ch,
                     .node_channel = node_channel};
    skv_skeleton sk = {.node_count = 2, .parents = parents, .rest_local = rest};
    mat4 local[2];
    anim_sample(&sk, &clip, 10.0, local);
    /* T(10,0,0) * Rz(90) * S(2): x axis -> (0, 2, 0). */
    CHECK_NEAR(local[0][0][1], 2.0, 1e-5);
    CHECK_NEAR(local[0][0][0], 0.0, 1e-5);
    CHECK_NEAR(local[0][3][0], 10.0, 1e-6);
    CHECK(local[1][3][1] == 1.0f); /* unanimated node keeps its rest */
    anim_sample(&sk, NULL, 3.0, local); /* no clip: rest pose */
    CHECK(local[0][0][0] == 1.0f && local[0][3][0] == 0.0f);
}

/* anim_inverse: the inverse of an affine matrix has a bottom row of
 * exactly 0 0 0 1 (glm_mat4_inv's general formula leaves some an ulp
 * off, and then no walk of the model takes the affine products), the
 * other entries glm_mat4_inv's; a matrix that is not affine is inverted
 * as glm_mat4_inv does. */
static void test_inverse_affine(void)
{
    unsigned seed = 777u;
    int glm_off = 0, exact = 1, same = 1;
    for (int k = 0; k < 2000; k++) {
        mat4 m;
        float q[4], len = 0.0f;
        for (int i = 0; i < 4; i++) {
            seed = seed * 1103515245u + 12345u;
            q[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
            len += q[i] * q[i];
        }
        len = sqrtf(len);
        for (int i = 0; i < 4; i++) q[i] = len > 0.0f ? q[i] / len : (i == 3);
        keys_quat_mat4(q, m);
        for (int a = 0; a < 3; a++) {
            seed = seed * 1103515245u + 12345u;
            glm_vec4_scale(m[a], 0.01f + (float)((seed >> 8) & 0xff) / 64.0f, m[a]);
            m[3][a] = (float)((int)((seed >> 16) & 0x3ff) - 512) * 0.37f;
        }
        mat4 general, ours;
        glm_mat4_inv(m, general);
        anim_inverse(m, ours);
        glm_off += general[0][3] != 0.0f || general[1][3] != 0.0f || general[2][3] != 0.0f || general[3][3] != 1.0f;
        exact &= ours[0][3] == 0.0f && ours[1][3] == 0.0f && ours[2][3] == 0.0f && ours[3][3] == 1.0f;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 3; r++) same &= ours[c][r] == general[c][r];
    }
    printf("anim_inverse: 2000 affine matrices, glm_mat4_inv's bottom row off on %d, anim_inverse's exact: %s\n",
           glm_off, exact ? "yes" : "no");
    CHECK(glm_off > 0); /* the case is exercised */
    CHECK(exact && same);
    mat4 projective = {{2, 0, 0, 0.5f}, {0, 3, 0, 0}, {0, 0, 4, 0}, {1, 2, 3, 1}}, general, ours;
    glm_mat4_inv(projective, general);
    anim_inverse(projective, ours);
    CHECK(memcmp(general, ours, sizeof ours) == 0);
}

int main(void)
{
    test_inverse_affine();
    test_hierarchy_walk();
    test_sample_channel();
    return check_summary();
}
