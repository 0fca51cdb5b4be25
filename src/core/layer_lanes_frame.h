/* layer_lanes_frame.h - a layered frame's arithmetic (layer_lanes.c),
 * written once for any instruction set: layer_lanes.c includes it once
 * per set with these defined:
 *   LL(name)      the name with the set's suffix
 *   LL_TARGET     the functions' target attribute (empty: the file's own)
 *   LL_SQRT(x)    square roots of a vector lv
 *   LL_AVX        (defined or not) whether the set has AVX's 256-bit shuffles
 * and undefines them after. The vectors are LANES (8) floats: GCC's
 * vector extensions, two SSE registers each on the portable build, one
 * AVX register on the AVX2 build. No include guard: meant to be included
 * more than once. */

#define LL_INLINE static inline __attribute__((always_inline)) LL_TARGET
/* The set's own copies of every function below. */
#define splat LL(splat)
#define load LL(load)
#define store LL(store)
#define select_lv LL(select_lv)
#define quat_mul_lv LL(quat_mul_lv)
#define arc_weight LL(arc_weight)
#define acos01 LL(acos01)
#define unit_lv LL(unit_lv)
#define slerp_weights LL(slerp_weights)
#define group_sample LL(group_sample)
#define source_sample LL(source_sample)
#define mix_layer LL(mix_layer)
#define form_locals LL(form_locals)
#define transpose4 LL(transpose4)
#define half LL(half)
#define columns8 LL(columns8)
#define locals LL(locals)

LL_INLINE lv splat(float x)
{
    return (lv){x, x, x, x, x, x, x, x};
}

LL_INLINE lv load(const float *p)
{
    lv v;
    memcpy(&v, p, sizeof v);
    return v;
}

LL_INLINE void store(float *p, lv v)
{
    memcpy(p, &v, sizeof v);
}

LL_INLINE lv select_lv(li m, lv a, lv b)
{
    return (lv)(((li)a & m) | ((li)b & ~m));
}

/* a * b (layers.h, layer_quat_mul), lane by lane. */
LL_INLINE void quat_mul_lv(const lv a[4], const lv b[4], lv out[4])
{
    lv r0 = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    lv r1 = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    lv r2 = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    lv r3 = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = r0, out[1] = r1, out[2] = r2, out[3] = r3;
}

/* k sin(k theta) / (k theta) for k theta in [0, pi/2] (Taylor to x^10:
 * the next term is under 4e-8 there): slerp's weights without their
 * common 1 / sin theta, which never vanish (theta 0 gives lerp's). */
LL_INLINE lv arc_weight(lv k, lv theta)
{
    lv x = k * theta, z = x * x;
    lv p = ((((splat(-1.0f / 39916800.0f) * z + splat(1.0f / 362880.0f)) * z + splat(-1.0f / 5040.0f)) * z +
             splat(1.0f / 120.0f)) * z + splat(-1.0f / 6.0f)) * z + splat(1.0f);
    return k * p;
}

/* --- vectors ---------------------------------------------------------- */

/* acos d for d in [0, 1]: 2 asin sqrt((1 - d) / 2) above 1/2, pi/2 -
 * asin d below; asin x = x + x z P(z), z = x^2, |x| <= 1/2 (Cephes'
 * asinf coefficients, relative error ~2.5e-7). Horner's order: no power
 * of a small z falls under float's normal range. */
LL_INLINE lv acos01(lv d)
{
    li high = d > splat(0.5f);
    lv x = select_lv(high, LL_SQRT(splat(0.5f) * (splat(1.0f) - d)), d);
    lv z = x * x;
    lv p = (((splat(4.2163199048e-2f) * z + splat(2.4181311049e-2f)) * z + splat(4.5470025998e-2f)) * z +
            splat(7.4953002686e-2f)) * z + splat(1.6666752422e-1f);
    lv asin_x = x + x * z * p;
    return select_lv(high, asin_x + asin_x, splat(1.57079632679f) - asin_x);
}

/* r / |r| where |r|^2 = len2 is positive and finite; the identity where it
 * is not (keys_slerp's and keys_unit_quat's rule). */
LL_INLINE void unit_lv(lv r[4], lv len2)
{
    li ok = (len2 > splat(0.0f)) & (len2 < splat(INFINITY));
    lv inv = splat(1.0f) / LL_SQRT(select_lv(ok, len2, splat(1.0f)));
    for (int c = 0; c < 3; c++) r[c] = select_lv(ok, r[c] * inv, splat(0.0f));
    r[3] = select_lv(ok, r[3] * inv, splat(1.0f));
}

/* Slerp's two weights from a to b at factor k = 1 - f, f, with d = a . b:
 * the shorter arc (b's weight negated where d < 0), unnormalised. */
LL_INLINE void slerp_weights(lv d, lv f, lv *wa, lv *wb)
{
    li flip = d < splat(0.0f);
    lv ad = select_lv(flip, -d, d);
    ad = select_lv(ad > splat(1.0f), splat(1.0f), ad);
    lv theta = acos01(ad);
    *wa = arc_weight(splat(1.0f) - f, theta);
    lv b = arc_weight(f, theta);
    *wb = select_lv(flip, -b, b);
}

/* --- the frame -------------------------------------------------------- */

/* Group g's wanted blocks at clip time t into `values` (per node). */
LL_TARGET static void group_sample(const lane_group *g, int *cursor, const int *wanted, int wanted_count, double t,
                         float *values, int stride)
{
    int i = 0;
    float f = 0.0f;
    if (!(t > g->times[0])) {
        i = 0;
    } else if (t >= g->times[g->key_count - 1]) {
        i = g->key_count - 1; /* the held pair */
    } else {
        i = keys_before_from(g->times, sizeof(double), g->key_count, t, cursor);
        f = keys_factor(g->times[i], g->times[i + 1], t);
    }
    const float *pairs = g->pairs + (size_t)i * (size_t)g->block_count * P_COUNT * LANES;
    lv fv = splat(f), fh = splat(f - 0.5f);
    for (int k = 0; k < wanted_count; k++) {
        int b = wanted[k];
        const float *p = pairs + (size_t)b * P_COUNT * LANES;
#define PC(c) load(p + (size_t)(c) * LANES)
        lv out[V_COUNT];
        int ts = g->ts_moves[b]; /* else T and S are in the values already (source_make) */
        for (int c = 0; c < 3 && ts; c++) {
            out[V_T + c] = PC(P_T0 + c) + fv * PC(P_DT + c);
            out[V_S + c] = PC(P_S0 + c) + fv * PC(P_DS + c);
        }
        /* sin y and cos y by Taylor's polynomials: |y| <= pi / 4 (keys on
         * one hemisphere), where the next terms are under 3e-8. */
        lv y = fh * PC(P_THETA), z = y * y;
        lv sinc_y = (((splat(1.0f / 362880.0f) * z + splat(-1.0f / 5040.0f)) * z + splat(1.0f / 120.0f)) * z +
                     splat(-1.0f / 6.0f)) * z + splat(1.0f);
        lv cos_y = ((((splat(-1.0f / 3628800.0f) * z + splat(1.0f / 40320.0f)) * z + splat(-1.0f / 720.0f)) * z +
                     splat(1.0f / 24.0f)) * z + splat(-0.5f)) * z + splat(1.0f);
        if (!g->weighted) {
            lv sin_y = y * sinc_y;
            for (int c = 0; c < 4; c++) out[V_R + c] = cos_y * PC(P_R0 + c) + sin_y * PC(P_R1 + c);
        } else {
            /* keys_slerp's sum over sin(theta / 2) (prepare_pair), and its
             * normalisation (the keys near unit length, on one side: a
             * length). A square root and a division more than the arc, in
             * the chain to the store: kept to such groups (Fox's +2 layer
             * frame took 18% longer with every group so). */
            lv s = fh * sinc_y;
            for (int c = 0; c < 4; c++) out[V_R + c] = cos_y * PC(P_R0 + c) + s * PC(P_R1 + c);
            unit_lv(out + V_R, out[V_R] * out[V_R] + out[V_R + 1] * out[V_R + 1] + out[V_R + 2] * out[V_R + 2] +
                                   out[V_R + 3] * out[V_R + 3]);
        }
#undef PC
        float *dst = values + g->first_node[b];
        int first = ts ? 0 : V_R, last = ts ? V_COUNT : V_R + 4;
        if (g->full[b]) {
            for (int c = first; c < last; c++) store(dst + (size_t)c * (size_t)stride, out[c]);
        } else {
            li m;
            memcpy(&m, g->lane + (size_t)b * LANES, sizeof m);
            for (int c = first; c < last; c++) {
                float *q = dst + (size_t)c * (size_t)stride;
                store(q, select_lv(m, out[c], load(q)));
            }
        }
    }
}

LL_TARGET static void source_sample(lane_source *src, double t, int stride)
{
    if (!src->clip) return;
    const int *wanted = src->wanted;
    for (int g = 0; g < src->clip->group_count; g++) {
        if (src->wanted_count[g])
            group_sample(&src->clip->groups[g], &src->cursor[g], wanted, src->wanted_count[g], t, src->values, stride);
        wanted += src->clip->groups[g].block_count;
    }
    for (int k = 0; k < src->loose_count; k++) {
        lane_loose *lo = &src->loose[k];
        float tr[3], q[4], s[3];
        keys_channel_trs_from(lo->channel, t, lo->cursor, tr, q, s);
        if (src->clip->delta) value_delta(&src->clip->delta[lo->node], tr, q, s);
        put_value(src->values, stride, lo->node, tr, q, s);
    }
}

/* Layer `j`'s values mixed into `mixed` at weight w where its mask says
 * (layers.h's rules, lane by lane): T and S, then R (two passes: fewer
 * vectors live at once, none spilled). An additive layer's values are
 * already its differences from its reference (clip_lanes_prepare_delta). */
LL_TARGET static void mix_layer(const skv_layer_lanes *ll, int j, const int *vectors, float w)
{
    size_t st = (size_t)ll->stride;
    const float *lay = ll->sources[1 + j].values;
    const int32_t *mask = ll->mask + (size_t)j * st;
    float *cur = ll->mixed;
    lv wv = splat(w);
    int additive = ll->additive[j];
    for (const int *vs = vectors; *vs >= 0; vs++) {
        int v = *vs;
        li m;
        memcpy(&m, mask + v, sizeof m);
        for (int c = 0; c < 3; c++) {
            for (int e = V_T; e <= V_S; e += V_S - V_T) {
                float *q = cur + (size_t)(e + c) * st + (size_t)v;
                lv x = load(q), l = load(lay + (size_t)(e + c) * st + (size_t)v);
                store(q, select_lv(m, additive ? x + wv * l : x + wv * (l - x), x));
            }
        }
    }
    /* R a chunk of vectors at a time, stage by stage: each vector's
     * rotation is a long chain (products, an arccosine, two series, a
     * square root and a division), and a stage's vectors are independent
     * of each other, so the processor overlaps their chains. */
    enum { CHUNK = 8 };
    for (const int *vs = vectors; *vs >= 0;) {
        int v[CHUNK], n = 0;
        while (n < CHUNK && vs[n] >= 0) v[n] = vs[n], n++;
        vs += n;
        lv q[CHUNK][4], d[CHUNK], wa[CHUNK], wb[CHUNK];
        for (int k = 0; k < n; k++) {
            lv lr[4];
            for (int c = 0; c < 4; c++) lr[c] = q[k][c] = load(lay + (V_R + c) * st + v[k]);
            if (additive) {
                d[k] = q[k][3]; /* identity . delta */
            } else {
                lv r[4];
                for (int c = 0; c < 4; c++) r[c] = load(cur + (V_R + c) * st + v[k]);
                d[k] = r[0] * lr[0] + r[1] * lr[1] + r[2] * lr[2] + r[3] * lr[3];
            }
        }
        if (w == 1.0f) { /* the layer's value itself, on the shorter arc's side: no arc to measure */
            for (int k = 0; k < n; k++) {
                wa[k] = splat(0.0f);
                wb[k] = select_lv(d[k] < splat(0.0f), splat(-1.0f), splat(1.0f));
            }
        } else {
            for (int k = 0; k < n; k++) slerp_weights(d[k], wv, &wa[k], &wb[k]);
        }
        for (int k = 0; k < n; k++) {
            li m;
            memcpy(&m, mask + v[k], sizeof m);
            lv r[4], nr[4];
            for (int c = 0; c < 4; c++) r[c] = load(cur + (V_R + c) * st + v[k]);
            if (additive) {
                /* r * slerp(identity, delta, w) on the shorter arc,
                 * unnormalised: the product's one normalisation covers it. */
                lv part[4] = {wb[k] * q[k][0], wb[k] * q[k][1], wb[k] * q[k][2], wa[k] + wb[k] * q[k][3]};
                quat_mul_lv(r, part, nr);
            } else {
                for (int c = 0; c < 4; c++) nr[c] = wa[k] * r[c] + wb[k] * q[k][c];
            }
            unit_lv(nr, nr[0] * nr[0] + nr[1] * nr[1] + nr[2] * nr[2] + nr[3] * nr[3]);
            for (int c = 0; c < 4; c++) store(cur + (V_R + c) * st + v[k], select_lv(m, nr[c], r[c]));
        }
    }
}

#if defined(LL_AVX)
/* Node l's column from lanes l of a, b, c, d (its 4 rows) in 128-bit
 * half l / 4 of out[l % 4]: two 4 x 4 transposes side by side. */
LL_INLINE void columns8(lv a, lv b, lv c, lv d, __m256 out[4])
{
    __m256 ab_lo = _mm256_unpacklo_ps((__m256)a, (__m256)b), ab_hi = _mm256_unpackhi_ps((__m256)a, (__m256)b);
    __m256 cd_lo = _mm256_unpacklo_ps((__m256)c, (__m256)d), cd_hi = _mm256_unpackhi_ps((__m256)c, (__m256)d);
    out[0] = _mm256_shuffle_ps(ab_lo, cd_lo, 0x44), out[1] = _mm256_shuffle_ps(ab_lo, cd_lo, 0xee);
    out[2] = _mm256_shuffle_ps(ab_hi, cd_hi, 0x44), out[3] = _mm256_shuffle_ps(ab_hi, cd_hi, 0xee);
}
#else
/* Lanes a, b, c, d of four vectors as four columns: out[l] = (a[l],
 * b[l], c[l], d[l]) (a 4 x 4 transpose: unpacks, then moves of halves). */
LL_INLINE void transpose4(v4 a, v4 b, v4 c, v4 d, v4 out[4])
{
    v4 ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5), ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
    v4 cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5), cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
    out[0] = __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5);
    out[1] = __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7);
    out[2] = __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5);
    out[3] = __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7);
}

/* Half h (lanes 4h to 4h + 3) of a vector. */
LL_INLINE v4 half(lv x, int h)
{
    return h ? __builtin_shufflevector(x, x, 4, 5, 6, 7) : __builtin_shufflevector(x, x, 0, 1, 2, 3);
}
#endif

/* T * R * S of every node posed (R of unit length), into
 * local[node]: column k of a node's matrix is (e[3k], e[3k + 1], e[3k +
 * 2], 0), column 3 (T, 1), transposed in registers 4 nodes at a time
 * (stored lane by lane, a vector's 128 floats took most of the forming). */
LL_TARGET static void form_locals(const skv_layer_lanes *ll, mat4 *local)
{
    const float *cur = ll->mixed;
    size_t st = (size_t)ll->stride;
    for (const int *vectors = ll->formed; *vectors >= 0; vectors++) {
        int v = *vectors;
        lv x = load(cur + V_R * st + v), y = load(cur + (V_R + 1) * st + v);
        lv z = load(cur + (V_R + 2) * st + v), w = load(cur + (V_R + 3) * st + v);
        lv s0 = load(cur + V_S * st + v), s1 = load(cur + (V_S + 1) * st + v), s2 = load(cur + (V_S + 2) * st + v);
        lv xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
        lv one = splat(1.0f), two = splat(2.0f);
        lv e[12] = {(one - two * (yy + zz)) * s0, two * (xy + wz) * s0, two * (xz - wy) * s0,
                    two * (xy - wz) * s1, (one - two * (xx + zz)) * s1, two * (yz + wx) * s1,
                    two * (xz + wy) * s2, two * (yz - wx) * s2, (one - two * (xx + yy)) * s2,
                    load(cur + V_T * st + v), load(cur + (V_T + 1) * st + v), load(cur + (V_T + 2) * st + v)};
        lv zero = splat(0.0f);
#if defined(LL_AVX)
        __m256 col[4][4]; /* col[k][l % 4], half l / 4: column k of node v + l */
        for (int k = 0; k < 4; k++) columns8(e[3 * k], e[3 * k + 1], e[3 * k + 2], k < 3 ? zero : one, col[k]);
        for (int i = 0; i < 4; i++) { /* nodes v + i (low halves) and v + 4 + i (high) */
            __m256 pair[2][2] = {{_mm256_permute2f128_ps(col[0][i], col[1][i], 0x20),
                                  _mm256_permute2f128_ps(col[2][i], col[3][i], 0x20)},
                                 {_mm256_permute2f128_ps(col[0][i], col[1][i], 0x31),
                                  _mm256_permute2f128_ps(col[2][i], col[3][i], 0x31)}};
            for (int h = 0; h < 2; h++) {
                int node = v + 4 * h + i; /* form holds whole vectors: 0 past the last node */
                if (ll->form[node]) {
                    memcpy(local[node][0], &pair[h][0], sizeof pair[h][0]);
                    memcpy(local[node][2], &pair[h][1], sizeof pair[h][1]);
                }
            }
        }
#else
        for (int h = 0; h < 2; h++) {
            v4 col[4][4]; /* col[k][l]: column k of node v + 4h + l */
            for (int k = 0; k < 4; k++)
                transpose4(half(e[3 * k], h), half(e[3 * k + 1], h), half(e[3 * k + 2], h), half(k < 3 ? zero : one, h),
                           col[k]);
            for (int l = 0; l < 4; l++) {
                int node = v + 4 * h + l; /* form holds whole vectors: 0 past the last node */
                if (ll->form[node])
                    for (int k = 0; k < 4; k++) memcpy(local[node][k], &col[k][l], sizeof col[k][l]);
            }
        }
#endif
    }
}

LL_TARGET static void locals(skv_layer_lanes *ll, double base_ticks, const double *layer_ticks, const float *layer_weight,
                        mat4 *local)
{
    size_t st = (size_t)ll->stride;
    source_sample(&ll->sources[0], base_ticks, ll->stride);
    /* The base's values where the frame reads them (the vectors formed:
     * the layers mix only there), or whole (copy_whole). */
    const float *base = ll->sources[0].values;
    if (ll->copy_whole) {
        memcpy(ll->mixed, base, (size_t)V_COUNT * st * sizeof(float));
    } else {
        for (const int *v = ll->formed; *v >= 0; v++)
            for (size_t c = 0; c < V_COUNT; c++) {
                size_t at = c * st + (size_t)*v;
                store(ll->mixed + at, load(base + at));
            }
    }
    const int *mixes = ll->mixes;
    for (int j = 0; j < ll->layer_count; j++) {
        source_sample(&ll->sources[1 + j], layer_ticks[j], ll->stride);
        mix_layer(ll, j, mixes, layer_weight[j]);
        while (*mixes >= 0) mixes++;
        mixes++;
    }
    form_locals(ll, local);
}

#undef LL_INLINE
#undef splat
#undef load
#undef store
#undef select_lv
#undef quat_mul_lv
#undef arc_weight
#undef acos01
#undef unit_lv
#undef slerp_weights
#undef group_sample
#undef source_sample
#undef mix_layer
#undef form_locals
#undef transpose4
#undef half
#undef columns8
#undef locals
