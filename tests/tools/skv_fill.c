/* skv_fill.c - how much of the picture a model takes, for the framing
 * tests (tests/e2e/e2e_framing.sh).
 *
 *   skv_fill fill MIN IMG...       the box holding every pixel that is not
 *                                  background (the corner pixel) in any of
 *                                  the images (frames over a clip): its width
 *                                  over the picture's and its height over the
 *                                  picture's; holds when the larger is >= MIN
 *   skv_fill centre TOL IMG        that box's centre is within TOL (a fraction
 *                                  of the side) of the picture's centre
 * Prints what it measured; exit 0 when the check holds, 1 when not, 2 on a
 * bad command line or an unreadable image. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>

#define CHANNEL_TOLERANCE 8 /* per channel, out of 255: what skv_check calls a different pixel */

typedef struct box {
    int x0, y0, x1, y1; /* inclusive; x0 > x1 while empty */
    int width, height;  /* the pictures' size */
} box;

/* Grows `b` by the pixels of `path` that differ from its corner pixel. */
static int add_image(box *b, const char *path)
{
    int w, h, channels;
    unsigned char *p = stbi_load(path, &w, &h, &channels, 4);
    if (!p) {
        fprintf(stderr, "skv_fill: cannot read %s: %s\n", path, stbi_failure_reason());
        return -1;
    }
    if (b->width && (b->width != w || b->height != h)) {
        fprintf(stderr, "skv_fill: %s is %dx%d, not %dx%d like the others\n", path, w, h, b->width, b->height);
        stbi_image_free(p);
        return -1;
    }
    b->width = w, b->height = h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *q = &p[((size_t)y * w + x) * 4];
            int differs = 0;
            for (int c = 0; c < 3; c++) differs |= abs(q[c] - p[c]) > CHANNEL_TOLERANCE;
            if (!differs) continue;
            if (x < b->x0) b->x0 = x;
            if (x > b->x1) b->x1 = x;
            if (y < b->y0) b->y0 = y;
            if (y > b->y1) b->y1 = y;
        }
    stbi_image_free(p);
    return 0;
}

static int measure(box *b, int count, char **paths)
{
    *b = (box){.x0 = 1 << 30, .y0 = 1 << 30, .x1 = -1, .y1 = -1};
    for (int i = 0; i < count; i++)
        if (add_image(b, paths[i]) != 0) return -1;
    if (b->x1 < b->x0) {
        fprintf(stderr, "skv_fill: nothing but background in %d image(s)\n", count);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    box b;
    if (argc >= 4 && strcmp(argv[1], "fill") == 0) {
        double min = atof(argv[2]);
        if (measure(&b, argc - 3, argv + 3) != 0) return 2;
        double fw = (double)(b.x1 - b.x0 + 1) / b.width, fh = (double)(b.y1 - b.y0 + 1) / b.height;
        double most = fw > fh ? fw : fh;
        printf("fill: width %.3f height %.3f (larger %.3f, wanted >= %.2f) over %d image(s) %dx%d\n", fw, fh, most, min,
               argc - 3, b.width, b.height);
        return most >= min ? 0 : 1;
    }
    if (argc == 4 && strcmp(argv[1], "centre") == 0) {
        double tol = atof(argv[2]);
        if (measure(&b, 1, argv + 3) != 0) return 2;
        double cx = 0.5 * (b.x0 + b.x1 + 1) / b.width - 0.5, cy = 0.5 * (b.y0 + b.y1 + 1) / b.height - 0.5;
        printf("centre: off the picture's centre by %.3f of the width, %.3f of the height (tolerance %.3f)\n", cx, cy,
               tol);
        return fabs(cx) <= tol && fabs(cy) <= tol ? 0 : 1;
    }
    fprintf(stderr, "usage: skv_fill fill MIN IMG... | centre TOL IMG\n");
    return 2;
}
