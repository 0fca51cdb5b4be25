/* test_pose_double.c - the double evaluation the exactness check holds
 * the evaluators to (bench/pose_double.c): exact answers on constructed
 * clips (each key mode, clamping, the shorter arc, globalInverse and the
 * offset), the float reference within its bounds on a deep curling chain,
 * and the sampled local's error against the constant the bound takes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim.h"
#include "check.h"
#include "pose_double.h"

/* A chain of `nodes` nodes (node i under i - 1), each one bone (offset
 * identity), each animated by `channel` (its node field set per node). */
typedef struct chain {
    int parents[256], node_channel[256], bone_node[256];
    mat4 rest[256], offsets[256];
    skv_channel channels[256];
    skv_clip clip;
    skv_model model;
} chain;

static void chain_make(chain *c, int nodes, const skv_channel *channel)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < nodes; i++) {
        c->parents[i] = i - 1;
        c->node_channel[i] = i;
        c->bone_node[i] = i;
        glm_mat4_identity(c->rest[i]);
        glm_mat4_identity(c->offsets[i]);
        c->channels[i] = *channel;
        c->channels[i].node = i;
    }
    c->clip = (skv_clip){.duration_ticks = 4, .ticks_per_second = 1, .channel_count = nodes,
                         .channels = c->channels, .node_channel = c->node_channel};
    c->model.skeleton = (skv_skeleton){.node_count = nodes, .parents = c->parents, .rest_local = c->rest,
                                       .bone_count = nodes, .bone_node = c->bone_node, .bone_offset = c->offsets};
    c->model.clips = &c->clip;
    c->model.clip_count = 1;
    glm_mat4_identity(c->model.global_inverse);
}

static double max_diff(const pose_double_mat a, const double (*b)[4])
{
    double worst = 0.0;
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < 4; r++) worst = fmax(worst, fabs(a[k][r] - b[k][r]));
    return worst;
}

/* Four nodes, each T(1, 0, 0) * (half of a half turn about z: 90 degrees)
 * at t = 1 of keys at 0 and 2: a square's corners, exactly. */
static void test_square(void)
{
    skv_vec3_key pos[1] = {{0, {1, 0, 0}, 0}}, scale[1] = {{0, {1, 1, 1}, 0}};
    skv_quat_key rot[2] = {{0, {0, 0, 0, 1}}, {2, {0, 0, 1, 0}}};
    skv_channel ch = {.position_count = 1, .rotation_count = 2, .scale_count = 1, .positions = pos,
                      .rotations = rot, .scales = scale};
    static chain c;
    chain_make(&c, 4, &ch);
    pose_double pd;
    CHECK(pose_double_create(&pd, &c.model) == SKV_OK);
    pose_double_evaluate(&pd, 0, 1.0);
    /* Node k's global: rotation (k + 1) * 90 degrees, at the sum of the
     * unit steps each turned by the rotations above it. */
    double x = 0, y = 0;
    for (int k = 0; k < 4; k++) {
        double angle = M_PI / 2 * k; /* the rotation before node k's step */
        x += cos(angle), y += sin(angle);
        double a = M_PI / 2 * (k + 1);
        double expect[4][4] = {{cos(a), sin(a), 0, 0}, {-sin(a), cos(a), 0, 0}, {0, 0, 1, 0}, {x, y, 0, 1}};
        CHECK(max_diff(pd.palette[k], (const double(*)[4])expect) < 1e-12);
    }
    /* Bounds grow with depth; the float reference is within them. */
    skv_pose pose;
    CHECK(pose_create(&pose, &c.model.skeleton) == SKV_OK);
    pose_evaluate_reference(&pose, &c.model, 0, 1.0);
    for (int k = 0; k < 4; k++) {
        CHECK(pd.bone_depth[k] == k + 2);
        CHECK(pd.bound_linear[k] > 0.0 && pd.bound_linear[k] < 1e-5);
        if (k > 0) CHECK(pd.bound_linear[k] > pd.bound_linear[k - 1]);
        double d = 0.0;
        for (int col = 0; col < 4; col++)
            for (int r = 0; r < 4; r++) d = fmax(d, fabs(pose.palette[k][col][r] - pd.palette[k][col][r]));
        CHECK(d <= fmax(pd.bound_linear[k], pd.bound_translation[k]));
    }
    /* globalInverse * global * offset. */
    glm_scale_make(c.model.global_inverse, (vec3){2, 2, 2});
    glm_translate_make(c.offsets[0], (vec3){1, 2, 3});
    pose_double_evaluate(&pd, 0, 1.0);
    double expect0[4][4] = {{0, 2, 0, 0}, {-2, 0, 0, 0}, {0, 0, 2, 0}, {2 + -2 * 2, 2 * 1, 6, 1}};
    CHECK(max_diff(pd.palette[0], (const double(*)[4])expect0) < 1e-12);
    pose_destroy(&pose);
    pose_double_destroy(&pd);
}

/* Each mode and the clamping on one channel, exact values. */
static void test_modes(void)
{
    skv_vec3_key pos[2] = {{0, {0, 0, 0}, 0}, {4, {8, 4, 0}, 0}};
    skv_vec3_key scale[2] = {{0, {1, 1, 1}, 0}, {4, {3, 3, 3}, 0}};
    skv_quat_key rot[2] = {{0, {0, 0, 0, 1}}, {4, {0, 0, 1, 0}}};
    skv_channel ch = {.position_count = 2, .rotation_count = 2, .scale_count = 2, .positions = pos,
                      .rotations = rot, .scales = scale};
    double v[4];
    pose_double_sample_vec3(&ch, 0, 1.0, v);
    CHECK(v[0] == 2.0 && v[1] == 1.0 && v[2] == 0.0);
    pose_double_sample_vec3(&ch, 2, 2.0, v);
    CHECK(v[0] == 2.0);
    pose_double_sample_vec3(&ch, 0, -1.0, v); /* before the first key */
    CHECK(v[0] == 0.0);
    pose_double_sample_vec3(&ch, 0, 9.0, v); /* after the last */
    CHECK(v[0] == 8.0 && v[1] == 4.0);
    pose_double_sample_quat(&ch, 2.0, v); /* halfway to a half turn: 90 degrees */
    CHECK(fabs(v[2] - sqrt(0.5)) < 1e-15 && fabs(v[3] - sqrt(0.5)) < 1e-15);
    pose_double_sample_quat(&ch, 1.0, v); /* a quarter of it: 45 degrees, slerp, not nlerp */
    CHECK(fabs(v[2] - sin(M_PI / 8)) < 1e-15 && fabs(v[3] - cos(M_PI / 8)) < 1e-15);
    /* The shorter arc: -b is b's rotation, so the same point. */
    skv_quat_key far[2] = {{0, {0, 0, 0, 1}}, {4, {0, 0, -0.70710677f, -0.70710677f}}};
    skv_channel flip = ch;
    flip.rotations = far;
    pose_double_sample_quat(&flip, 2.0, v);
    CHECK(fabs(v[2] - sin(M_PI / 8)) < 1e-7 && fabs(v[3] - cos(M_PI / 8)) < 1e-7);
    /* Step: the key before, held. */
    skv_channel step = ch;
    step.position_mode = step.rotation_mode = SKV_KEY_STEP;
    pose_double_sample_vec3(&step, 0, 3.9, v);
    CHECK(v[0] == 0.0);
    pose_double_sample_quat(&step, 3.9, v);
    CHECK(v[3] == 1.0);
    /* Cubic with zero tangents from 0 to 1: 3 f^2 - 2 f^3. */
    float tangents[12] = {0};
    skv_vec3_key unit[2] = {{0, {0, 0, 0}, 0}, {4, {1, 1, 1}, 0}};
    skv_channel cubic = ch;
    cubic.positions = unit;
    cubic.position_mode = SKV_KEY_CUBIC;
    cubic.position_tangents = tangents;
    pose_double_sample_vec3(&cubic, 0, 1.0, v);
    CHECK(v[0] == 3 * 0.0625 - 2 * 0.015625);
    tangents[3] = 1.0f; /* key 0's out-tangent, x: + h10 * dt * 1 */
    pose_double_sample_vec3(&cubic, 0, 1.0, v);
    CHECK(fabs(v[0] - (0.15625 + (0.015625 - 2 * 0.0625 + 0.25) * 4)) < 1e-15);
}

/* A 200-node chain curling a full turn and more: the float reference
 * stays within each bone's bound, rounding shows at the tip, and the
 * bound grows with depth. */
static void test_deep_curl(void)
{
    enum { NODES = 200 };
    skv_vec3_key pos[2] = {{0, {0, 0.1f, 0}, 0}, {4, {0, 0.1f, 0}, 0}}, scale[1] = {{0, {1, 1, 1}, 0}};
    skv_quat_key rot[2] = {{0, {0, 0, 0, 1}}, {4, {0, 0, 0, 1}}};
    double half = 0.06; /* 0.12 rad per node at the last key: 24 rad over the chain */
    rot[1].value[0] = (float)(0.6 * sin(half)), rot[1].value[2] = (float)(0.8 * sin(half));
    rot[1].value[3] = (float)cos(half);
    skv_channel ch = {.position_count = 2, .rotation_count = 2, .scale_count = 1, .positions = pos,
                      .rotations = rot, .scales = scale};
    static chain c;
    chain_make(&c, NODES, &ch);
    pose_double pd;
    skv_pose pose;
    CHECK(pose_double_create(&pd, &c.model) == SKV_OK);
    CHECK(pose_create(&pose, &c.model.skeleton) == SKV_OK);
    double worst_ratio = 0.0, tip = 0.0, tip_bound = 0.0, tenth_bound = 0.0;
    for (int f = 0; f <= 8; f++) {
        double t = 0.37 + 0.4 * f;
        pose_double_evaluate(&pd, 0, t);
        pose_evaluate_reference(&pose, &c.model, 0, t);
        for (int b = 0; b < NODES; b++) {
            for (int col = 0; col < 4; col++)
                for (int r = 0; r < 4; r++) {
                    double d = fabs(pose.palette[b][col][r] - pd.palette[b][col][r]);
                    double allowed = col == 3 && r < 3 ? pd.bound_translation[b] : pd.bound_linear[b];
                    worst_ratio = fmax(worst_ratio, d / allowed);
                    if (b == NODES - 1 && f == 8) tip = fmax(tip, d);
                }
        }
        if (f == 8) tip_bound = pd.bound_translation[NODES - 1], tenth_bound = pd.bound_translation[9];
    }
    printf("deep curl: 200 nodes, reference / bound at most %.3f; tip off by %.3g, its bound %.3g (depth 10's %.3g)\n",
           worst_ratio, tip, tip_bound, tenth_bound);
    CHECK(worst_ratio <= 1.0);
    CHECK(tip > 0.0);              /* float rounding does show at the tip */
    CHECK(tenth_bound * 100 < tip_bound); /* the bound grows with depth (as its square, here) */
    pose_destroy(&pose);
    pose_double_destroy(&pd);
}

/* The sampled local (slerp, R(q), scale) of the float reference against
 * the double one, over random key pairs: near the nlerp threshold, far
 * apart, near a half turn (either arc), and random factors. The bound
 * takes POSE_DOUBLE_ROTATION u per unit of scale for it. */
static void test_local_error(void)
{
    unsigned seed = 4242u;
    double worst = 0.0;
    for (int k = 0; k < 20000; k++) {
        double r[10];
        for (int i = 0; i < 10; i++) {
            seed = seed * 1103515245u + 12345u;
            r[i] = (double)((seed >> 8) & 0xffff) / 65536.0;
        }
        /* Key a random; b = a turned about a random axis by an angle
         * chosen by case. */
        double half_a = r[4] * 3, ax[3] = {r[0] - 0.5, r[1] - 0.5, r[2] - 0.5};
        double la = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        double qa[4] = {ax[0] / la * sin(half_a), ax[1] / la * sin(half_a), ax[2] / la * sin(half_a), cos(half_a)};
        double angle = k % 4 == 0 ? 0.0632 * (0.9 + 0.2 * r[3]) /* around KEYS_NLERP_DOT */
                     : k % 4 == 1 ? 2 * M_PI * r[3]
                     : k % 4 == 2 ? M_PI * (0.999 + 0.002 * r[3]) /* a half turn: the arc on a sign */
                                  : 0.001 * r[3];
        double n[3] = {r[5] - 0.5, r[6] - 0.5, r[9] - 0.5}, ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double qr[4] = {n[0] / ln * sin(angle / 2), n[1] / ln * sin(angle / 2), n[2] / ln * sin(angle / 2),
                        cos(angle / 2)};
        double qb[4] = {qa[3] * qr[0] + qa[0] * qr[3] + qa[1] * qr[2] - qa[2] * qr[1],
                        qa[3] * qr[1] - qa[0] * qr[2] + qa[1] * qr[3] + qa[2] * qr[0],
                        qa[3] * qr[2] + qa[0] * qr[1] - qa[1] * qr[0] + qa[2] * qr[3],
                        qa[3] * qr[3] - qa[0] * qr[0] - qa[1] * qr[1] - qa[2] * qr[2]};
        float a[4], b[4];
        for (int i = 0; i < 4; i++) a[i] = (float)qa[i], b[i] = (float)qb[i];
        float s0 = (float)(0.5 + 1.5 * r[7]);
        skv_vec3_key pos[1] = {{0, {0, 0, 0}, 0}}, scale[2] = {{0, {s0, s0, s0}, 0}, {1, {s0, s0, s0}, 0}};
        skv_quat_key rot[2] = {{0, {a[0], a[1], a[2], a[3]}}, {1, {b[0], b[1], b[2], b[3]}}};
        skv_channel ch = {.position_count = 1, .rotation_count = 2, .scale_count = 2, .positions = pos,
                          .rotations = rot, .scales = scale};
        static chain c;
        chain_make(&c, 1, &ch);
        c.clip.duration_ticks = 1;
        pose_double pd;
        mat4 local[1];
        if (pose_double_create(&pd, &c.model) != SKV_OK) {
            CHECK(0);
            return;
        }
        double t = r[8];
        pose_double_evaluate(&pd, 0, t);
        anim_sample(&c.model.skeleton, &c.clip, keys_clip_ticks(&c.clip, t), local);
        double e = 0.0;
        for (int col = 0; col < 3; col++)
            for (int row = 0; row < 3; row++) {
                double d = local[0][col][row] - pd.local[0][col][row];
                e += d * d;
            }
        worst = fmax(worst, sqrt(e) / (POSE_DOUBLE_U * s0));
        pose_double_destroy(&pd);
    }
    printf("sampled local: 20000 random key pairs, worst %.2f u per unit of scale (the bound takes %d)\n", worst,
           POSE_DOUBLE_ROTATION);
    CHECK(worst > 0.0 && worst <= POSE_DOUBLE_ROTATION);
}

int main(void)
{
    test_square();
    test_modes();
    test_deep_curl();
    test_local_error();
    return check_summary();
}
