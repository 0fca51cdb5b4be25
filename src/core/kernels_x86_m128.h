/* kernels_x86_m128.h - the 128-bit (SSE) operations kernels_x86_lanes.h
 * is written in, for the two 4-lane samplers (SSE2, and AVX2 + FMA for a
 * wider sampler's last lanes): kernels_x86.c defines SUFFIX, TARGET, FMA
 * and FNMA for each, includes this, then the lanes. No include guard: meant
 * to be included once per 4-lane sampler (the lanes header undefines all
 * of these after use). */
#define VEC __m128
#define LOAD(p) _mm_load_ps(p)
#define LOADU(p) _mm_loadu_ps(p)
#define SET1(x) _mm_set1_ps(x)
#define ZERO() _mm_setzero_ps()
#define ADD(a, b) _mm_add_ps(a, b)
#define SUB(a, b) _mm_sub_ps(a, b)
#define MUL(a, b) _mm_mul_ps(a, b)
#define MIN(a, b) _mm_min_ps(a, b)
#define MAX(a, b) _mm_max_ps(a, b)
#define SQRT(a) _mm_sqrt_ps(a)
#define DIV(a, b) _mm_div_ps(a, b)
#define AND(a, b) _mm_and_ps(a, b)
#define ANDNOT(m, x) _mm_andnot_ps(m, x)
#define OR(a, b) _mm_or_ps(a, b)
#define LT(a, b) _mm_cmplt_ps(a, b)
#define GT(a, b) _mm_cmpgt_ps(a, b)
#define ALL(m) (_mm_movemask_ps(m) == 0xf)
