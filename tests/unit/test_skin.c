/* test_skin.c - influence packing and the CPU blend. */
#include <string.h>

#include "check.h"
#include "morph.h"
#include "skin.h"

static float slot_sum(const float w[4])
{
    float s = 0;
    for (int i = 0; i < 4; i++) s += w[i];
    return s;
}

static void test_packing(void)
{
    uint16_t ids[4];
    float w[4];

    /* Six influences: the four largest, renormalised, largest first. */
    skv_influence six[6] = {{1, 0.05f}, {2, 0.30f}, {3, 0.10f}, {4, 0.25f}, {5, 0.20f}, {6, 0.10f}};
    CHECK(skin_pack_influences(six, 6, 4, ids, w) == 6);
    CHECK(ids[0] == 2 && ids[1] == 4 && ids[2] == 5);
    CHECK(ids[3] == 3 || ids[3] == 6); /* the two 0.10s: lower bone id first */
    CHECK(ids[3] == 3);
    CHECK_NEAR(slot_sum(w), 1.0, 1e-6);
    CHECK_NEAR(w[0], 0.30 / 0.85, 1e-6);

    /* Under-weighted: 0.2 + 0.2 -> 0.5 + 0.5. */
    skv_influence two[2] = {{7, 0.2f}, {9, 0.2f}};
    CHECK(skin_pack_influences(two, 2, 4, ids, w) == 2);
    CHECK_NEAR(w[0], 0.5, 1e-6);
    CHECK_NEAR(w[1], 0.5, 1e-6);
    CHECK(w[2] == 0 && w[3] == 0);

    /* Zero, negative and NaN weights are dropped. */
    skv_influence bad[4] = {{1, 0.0f}, {2, -0.5f}, {3, NAN}, {4, 0.4f}};
    CHECK(skin_pack_influences(bad, 4, 4, ids, w) == 1);
    CHECK(ids[0] == 4 && w[0] == 1.0f && w[1] == 0.0f);

    /* Nothing usable: 0 and empty slots. */
    skv_influence none[2] = {{1, 0.0f}, {2, 0.0f}};
    CHECK(skin_pack_influences(none, 2, 4, ids, w) == 0);
    CHECK(slot_sum(w) == 0.0f);
    CHECK(skin_pack_influences(NULL, 0, 4, ids, w) == 0);

    /* The same bone twice: merged into one influence. */
    skv_influence twice[3] = {{5, 0.3f}, {8, 0.4f}, {5, 0.3f}};
    CHECK(skin_pack_influences(twice, 3, 4, ids, w) == 2);
    CHECK(ids[0] == 5);
    CHECK_NEAR(w[0], 0.6, 1e-6);
}

static void test_blend(void)
{
    float positions[6] = {1, 2, 3, -1, 0, 0};
    float normals[6] = {0, 1, 0, 1, 0, 0};
    uint16_t ids[8] = {0, 1, 0, 0, 1, 0, 0, 0};
    float weights[8] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    skv_model model = {.vertex_count = 2, .influence_slots = 4, .positions = positions, .normals = normals, .bone_ids = ids,
                       .weights = weights};
    mat4 palette[2];
    glm_mat4_identity(palette[0]);
    glm_translate_make(palette[1], (vec3){10, 0, 0});
    float out[6], out_n[6];
    skin_blend(&model, (const mat4 *)palette, out, out_n);
    CHECK_NEAR(out[0], 6.0, 1e-6); /* half-way between 1 and 11 */
    CHECK_NEAR(out[1], 2.0, 1e-6);
    CHECK_NEAR(out[3], 9.0, 1e-6);
    CHECK_NEAR(out_n[1], 1.0, 1e-6);

    /* Non-uniform scale: the normal follows the inverse transpose. */
    glm_scale_make(palette[1], (vec3){1, 4, 1});
    /* vertex 1 is all bone 1: its normal (1,1,0)/sqrt2 becomes (1, 1/4, 0)
     * normalised under scale (1, 4, 1). */
    float len = sqrtf(1.0f + 1.0f / 16.0f);
    float pos1[6] = {0, 0, 0, 0, 1, 0};
    model.positions = pos1;
    float nrm1[6] = {0, 0, 1, 0.70710678f, 0.70710678f, 0};
    model.normals = nrm1;
    skin_blend(&model, (const mat4 *)palette, out, out_n);
    CHECK_NEAR(out[4], 4.0, 1e-6);
    CHECK_NEAR(out_n[3], 1.0 / len, 1e-5);
    CHECK_NEAR(out_n[4], 0.25 / len, 1e-5);

    float lo[3], hi[3];
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    float pts[6] = {1, -2, 3, -4, 5, -6};
    skin_bounds(pts, 2, id, lo, hi);
    CHECK(lo[0] == -4 && hi[0] == 1 && lo[1] == -2 && hi[1] == 5 && lo[2] == -6 && hi[2] == 3);
}

/* Dual quaternions: one influence reproduces any affine bone matrix
 * (rotation, non-uniform scale, shear, mirroring, translation); two
 * influences of one rotation written as q and -q blend to that rotation. */
static void test_dual_quaternion(void)
{
    mat4 palette[3];
    glm_mat4_identity(palette[0]);
    glm_rotate(palette[0], 1.1f, (vec3){0.3f, 0.9f, -0.2f});
    glm_scale(palette[0], (vec3){1.7f, 0.6f, 1.2f});
    palette[0][1][0] += 0.3f; /* shear */
    palette[0][3][0] = 2.0f, palette[0][3][1] = -1.0f, palette[0][3][2] = 0.5f;
    glm_mat4_copy(palette[0], palette[1]);
    glm_vec4_negate(palette[1][2]); /* mirrored */
    glm_rotate_make(palette[2], 2.5f, (vec3){0.0f, 0.0f, 1.0f});
    palette[2][3][1] = 3.0f;
    skv_dq_bone bones[3];
    int stretched = skin_dq_palette((const mat4 *)palette, 3, bones);
    CHECK(stretched == 2);
    for (int b = 0; b < 3; b++) {
        float positions[3] = {0.4f, -0.7f, 1.3f}, normals[3] = {0.0f, 0.6f, 0.8f};
        uint16_t ids[4] = {(uint16_t)b, 0, 0, 0};
        float weights[4] = {1, 0, 0, 0};
        skv_model model = {.vertex_count = 1, .influence_slots = 4, .positions = positions, .normals = normals,
                           .bone_ids = ids, .weights = weights};
        float dq_p[3], dq_n[3], lin_p[3], lin_n[3];
        skin_blend_dq(&model, bones, dq_p, dq_n);
        skin_blend(&model, (const mat4 *)palette, lin_p, lin_n);
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(dq_p[k], lin_p[k], 1e-5);
            CHECK_NEAR(dq_n[k], lin_n[k], 1e-5);
        }
    }
    /* Rigid bones: identity stretch, unit real part. */
    CHECK(bones[2].stretch[0][0] == 1.0f && bones[2].stretch[1][0] == 0.0f);
    /* The same rotation as q and -q, half and half: the result is that
     * rotation, not a collapse through zero. */
    skv_dq_bone pair[2] = {bones[2], bones[2]};
    for (int k = 0; k < 4; k++) pair[1].real[k] = -pair[1].real[k], pair[1].dual[k] = -pair[1].dual[k];
    float positions[3] = {1.0f, 0.0f, 0.0f}, normals[3] = {1.0f, 0.0f, 0.0f};
    uint16_t ids[4] = {0, 1, 0, 0};
    float weights[4] = {0.5f, 0.5f, 0, 0};
    skv_model model = {.vertex_count = 1, .influence_slots = 4, .positions = positions, .normals = normals,
                       .bone_ids = ids, .weights = weights};
    float out[3];
    skin_blend_dq(&model, pair, out, NULL);
    vec4 expect;
    glm_mat4_mulv(palette[2], (vec4){1.0f, 0.0f, 0.0f, 1.0f}, expect);
    for (int k = 0; k < 3; k++) CHECK_NEAR(out[k], expect[k], 1e-5);
}


/* Morph targets: a mesh of 2 vertices with 2 targets (the second mesh,
 * of 1 vertex, has none), one bone translating by (10, 0, 0), and a clip
 * whose one channel keys the first mesh's weights. */
static void test_morph(void)
{
    float positions[9] = {0, 0, 0, 1, 0, 0, 5, 5, 5};
    float normals[9] = {0, 0, 1, 0, 0, 1, 0, 1, 0};
    float uvs[6] = {0};
    uint16_t ids[12] = {0};
    float weights[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    /* (target, vertex): target 0 lifts y by 1 and 2, target 1 moves x by 3 and turns the normal towards x. */
    float dp[12] = {0, 1, 0, 0, 2, 0, 3, 0, 0, 3, 0, 0};
    float dn[12] = {0, 0, 0, 0, 0, 0, 1, 0, -1, 1, 0, -1};
    float defaults[2] = {0.5f, 0.0f};
    skv_mesh meshes[2] = {{.base_vertex = 0, .vertex_count = 2, .morph_target_count = 2},
                          {.base_vertex = 2, .vertex_count = 1}};
    double times[3] = {0.0, 10.0, 20.0};
    float keyed[6] = {0, 0, 1, 0, 1, 1};
    skv_morph_channel channel = {.mesh = 0, .key_count = 3, .times = times, .weights = keyed};
    skv_clip clip = {.duration_ticks = 40.0, .ticks_per_second = 10.0, .morph_channel_count = 1,
                     .morph_channels = &channel};
    skv_model model = {.vertex_count = 3, .positions = positions, .normals = normals, .uvs = uvs,
                       .influence_slots = 4, .bone_ids = ids, .weights = weights, .mesh_count = 2,
                       .meshes = meshes, .morph_target_count = 2, .morph_default_weights = defaults,
                       .morph_delta_count = 4, .morph_position_deltas = dp, .morph_normal_deltas = dn,
                       .clip_count = 1, .clips = &clip};
    char *names[2] = {"lift", NULL};
    model.morph_target_names = names;

    /* Sampling: at, between and past the keys (clamped), looped by the clip. */
    float w[2];
    morph_weights(&model, 0, 0.0, w);
    CHECK(w[0] == 0.0f && w[1] == 0.0f);
    morph_weights(&model, 0, 0.5, w); /* 5 ticks: half-way to key 1 */
    CHECK_NEAR(w[0], 0.5, 1e-6);
    CHECK_NEAR(w[1], 0.0, 1e-6);
    morph_weights(&model, 0, 1.5, w); /* 15 ticks */
    CHECK_NEAR(w[0], 1.0, 1e-6);
    CHECK_NEAR(w[1], 0.5, 1e-6);
    morph_weights(&model, 0, 3.0, w); /* 30 ticks: past the last key, clamped */
    CHECK(w[0] == 1.0f && w[1] == 1.0f);
    morph_weights(&model, 0, 4.5, w); /* 45 ticks loops to 5 */
    CHECK_NEAR(w[0], 0.5, 1e-6);
    morph_weights(&model, -1, 1.5, w); /* no clip: the defaults */
    CHECK(w[0] == 0.5f && w[1] == 0.0f);
    float one[2];
    skv_morph_channel single = {.mesh = 0, .key_count = 1, .times = times, .weights = keyed + 4};
    morph_sample(&single, 2, 7.0, one);
    CHECK(one[0] == 1.0f && one[1] == 1.0f);

    /* Targets by name or number. */
    CHECK(morph_find_target(&model, "lift") == 0);
    CHECK(morph_find_target(&model, "1") == 1);
    CHECK(morph_find_target(&model, "2") == -1);
    CHECK(morph_find_target(&model, "nope") == -1);

    /* The CPU blend: morph first, then the bone; the normal renormalised. */
    mat4 palette[1];
    glm_translate_make(palette[0], (vec3){10, 0, 0});
    float out[9], out_n[9];
    float both[2] = {1.0f, 0.5f};
    skin_blend_morph(&model, (const mat4 *)palette, both, out, out_n);
    CHECK_NEAR(out[0], 11.5, 1e-6); /* 0 + 0.5 * 3, then + 10 */
    CHECK_NEAR(out[1], 1.0, 1e-6);
    CHECK_NEAR(out[3], 12.5, 1e-6);
    CHECK_NEAR(out[4], 2.0, 1e-6);
    CHECK_NEAR(out[6], 15.0, 1e-6); /* the mesh without targets: only the bone */
    CHECK_NEAR(out[7], 5.0, 1e-6);
    CHECK_NEAR(out_n[0], 0.5 / sqrt(0.5), 1e-6); /* (0.5, 0, 0.5) normalised */
    CHECK_NEAR(out_n[2], 0.5 / sqrt(0.5), 1e-6);
    CHECK_NEAR(out_n[7], 1.0, 1e-6);
    /* NULL weights: the defaults (target 0 at 0.5). */
    skin_blend_morph(&model, (const mat4 *)palette, NULL, out, out_n);
    CHECK_NEAR(out[0], 10.0, 1e-6);
    CHECK_NEAR(out[4], 1.0, 1e-6);
    CHECK_NEAR(out_n[2], 1.0, 1e-6);
    /* Dual quaternions and the all-influence blend morph the same way. */
    skv_dq_bone bones[1];
    skin_dq_palette((const mat4 *)palette, 1, bones);
    skin_blend_dq_morph(&model, bones, both, out, out_n);
    CHECK_NEAR(out[0], 11.5, 1e-5);
    CHECK_NEAR(out[4], 2.0, 1e-5);
    /* A normal the targets cancel keeps the base normal. */
    float cancel[2] = {0.0f, 1.0f};
    dn[6] = 0, dn[8] = -1;
    skin_blend_morph(&model, (const mat4 *)palette, cancel, out, out_n);
    CHECK_NEAR(out_n[2], 1.0, 1e-6);
}

int main(void)
{
    test_morph();
    test_dual_quaternion();
    test_packing();
    test_blend();
    return check_summary();
}
