/* test_mips.c - mips_create against a box filter written here from its
 * definition (in doubles: each destination texel's footprint in the
 * level above, the overlap of every source texel with it, sRGB decoded
 * and encoded by IEC 61966-2-1's formulas), on random images of every
 * kind of size, and on cases worked by hand. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mips.h"

static double srgb_to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double linear_to_srgb(double l)
{
    return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

/* The overlap of source texel i with destination texel x's footprint
 * [x S / D, (x + 1) S / D), as a share of the footprint. */
static double coverage(int i, int x, int source, int dest)
{
    double span = (double)source / dest, lo = x * span, hi = lo + span;
    double a = lo > i ? lo : i, b = hi < i + 1 ? hi : i + 1;
    return b > a ? (b - a) / span : 0.0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static unsigned char random_byte(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (unsigned char)(rng_state >> 32);
}

/* Checks level `dst` (dw x dh) made from `src` (sw x sh); a byte may
 * differ by 1 only where the exact value lies within 1e-3 of a rounding
 * tie (the code sums in floats). Returns the number of such near ties. */
static int check_level(const unsigned char *src, int sw, int sh, const unsigned char *dst, int dw, int dh, int srgb)
{
    int ties = 0, wrong = 0;
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++)
            for (int c = 0; c < 4; c++) {
                double sum = 0.0;
                /* Only the texels under the footprint can overlap it. */
                int j0 = (int)floor((double)y * sh / dh), j1 = (int)ceil((double)(y + 1) * sh / dh);
                int i0 = (int)floor((double)x * sw / dw), i1 = (int)ceil((double)(x + 1) * sw / dw);
                for (int j = j0; j < j1 && j < sh; j++) {
                    double wy = coverage(j, y, sh, dh);
                    if (wy == 0.0) continue;
                    for (int i = i0; i < i1 && i < sw; i++) {
                        double wx = coverage(i, x, sw, dw);
                        if (wx == 0.0) continue;
                        double v = src[((size_t)j * sw + i) * 4 + c];
                        sum += wx * wy * (srgb && c < 3 ? srgb_to_linear(v / 255.0) : v);
                    }
                }
                double exact = srgb && c < 3 ? 255.0 * linear_to_srgb(sum) : sum;
                int expected = (int)floor(exact + 0.5);
                int got = dst[((size_t)y * dw + x) * 4 + c];
                double tie = fabs(exact - floor(exact) - 0.5);
                if (got == expected) continue;
                if (tie < 1e-3 && abs(got - expected) == 1)
                    ties++;
                else if (wrong++ < 5)
                    fprintf(stderr, "  %dx%d -> %dx%d srgb %d texel (%d, %d) channel %d: %d, expected %d (%.6f)\n", sw, sh,
                            dw, dh, srgb, x, y, c, got, expected, exact);
            }
    CHECK(wrong == 0);
    return ties;
}

/* Every level of a random width x height image, each against the level
 * above it as mips_create made it. */
static void check_random(int width, int height, int srgb)
{
    unsigned char *image = malloc((size_t)width * height * 4);
    for (size_t i = 0; i < (size_t)width * height * 4; i++) image[i] = random_byte();
    skv_mips mips;
    CHECK(mips_create(&mips, image, width, height, srgb) == SKV_OK);
    const unsigned char *src = image;
    int sw = width, sh = height, ties = 0;
    size_t bytes = 0;
    for (int l = 0; l < mips.count; l++) {
        int dw = sw > 1 ? sw / 2 : 1, dh = sh > 1 ? sh / 2 : 1;
        CHECK(mips.width[l] == dw && mips.height[l] == dh && mips.offset[l] == bytes);
        const unsigned char *dst = mips.texels + mips.offset[l];
        ties += check_level(src, sw, sh, dst, dw, dh, srgb);
        bytes += (size_t)dw * dh * 4;
        src = dst, sw = dw, sh = dh;
    }
    CHECK(sw == 1 && sh == 1);
    /* Near ties are rare: the rounding is not off by one as a rule. */
    CHECK(ties <= 1 + (int)(bytes / 4000));
    mips_destroy(&mips);
    free(image);
}

static void check_by_hand(void)
{
    skv_mips mips;
    /* Linear: 0, 1, 2, 3 have the mean 1.5, which rounds up. */
    unsigned char ramp[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    CHECK(mips_create(&mips, ramp, 2, 2, 0) == SKV_OK);
    CHECK(mips.count == 1 && mips.width[0] == 1 && mips.height[0] == 1);
    CHECK(mips.texels[0] == 2 && mips.texels[3] == 2);
    mips_destroy(&mips);
    /* sRGB: black and white average to linear 0.5, sRGB 187.5 (188);
     * alpha is averaged as it is: (0 + 255) / 2 = 127.5 -> 128. */
    unsigned char checker[16] = {0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0};
    CHECK(mips_create(&mips, checker, 2, 2, 1) == SKV_OK);
    CHECK(mips.texels[0] == 188 && mips.texels[1] == 188 && mips.texels[2] == 188 && mips.texels[3] == 128);
    mips_destroy(&mips);
    CHECK(mips_create(&mips, checker, 2, 2, 0) == SKV_OK);
    CHECK(mips.texels[0] == 128 && mips.texels[3] == 128);
    mips_destroy(&mips);
    /* An odd side: 3 -> 1, each texel a third: (0 + 3 + 9) / 3 = 4. */
    unsigned char three[12] = {0, 0, 0, 0, 3, 3, 3, 3, 9, 9, 9, 9};
    CHECK(mips_create(&mips, three, 3, 1, 0) == SKV_OK);
    CHECK(mips.count == 1 && mips.width[0] == 1 && mips.texels[0] == 4);
    mips_destroy(&mips);
    /* 5 -> 2: weights 2/5, 2/5, 1/5 and 1/5, 2/5, 2/5 of 0, 10, 20, 30, 40. */
    unsigned char five[20];
    for (int i = 0; i < 5; i++) memset(&five[i * 4], 10 * i, 4);
    CHECK(mips_create(&mips, five, 5, 1, 0) == SKV_OK);
    CHECK(mips.count == 2 && mips.width[0] == 2 && mips.width[1] == 1);
    CHECK(mips.texels[0] == 8 && mips.texels[4] == 32); /* 0.4*0 + 0.4*10 + 0.2*20 = 8; 0.2*20 + 0.4*30 + 0.4*40 = 32 */
    mips_destroy(&mips);
    /* A plain colour stays that colour at every level, every byte value,
     * both ways (sRGB: decoded, averaged, encoded back to itself). */
    int kept = 1;
    unsigned char plain[6 * 5 * 4];
    for (int v = 0; v < 256; v++)
        for (int srgb = 0; srgb < 2; srgb++) {
            memset(plain, v, sizeof plain);
            if (mips_create(&mips, plain, 6, 5, srgb) != SKV_OK) {
                kept = 0;
                continue;
            }
            size_t end = mips.offset[mips.count - 1] + 4;
            for (size_t i = 0; i < end; i++) kept &= mips.texels[i] == v;
            mips_destroy(&mips);
        }
    CHECK(kept);
    /* A 1 x 1 image has no level below it; no size under 1. */
    CHECK(mips_create(&mips, ramp, 1, 1, 1) == SKV_OK && mips.count == 0 && mips.texels == NULL);
    CHECK(mips_create(&mips, ramp, 0, 4, 1) == SKV_ERR_ARGUMENT && mips.count == 0);
    CHECK(mips_create(&mips, ramp, 4, -1, 0) == SKV_ERR_ARGUMENT);
    /* Level sizes: 5 x 3 -> 2 x 1 -> 1 x 1; 1 x 8 -> 1 x 4 -> 1 x 2 -> 1 x 1. */
    unsigned char img[8 * 5 * 4] = {0};
    CHECK(mips_create(&mips, img, 5, 3, 0) == SKV_OK);
    CHECK(mips.count == 2 && mips.width[0] == 2 && mips.height[0] == 1 && mips.width[1] == 1 && mips.height[1] == 1);
    CHECK(mips.offset[0] == 0 && mips.offset[1] == 8);
    mips_destroy(&mips);
    CHECK(mips_create(&mips, img, 1, 8, 1) == SKV_OK);
    CHECK(mips.count == 3 && mips.height[0] == 4 && mips.height[1] == 2 && mips.height[2] == 1 && mips.width[2] == 1);
    mips_destroy(&mips);
}

int main(void)
{
    check_by_hand();
    /* Even and odd sides, thin ones, and sizes big enough for the levels
     * to be made in bands on several threads. */
    static const int sizes[][2] = {{2, 2}, {1, 8}, {8, 1}, {5, 3}, {3, 5}, {7, 7}, {6, 10}, {13, 2},
                                   {64, 64}, {33, 17}, {1024, 600}, {1203, 459}, {1024, 2}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int srgb = 0; srgb < 2; srgb++) check_random(sizes[i][0], sizes[i][1], srgb);
    return check_summary();
}
