/* imagecmp.c - render vs reference (imagecmp.h). */
#include "imagecmp.h"

#include <stdlib.h>
#include <string.h>

static int channel_difference(const unsigned char *a, const unsigned char *b)
{
    int worst = 0;
    for (int c = 0; c < 3; c++) {
        int d = abs(a[c] - b[c]);
        if (d > worst) worst = d;
    }
    return worst;
}

skv_image_diff imagecmp_measure(const unsigned char *a, const unsigned char *b, int w, int h, int tolerance)
{
    skv_image_diff diff = {0};
    long pixels = (long)w * h;
    for (long i = 0; i < pixels; i++) {
        int d = channel_difference(&a[i * 4], &b[i * 4]);
        if (d > diff.worst) diff.worst = d;
        diff.over += d > tolerance;
    }
    diff.fraction = pixels > 0 ? (double)diff.over / (double)pixels : 0.0;
    return diff;
}

unsigned char *imagecmp_side_by_side(const unsigned char *a, const unsigned char *b, int w, int h, int tolerance)
{
    unsigned char *out = malloc((size_t)w * 3 * (size_t)h * 4);
    if (!out) return NULL;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *pa = &a[((size_t)y * w + x) * 4], *pb = &b[((size_t)y * w + x) * 4];
            unsigned char *row = &out[(size_t)y * w * 3 * 4];
            memcpy(&row[(size_t)x * 4], pa, 4);
            memcpy(&row[(size_t)(w + x) * 4], pb, 4);
            unsigned char *d = &row[(size_t)(2 * w + x) * 4];
            if (channel_difference(pa, pb) > tolerance) {
                d[0] = 255, d[1] = 0, d[2] = 0;
            } else {
                d[0] = pb[0] / 4, d[1] = pb[1] / 4, d[2] = pb[2] / 4;
            }
            d[3] = 255;
        }
    return out;
}
