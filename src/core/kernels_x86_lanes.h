/* kernels_x86_lanes.h - the sample kernel's arithmetic, written once for
 * any vector width: kernels_x86.c includes it once per instruction set
 * with these defined:
 *   VEC, SUFFIX(name), TARGET       type, name suffix, target attribute
 *   LOAD SET1 ZERO ADD SUB MUL FMA(a, b, c) = a * b + c
 *   FNMA(a, b, c) = c - a * b
 *   MIN MAX SQRT DIV AND ANDNOT(m, x) = x & ~m, OR
 *   LT(a, b) GT(a, b) ALL(mask)     comparisons, every lane true
 *   STORE_LOCALS(c, out, work)      c[16]: the locals' entries (column
 *                                   major, one channel per lane) to out[]
 * and optionally CLEAN_UPPER() (the 256- and 512-bit samplers: vzeroupper
 * where GCC leaves it out), GATHER4 (4-lane samplers: sample_each), NARROW /
 * NARROW_LANES (a narrower sampler for the last lanes) and SOLO_TERMS
 * with STORE(p, v), an unaligned store (solo_frame at this width). It
 * undefines all of them at its end. No include guard: meant to be
 * included more than once. */

/* acos d for d in [0, 1]: 2 asin sqrt((1 - d) / 2) above 0.5, pi/2 -
 * asin d below; asin x = x + x z P(z), z = x^2, |x| <= 0.5, with
 * Cephes' asinf coefficients (relative error ~2.5e-7). */
TARGET static inline VEC SUFFIX(acos01)(VEC d)
{
    VEC half = SET1(0.5f);
    VEC high = GT(d, half);
    VEC x_high = SQRT(MUL(half, SUB(SET1(1.0f), d)));
    VEC x = OR(AND(high, x_high), ANDNOT(high, d));
    VEC z = MUL(x, x), z2 = MUL(z, z);
    /* P(z) in Estrin's order: its terms in parallel (see sample_trs). */
    VEC p = FMA(FMA(SET1(4.2163199048e-2f), z2, FMA(SET1(2.4181311049e-2f), z, SET1(4.5470025998e-2f))), z2,
                FMA(SET1(7.4953002686e-2f), z, SET1(1.6666752422e-1f)));
    VEC asin_x = FMA(MUL(x, z), p, x);
    return OR(AND(high, ADD(asin_x, asin_x)), ANDNOT(high, SUB(SET1(1.57079632679f), asin_x)));
}

/* k sin(k theta) / (k theta) for k theta in [0, pi/2]: Taylor to x^10
 * (the next term is under 4e-8 there). */
TARGET static inline VEC SUFFIX(arc_weight)(VEC k, VEC theta)
{
    VEC x = MUL(k, theta);
    /* x^2 at least 2^-24: the same weights (p rounds to 1 below it), and
     * neither x^8 nor, where FMA is a product then a sum (SSE2), x^8 / 9!
     * falls under float's normal range. 2^-30 (a3bc2bd) left 2^-120 / 9!
     * subnormal for lanes at k theta = 0 (held keys) beside a lane on the
     * far branch: 01_03.bvh's frames on the portable kernel (a helper's
     * review). */
    VEC x2 = MAX(SET1(0x1p-24f), MUL(x, x)), x4 = MUL(x2, x2), x8 = MUL(x4, x4);
    /* Estrin's order, as acos01. */
    VEC p = FMA(FMA(SET1(-1.0f / 39916800.0f), x2, SET1(1.0f / 362880.0f)), x8,
                FMA(FMA(SET1(-1.0f / 5040.0f), x2, SET1(1.0f / 120.0f)), x4, FMA(SET1(-1.0f / 6.0f), x2, SET1(1.0f))));
    return MUL(k, p);
}

/* Slerp's weights for keys a . b = d apart at factor f, without their
 * common 1 / sin theta (the caller normalises): (1 - f) sinc((1 - f)
 * theta) and f sinc(f theta), theta = acos d. No division by a vanishing
 * sine and no branch per lane; theta = 0 gives normalised lerp's weights
 * exactly. Keys are in one hemisphere (walk_compile.c turns them), so d >= 0 and
 * theta <= pi / 2. */
TARGET static inline void SUFFIX(arc_weights)(VEC d, VEC f, VEC *wa, VEC *wb)
{
    /* Unit keys give d in [0, 1] up to rounding; keys that are not unit
     * (files store some) are clamped, as the reference's d > 0.9995 test
     * sends them to lerp. NaN becomes 0 and is caught by the length test. */
    VEC one = SET1(1.0f);
    d = MIN(MAX(d, ZERO()), one);
    VEC k = SUB(one, f), x = SUB(one, d);
    if (ALL(LT(x, SET1(0.045f)))) {
        /* Every lane's keys within ~0.3 rad (most pairs of a smooth clip):
         * theta^2 from the series of acos(1 - x)^2, 2x + x^2/3 + 4x^3/45
         * + x^4/35 (the next term, 16 x^5 / 1575, is under 2e-9 here; until
         * 2026-11-25 the x^3 and x^4 terms were 8/45 and 4/35, theta^2 up
         * to 6e-6 too large) and shorter sincs (k theta <= 0.3: the x^8
         * term is under 2e-10). Polynomials in Estrin's order (see
         * sample_trs). */
        VEC t2 = MUL(FMA(FMA(SET1(1.0f / 35.0f), x, SET1(4.0f / 45.0f)), MUL(x, x), FMA(SET1(1.0f / 3.0f), x, SET1(2.0f))),
                     x);
        /* ya, yb at least 2^-30 (the same weights, as arc_weight's x^2):
         * a factor near 1 made (k^2 t2)^2 subnormal (BCN_Epileptic.X). */
        VEC tiny = SET1(0x1p-30f), ya = MAX(tiny, MUL(MUL(k, k), t2)), yb = MAX(tiny, MUL(MUL(f, f), t2));
        VEC pa = FMA(FMA(SET1(-1.0f / 5040.0f), ya, SET1(1.0f / 120.0f)), MUL(ya, ya), FMA(SET1(-1.0f / 6.0f), ya, one));
        VEC pb = FMA(FMA(SET1(-1.0f / 5040.0f), yb, SET1(1.0f / 120.0f)), MUL(yb, yb), FMA(SET1(-1.0f / 6.0f), yb, one));
        *wa = MUL(k, pa);
        *wb = MUL(f, pb);
    } else {
        VEC theta = SUFFIX(acos01)(d);
        *wa = SUFFIX(arc_weight)(k, theta);
        *wb = SUFFIX(arc_weight)(f, theta);
    }
}

/* Where |r|^2 (r the blended rotation, before it is normalised) leaves
 * these, a sampler takes rotation_rescue (keys under ~1e-15 or over
 * ~1e15 long, zero or not finite: files store some, the reference poses
 * them); real clips never do, so the branch is predicted and off the
 * chain. Inside, 2 / |r|^2 and every 2 r_i r_j / |r|^2 are normal floats. */
#ifndef SKV_LEN2_LOW
#define SKV_LEN2_LOW 1e-30f
#define SKV_LEN2_HIGH 1e30f
#endif

/* r = (x, y, z, w) and 2 / |r|^2 for the rotation's products where some
 * lane's |r|^2 left the range above: |r|^2 formed from r as the
 * reference forms it, which decides as the reference does (not > 0 or
 * not finite: zeroed, so the products are 0 and the matrix the identity);
 * r then taken 2^64 times smaller or larger (exact) where |r|^2 is out of
 * range, so that its squares are neither subnormal (inexact) nor over
 * float's range. Inlined: a call there would make the compiler keep the
 * samplers' registers in memory on the common path too. */
/* The rescues' common part: where |r|^2 = len2 is not > 0 or not
 * finite (*ok clear), and the power of two that takes r into range. */
TARGET static inline __attribute__((always_inline)) VEC SUFFIX(rescue_scale)(VEC len2, VEC *ok)
{
    *ok = AND(GT(len2, ZERO()), LT(len2, SET1(INFINITY)));
    VEC low = LT(len2, SET1(SKV_LEN2_LOW)), high = GT(len2, SET1(SKV_LEN2_HIGH));
    return OR(OR(AND(low, SET1(0x1p64f)), AND(high, SET1(0x1p-64f))), ANDNOT(OR(low, high), SET1(1.0f)));
}

TARGET static inline __attribute__((always_inline)) void SUFFIX(rotation_rescue)(VEC *x, VEC *y, VEC *z, VEC *w, VEC *two_inv)
{
    VEC len2 = ADD(FMA(*y, *y, MUL(*x, *x)), FMA(*w, *w, MUL(*z, *z))), ok;
    VEC scale = SUFFIX(rescue_scale)(len2, &ok);
    *x = AND(ok, MUL(*x, scale)), *y = AND(ok, MUL(*y, scale)), *z = AND(ok, MUL(*z, scale));
    *w = AND(ok, MUL(*w, scale));
    len2 = ADD(FMA(*y, *y, MUL(*x, *x)), FMA(*w, *w, MUL(*z, *z)));
    *two_inv = AND(ok, DIV(SET1(2.0f), len2));
}

/* One vector of channels from their two keys' components (structure of
 * arrays: ta[0] the T x of every lane, ...) at factor f per lane; with
 * t_fixed (a constant where it is inlined) bit 1, T is ta as it is: keys
 * whose T never changes (tb == ta: the lerp would give ta); bit 2, S is
 * sa as it is (compacted keys: kernels.h, skv_compact). */
TARGET static inline __attribute__((always_inline)) void SUFFIX(sample_trs)(const VEC ta[3], const VEC tb[3], const VEC ra[4], const VEC rb[4],
                                             const VEC sa[3], const VEC sb[3], VEC f, const int32_t *out, float *work,
                                             int t_fixed)
{
    VEC t[3], s[3];
    for (int c = 0; c < 3; c++) {
        t[c] = t_fixed & 1 ? ta[c] : FMA(f, SUB(tb[c], ta[c]), ta[c]);
        s[c] = t_fixed & 2 ? sa[c] : FMA(f, SUB(sb[c], sa[c]), sa[c]);
    }
    /* The frame waits on this chain (a file of a few bones: one vector a
     * frame), so sums are formed as trees, not one after another. */
    VEC d = ADD(FMA(ra[1], rb[1], MUL(ra[0], rb[0])), FMA(ra[3], rb[3], MUL(ra[2], rb[2])));
    VEC wa, wb;
    SUFFIX(arc_weights)(d, f, &wa, &wb);
    VEC r[4];
    for (int c = 0; c < 4; c++) r[c] = FMA(wb, rb[c], MUL(wa, ra[c]));
    VEC len2;
    if (sizeof(VEC) > 16) {
        /* 8 and 16 lanes: |r|^2 = wa^2 |a|^2 + 2 wa wb (a . b) + wb^2 |b|^2
         * (every term >= 0: d >= 0 for the keys walk_compile.c turns into one
         * hemisphere), the keys' lengths formed beside d, so that |r|^2
         * does not wait for the blend (keys need not be unit: files store
         * some): faster frames (CesiumMan, bench/NOTES.md). */
        VEC na = ADD(FMA(ra[1], ra[1], MUL(ra[0], ra[0])), FMA(ra[3], ra[3], MUL(ra[2], ra[2])));
        VEC nb = ADD(FMA(rb[1], rb[1], MUL(rb[0], rb[0])), FMA(rb[3], rb[3], MUL(rb[2], rb[2])));
        len2 = FMA(wa, FMA(wa, na, MUL(ADD(d, d), wb)), MUL(wb, MUL(wb, nb)));
    } else {
        /* 4 lanes (the few-bone files' one vector): from r, 16
         * instructions fewer and as fast there (sixteen registers: the
         * lengths held beside the arc spilled). */
        len2 = ADD(FMA(r[1], r[1], MUL(r[0], r[0])), FMA(r[3], r[3], MUL(r[2], r[2])));
    }
    VEC one = SET1(1.0f);
    /* The rotation of r / |r| from r itself: its products are 2 r_i r_j /
     * |r|^2, so one division and no square root (the reference's trs_mat4
     * normalises first; the same matrix to rounding). */
    VEC x = r[0], y = r[1], z = r[2], w = r[3], two_inv;
    if (ALL(AND(GT(len2, SET1(SKV_LEN2_LOW)), LT(len2, SET1(SKV_LEN2_HIGH))))) two_inv = DIV(SET1(2.0f), len2);
    else SUFFIX(rotation_rescue)(&x, &y, &z, &w, &two_inv);
    VEC x2 = MUL(x, two_inv), y2 = MUL(y, two_inv), z2 = MUL(z, two_inv);
    VEC xx = MUL(x, x2), yy = MUL(y, y2), zz = MUL(z, z2), xy = MUL(x, y2), xz = MUL(x, z2), yz = MUL(y, z2);
    VEC wx = MUL(w, x2), wy = MUL(w, y2), wz = MUL(w, z2);
    VEC m[16] = {MUL(SUB(one, ADD(yy, zz)), s[0]), MUL(ADD(xy, wz), s[0]), MUL(SUB(xz, wy), s[0]), ZERO(),
                 MUL(SUB(xy, wz), s[1]), MUL(SUB(one, ADD(xx, zz)), s[1]), MUL(ADD(yz, wx), s[1]), ZERO(),
                 MUL(ADD(xz, wy), s[2]), MUL(SUB(yz, wx), s[2]), MUL(SUB(one, ADD(xx, yy)), s[2]), ZERO(),
                 t[0], t[1], t[2], one};
    STORE_LOCALS(m, out, work);
}

TARGET static inline __attribute__((always_inline)) void SUFFIX(sample_soa)(const VEC ta[3], const VEC tb[3], const VEC ra[4], const VEC rb[4],
                                             const VEC sa[3], const VEC sb[3], VEC f, const int32_t *out, float *work)
{
    SUFFIX(sample_trs)(ta, tb, ra, rb, sa, sb, f, out, work, 0);
}

/* One vector of channels of a time group: a and b point at their first
 * component (T x) in the key blocks, components SKV_LANE_BLOCK floats
 * apart. */
TARGET static inline void SUFFIX(sample_vector)(const float *a, const float *b, VEC f, const int32_t *out, float *work)
{
    VEC ta[3], tb[3], ra[4], rb[4], sa[3], sb[3];
    for (int c = 0; c < 3; c++) {
        ta[c] = LOAD(a + c * SKV_LANE_BLOCK), tb[c] = LOAD(b + c * SKV_LANE_BLOCK);
        sa[c] = LOAD(a + (7 + c) * SKV_LANE_BLOCK), sb[c] = LOAD(b + (7 + c) * SKV_LANE_BLOCK);
    }
    for (int c = 0; c < 4; c++) ra[c] = LOAD(a + (3 + c) * SKV_LANE_BLOCK), rb[c] = LOAD(b + (3 + c) * SKV_LANE_BLOCK);
    SUFFIX(sample_soa)(ta, tb, ra, rb, sa, sb, f, out, work);
}

/* sin y / y and cos y on the arc (kernels.h's KERNELS_ARC_ polynomials
 * in z = y^2, Estrin's order): arc_vector's and arc_lane's, so that both
 * form the same numbers. z is taken as at least 2^-30, where both
 * polynomials round to exactly 1 as they do for any smaller z: the same
 * numbers, but z^2 and its products no longer fall under float's normal
 * range for small y (an Intel CPU takes each such instruction through a
 * microcode assist: ozz's run.fbx had one in 2,101 of 2,400 frames,
 * bench/NOTES.md v7r). The floor first: MAX returns its second operand
 * where either is NaN, so a NaN stays NaN. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_polys)(VEC y, VEC *ps, VEC *pc)
{
    VEC one = SET1(1.0f), z = MAX(SET1(0x1p-30f), MUL(y, y)), z2 = MUL(z, z);
    *ps = FMA(z2, FMA(z, SET1(KERNELS_ARC_S3), SET1(KERNELS_ARC_S2)), FMA(z, SET1(KERNELS_ARC_S1), one));
    *pc = FMA(z, FMA(z2, FMA(z, SET1(KERNELS_ARC_C4), SET1(KERNELS_ARC_C3)), FMA(z, SET1(KERNELS_ARC_C2), SET1(KERNELS_ARC_C1))),
              one);
}

/* The locals of one vector of arc channels at factor f: y = (f - 1/2)
 * theta; m and n at mn (m's components, then n's, SKV_LANE_BLOCK floats
 * apart: both layouts' order); T and S at ts, lerped from the full pair's
 * T0, dT, S0, dS (SKV_ARC_T0 .. SKV_ARC_DS from ts) or, with `fixed` (a
 * constant where it is inlined), taken as they are from a compacted
 * pair's fixed T x y z, S x y z: the arc's T0 + f dT for dT = 0. Each
 * term is loaded where it is used, as arc_vector always did (loaded
 * first, the compacted pair's T and S were held across the rotation's
 * arithmetic and spilled). sin y and cos y by kernels.h's KERNELS_ARC_
 * polynomials in Estrin's order, q = cos y m + sin y n with y n formed
 * beside them; q is of unit length to 1.1e-8, so its products are the
 * rotation as they are (no division), 2 S folded into the scale. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_form)(VEC y, const float *mn, const float *ts,
                                                                         int fixed, VEC f, const int32_t *out,
                                                                         float *work)
{
    VEC one = SET1(1.0f), ps, pc;
    SUFFIX(arc_polys)(y, &ps, &pc);
    VEC q[4], s[3], s2[3];
    /* The sine is ready a product before the cosine: its term first. */
    for (int c = 0; c < 4; c++)
        q[c] = FMA(pc, LOAD(mn + c * SKV_LANE_BLOCK), MUL(ps, MUL(y, LOAD(mn + (4 + c) * SKV_LANE_BLOCK))));
    for (int c = 0; c < 3; c++) {
        s[c] = fixed ? LOAD(ts + (3 + c) * SKV_LANE_BLOCK)
                     : FMA(f, LOAD(ts + (SKV_ARC_DS + c) * SKV_LANE_BLOCK), LOAD(ts + (SKV_ARC_S0 + c) * SKV_LANE_BLOCK));
        s2[c] = fixed ? LOAD(ts + (6 + c) * SKV_LANE_BLOCK) : ADD(s[c], s[c]); /* 2 S: exact */
    }
    /* The products' sums each a fused multiply-add, written out (not left
     * to the compiler's contraction), so that arc_lane can form the same
     * numbers: yy + zz as y y + zz, xy - wz as xy - w z, ... */
    VEC x = q[0], yq = q[1], zq = q[2], w = q[3];
    VEC yy = MUL(yq, yq), zz = MUL(zq, zq), xy = MUL(x, yq), xz = MUL(x, zq), yz = MUL(yq, zq);
    VEC m[16] = {FNMA(s2[0], FMA(yq, yq, zz), s[0]), MUL(FMA(w, zq, xy), s2[0]), MUL(FNMA(w, yq, xz), s2[0]), ZERO(),
                 MUL(FNMA(w, zq, xy), s2[1]), FNMA(s2[1], FMA(x, x, zz), s[1]), MUL(FMA(w, x, yz), s2[1]), ZERO(),
                 MUL(FMA(w, yq, xz), s2[2]), MUL(FNMA(w, x, yz), s2[2]), FNMA(s2[2], FMA(x, x, yy), s[2]), ZERO(),
                 ZERO(), ZERO(), ZERO(), one};
    /* T last, where the stores take it. */
    for (int c = 0; c < 3; c++)
        m[12 + c] = fixed ? LOAD(ts + c * SKV_LANE_BLOCK)
                          : FMA(f, LOAD(ts + (SKV_ARC_DT + c) * SKV_LANE_BLOCK), LOAD(ts + (SKV_ARC_T0 + c) * SKV_LANE_BLOCK));
    STORE_LOCALS(m, out, work);
}

/* One vector of channels of a prepared key pair (kernels.h, SKV_ARC_M;
 * p at its first component, components SKV_LANE_BLOCK floats apart) at
 * factor f, fh = f - 1/2. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_vector)(const float *p, VEC f, VEC fh,
                                                                           const int32_t *out, float *work)
{
    SUFFIX(arc_form)(MUL(fh, LOAD(p + SKV_ARC_THETA * SKV_LANE_BLOCK)), p + SKV_ARC_M * SKV_LANE_BLOCK, p, 0, f,
                     out, work);
}

/* arc_vector on a compacted pair (kernels.h, SKV_CARC_M; p and fixed at
 * their first component, components SKV_LANE_BLOCK floats apart): T and
 * S the fixed ones as they are. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_compact_vector)(const float *p, const float *fixed,
                                                                                   VEC fh, const int32_t *out,
                                                                                   float *work)
{
    SUFFIX(arc_form)(MUL(fh, LOAD(p + SKV_CARC_THETA * SKV_LANE_BLOCK)), p + SKV_CARC_M * SKV_LANE_BLOCK, fixed, 1, fh,
                     out, work);
}

#ifdef GATHER4
/* Channels each on its own time line (kernels.h, sample_each), four at a
 * time: every lane's two keys as rows (T x y z 0, R x y z w, S x y z 0),
 * turned into components by transposes, each lane at its own factor. */
TARGET static void SUFFIX(sample_each)(const float *const *keys, const float *f, const int32_t *out, int lane_count,
                                       float *work)
{
    for (int l = 0; l < lane_count; l += 4) {
        VEC a[3][4], b[3][4];
        for (int j = 0; j < 4; j++)
            for (int row = 0; row < 3; row++) {
                a[row][j] = LOAD(keys[l + j] + 4 * row);
                b[row][j] = LOAD(keys[l + j] + SKV_EACH_KEY_FLOATS + 4 * row);
            }
        for (int row = 0; row < 3; row++) {
            _MM_TRANSPOSE4_PS(a[row][0], a[row][1], a[row][2], a[row][3]);
            _MM_TRANSPOSE4_PS(b[row][0], b[row][1], b[row][2], b[row][3]);
        }
        SUFFIX(sample_soa)(a[0], b[0], a[1], b[1], a[2], b[2], _mm_loadu_ps(f + l), out + l, work);
    }
}

/* v's four entries picked by _MM_SHUFFLE order (i3, i2, i1, i0). */
#define PICK(v, i0, i1, i2, i3) _mm_shuffle_ps(v, v, _MM_SHUFFLE(i3, i2, i1, i0))

/* a . b in every entry. */
TARGET static inline VEC SUFFIX(dot4)(VEC a, VEC b)
{
    VEC p = MUL(a, b);
    p = ADD(p, PICK(p, 1, 0, 3, 2));
    return ADD(p, PICK(p, 2, 3, 0, 1));
}

/* rotation_rescue for sample_solo's q = (x, y, z, w) in one register,
 * |r|^2 = len2 in every entry; q2 = 2 q / |q|^2. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(solo_rescue)(VEC *q, VEC *q2, VEC len2)
{
    VEC ok, scale = SUFFIX(rescue_scale)(len2, &ok);
    *q = AND(ok, MUL(*q, scale));
    *q2 = AND(ok, DIV(ADD(*q, *q), SUFFIX(dot4)(*q, *q)));
}

/* One channel without lanes (kernels.h, sample_solo): its two keys as
 * rows (T x y z 0, R x y z w, S x y z 0), one register each. The slerp's
 * weights come from the lanes' own arc_weights with the keys' dot product
 * in every entry, so they are the weights a lane would get; the matrix
 * is built from the rotation's products by shuffles, a column a register.
 * About a third of a 4-lane vector's instructions. */
TARGET static void SUFFIX(sample_solo)(const float *key, float f, int32_t out, float *work)
{
    VEC fv = SET1(f);
    VEC ta = LOAD(key), ra = LOAD(key + 4), sa = LOAD(key + 8);
    VEC tb = LOAD(key + SKV_EACH_KEY_FLOATS), rb = LOAD(key + SKV_EACH_KEY_FLOATS + 4);
    VEC sb = LOAD(key + SKV_EACH_KEY_FLOATS + 8);
    VEC t = FMA(fv, SUB(tb, ta), ta), s = FMA(fv, SUB(sb, sa), sa); /* their 4th entries stay 0 */
    VEC wa, wb;
    SUFFIX(arc_weights)(SUFFIX(dot4)(ra, rb), fv, &wa, &wb);
    VEC r = FMA(wb, rb, MUL(wa, ra));
    /* |r|^2 from r, as the 4-lane sampler forms it (from the keys'
     * lengths, as the 8- and 16-lane ones do, it was no faster here); the
     * rotation from 2 q / |r|^2 as sample_trs forms it, solo_rescue out
     * of range. */
    VEC len2 = SUFFIX(dot4)(r, r), q = r, q2;
    if (ALL(AND(GT(len2, SET1(SKV_LEN2_LOW)), LT(len2, SET1(SKV_LEN2_HIGH))))) q2 = DIV(ADD(q, q), len2);
    else SUFFIX(solo_rescue)(&q, &q2, len2);
    /* q = (x, y, z, w): column 0 is (1 - 2yy - 2zz, 2xy + 2wz, 2xz - 2wy),
     * column 1 (2xy - 2wz, 1 - 2xx - 2zz, 2yz + 2wx), column 2 (2xz + 2wy,
     * 2yz - 2wx, 1 - 2xx - 2yy): two products of picked entries each,
     * signed, on the identity's column; the 4th entries come out 0. */
    VEC c0 = FMA(MUL(PICK(q, 1, 0, 0, 0), PICK(q2, 1, 1, 2, 0)), _mm_set_ps(0.0f, 1.0f, 1.0f, -1.0f),
                 _mm_set_ps(0.0f, 0.0f, 0.0f, 1.0f));
    c0 = FMA(MUL(PICK(q, 2, 3, 3, 0), PICK(q2, 2, 2, 1, 0)), _mm_set_ps(0.0f, -1.0f, 1.0f, -1.0f), c0);
    VEC c1 = FMA(MUL(PICK(q, 0, 0, 1, 0), PICK(q2, 1, 0, 2, 0)), _mm_set_ps(0.0f, 1.0f, -1.0f, 1.0f),
                 _mm_set_ps(0.0f, 0.0f, 1.0f, 0.0f));
    c1 = FMA(MUL(PICK(q, 3, 2, 3, 0), PICK(q2, 2, 2, 0, 0)), _mm_set_ps(0.0f, 1.0f, -1.0f, -1.0f), c1);
    VEC c2 = FMA(MUL(PICK(q, 0, 1, 0, 0), PICK(q2, 2, 2, 0, 0)), _mm_set_ps(0.0f, -1.0f, 1.0f, 1.0f),
                 _mm_set_ps(0.0f, 1.0f, 0.0f, 0.0f));
    c2 = FMA(MUL(PICK(q, 3, 3, 1, 0), PICK(q2, 1, 0, 1, 0)), _mm_set_ps(0.0f, -1.0f, -1.0f, 1.0f), c2);
    float *m = (float *)((char *)work + out);
    _mm_storeu_ps(m, MUL(c0, PICK(s, 0, 0, 0, 0)));
    _mm_storeu_ps(m + 4, MUL(c1, PICK(s, 1, 1, 1, 1)));
    _mm_storeu_ps(m + 8, MUL(c2, PICK(s, 2, 2, 2, 2)));
    _mm_storeu_ps(m + 12, ADD(t, _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f)));
}

/* sample_arc for one lane (a group's last lane past whole vectors): its
 * components gathered into registers (T x y z 1, dT, m, n, S, dS), the
 * arithmetic arc_vector's to the operation, so that the local is the one
 * the lane gets in a vector, bit for bit (test_sample_arc), in about half
 * a 4-lane vector's instructions. arc_lane_form takes y, m, n, T and S
 * gathered (the full pair's or the compacted one's). Each column of the
 * rotation is the diagonal's s_k plus the products' sums times -2 s_k on
 * the diagonal and 2 s_k off it, as arc_vector forms them (x 1 and x -1
 * are exact). */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_lane_form)(VEC y, VEC mid, VEC quarter, VEC t,
                                                                              VEC s, int32_t out, float *work)
{
    VEC ps, pc;
    SUFFIX(arc_polys)(y, &ps, &pc);
    VEC q = FMA(pc, mid, MUL(ps, MUL(y, quarter)));
    /* arc_vector's sums, a column a register: column 0 is (y y + zz,
     * w z + xy, xz - w y), column 1 (xy - w z, x x + zz, w x + yz),
     * column 2 (w y + xz, yz - w x, x x + yy); xz - w y as (-w) y + xz,
     * the same number (-w: w times -1). */
    VEC a0 = FMA(MUL(PICK(q, 1, 3, 3, 0), _mm_setr_ps(1.0f, 1.0f, -1.0f, 0.0f)), PICK(q, 1, 2, 1, 0),
                 MUL(PICK(q, 2, 0, 0, 0), PICK(q, 2, 1, 2, 0)));
    VEC a1 = FMA(MUL(PICK(q, 3, 0, 3, 0), _mm_setr_ps(-1.0f, 1.0f, 1.0f, 0.0f)), PICK(q, 2, 0, 0, 0),
                 MUL(PICK(q, 0, 2, 1, 0), PICK(q, 1, 2, 2, 0)));
    VEC a2 = FMA(MUL(PICK(q, 3, 3, 0, 0), _mm_setr_ps(1.0f, -1.0f, 1.0f, 0.0f)), PICK(q, 1, 0, 0, 0),
                 MUL(PICK(q, 0, 1, 1, 0), PICK(q, 2, 2, 1, 0)));
    /* The addends: s_k on the diagonal, -0 off it (a product plus -0 is
     * the product, a zero's sign too; +0 would turn -0 into +0: a
     * helper's review), +0 in row 3 (arc_vector's ZERO()). */
    static const float sign[3][4] = {/* of 2 s_k: -2 s_k on the diagonal */
                                     {-1.0f, 1.0f, 1.0f, 0.0f}, {1.0f, -1.0f, 1.0f, 0.0f}, {1.0f, 1.0f, -1.0f, 0.0f}};
    static const float off_diagonal[3][4] = {
        {0.0f, -0.0f, -0.0f, 0.0f}, {-0.0f, 0.0f, -0.0f, 0.0f}, {-0.0f, -0.0f, 0.0f, 0.0f}};
    static const int32_t diagonal[3][4] = {{-1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, -1, 0}};
    VEC s2 = ADD(s, s), a[3] = {a0, a1, a2};
    VEC s2k[3] = {PICK(s2, 0, 0, 0, 0), PICK(s2, 1, 1, 1, 1), PICK(s2, 2, 2, 2, 2)};
    float *m = (float *)((char *)work + out);
    for (int k = 0; k < 3; k++) {
        VEC addend = OR(AND(s, _mm_loadu_ps((const float *)diagonal[k])), _mm_loadu_ps(off_diagonal[k]));
        _mm_storeu_ps(m + 4 * k, FMA(a[k], MUL(s2k[k], _mm_loadu_ps(sign[k])), addend));
    }
    _mm_storeu_ps(m + 12, t);
}

TARGET static void SUFFIX(arc_lane)(const float *p, float f, int32_t out, float *work)
{
#define ARC(c) p[(size_t)(c) * SKV_LANE_BLOCK]
#define ROW(c, w) _mm_setr_ps(ARC(c), ARC((c) + 1), ARC((c) + 2), w)
    const VEC fv = SET1(f);
    VEC y = SET1((f - 0.5f) * ARC(SKV_ARC_THETA));
    VEC mid = ROW(SKV_ARC_M, ARC(SKV_ARC_M + 3)), quarter = ROW(SKV_ARC_N, ARC(SKV_ARC_N + 3)); /* m, n */
    VEC t = FMA(fv, ROW(SKV_ARC_DT, 0.0f), ROW(SKV_ARC_T0, 1.0f));
    VEC s = FMA(fv, ROW(SKV_ARC_DS, 0.0f), ROW(SKV_ARC_S0, 0.0f));
#undef ROW
#undef ARC
    SUFFIX(arc_lane_form)(y, mid, quarter, t, s, out, work);
}

/* arc_lane on a compacted pair (p and fixed at the lane, components
 * SKV_LANE_BLOCK floats apart): T and S the fixed ones, as arc_lane's T0
 * + f dT (T x y z 1) and S0 + f dS (S x y z 0) give them for dT = dS = 0. */
TARGET static void SUFFIX(arc_compact_lane)(const float *p, const float *fixed, float f, int32_t out, float *work)
{
#define ROW(q, c, w) _mm_setr_ps(q[(c) * SKV_LANE_BLOCK], q[((c) + 1) * SKV_LANE_BLOCK], q[((c) + 2) * SKV_LANE_BLOCK], w)
    VEC y = SET1((f - 0.5f) * p[SKV_CARC_THETA * SKV_LANE_BLOCK]);
    VEC mid = ROW(p, SKV_CARC_M, p[(SKV_CARC_M + 3) * SKV_LANE_BLOCK]);
    VEC quarter = ROW(p, SKV_CARC_N, p[(SKV_CARC_N + 3) * SKV_LANE_BLOCK]);
    SUFFIX(arc_lane_form)(y, mid, quarter, ROW(fixed, 0, 1.0f), ROW(fixed, 3, 0.0f), out, work);
#undef ROW
}

/* The moving T's of a compacted arc pair (kernels.h, SKV_CARC_T_FLOATS
 * each at `moving`, 16-byte aligned) at factor f into their locals'
 * column 3: T0 + f dT as arc_vector forms it (its FMA), and the 1 there. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_patch)(const float *moving, float f,
                                                                          const skv_compact *c, float *work)
{
    VEC fv = SET1(f);
    for (const int32_t *to = c->t_out, *end = to + c->t_count; to < end; to++, moving += SKV_CARC_T_FLOATS)
        _mm_storeu_ps((float *)((char *)work + *to) + 12, FMA(fv, LOAD(moving + 4), LOAD(moving)));
}
#undef PICK
#endif

#ifdef GATHER8
/* sample_each eight lanes at a time (AVX2): channels l .. l + 3 in the low
 * halves, l + 4 .. l + 7 in the high ones, each half transposed as the
 * 4-lane sampler transposes (the 256-bit unpacks and shuffles work within
 * halves); the last 4 lanes, if any, go to the 4-lane sampler. One 8-lane
 * vector of arithmetic instead of two 4-lane ones. */
TARGET static void SUFFIX(sample_each8)(const float *const *keys, const float *f, const int32_t *out, int lane_count,
                                        float *work)
{
    int l = 0;
    for (; l + 8 <= lane_count; l += 8) {
        VEC a[3][4], b[3][4];
        for (int j = 0; j < 4; j++)
            for (int row = 0; row < 3; row++) {
                a[row][j] = _mm256_set_m128(_mm_load_ps(keys[l + 4 + j] + 4 * row), _mm_load_ps(keys[l + j] + 4 * row));
                b[row][j] = _mm256_set_m128(_mm_load_ps(keys[l + 4 + j] + SKV_EACH_KEY_FLOATS + 4 * row),
                                            _mm_load_ps(keys[l + j] + SKV_EACH_KEY_FLOATS + 4 * row));
            }
        for (int row = 0; row < 3; row++) {
            VEC *m[2] = {a[row], b[row]};
            for (int k = 0; k < 2; k++) {
                VEC t0 = _mm256_unpacklo_ps(m[k][0], m[k][1]), t1 = _mm256_unpackhi_ps(m[k][0], m[k][1]);
                VEC t2 = _mm256_unpacklo_ps(m[k][2], m[k][3]), t3 = _mm256_unpackhi_ps(m[k][2], m[k][3]);
                m[k][0] = _mm256_shuffle_ps(t0, t2, 0x44), m[k][1] = _mm256_shuffle_ps(t0, t2, 0xee);
                m[k][2] = _mm256_shuffle_ps(t1, t3, 0x44), m[k][3] = _mm256_shuffle_ps(t1, t3, 0xee);
            }
        }
        SUFFIX(sample_soa)(a[0], b[0], a[1], b[1], a[2], b[2], _mm256_loadu_ps(f + l), out + l, work);
    }
    if (l < lane_count) GATHER8_REST(keys + l, f + l, out + l, lane_count - l, work);
}

/* Four lanes (one small group's channels, often) straight to the 4-lane
 * sampler, without the 8-lane one's frame. */
TARGET static void SUFFIX(sample_each)(const float *const *keys, const float *f, const int32_t *out, int lane_count,
                                       float *work)
{
    if (lane_count < 8) GATHER8_REST(keys, f, out, lane_count, work);
    else SUFFIX(sample_each8)(keys, f, out, lane_count, work);
}
#endif

#ifdef SOLO_TERMS
/* One matrix of solo_frame's: the sum of its six at m, weighted 1, f, c,
 * s, f c, f s, into o, WIDTH floats per register. Summed as (m0 + f m1)
 * + c (m2 + f m4) + s (m3 + f m5): the three products by f do not wait
 * for the arc's sine and cosine, so after them the frame waits for two
 * fused multiply-adds, not five (and forms no f c, f s). */
TARGET static inline __attribute__((always_inline)) void SUFFIX(solo_matrix)(const float *m, VEC f, VEC c, VEC s,
                                                                            float *o)
{
    enum { WIDTH = (int)(sizeof(VEC) / sizeof(float)) };
    for (int e = 0; e < 16; e += WIDTH) {
        VEC one = FMA(f, LOAD(m + 16 + e), LOAD(m + e));
        VEC by_c = FMA(f, LOAD(m + 64 + e), LOAD(m + 32 + e));
        VEC by_s = FMA(f, LOAD(m + 80 + e), LOAD(m + 48 + e));
        STORE(o + e, FMA(s, by_s, FMA(c, by_c, one)));
    }
}

/* kernels.h, solo_frame's arithmetic: each palette entry of key pair i
 * at factor f as the sum of its six matrices, weighted 1, f, c, s, f c,
 * f s (kernels_solo_arc: cos y and sin y, or cos 2psi and sin 2psi with
 * `weighted`); the local's slot keeps i and f (kernels.h,
 * kernels_solo_local forms the local when asked). */
TARGET static inline __attribute__((always_inline)) void SUFFIX(solo_sums)(const skv_solo *solo, int weighted, int i,
                                                                          float f, float *work, float *palette)
{
    const float *m = solo->terms + (size_t)i * solo->pair_floats;
    float s, c;
    kernels_solo_arc(m, weighted, f, &c, &s);
    const VEC fv = SET1(f), cv = SET1(c), sv = SET1(s);
    m += SKV_SOLO_HEAD;
    for (const skv_walk_step *step = solo->steps; step < solo->steps_end; step++) {
        m += SKV_SOLO_TERMS * 16;
        SUFFIX(solo_matrix)(m, fv, cv, sv, (float *)((char *)palette + step->out));
    }
    kernels_solo_stash((float *)((char *)work + solo->out), i, f);
}

/* A pair playback's step does not find (a seek, a jump, before the first
 * key or after the last) among keys not evenly spaced (those take
 * kernels_solo_seek inline): the walk's search, out of the way of
 * solo_frame, which then needs no frame of its own (its arguments in the
 * same registers: which arc, from the walk). */
TARGET static __attribute__((noinline)) void SUFFIX(solo_search)(const skv_solo *solo, double ticks, int *cursor,
                                                                 float *work, float *palette)
{
    float f;
    int i = solo->key_at(solo, ticks, cursor, &f);
    if (solo->weighted) SUFFIX(solo_sums)(solo, 1, i, f, work, palette);
    else SUFFIX(solo_sums)(solo, 0, i, f, work, palette);
}

/* solo_frame's seek on an exact grid (skv_solo's exact_grid): inside the
 * keys, g = t x rate exactly, its whole part the pair and g - i the
 * factor, both what the exact times give (t - i span is exact by
 * Sterbenz, the scalings by a power of two): no key time on the way to
 * the factor, where the seek is bound by latency (bench/NOTES.md v7v).
 * The last key and outside: kernels_solo_seek. Out of line: inline, the
 * frame needed a stack frame, instructions in playback too. */
TARGET static __attribute__((noinline)) void SUFFIX(solo_grid)(const skv_solo *solo, double t, int *cursor,
                                                              float *work, float *palette)
{
    double g = t * solo->key_rate;
    int i;
    float f;
    if (g >= 0.0 && g < (double)(solo->key_count - 1)) {
        i = (int)g;
        *cursor = i;
        f = (float)(g - (double)i);
    } else {
        i = kernels_solo_seek(solo, t, cursor, &f);
    }
    if (solo->weighted) SUFFIX(solo_sums)(solo, 1, i, f, work, palette);
    else SUFFIX(solo_sums)(solo, 0, i, f, work, palette);
}

/* Times past 2^30 loops or before 0: the clip time by fmod (a call),
 * out of the way too. */
TARGET static __attribute__((noinline)) void SUFFIX(solo_far)(const skv_solo *solo, double seconds,
                                                              double ticks_per_second, double duration, int *cursor,
                                                              float *work, float *palette)
{
    SUFFIX(solo_search)(solo, keys_ticks(seconds, ticks_per_second, duration), cursor, work, palette);
}

/* kernels.h, solo_frame: playback's clip time and key pair inline (built
 * for this instruction set: the FMA instruction, no call), then the sums. */
TARGET static inline __attribute__((always_inline)) void SUFFIX(solo_frame_any)(const skv_solo *solo, int weighted,
                                                                               double seconds,
                                                                               double ticks_per_second,
                                                                               double duration, int *cursor,
                                                                               float *work, float *palette,
                                                                               double *loops)
{
    if (!keys_ticks_playback(seconds * ticks_per_second, duration)) {
        SUFFIX(solo_far)(solo, seconds, ticks_per_second, duration, cursor, work, palette);
        return;
    }
    /* keys_ticks_from after its own range test: only its loop is
     * left (the compiler sees the test twice). */
    double t = keys_ticks_from(seconds, ticks_per_second, duration, loops);
    float f;
    int i;
    if (!kernels_solo_step(solo, t, cursor, &i, &f)) {
        if (solo->exact_grid) {
            SUFFIX(solo_grid)(solo, t, cursor, work, palette);
            return;
        }
        if (!(solo->key_rate > 0.0)) {
            SUFFIX(solo_search)(solo, t, cursor, work, palette);
            return;
        }
        i = kernels_solo_seek(solo, t, cursor, &f);
    }
    SUFFIX(solo_sums)(solo, weighted, i, f, work, palette);
}

TARGET static void SUFFIX(solo_frame)(const skv_solo *solo, double seconds, double ticks_per_second, double duration,
                                      int *cursor, float *work, float *palette, double *loops)
{
    SUFFIX(solo_frame_any)(solo, 0, seconds, ticks_per_second, duration, cursor, work, palette, loops);
}

TARGET static void SUFFIX(solo_frame_weighted)(const skv_solo *solo, double seconds, double ticks_per_second,
                                               double duration, int *cursor, float *work, float *palette,
                                               double *loops)
{
    SUFFIX(solo_frame_any)(solo, 1, seconds, ticks_per_second, duration, cursor, work, palette, loops);
}
#endif

#ifdef GATHER4
/* A group of 1-4 channels: one vector, called straight from a wider
 * sampler's entry before that one sets up its frame (a tail call). */
TARGET static void SUFFIX(sample_single)(const float *a, const float *b, float f, const int32_t *out, float *work)
{
    SUFFIX(sample_vector)(a, b, SET1(f), out, work);
}

/* sample_single on a prepared key pair (sample_arc's 1-4 lanes). */
TARGET static void SUFFIX(sample_arc_single)(const float *arc, float f, const int32_t *out, float *work)
{
    SUFFIX(arc_vector)(arc, SET1(f), SET1(f - 0.5f), out, work);
}

/* sample_single for a group whose T keys are all one value (kernels.h,
 * skv_walk_lists t_fixed): b's T not loaded, not lerped. */
TARGET static inline void SUFFIX(sample_single_t_fixed)(const float *a, const float *b, float f, const int32_t *out,
                                                        float *work)
{
    VEC ta[3], ra[4], rb[4], sa[3], sb[3];
    for (int c = 0; c < 3; c++) {
        ta[c] = LOAD(a + c * SKV_LANE_BLOCK);
        sa[c] = LOAD(a + (7 + c) * SKV_LANE_BLOCK), sb[c] = LOAD(b + (7 + c) * SKV_LANE_BLOCK);
    }
    for (int c = 0; c < 4; c++) ra[c] = LOAD(a + (3 + c) * SKV_LANE_BLOCK), rb[c] = LOAD(b + (3 + c) * SKV_LANE_BLOCK);
    SUFFIX(sample_trs)(ta, ta, ra, rb, sa, sb, SET1(f), out, work, 1);
}
#endif

/* Every vector of lanes up to lane_count; with NARROW(at, lanes) defined,
 * the last lanes when NARROW_LANES or fewer are left go to a narrower
 * sampler (a file of 3 moving channels need not pay for 16). */
TARGET static __attribute__((noinline)) void SUFFIX(sample_lanes)(const float *a, const float *b, float f,
                                                                  const int32_t *out, int lane_count, float *work)
{
    enum { WIDTH = (int)(sizeof(VEC) / sizeof(float)) };
    VEC fv = SET1(f);
    for (int l = 0; l < lane_count; l += WIDTH) {
        size_t at = kernels_lane_at(l, SKV_KEY_FLOATS(1));
#ifdef NARROW
        if (lane_count - l <= NARROW_LANES) {
            NARROW(a + at, b + at, f, out + l, lane_count - l, work);
            return;
        }
#endif
        SUFFIX(sample_vector)(a + at, b + at, fv, out + l, work);
    }
#ifdef CLEAN_UPPER
    /* sample_vector takes a 256-bit argument, so GCC takes the state it
     * returns with as the caller's concern and this function's as clean:
     * without this it returned with the upper halves dirty, and the SSE2
     * code after it (the walk's search for the next time group's keys)
     * paid the state's transition penalty every call on AMD EPYC
     * (test_anim_kernels, test_kernels_leave_upper_clean; bench/NOTES.md
     * v7j). */
    CLEAN_UPPER();
#endif
}

/* kernels.h, sample_arc: every vector of lanes up to lane_count, the last
 * lanes to a narrower sampler as sample_lanes does. */
TARGET static __attribute__((noinline)) void SUFFIX(sample_arc_lanes)(const float *arc, float f, const int32_t *out,
                                                                      int lane_count, float *work)
{
    enum { WIDTH = (int)(sizeof(VEC) / sizeof(float)) };
    VEC fv = SET1(f), fh = SET1(f - 0.5f);
    for (int l = 0; l < lane_count; l += WIDTH) {
        size_t at = kernels_lane_at(l, SKV_ARC_FLOATS(1));
#ifdef NARROW_ARC
        if (lane_count - l <= NARROW_LANES) {
#ifdef ONE_ARC
            /* A last lane alone to ONE_ARC (arc_lane), then CLEAN_UPPER:
             * GCC puts no vzeroupper before that call (a helper's review:
             * the upper halves came back dirty after 9, 17, 25 ... lanes;
             * test_kernels_leave_upper_clean). */
            if (lane_count - l == 1) {
                ONE_ARC(arc + at, f, out[l], work);
                break;
            }
#endif
            NARROW_ARC(arc + at, f, out + l, lane_count - l, work);
            return;
        }
#elif defined ONE_ARC
        if (lane_count - l == 1) {
            ONE_ARC(arc + at, f, out[l], work);
            break;
        }
#endif
        SUFFIX(arc_vector)(arc + at, fv, fh, out + l, work);
    }
#ifdef CLEAN_UPPER
    CLEAN_UPPER(); /* as sample_lanes */
#endif
}

/* The entry: 1-4 lanes straight to a 4-lane vector where SINGLE_ARC is
 * defined, as sample's entry. */
TARGET static void SUFFIX(sample_arc)(const float *arc, float f, const int32_t *out, int lane_count, float *work)
{
#ifdef SINGLE_ARC
    if (lane_count <= 4) {
        SINGLE_ARC(arc, f, out, work);
        return;
    }
#endif
    SUFFIX(sample_arc_lanes)(arc, f, out, lane_count, work);
}

/* kernels.h, sample_arc_compact's lanes as sample_arc_lanes takes them:
 * every vector of lanes up to lane_count, a last lane alone to
 * ONE_ARC_COMPACT, the last NARROW_LANES or fewer to NARROW_ARC_COMPACT
 * (arc_compact_lanes, x the fixed T and S at arc's lane). */
TARGET static inline __attribute__((always_inline)) void SUFFIX(arc_compact_loop)(const float *arc, const float *fixed,
                                                                                 float f, const int32_t *out,
                                                                                 int lane_count, float *work)
{
    enum { WIDTH = (int)(sizeof(VEC) / sizeof(float)) };
    VEC fh = SET1(f - 0.5f);
    for (int l = 0; l < lane_count; l += WIDTH) {
        size_t at = kernels_lane_at(l, SKV_CARC_FLOATS(1)); /* the fixed T and S's too */
        const float *p = arc + at, *x = fixed + at;
        if (lane_count - l == 1) {
            ONE_ARC_COMPACT(p, x, f, out[l], work);
#ifdef CLEAN_UPPER
            CLEAN_UPPER(); /* GCC puts none after this call (sample_arc_lanes) */
#endif
            break;
        }
#ifdef NARROW_ARC_COMPACT
        if (lane_count - l <= NARROW_LANES) {
            NARROW_ARC_COMPACT(p, x, f, out + l, lane_count - l, work);
            break;
        }
#endif
        SUFFIX(arc_compact_vector)(p, x, fh, out + l, work);
    }
}

TARGET static __attribute__((noinline, unused)) void SUFFIX(arc_compact_lanes)(const float *arc, const float *fixed,
                                                                               float f, const int32_t *out,
                                                                               int lane_count, float *work)
{
    SUFFIX(arc_compact_loop)(arc, fixed, f, out, lane_count, work);
#ifdef CLEAN_UPPER
    CLEAN_UPPER(); /* as sample_lanes */
#endif
}

/* kernels.h, sample_arc_compact: the lanes, then the moving T's. Out of
 * line, as sample_arc_lanes. */
TARGET static __attribute__((noinline, unused)) void SUFFIX(sample_arc_compact)(const float *arc, float f,
                                                                                const int32_t *out, int lane_count,
                                                                                float *work, const skv_compact *c)
{
    SUFFIX(arc_compact_loop)(arc, c->fixed, f, out, lane_count, work);
    /* No CLEAN_UPPER at the end: GCC puts its vzeroupper before the
     * patch's 128-bit code but after a lone last lane's call (then the
     * loop's), and a second one cost every frame an instruction
     * (test_kernels_leave_upper_clean). */
    ARC_PATCH(arc + c->t_at, f, c, work);
}

/* kernels.h, sample_compact's lanes from `from` up to lane_count, a
 * vector at a time (padding lanes up to the vector repeat the last
 * channel: the same local written again); where a vector would read past
 * the keys' stride (16 lanes on a stride of 8), NARROW_COMPACT takes
 * the rest. Components are 32-byte aligned (stride a multiple of 8):
 * unaligned loads, for the 64-byte vectors. */
TARGET static __attribute__((noinline, unused)) void SUFFIX(compact_lanes)(const float *a, const float *b, float f,
                                                                           const int32_t *out, int from,
                                                                           int lane_count, float *work,
                                                                           const skv_compact *c)
{
    enum { WIDTH = (int)(sizeof(VEC) / sizeof(float)) };
    VEC fv = SET1(f);
    size_t stride = (size_t)c->stride;
    for (int l = from; l < lane_count; l += WIDTH) {
#ifdef NARROW_COMPACT
        if ((size_t)l + WIDTH > stride) {
            NARROW_COMPACT(a, b, f, out, l, lane_count, work, c);
            return;
        }
#endif
        VEC ta[3], sa[3], ra[4], rb[4];
        for (size_t k = 0; k < 3; k++)
            ta[k] = LOADU(c->fixed + k * stride + l), sa[k] = LOADU(c->fixed + (3 + k) * stride + l);
        for (size_t k = 0; k < 4; k++) ra[k] = LOADU(a + k * stride + l), rb[k] = LOADU(b + k * stride + l);
        SUFFIX(sample_trs)(ta, ta, ra, rb, sa, sa, fv, out + l, work, 3);
    }
}

/* kernels.h, sample_compact: the lanes, then the moving T's. */
TARGET static __attribute__((unused)) void SUFFIX(sample_compact)(const float *a, const float *b, float f,
                                                                  const int32_t *out, int lane_count, float *work,
                                                                  const skv_compact *c)
{
    SUFFIX(compact_lanes)(a, b, f, out, 0, lane_count, work, c);
    kernels_compact_patch(a, b, f, c, work);
#ifdef CLEAN_UPPER
    CLEAN_UPPER(); /* as sample_lanes */
#endif
}

/* The kernel's entry: with SINGLE(a, b, f, out, work) defined, 1-4 lanes
 * (most small files' one group) go straight to a 4-lane vector, a tail
 * call before any loop or frame of the wider sampler. */
TARGET static void SUFFIX(sample)(const float *a, const float *b, float f, const int32_t *out, int lane_count, float *work)
{
#ifdef SINGLE
    if (lane_count <= 4) {
        SINGLE(a, b, f, out, work);
        return;
    }
#endif
    SUFFIX(sample_lanes)(a, b, f, out, lane_count, work);
}

#undef VEC
#undef SUFFIX
#undef TARGET
#undef CLEAN_UPPER
#undef LOAD
#undef LOADU
#undef NARROW_COMPACT
#undef SET1
#undef ZERO
#undef ADD
#undef SUB
#undef MUL
#undef FMA
#undef FNMA
#undef MIN
#undef MAX
#undef SQRT
#undef DIV
#undef AND
#undef ANDNOT
#undef OR
#undef LT
#undef GT
#undef ALL
#undef STORE_LOCALS
#undef STORE
#undef SOLO_TERMS
#undef GATHER4
#undef GATHER8
#undef GATHER8_REST
#undef NARROW
#undef NARROW_LANES
#undef NARROW_ARC
#undef SINGLE_ARC
#undef ONE_ARC
#undef ONE_ARC_COMPACT
#undef NARROW_ARC_COMPACT
#undef ARC_PATCH
#undef SINGLE
