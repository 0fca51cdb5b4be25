/* pose_double.c - a clip's palette in double precision, with a bound on
 * a float evaluation's distance from it (pose_double.h).
 *
 * The bound. A float evaluation forms each node's global as its parent's
 * times its local, G = Gp * L, affine: linear part A = Ap * R (R the
 * local's rotation times scale), translation p = Ap * t + pp. To first
 * order in u (2^-24) its error is
 *   dA = dAp * R + Ap * dR + rounding of the product,
 *   dp = dpp + dAp * t + Ap * dt + rounding of the product,
 * and with |X| the entries' absolute values, the rounding of a sum of n
 * products is at most gamma_n |A||B| entry by entry (gamma_n = n u / (1 -
 * n u); a fused multiply-add rounds once for two operations, so the lanes
 * stay within it too). In norms (2: spectral, eA bounds ||dA||_2; the
 * local's eR bounds its Frobenius norm, which is larger):
 *   eA = ||R||_2 eAp + ||Ap||_2 eR + gamma_3 || |Ap||R| ||_2
 *   ep = epp + eAp |t| + ||Ap||_2 et + gamma_4 (|| |Ap||t| || + |pp|)
 * walked down from globalInverse (exact input, no error) in double on the
 * double evaluation's matrices. ||R||_2 is the largest scale, not a
 * product of norms that grows along the chain: eA grows linearly with
 * depth, and ep, which gathers eAp times each bone's length, with its
 * square (a rotation error near the root moves the tip by its lever
 * arm). The bone's offset is one product more. eR and et, the sampled
 * local's own error: a lerp a + f (b - a) (f rounded to float, three
 * roundings) is within 6 u (|a| + |b|) whichever way it is written; a
 * rotation matrix from slerped keys within 16 u per unit of scale
 * (POSE_DOUBLE_ROTATION: unit_pose_double measures the reference's). An
 * unanimated node's local is its rest matrix, exact. Spectral norms are
 * bounded above by sqrt(||X^T X||_inf), exact for a rotation times a
 * uniform scale. Any entry's error is at most its part's norm. The fast path multiplies in another order (globalInverse into
 * the root, fixed chains once at compile), which moves the norms a bound
 * is made of by little where matrices are near rotations: the factor 2
 * (POSE_DOUBLE_SAFETY) covers that. */
#include "pose_double.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"

skv_result pose_double_create(pose_double *pd, const skv_model *model)
{
    memset(pd, 0, sizeof *pd);
    pd->model = model;
    pd->node_count = model->skeleton.node_count;
    pd->bone_count = model->skeleton.bone_count;
    size_t nodes = pd->node_count > 0 ? (size_t)pd->node_count : 1;
    size_t bones = pd->bone_count > 0 ? (size_t)pd->bone_count : 1;
    pd->local = malloc(nodes * sizeof *pd->local);
    pd->global = malloc(nodes * sizeof *pd->global);
    pd->palette = malloc(bones * sizeof *pd->palette);
    pd->chain_linear = malloc(nodes * sizeof *pd->chain_linear);
    pd->chain_translation = malloc(nodes * sizeof *pd->chain_translation);
    pd->error_linear = malloc(nodes * sizeof *pd->error_linear);
    pd->error_translation = malloc(nodes * sizeof *pd->error_translation);
    pd->depth = malloc(nodes * sizeof *pd->depth);
    pd->bound_linear = malloc(bones * sizeof *pd->bound_linear);
    pd->bound_translation = malloc(bones * sizeof *pd->bound_translation);
    pd->bone_depth = malloc(bones * sizeof *pd->bone_depth);
    if (!pd->local || !pd->global || !pd->palette || !pd->chain_linear || !pd->chain_translation ||
        !pd->error_linear || !pd->error_translation || !pd->depth || !pd->bound_linear || !pd->bound_translation ||
        !pd->bone_depth) {
        pose_double_destroy(pd);
        return SKV_ERR_MEMORY;
    }
    return SKV_OK;
}

void pose_double_destroy(pose_double *pd)
{
    free(pd->local), free(pd->global), free(pd->palette);
    free(pd->chain_linear), free(pd->chain_translation), free(pd->error_linear), free(pd->error_translation);
    free(pd->depth), free(pd->bound_linear), free(pd->bound_translation), free(pd->bone_depth);
    memset(pd, 0, sizeof *pd);
}

/* --- sampling: keys.h's, in double --------------------------------------- */

/* keys_before's answer (the last key with time <= t, 0 before the
 * first), found here by its own binary search: a wrong key pair in
 * keys.c shows as a difference. */
static int key_before(const double *first_time, size_t stride, int count, double t)
{
    int lo = 0, hi = count - 1; /* time(lo) <= t, or lo = 0 */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (*(const double *)((const char *)first_time + (size_t)mid * stride) <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* keys_factor without the rounding to float. */
static double factor(double t0, double t1, double t)
{
    double span = t1 - t0;
    if (!(span > 0.0)) return 0.0;
    double f = (t - t0) / span;
    return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

static void unit_or_identity(double q[4])
{
    double len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0) || !isfinite(len2)) {
        q[0] = q[1] = q[2] = 0.0, q[3] = 1.0;
        return;
    }
    double inv = 1.0 / sqrt(len2);
    for (int k = 0; k < 4; k++) q[k] *= inv;
}

/* keys_slerp's formula in double. Its two choices, the arc (the sign of
 * the float dot product) and nlerp or slerp (that sum against
 * KEYS_NLERP_DOT), are made as it makes them, on the float sum: they are
 * the reference's method, not its rounding. */
static void slerp(const float a[4], const float b[4], double f, double out[4])
{
    float df = keys_dot(a, b);
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double sign = 1.0;
    if (df < 0.0f) {
        df = -df;
        d = -d;
        sign = -1.0;
    }
    double wa, wb;
    if (df > KEYS_NLERP_DOT) {
        wa = 1.0 - f;
        wb = f;
    } else {
        double theta = acos(d > 1.0 ? 1.0 : d < -1.0 ? -1.0 : d), s = sin(theta);
        wa = sin((1.0 - f) * theta) / s;
        wb = sin(f * theta) / s;
    }
    wb *= sign;
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k];
    unit_or_identity(out);
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static double norm3f(const float v[3])
{
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

/* A translation or scale array (which: 0 positions, 2 scales) at t;
 * *err: the float sampling's error bound (absolute, Euclidean). */
static void sample_vec3(const skv_channel *ch, int which, double t, double out[3], double *err)
{
    const skv_vec3_key *keys = which == 0 ? ch->positions : ch->scales;
    const float *tangents = which == 0 ? ch->position_tangents : ch->scale_tangents;
    int count = which == 0 ? ch->position_count : ch->scale_count;
    skv_key_mode mode = (skv_key_mode)(which == 0 ? ch->position_mode : ch->scale_mode);
    *err = 0.0;
    if (count == 1 || !(t > keys[0].time) || t >= keys[count - 1].time) {
        const float *v = count == 1 || !(t > keys[0].time) ? keys[0].value : keys[count - 1].value;
        for (int a = 0; a < 3; a++) out[a] = v[a];
        return;
    }
    int i = key_before(&keys[0].time, sizeof keys[0], count, t);
    const float *a = keys[i].value, *b = keys[i + 1].value;
    double f = factor(keys[i].time, keys[i + 1].time, t);
    if (mode == SKV_KEY_STEP) {
        for (int k = 0; k < 3; k++) out[k] = a[k];
    } else if (mode == SKV_KEY_CUBIC) {
        const float *ta = keys_out_tangent(tangents, i, 3), *tb = keys_in_tangent(tangents, i + 1, 3);
        double dt = keys[i + 1].time - keys[i].time, f2 = f * f, f3 = f2 * f;
        double h00 = 2 * f3 - 3 * f2 + 1, h10 = (f3 - 2 * f2 + f) * dt, h01 = -2 * f3 + 3 * f2, h11 = (f3 - f2) * dt;
        double mag = 0.0;
        for (int k = 0; k < 3; k++) {
            out[k] = h00 * a[k] + h10 * ta[k] + h01 * b[k] + h11 * tb[k];
            mag += fabs(h00 * a[k]) + fabs(h10 * ta[k]) + fabs(h01 * b[k]) + fabs(h11 * tb[k]);
        }
        /* The basis's own roundings too: twice a lerp's factor. */
        *err = POSE_DOUBLE_U * 2 * POSE_DOUBLE_LERP * (mag + norm3f(a) + norm3f(b));
    } else {
        for (int k = 0; k < 3; k++) out[k] = a[k] + f * ((double)b[k] - a[k]);
        *err = POSE_DOUBLE_U * POSE_DOUBLE_LERP * (norm3f(a) + norm3f(b));
    }
}

void pose_double_sample_vec3(const skv_channel *ch, int which, double t, double out[3])
{
    double err;
    sample_vec3(ch, which, t, out, &err);
}

void pose_double_sample_quat(const skv_channel *ch, double t, double out[4])
{
    const skv_quat_key *keys = ch->rotations;
    int count = ch->rotation_count;
    if (count == 1 || !(t > keys[0].time) || t >= keys[count - 1].time) {
        const float *v = count == 1 || !(t > keys[0].time) ? keys[0].value : keys[count - 1].value;
        slerp(v, v, 0.0, out); /* keys_blend_linear(v, v, 0): v at unit length */
        return;
    }
    int i = key_before(&keys[0].time, sizeof keys[0], count, t);
    const float *a = keys[i].value, *b = keys[i + 1].value;
    double f = factor(keys[i].time, keys[i + 1].time, t);
    if (ch->rotation_mode == SKV_KEY_STEP) {
        for (int k = 0; k < 4; k++) out[k] = a[k];
        unit_or_identity(out);
    } else if (ch->rotation_mode == SKV_KEY_CUBIC) {
        const float *ta = keys_out_tangent(ch->rotation_tangents, i, 4),
                    *tb = keys_in_tangent(ch->rotation_tangents, i + 1, 4);
        double dt = keys[i + 1].time - keys[i].time, f2 = f * f, f3 = f2 * f;
        double h00 = 2 * f3 - 3 * f2 + 1, h10 = (f3 - 2 * f2 + f) * dt, h01 = -2 * f3 + 3 * f2, h11 = (f3 - f2) * dt;
        for (int k = 0; k < 4; k++) out[k] = h00 * a[k] + h10 * ta[k] + h01 * b[k] + h11 * tb[k];
        unit_or_identity(out);
    } else {
        slerp(a, b, f, out);
    }
}

/* T * R * S, as keys_local forms it (R from the unit quaternion). */
static void trs(const double t[3], const double q[4], const double s[3], pose_double_mat out)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)},
                      {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)},
                      {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++) out[c][k] = r[c][k] * s[c];
        out[c][3] = 0.0;
    }
    for (int k = 0; k < 3; k++) out[3][k] = t[k];
    out[3][3] = 1.0;
}

static void mul(const pose_double_mat a, const pose_double_mat b, pose_double_mat out)
{
    pose_double_mat r;
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) r[j][i] = a[0][i] * b[j][0] + a[1][i] * b[j][1] + a[2][i] * b[j][2] + a[3][i] * b[j][3];
    memcpy(out, r, sizeof r);
}

static void from_float(const mat4 m, pose_double_mat out)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) out[c][r] = m[c][r];
}

/* --- the bound's walk ------------------------------------------------------ */

/* An upper bound on ||X||_2 of a 3x3 X (x[column][row]): sqrt of
 * ||X^T X||_inf, which bounds X^T X's largest eigenvalue. */
static double norm2(const double x[3][3])
{
    double worst = 0.0;
    for (int i = 0; i < 3; i++) {
        double row = 0.0;
        for (int j = 0; j < 3; j++) {
            double dot = 0.0;
            for (int k = 0; k < 3; k++) dot += x[i][k] * x[j][k];
            row += fabs(dot);
        }
        worst = fmax(worst, row);
    }
    return sqrt(worst);
}

/* One affine product's step of the bound: the state (linear part A,
 * translation p, their error bounds eA, ep) times a local (linear part r,
 * translation t, the local's own error bounds er, et). */
typedef struct chain_state {
    double a[3][3], p[3], ea, ep;
} chain_state;

static void chain_step(const chain_state *in, const double r[3][3], const double t[3], double er, double et,
                       chain_state *out)
{
    const double u = POSE_DOUBLE_U;
    chain_state s;
    double abs_product[3][3], abs_t[3] = {0, 0, 0};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            double v = 0.0, m = 0.0;
            for (int k = 0; k < 3; k++) {
                v += in->a[k][i] * r[j][k];
                m += fabs(in->a[k][i] * r[j][k]);
            }
            s.a[j][i] = v;
            abs_product[j][i] = m;
        }
    for (int i = 0; i < 3; i++) {
        double v = in->p[i];
        for (int k = 0; k < 3; k++) {
            v += in->a[k][i] * t[k];
            abs_t[i] += fabs(in->a[k][i] * t[k]);
        }
        s.p[i] = v;
    }
    double norm_a = norm2(in->a), norm_t = norm3(t);
    s.ea = norm2(r) * in->ea + norm_a * er + u * POSE_DOUBLE_MUL_LINEAR * norm2(abs_product);
    s.ep = in->ep + in->ea * norm_t + norm_a * et + u * POSE_DOUBLE_MUL_TRANSLATION * (norm3(abs_t) + norm3(in->p));
    *out = s;
}

static void split(const pose_double_mat m, double r[3][3], double t[3])
{
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) r[c][k] = m[c][k];
    for (int k = 0; k < 3; k++) t[k] = m[3][k];
}

void pose_double_evaluate(pose_double *pd, int clip, double seconds)
{
    const skv_model *model = pd->model;
    const skv_skeleton *sk = &model->skeleton;
    const skv_clip *c = clip >= 0 && clip < model->clip_count ? &model->clips[clip] : NULL;
    double ticks = c ? keys_clip_ticks(c, seconds) : 0.0;
    pose_double_mat inverse;
    from_float(model->global_inverse, inverse);
    chain_state root;
    split(inverse, root.a, root.p);
    root.ea = root.ep = 0.0;
    for (int n = 0; n < sk->node_count; n++) {
        int ch = c ? c->node_channel[n] : -1;
        double er = 0.0, et = 0.0;
        if (ch < 0) {
            from_float(sk->rest_local[n], pd->local[n]);
        } else {
            const skv_channel *channel = &c->channels[ch];
            double t[3], q[4], s[3], es;
            sample_vec3(channel, 0, ticks, t, &et);
            pose_double_sample_quat(channel, ticks, q);
            sample_vec3(channel, 2, ticks, s, &es);
            trs(t, q, s, pd->local[n]);
            er = POSE_DOUBLE_U * POSE_DOUBLE_ROTATION * fmax(fabs(s[0]), fmax(fabs(s[1]), fabs(s[2]))) + es;
        }
        int p = sk->parents[n];
        if (p < 0) memcpy(pd->global[n], pd->local[n], sizeof(pose_double_mat));
        else mul((const double(*)[4])pd->global[p], (const double(*)[4])pd->local[n], pd->global[n]);
        const chain_state *in = p < 0 ? &root : NULL;
        chain_state parent, out;
        if (!in) {
            memcpy(parent.a, pd->chain_linear[p], sizeof parent.a);
            memcpy(parent.p, pd->chain_translation[p], sizeof parent.p);
            parent.ea = pd->error_linear[p], parent.ep = pd->error_translation[p];
            in = &parent;
        }
        double r[3][3], t[3];
        split((const double(*)[4])pd->local[n], r, t);
        chain_step(in, r, t, er, et, &out);
        memcpy(pd->chain_linear[n], out.a, sizeof out.a);
        memcpy(pd->chain_translation[n], out.p, sizeof out.p);
        pd->error_linear[n] = out.ea, pd->error_translation[n] = out.ep;
        pd->depth[n] = (p < 0 ? 0 : pd->depth[p]) + 1;
    }
    for (int b = 0; b < sk->bone_count; b++) {
        int n = sk->bone_node[b];
        if (n < 0) {
            memset(pd->palette[b], 0, sizeof(pose_double_mat));
            for (int k = 0; k < 4; k++) pd->palette[b][k][k] = 1.0;
            pd->bound_linear[b] = pd->bound_translation[b] = 0.0;
            pd->bone_depth[b] = 0;
            continue;
        }
        pose_double_mat offset, m;
        from_float(sk->bone_offset[b], offset);
        mul((const double(*)[4])inverse, (const double(*)[4])pd->global[n], m);
        mul((const double(*)[4])m, (const double(*)[4])offset, pd->palette[b]);
        chain_state in, out;
        memcpy(in.a, pd->chain_linear[n], sizeof in.a);
        memcpy(in.p, pd->chain_translation[n], sizeof in.p);
        in.ea = pd->error_linear[n], in.ep = pd->error_translation[n];
        double r[3][3], t[3];
        split((const double(*)[4])offset, r, t);
        chain_step(&in, r, t, 0.0, 0.0, &out);
        pd->bound_linear[b] = POSE_DOUBLE_SAFETY * out.ea;
        pd->bound_translation[b] = POSE_DOUBLE_SAFETY * out.ep;
        pd->bone_depth[b] = pd->depth[n] + 1;
    }
}
