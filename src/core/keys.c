/* keys.c - the ground floor's functions out of line (keys.h): the search
 * of a key array, and the linear curve in double precision for the keys
 * a compile adds on it, at the union of several time lines. */
#include "keys.h"

#include <stdlib.h>

int keys_before(const double *first_time, size_t stride, int count, double t)
{
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        double mt = *(const double *)((const char *)first_time + (size_t)mid * stride);
        if (mt <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* --- the linear curve in double precision ----------------------------------
 * A key added on a segment with the value the segment has there leaves
 * the curve as it is: lerp is linear, and slerp moves at constant speed
 * along one great circle, so slerp(a, b, u) splits the arc into two arcs
 * of the same circle, each covered at the same speed. */

/* Which key a key array holds at t, and the factor toward the next one:
 * 0 on a key itself and where the array is clamped (one key, before the
 * first, after the last), so the key is copied as it is. */
static int key_span_at(const double *first_time, size_t stride, int count, double t, double *u)
{
    *u = 0.0;
    if (count == 1 || !(t > first_time[0])) return 0;
    int j = keys_before(first_time, stride, count, t);
    double t0 = *(const double *)((const char *)first_time + (size_t)j * stride);
    if (j == count - 1 || t0 == t) return j;
    double t1 = *(const double *)((const char *)first_time + (size_t)(j + 1) * stride);
    *u = (t - t0) / (t1 - t0); /* strictly increasing times: a span > 0 */
    return j;
}

void keys_linear_vec3_at(const skv_vec3_key *keys, int count, double t, float out[3])
{
    double u;
    int j = key_span_at(&keys[0].time, sizeof keys[0], count, t, &u);
    for (int a = 0; a < 3; a++)
        out[a] = u > 0.0 ? (float)(keys[j].value[a] + u * ((double)keys[j + 1].value[a] - keys[j].value[a]))
                         : keys[j].value[a];
}

/* The arc is keys_slerp's: the keys' dot product summed in float as it
 * sums it (keys_dot: its sign picks the shorter arc; keys half a turn
 * apart have a dot product near 0 whose sign only that sum settles).
 * Where keys_slerp takes the acos branch, the point is on its own curve,
 * its weights on the keys at their lengths: keys off unit length (within
 * walk_compile.c's UNIT_LEN2_OFF) put that curve up to ~tau radians off
 * the unit keys' arc, most where they are half a turn apart, and a key
 * added on the arc instead put all of it into the walk at the added key,
 * summed along a chain (test_merge_near_keys: 2.3e-5 of the palette;
 * 3.5e-6 on keys_slerp's curve, 3.9e-6 on the lines apart). Where
 * keys_slerp nlerps (keys under ~3.6 degrees of rotation apart), the
 * point is on the slerp arc of the normalised keys, which the walk's
 * lanes follow there: on the nlerp curve the lanes' slerp into and out of
 * the added key overshot it (an 8-bone chain 2.4e-5 from the reference;
 * 1.8e-5 here and apart). Both were found by a helper's reviews. The
 * point is on key j's side of the arc, j returned (walk_compile.c's
 * fill_group_keys signs it as key j). In double, normalised once. */
int keys_linear_quat_at(const skv_quat_key *keys, int count, double t, float out[4])
{
    double u;
    int j = key_span_at(&keys[0].time, sizeof keys[0], count, t, &u);
    if (u == 0.0) {
        for (int c = 0; c < 4; c++) out[c] = keys[j].value[c];
        return j;
    }
    const float *fa = keys[j].value, *fb = keys[j + 1].value;
    float fd = keys_dot(fa, fb);
    double sign = fd < 0.0f ? -1.0 : 1.0, d = fabs((double)fd);
    double a[4], b[4];
    for (int c = 0; c < 4; c++) a[c] = fa[c], b[c] = sign * fb[c];
    if ((float)d > KEYS_NLERP_DOT) { /* keys_slerp's nlerp: the normalised keys' arc */
        double la = 0.0, lb = 0.0;
        for (int c = 0; c < 4; c++) la += a[c] * a[c], lb += b[c] * b[c];
        la = sqrt(la), lb = sqrt(lb);
        d = 0.0;
        for (int c = 0; c < 4; c++) a[c] /= la, b[c] /= lb, d += a[c] * b[c];
    }
    double theta = acos(fmin(d, 1.0));
    double wa = 1.0 - u, wb = u;
    if (theta > 1e-9) wa = sin((1.0 - u) * theta) / sin(theta), wb = sin(u * theta) / sin(theta);
    double q[4], len2 = 0.0;
    for (int c = 0; c < 4; c++) q[c] = wa * a[c] + wb * b[c], len2 += q[c] * q[c];
    for (int c = 0; c < 4; c++) out[c] = (float)(q[c] / sqrt(len2));
    return j;
}

static int compare_times(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t keys_times_union(double *times, size_t count)
{
    if (count == 0) return 0;
    qsort(times, count, sizeof *times, compare_times);
    size_t unique = 0;
    for (size_t i = 0; i < count; i++)
        if (unique == 0 || times[i] != times[unique - 1]) times[unique++] = times[i];
    return unique;
}
