/* keys.h - the ground floor under both evaluators: a clip's time for a
 * time in seconds, and what a channel's keys say at a clip time.
 *
 * The reference (anim_ref.c) samples with these as they are. The fast
 * path starts from them: its compile (walk_compile.c) prepares keys that
 * give the same values, its frames (walk.c, the kernels) take the clip
 * time from here, and unit_anim holds it to the reference.
 *
 * A key mode is how the value between two keys is found: one value of
 * skv_key_mode and one function (keys_blend_linear, keys_blend_step,
 * keys_blend_cubic), its case in keys_blend.
 *
 * What runs per key is inline here: every evaluator inlines the same
 * code, and the reference pays no call for it; keys.c holds the search
 * and what only compiles use. */
#ifndef SKV_KEYS_H
#define SKV_KEYS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <cglm/cglm.h>

#include "model.h"

/* --- a clip's time ------------------------------------------------------- */

/* Playback's case of a clip's time, one test for it: 0 <= ticks < 2^30
 * durations holds only for a positive duration and a finite ticks (NaN
 * fails both compares; an infinite ticks fails the second, and an
 * infinite duration gives nothing but finite ticks). */
static inline int keys_ticks_playback(double ticks, double duration)
{
    return ticks >= 0.0 && ticks < duration * 1073741824.0;
}

/* keys_ticks' division, duration <= ticks < 2^30 durations (see there):
 * the remainder, and in *loops the quotient floor(ticks / duration). */
static inline double keys_loop_remainder(double ticks, double duration, double *loops)
{
    double q = (double)(int64_t)(ticks / duration);
    double r = fma(-q, duration, ticks);
    if (r < 0.0) r += duration, q -= 1.0;
    *loops = q;
    return r;
}

/* THE clip time: `seconds` as ticks of a clip `duration` ticks long at
 * `ticks_per_second`, looped over the duration; 0 for a zero-length
 * clip. Inline, so that the reference, pose_evaluate's frames and the
 * frame kernels (compiled per instruction set: the FMA instruction inline
 * where it is there) loop a clip's time the same way, bit for bit, and
 * the frames pay no call for it.
 *
 * fmod's exact remainder without fmod's call (libm's wrapper and its
 * general algorithm, every frame). q = the quotient truncated
 * (ticks / duration rounded, so q is floor(ticks / duration) or one more:
 * rounding is monotonic and integers are representable); r = ticks - q *
 * duration by one fused multiply-add. That r is exact: ticks >= duration,
 * so ticks and q * duration are multiples of duration's ulp, and so is r,
 * with |r| < duration, so r fits in 53 bits and fma's one rounding
 * changes nothing. q one too many gives r < 0, and r + duration (the
 * remainder, representable by the same argument) is exact too. So r is
 * fmod's result bit for bit. fma is libm's where the code is not built
 * for FMA (the FMA instruction where the CPU has it, an exact emulation
 * elsewhere), the instruction itself in the FMA kernels: one rounding
 * either way, the same bits. After more than 2^30 loops, and for negative
 * times, fmod itself. */
static inline double keys_ticks(double seconds, double ticks_per_second, double duration)
{
    double ticks = seconds * ticks_per_second, loops;
    /* keys_ticks_playback's test, written out: the call, inlined, gave
     * the frame functions an instruction more (GCC's block order). */
    if (ticks >= 0.0 && ticks < duration * 1073741824.0)
        return ticks < duration ? ticks : keys_loop_remainder(ticks, duration, &loops);
    if (!(duration > 0.0) || !isfinite(ticks)) return 0.0;
    ticks = fmod(ticks, duration);
    return ticks < 0.0 ? ticks + duration : ticks;
}

/* keys_ticks of a clip. */
static inline double keys_clip_ticks(const skv_clip *clip, double seconds)
{
    return keys_ticks(seconds, clip->ticks_per_second, clip->duration_ticks);
}

/* keys_ticks_from's playback cases alone, no call: the time in the first
 * loop or in the last frame's, 1 and *ticks; 0 for the rest (a loop's
 * first frame, a time out of range), which keys_ticks_from goes on to.
 * For a frame whose code is then free of calls but the kernel's, a tail
 * call (walk.c, frame_vector). Not the first half of keys_ticks_from:
 * written so, solo_frame took more instructions a frame. */
static inline int keys_ticks_step(double seconds, double ticks_per_second, double duration, double loops,
                                  double *ticks)
{
    double t = seconds * ticks_per_second;
    if (!(t >= 0.0 && t < duration * 1073741824.0)) return 0;
    if (t >= duration) t = fma(-loops, duration, t);
    *ticks = t;
    return t >= 0.0 && t < duration;
}

/* keys_ticks for playback, from the whole loops before the last frame's
 * time (*loops, the pose's; updated): a time in the last frame's loop is
 * ticks - loops * duration by one fused multiply-add, without the
 * division, whose latency started every later loop's frame (bench/NOTES.md
 * v7m). The same
 * value bit for bit: the integer n = *loops that gives 0 <= r < duration
 * is floor(ticks / duration), as n one larger gives r < 0 and one smaller
 * r >= duration (fma rounds once, monotonically, and duration is a
 * double), and that r is exact (keys_ticks). So any whole *loops is
 * safe: 0 at first, another clip's; only quotients are stored. */
static inline double keys_ticks_from(double seconds, double ticks_per_second, double duration, double *loops)
{
    double ticks = seconds * ticks_per_second;
    if (ticks >= 0.0 && ticks < duration * 1073741824.0) {
        if (ticks < duration) return ticks;
        double r = fma(-*loops, duration, ticks);
        if (__builtin_expect(r >= 0.0 && r < duration, 1)) return r; /* playback: every frame but a loop's first */
        return keys_loop_remainder(ticks, duration, loops);
    }
    return keys_ticks(seconds, ticks_per_second, duration);
}

/* --- a channel's keys at a clip time ---------------------------------------
 * Each key array (positions, rotations, scales) is sampled on its own:
 * clamped to its first key before it (and with one key) and to its last
 * after it; between keys i and i + 1 (keys_before), the mode's value at
 * the factor keys_factor gives. Key times ascend (the importer sorts
 * them). */

/* How a channel's value between two keys is found. */
typedef enum skv_key_mode {
    /* Positions and scales lerped, rotations slerped along the shorter
     * arc (keys_slerp): every format's channels but those below. */
    SKV_KEY_LINEAR = 0,
    /* A key's value held until the next key (glTF's STEP). */
    SKV_KEY_STEP = 1,
    /* Cubic Hermite between two keys with the first's out-tangent and the
     * second's in-tangent (glTF's CUBICSPLINE, its Appendix C): a rotation
     * is the spline of its four components, normalised; no shorter-arc
     * choice (the file's tangents say which way). */
    SKV_KEY_CUBIC = 2,
    SKV_KEY_MODES
} skv_key_mode;

/* The mode a channel's keys are sampled by: the one place that says
 * (skv_channel keeps none yet: every channel the importer keeps is
 * linear). The fast path's compile prepares linear channels' keys and
 * samples any other channel one key array at a time through keys_blend
 * (walk_compile.c, walk.c: loose channels). */
static inline skv_key_mode keys_mode(const skv_channel *ch)
{
    if (ch->position_mode == SKV_KEY_LINEAR && ch->rotation_mode == SKV_KEY_LINEAR && ch->scale_mode == SKV_KEY_LINEAR)
        return SKV_KEY_LINEAR;
    return ch->position_mode > ch->rotation_mode ? (skv_key_mode)ch->position_mode
           : ch->rotation_mode > ch->scale_mode  ? (skv_key_mode)ch->rotation_mode
                                                 : (skv_key_mode)ch->scale_mode;
}

/* Index of the last key with time <= t (0 if t is before the first key),
 * in `count` keys whose times are `stride` bytes apart from first_time's. */
int keys_before(const double *first_time, size_t stride, int count, double t);

/* Where t lies between keys at t0 and t1, in [0, 1]: 0 for an empty span
 * (two keys at one time). */
static inline float keys_factor(double t0, double t1, double t)
{
    double span = t1 - t0;
    if (!(span > 0.0)) return 0.0f;
    double f = (t - t0) / span;
    return (float)(f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f);
}

/* a . b as keys_slerp sums it (in float, component by component in
 * order): its sign picks the pair's arc, and near a half turn only that
 * sum settles it. */
static inline float keys_dot(const float a[4], const float b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* Above this |a . b| (keys under ~3.6 degrees of rotation apart)
 * keys_slerp lerps and normalises: within 1e-6 of slerp, and no division
 * by a vanishing sine. */
#define KEYS_NLERP_DOT 0.9995f

/* Spherical interpolation from a to b along the shorter arc; stays exact
 * for nearly equal keys (unlike cglm 0.8.8's glm_quat_slerp, which returns
 * `a` unchanged below ~1e-3 rad). Output is unit length (the identity
 * where the sum has no length). Where a . b, summed as keys_dot sums it,
 * is < 0, b is taken as -b (one rotation). */
static inline void keys_slerp(const float a[4], const float b[4], float f, float out[4])
{
    float d = keys_dot(a, b);
    float sign = 1.0f;
    if (d < 0.0f) { /* q and -q are one rotation: take the shorter arc */
        d = -d;
        sign = -1.0f;
    }
    float wa, wb;
    if (d > KEYS_NLERP_DOT) {
        wa = 1.0f - f;
        wb = f;
    } else {
        float theta = acosf(d), s = sinf(theta);
        wa = sinf((1.0f - f) * theta) / s;
        wb = sinf(f * theta) / s;
    }
    wb *= sign;
    float len2 = 0.0f;
    for (int k = 0; k < 4; k++) {
        out[k] = wa * a[k] + wb * b[k];
        len2 += out[k] * out[k];
    }
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] *= inv;
}

/* SKV_KEY_LINEAR's value between keys a and b at factor f: lerp, or for
 * a rotation (n 4) keys_slerp. */
static inline void keys_blend_linear(const float *a, const float *b, float f, int n, float *out)
{
    if (n == 4) {
        keys_slerp(a, b, f, out);
        return;
    }
    for (int k = 0; k < n; k++) out[k] = a[k] + f * (b[k] - a[k]);
}

/* A rotation (4 floats) at unit length; the identity for one that has
 * none. */
static inline void keys_unit_quat(const float *q, float *out)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] = q[k] * inv;
}

/* SKV_KEY_STEP's value: key a's. */
static inline void keys_blend_step(const float *a, int n, float *out)
{
    if (n == 4) {
        keys_unit_quat(a, out);
        return;
    }
    for (int k = 0; k < n; k++) out[k] = a[k];
}

/* SKV_KEY_CUBIC's value between keys a and b, `dt` ticks apart, at factor
 * f: the Hermite basis on a, a's out-tangent `ta` times dt, b, and b's
 * in-tangent `tb` times dt (tangents per tick). */
static inline void keys_blend_cubic(const float *a, const float *ta, const float *b, const float *tb, float dt, float f,
                                    int n, float *out)
{
    float f2 = f * f, f3 = f2 * f;
    float h00 = 2.0f * f3 - 3.0f * f2 + 1.0f, h10 = (f3 - 2.0f * f2 + f) * dt;
    float h01 = -2.0f * f3 + 3.0f * f2, h11 = (f3 - f2) * dt;
    float v[4];
    for (int k = 0; k < n; k++) v[k] = h00 * a[k] + h10 * ta[k] + h01 * b[k] + h11 * tb[k];
    if (n == 4) {
        keys_unit_quat(v, out);
        return;
    }
    for (int k = 0; k < n; k++) out[k] = v[k];
}

/* Mode `mode`'s value between keys a and b at factor f in [0, 1], `n`
 * floats: 3 (a position or a scale) or 4 (a rotation, x y z w, written at
 * unit length: the identity for one that has none). `ta` and `tb`: the
 * cubic mode's tangents (a's out, b's in), `dt` the keys' distance in
 * ticks; unread by the others. A mode's case. */
static inline void keys_blend(skv_key_mode mode, const float *a, const float *b, const float *ta, const float *tb,
                              float dt, float f, int n, float *out)
{
    switch (mode) {
    case SKV_KEY_STEP:
        keys_blend_step(a, n, out);
        return;
    case SKV_KEY_CUBIC:
        keys_blend_cubic(a, ta, b, tb, dt, f, n, out);
        return;
    case SKV_KEY_LINEAR:
    default:
        keys_blend_linear(a, b, f, n, out);
        return;
    }
}

/* Key i's out-tangent and key i + 1's in-tangent in a cubic array's
 * tangents (per key in, then out: 2n floats); NULL where there are none. */
static inline const float *keys_out_tangent(const float *tangents, int i, int n)
{
    return tangents ? tangents + (size_t)i * 2 * n + n : NULL;
}

static inline const float *keys_in_tangent(const float *tangents, int i, int n)
{
    return tangents ? tangents + (size_t)i * 2 * n : NULL;
}

/* Keys i and i + 1 of an array at t between them, by `mode`. */
static inline void keys_between(skv_key_mode mode, const float *a, const float *b, const float *tangents, int i,
                                double t0, double t1, double t, int n, float *out)
{
    keys_blend(mode, a, b, keys_out_tangent(tangents, i, n), keys_in_tangent(tangents, i + 1, n), (float)(t1 - t0),
               keys_factor(t0, t1, t), n, out);
}

/* --- sampling, from a key cursor -------------------------------------------
 * Playback steps a key at a time: the key a cursor (one int per key
 * array, any value) found last, or the next one, serves without a search;
 * keys_before otherwise. The same key as keys_before's (the last at or
 * before t). The walk's loose channels and
 * the layered frame's (layer_lanes.c) sample so. */

/* keys_before for first_time < t < the last key's time, from *cursor. */
static inline int keys_before_from(const double *first_time, size_t stride, int count, double t, int *cursor)
{
#define KEYS_TIME_AT(k) (*(const double *)(const void *)((const char *)first_time + (size_t)(k) * stride))
    int i = *cursor;
    if (i >= 0 && i < count - 1 && KEYS_TIME_AT(i) <= t) {
        if (t < KEYS_TIME_AT(i + 1)) return i;
        if (i + 2 < count && t < KEYS_TIME_AT(i + 2)) return *cursor = i + 1;
    }
#undef KEYS_TIME_AT
    return *cursor = keys_before(first_time, stride, count, t);
}

static inline void keys_sample_vec3_from(skv_key_mode mode, const skv_vec3_key *keys, const float *tangents, int count,
                                         double t, int *cursor, float out[3])
{
    if (count == 1 || !(t > keys[0].time)) {
        for (int a = 0; a < 3; a++) out[a] = keys[0].value[a];
        return;
    }
    if (t >= keys[count - 1].time) {
        for (int a = 0; a < 3; a++) out[a] = keys[count - 1].value[a];
        return;
    }
    int i = keys_before_from(&keys[0].time, sizeof keys[0], count, t, cursor);
    keys_between(mode, keys[i].value, keys[i + 1].value, tangents, i, keys[i].time, keys[i + 1].time, t, 3, out);
}

static inline void keys_sample_quat_from(skv_key_mode mode, const skv_quat_key *keys, const float *tangents, int count,
                                         double t, int *cursor, float out[4])
{
    /* Clamped: the key itself, at unit length. */
    if (count == 1 || !(t > keys[0].time)) {
        keys_blend_linear(keys[0].value, keys[0].value, 0.0f, 4, out);
        return;
    }
    if (t >= keys[count - 1].time) {
        keys_blend_linear(keys[count - 1].value, keys[count - 1].value, 0.0f, 4, out);
        return;
    }
    int i = keys_before_from(&keys[0].time, sizeof keys[0], count, t, cursor);
    keys_between(mode, keys[i].value, keys[i + 1].value, tangents, i, keys[i].time, keys[i + 1].time, t, 4, out);
}

/* keys_channel_trs with a cursor per key array (position, rotation,
 * scale). */
static inline void keys_channel_trs_from(const skv_channel *ch, double t, int cursor[3], float tr[3], float q[4],
                                         float s[3])
{
    keys_sample_vec3_from((skv_key_mode)ch->position_mode, ch->positions, ch->position_tangents, ch->position_count, t,
                          &cursor[0], tr);
    keys_sample_quat_from((skv_key_mode)ch->rotation_mode, ch->rotations, ch->rotation_tangents, ch->rotation_count, t,
                          &cursor[1], q);
    keys_sample_vec3_from((skv_key_mode)ch->scale_mode, ch->scales, ch->scale_tangents, ch->scale_count, t, &cursor[2],
                          s);
}

/* A key array at t (ticks) by `mode` (`tangents`: the cubic mode's, else
 * NULL). count >= 1. The cursor samplers above with a cursor of their
 * own: keys_before's search every time (the reference, and blends of two
 * clips, sample so). */
static inline void keys_sample_vec3(skv_key_mode mode, const skv_vec3_key *keys, const float *tangents, int count,
                                    double t, float out[3])
{
    int cursor = -1;
    keys_sample_vec3_from(mode, keys, tangents, count, t, &cursor, out);
}

static inline void keys_sample_quat(skv_key_mode mode, const skv_quat_key *keys, const float *tangents, int count,
                                    double t, float out[4])
{
    int cursor = -1;
    keys_sample_quat_from(mode, keys, tangents, count, t, &cursor, out);
}

/* A channel's translation, rotation and scale at t (ticks), each array by
 * its own mode. */
static inline void keys_channel_trs(const skv_channel *ch, double t, float tr[3], float q[4], float s[3])
{
    int cursor[3] = {-1, -1, -1};
    keys_channel_trs_from(ch, t, cursor, tr, q, s);
}

/* Rotation matrix of a quaternion that need not be unit length (a zero
 * quaternion gives identity). */
static inline void keys_quat_mat4(const float q[4], mat4 out)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 0.0f) || !isfinite(len2)) {
        glm_mat4_identity(out);
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    versor unit = {q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv};
    glm_quat_mat4(unit, out);
}

/* A node's local transform T * R * S from its sampled T, R (keys_quat_mat4)
 * and S. R's columns are scaled as they are formed, not read back from
 * `out`: a vector load of floats just stored one by one waits for the
 * stores (a failed store forward), which slowed the reference. The same
 * products, so the same bits as scaling `out` in place. */
static inline void keys_local(const float t[3], const float q[4], const float s[3], mat4 out)
{
    mat4 r;
    keys_quat_mat4(q, r);
    for (int a = 0; a < 3; a++) /* R's columns scaled */
        for (int k = 0; k < 4; k++) out[a][k] = r[a][k] * s[a];
    out[3][0] = t[0];
    out[3][1] = t[1];
    out[3][2] = t[2];
    out[3][3] = 1.0f;
}

/* The linear mode's value at t, in double precision, on the curve
 * keys_sample_vec3 and keys_sample_quat follow: for a key added on a
 * segment (walk_compile.c merges a clip's time lines so) that leaves the
 * curve as it is. The rotation's point is on the side of the arc of the
 * key that starts t's segment; returned, that key's index (t's own key
 * where t is on one). */
void keys_linear_vec3_at(const skv_vec3_key *keys, int count, double t, float out[3]);
int keys_linear_quat_at(const skv_quat_key *keys, int count, double t, float out[4]);
/* Sorts `count` key times and drops repeats, in place; returns how many
 * are left: the union of several time lines (a merge keys each channel
 * at it with the two calls above). */
size_t keys_times_union(double *times, size_t count);
/* The sign of a rotation array's key `segment` (keys_linear_quat_at's
 * return) relative to key *own's, `sign` being *own's: the reference's
 * turns between the array's own keys (keys_slerp takes b's other side
 * where the keys' float dot product is < 0), so that a key a merge adds
 * takes the side of the arc its segment's first key is on; *own moves to
 * `segment`. Called with segments in increasing order, *own from 0. */
static inline float keys_turns_to(const skv_quat_key *keys, int *own, int segment, float sign)
{
    for (; *own < segment; (*own)++)
        if (keys_dot(keys[*own].value, keys[*own + 1].value) < 0.0f) sign = -sign;
    return sign;
}

#endif
