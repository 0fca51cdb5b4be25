/* skv_check.c - golden-independent checks the end-to-end tests run on
 * skinview's outputs.
 *
 *   skv_check nonblank IMG.png             some pixels differ from the background
 *   skv_check differ A.png B.png [FRAC]    at least FRAC of pixels differ (0.002)
 *   skv_check same A.png B.png             pixel-identical
 *   skv_check bounds POSE.obj BIND.obj [F] pose bounds within F x bind bounds (3),
 *                                          no NaN/Inf
 *   skv_check probe IMG X Y R G B TOL      pixel (X, Y) within TOL of R G B in every channel
 *   skv_check through A B X Y EXPECTED TOL B's pixel minus A's at (X, Y) is EXPECTED +- TOL in
 *                                          every channel (A, B: one scene on two backgrounds)
 *   skv_check channels IMG X Y A B MARGIN  at (X, Y) channel A (0 r, 1 g, 2 b) exceeds channel B
 *                                          by more than MARGIN
 *   skv_check apart IMG X1 Y1 X2 Y2 MIN    the pixels at (X1, Y1) and (X2, Y2) differ by more
 *                                          than MIN in some channel
 *   skv_check intermediate IMG MIN MAX     MIN..MAX pixels are neither the background (the
 *                                          corner pixel) nor the centre pixel: edge blends
 *   skv_check silhouette A B MIN_FRAC      the pixels that are not background (the corner
 *                                          pixel) are the same in A and B, and at least
 *                                          MIN_FRAC of them differ in colour
 *   skv_check alpha IMG X Y MIN MAX        pixel (X, Y)'s alpha is in MIN..MAX (0..255)
 *   skv_check over RGBA OPAQUE R G B TOL    RGBA (straight alpha) laid over the colour R G B
 *                                          (0..255, on the stored values) is OPAQUE within TOL
 *                                          in every channel of every pixel; and RGBA has
 *                                          pixels of alpha 0 and pixels between 0 and 255
 *   skv_check alphas A B TOL MAX_FRAC       at most MAX_FRAC of pixels have alphas more than TOL
 *                                          apart in A and B (a decoded video frame and its PNG)
 *   skv_check golden ACTUAL EXPECTED DIFF.png TOLERANCE MAX_FRACTION
 *                                          at most MAX_FRACTION of pixels differ by more
 *                                          than TOLERANCE in a channel; when not, writes
 *                                          actual | expected | diff side by side to DIFF.png
 * Prints what it measured; exit 0 when the check holds, 1 when not. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include "imagecmp.h"

#define CHANNEL_TOLERANCE 8 /* per channel, out of 255 */

static unsigned char *load(const char *path, int *w, int *h)
{
    int channels;
    unsigned char *p = stbi_load(path, w, h, &channels, 4);
    if (!p) fprintf(stderr, "skv_check: cannot read %s: %s\n", path, stbi_failure_reason());
    return p;
}

static int pixel_differs(const unsigned char *a, const unsigned char *b)
{
    for (int c = 0; c < 3; c++)
        if (abs(a[c] - b[c]) > CHANNEL_TOLERANCE) return 1;
    return 0;
}

static int nonblank(const char *path)
{
    int w, h;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    long count = 0;
    for (long i = 0; i < (long)w * h; i++) count += pixel_differs(&p[i * 4], &p[0]);
    double frac = (double)count / ((double)w * h);
    printf("%s: %.2f%% of pixels are not background\n", path, 100.0 * frac);
    stbi_image_free(p);
    return frac >= 0.005 ? 0 : 1;
}

static int compare(const char *a_path, const char *b_path, double min_frac, int want_same)
{
    int aw, ah, bw, bh;
    unsigned char *a = load(a_path, &aw, &ah), *b = load(b_path, &bw, &bh);
    int result = 1;
    if (a && b && (aw != bw || ah != bh)) {
        fprintf(stderr, "skv_check: sizes differ: %dx%d vs %dx%d\n", aw, ah, bw, bh);
    } else if (a && b) {
        long count = 0, exact = 0;
        for (long i = 0; i < (long)aw * ah; i++) {
            count += pixel_differs(&a[i * 4], &b[i * 4]);
            exact += memcmp(&a[i * 4], &b[i * 4], 4) != 0;
        }
        double frac = (double)count / ((double)aw * ah);
        printf("%s vs %s: %.3f%% of pixels differ (%ld not bit-identical)\n", a_path, b_path, 100.0 * frac, exact);
        result = want_same ? (exact == 0 ? 0 : 1) : (frac >= min_frac ? 0 : 1);
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return result;
}

typedef struct box {
    double lo[3], hi[3];
    long vertices, bad;
} box;

static int obj_bounds(const char *path, box *b)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "skv_check: cannot read %s\n", path);
        return -1;
    }
    for (int a = 0; a < 3; a++) b->lo[a] = DBL_MAX, b->hi[a] = -DBL_MAX;
    b->vertices = b->bad = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        double v[3];
        if (line[0] != 'v' || line[1] != ' ') continue;
        if (sscanf(line + 2, "%lf %lf %lf", &v[0], &v[1], &v[2]) != 3 || !isfinite(v[0]) || !isfinite(v[1]) ||
            !isfinite(v[2])) {
            b->bad++;
            continue;
        }
        b->vertices++;
        for (int a = 0; a < 3; a++) {
            if (v[a] < b->lo[a]) b->lo[a] = v[a];
            if (v[a] > b->hi[a]) b->hi[a] = v[a];
        }
    }
    fclose(f);
    return 0;
}

static double diagonal(const box *b)
{
    double d2 = 0;
    for (int a = 0; a < 3; a++) d2 += (b->hi[a] - b->lo[a]) * (b->hi[a] - b->lo[a]);
    return sqrt(d2);
}

static int bounds(const char *pose_path, const char *bind_path, double factor)
{
    box pose, bind;
    if (obj_bounds(pose_path, &pose) || obj_bounds(bind_path, &bind)) return 1;
    double dp = diagonal(&pose), db = diagonal(&bind), shift2 = 0;
    for (int a = 0; a < 3; a++) {
        double d = 0.5 * (pose.lo[a] + pose.hi[a]) - 0.5 * (bind.lo[a] + bind.hi[a]);
        shift2 += d * d;
    }
    double ratio = db > 0 ? dp / db : 0, shift = db > 0 ? sqrt(shift2) / db : 0;
    printf("%s: %ld vertices, %ld NaN/Inf; bounds diagonal %.4g vs bind %.4g (ratio %.3f), centre moved %.3f diagonals\n",
           pose_path, pose.vertices, pose.bad + bind.bad, dp, db, ratio, shift);
    if (pose.bad || bind.bad || pose.vertices == 0) return 1;
    return ratio <= factor && ratio >= 1.0 / factor && shift <= factor ? 0 : 1;
}

/* actual | expected | diff, the diff being the expected image darkened
 * with every pixel over the tolerance in bright red. */
static void write_diff_image(const char *path, const unsigned char *a, const unsigned char *b, int w, int h,
                             int tolerance)
{
    unsigned char *out = imagecmp_side_by_side(a, b, w, h, tolerance);
    if (!out) return;
    stbi_write_png(path, w * 3, h, 4, out, w * 3 * 4);
    free(out);
}

static int golden(const char *actual, const char *expected, const char *diff_path, int tolerance, double max_frac)
{
    int aw, ah, ew, eh;
    unsigned char *a = load(actual, &aw, &ah), *e = load(expected, &ew, &eh);
    int result = 1;
    if (!a || !e) {
        if (!e) fprintf(stderr, "skv_check: no golden %s (tools/update-goldens.sh makes it)\n", expected);
    } else if (aw != ew || ah != eh) {
        fprintf(stderr, "skv_check: %s is %dx%d, golden %s is %dx%d\n", actual, aw, ah, expected, ew, eh);
    } else {
        skv_image_diff diff = imagecmp_measure(a, e, aw, ah, tolerance);
        result = diff.fraction <= max_frac ? 0 : 1;
        printf("%s: %.3f%% of pixels over tolerance %d (limit %.3f%%), largest channel difference %d: %s\n", actual,
               100.0 * diff.fraction, tolerance, 100.0 * max_frac, diff.worst, result ? "DIFFERENT" : "ok");
        if (result) {
            write_diff_image(diff_path, a, e, aw, ah, tolerance);
            printf("  actual:   %s\n  expected: %s\n  diff:     %s (actual | expected | red = over tolerance)\n",
                   actual, expected, diff_path);
        }
    }
    stbi_image_free(a);
    stbi_image_free(e);
    return result;
}

/* An animated GIF decodes (stb_image) to `expected` frames of w x h, and
 * consecutive frames are not all the same; the middle frame is written as
 * a PNG to `middle` when given (to look at). */
static int gif(const char *path, int expected, int w, int h, const char *middle)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("%s: cannot open\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)size);
    size_t got = bytes ? fread(bytes, 1, (size_t)size, f) : 0;
    fclose(f);
    int *delays = NULL, width = 0, height = 0, frames = 0, channels = 0;
    unsigned char *pixels = got == (size_t)size ? stbi_load_gif_from_memory(bytes, (int)size, &delays, &width,
                                                                            &height, &frames, &channels, 4)
                                                : NULL;
    free(bytes);
    if (!pixels) {
        printf("%s: does not decode as a GIF: %s\n", path, stbi_failure_reason());
        return 1;
    }
    size_t frame_bytes = (size_t)width * height * 4;
    int changes = 0;
    for (int k = 1; k < frames; k++) changes += memcmp(pixels + (k - 1) * frame_bytes, pixels + k * frame_bytes, frame_bytes) != 0;
    printf("%s: %d frames of %dx%d (want %d of %dx%d), delay %d ms, %d of %d steps change the image\n", path, frames,
           width, height, expected, w, h, delays ? delays[0] : 0, changes, frames - 1);
    int ok = frames == expected && width == w && height == h && (frames < 2 || changes >= (frames - 1) / 2);
    if (middle && frames > 0) stbi_write_png(middle, width, height, 4, pixels + (frames / 2) * frame_bytes, width * 4);
    stbi_image_free(pixels);
    free(delays);
    return ok ? 0 : 1;
}

/* At least `min_fraction` of the pixels within `tolerance` (per channel,
 * 0-255) of the colour r g b: the views draw in known colours. */
static int color(const char *path, int r, int g, int b, int tolerance, double min_fraction)
{
    int w, h, n;
    unsigned char *p = stbi_load(path, &w, &h, &n, 4);
    if (!p) {
        printf("%s: cannot read\n", path);
        return 1;
    }
    long hits = 0;
    for (long i = 0; i < (long)w * h; i++)
        hits += abs(p[i * 4] - r) <= tolerance && abs(p[i * 4 + 1] - g) <= tolerance && abs(p[i * 4 + 2] - b) <= tolerance;
    stbi_image_free(p);
    double fraction = (double)hits / ((double)w * h);
    printf("%s: %.3f%% of pixels are %d,%d,%d (+-%d), want at least %.3f%%\n", path, 100 * fraction, r, g, b,
           tolerance, 100 * min_fraction);
    return fraction >= min_fraction ? 0 : 1;
}

static int probe(const char *path, int x, int y, const int *rgb, int tolerance)
{
    int w, h;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    int ok = x >= 0 && y >= 0 && x < w && y < h;
    if (ok) {
        const unsigned char *px = &p[((size_t)y * w + x) * 4];
        for (int c = 0; c < 3; c++) ok &= abs(px[c] - rgb[c]) <= tolerance;
        printf("%s (%d, %d): %d %d %d, want %d %d %d +-%d\n", path, x, y, px[0], px[1], px[2], rgb[0], rgb[1], rgb[2],
               tolerance);
    }
    stbi_image_free(p);
    return ok ? 0 : 1;
}

/* The box of the pixels that differ from the top-left one (the
 * background) by more than `tolerance` in some channel: prints "X0 Y0 X1
 * Y1" (inclusive), for tests that place probes on what was drawn rather
 * than where today's framing puts it. 1 where nothing differs. */
static int extent(const char *path, int tolerance)
{
    int w, h;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *px = &p[((size_t)y * w + x) * 4];
            int differs = 0;
            for (int c = 0; c < 3; c++) differs |= abs(px[c] - p[c]) > tolerance;
            if (!differs) continue;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    stbi_image_free(p);
    if (x1 < 0) {
        fprintf(stderr, "%s: nothing but background\n", path);
        return 1;
    }
    printf("%d %d %d %d\n", x0, y0, x1, y1);
    return 0;
}

static int through(const char *a_path, const char *b_path, int x, int y, double expected, double tolerance)
{
    int aw, ah, bw, bh, ok = 0;
    unsigned char *a = load(a_path, &aw, &ah), *b = load(b_path, &bw, &bh);
    if (a && b && aw == bw && ah == bh && x >= 0 && y >= 0 && x < aw && y < ah) {
        size_t at = ((size_t)y * aw + x) * 4;
        ok = 1;
        printf("(%d, %d): %s minus %s:", x, y, b_path, a_path);
        for (int c = 0; c < 3; c++) {
            int d = b[at + c] - a[at + c];
            ok &= fabs(d - expected) <= tolerance;
            printf(" %d", d);
        }
        printf(", want %g +-%g\n", expected, tolerance);
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return ok ? 0 : 1;
}

static int channels(const char *path, int x, int y, int a, int b, int margin)
{
    int w, h, ok = 0;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    if (x >= 0 && y >= 0 && x < w && y < h && a >= 0 && a < 3 && b >= 0 && b < 3) {
        const unsigned char *px = &p[((size_t)y * w + x) * 4];
        ok = px[a] > px[b] + margin;
        printf("%s (%d, %d): %d %d %d; channel %d over channel %d by more than %d: %s\n", path, x, y, px[0], px[1],
               px[2], a, b, margin, ok ? "yes" : "no");
    }
    stbi_image_free(p);
    return ok ? 0 : 1;
}

static int apart(const char *path, int x1, int y1, int x2, int y2, int min)
{
    int w, h, ok = 0;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    if (x1 >= 0 && y1 >= 0 && x1 < w && y1 < h && x2 >= 0 && y2 >= 0 && x2 < w && y2 < h) {
        const unsigned char *a = &p[((size_t)y1 * w + x1) * 4], *b = &p[((size_t)y2 * w + x2) * 4];
        int largest = 0;
        for (int c = 0; c < 3; c++) largest = abs(a[c] - b[c]) > largest ? abs(a[c] - b[c]) : largest;
        ok = largest > min;
        printf("%s: (%d, %d) %d %d %d vs (%d, %d) %d %d %d: %d apart, want more than %d\n", path, x1, y1, a[0], a[1],
               a[2], x2, y2, b[0], b[1], b[2], largest, min);
    }
    stbi_image_free(p);
    return ok ? 0 : 1;
}

static int intermediate(const char *path, long min_count, long max_count)
{
    int w, h;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    const unsigned char *background = p, *centre = &p[((size_t)(h / 2) * w + w / 2) * 4];
    long count = 0;
    for (long i = 0; i < (long)w * h; i++) count += pixel_differs(&p[i * 4], background) && pixel_differs(&p[i * 4], centre);
    printf("%s: %ld pixels between the background and the centre's colour, want %ld..%ld\n", path, count, min_count,
           max_count);
    stbi_image_free(p);
    return count >= min_count && count <= max_count ? 0 : 1;
}

static int silhouette(const char *a_path, const char *b_path, double min_frac)
{
    int aw, ah, bw, bh, ok = 0;
    unsigned char *a = load(a_path, &aw, &ah), *b = load(b_path, &bw, &bh);
    if (a && b && aw == bw && ah == bh) {
        long outline = 0, inside = 0, shaded = 0;
        for (long i = 0; i < (long)aw * ah; i++) {
            int in_a = pixel_differs(&a[i * 4], a), in_b = pixel_differs(&b[i * 4], b);
            outline += in_a != in_b;
            inside += in_a && in_b;
            shaded += in_a && in_b && pixel_differs(&a[i * 4], &b[i * 4]);
        }
        double frac = inside > 0 ? (double)shaded / (double)inside : 0.0;
        printf("%s vs %s: %ld pixels in one silhouette only; %ld of %ld inside (%.1f%%) shaded differently, want "
               "at least %.1f%%\n", a_path, b_path, outline, shaded, inside, 100.0 * frac, 100.0 * min_frac);
        ok = outline == 0 && inside > 0 && frac >= min_frac;
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return ok ? 0 : 1;
}

static int alpha_at(const char *path, int x, int y, int lo, int hi)
{
    int w, h;
    unsigned char *p = load(path, &w, &h);
    if (!p) return 1;
    int ok = x >= 0 && y >= 0 && x < w && y < h;
    int a = ok ? p[((long)y * w + x) * 4 + 3] : -1;
    printf("%s: alpha at (%d, %d) is %d (want %d..%d)\n", path, x, y, a, lo, hi);
    stbi_image_free(p);
    return ok && a >= lo && a <= hi ? 0 : 1;
}

/* A straight-alpha image composited over a flat colour the way a viewer
 * does (c a + bg (1 - a), per stored value) gives the opaque render on
 * that colour: a premultiplied image (colour darkened at the edges) or
 * an alpha that disagrees with the coverage fails. */
static int over(const char *rgba_path, const char *opaque_path, const int bg[3], int tolerance)
{
    int w, h, ow, oh;
    unsigned char *a = load(rgba_path, &w, &h), *o = load(opaque_path, &ow, &oh);
    int result = 1;
    if (a && o && (w != ow || h != oh)) {
        fprintf(stderr, "skv_check: sizes differ: %dx%d vs %dx%d\n", w, h, ow, oh);
    } else if (a && o) {
        long clear = 0, solid = 0, partial = 0, over_tolerance = 0;
        int worst = 0;
        for (long i = 0; i < (long)w * h; i++) {
            int alpha = a[i * 4 + 3];
            clear += alpha == 0, solid += alpha == 255, partial += alpha > 0 && alpha < 255;
            int bad = 0;
            for (int c = 0; c < 3; c++) {
                double mixed = (a[i * 4 + c] * alpha + bg[c] * (255.0 - alpha)) / 255.0;
                int d = (int)(fabs(mixed - o[i * 4 + c]) + 0.5);
                if (d > worst) worst = d;
                bad |= d > tolerance;
            }
            over_tolerance += bad;
        }
        printf("%s over %d,%d,%d vs %s: %ld pixels off by more than %d (worst %d); alpha 0: %ld, 255: %ld, between: %ld\n",
               rgba_path, bg[0], bg[1], bg[2], opaque_path, over_tolerance, tolerance, worst, clear, solid, partial);
        result = over_tolerance == 0 && clear > 0 && partial > 0 ? 0 : 1;
    }
    stbi_image_free(a);
    stbi_image_free(o);
    return result;
}

static int alphas(const char *a_path, const char *b_path, int tolerance, double max_frac)
{
    int aw, ah, bw, bh;
    unsigned char *a = load(a_path, &aw, &ah), *b = load(b_path, &bw, &bh);
    int result = 1;
    if (a && b && (aw != bw || ah != bh)) {
        fprintf(stderr, "skv_check: sizes differ: %dx%d vs %dx%d\n", aw, ah, bw, bh);
    } else if (a && b) {
        long apart = 0, clear = 0;
        for (long i = 0; i < (long)aw * ah; i++) {
            apart += abs(a[i * 4 + 3] - b[i * 4 + 3]) > tolerance;
            clear += b[i * 4 + 3] == 0;
        }
        double frac = (double)apart / ((double)aw * ah);
        printf("%s vs %s: %.3f%% of alphas more than %d apart (limit %.3f%%); %ld of %s's pixels alpha 0\n", a_path,
               b_path, 100.0 * frac, tolerance, 100.0 * max_frac, clear, b_path);
        result = frac <= max_frac && clear > 0 ? 0 : 1;
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return result;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], "alphas") == 0) return alphas(argv[2], argv[3], atoi(argv[4]), atof(argv[5]));
    if (argc >= 7 && strcmp(argv[1], "alpha") == 0)
        return alpha_at(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    if (argc >= 8 && strcmp(argv[1], "over") == 0)
        return over(argv[2], argv[3], (const int[3]){atoi(argv[4]), atoi(argv[5]), atoi(argv[6])}, atoi(argv[7]));
    if (argc >= 9 && strcmp(argv[1], "probe") == 0) {
        int rgb[3] = {atoi(argv[5]), atoi(argv[6]), atoi(argv[7])};
        return probe(argv[2], atoi(argv[3]), atoi(argv[4]), rgb, atoi(argv[8]));
    }
    if (argc >= 4 && strcmp(argv[1], "extent") == 0) return extent(argv[2], atoi(argv[3]));
    if (argc >= 8 && strcmp(argv[1], "through") == 0)
        return through(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), atof(argv[6]), atof(argv[7]));
    if (argc >= 8 && strcmp(argv[1], "channels") == 0)
        return channels(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    if (argc >= 8 && strcmp(argv[1], "apart") == 0)
        return apart(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    if (argc >= 5 && strcmp(argv[1], "intermediate") == 0) return intermediate(argv[2], atol(argv[3]), atol(argv[4]));
    if (argc >= 5 && strcmp(argv[1], "silhouette") == 0) return silhouette(argv[2], argv[3], atof(argv[4]));
    if (argc >= 6 && strcmp(argv[1], "gif") == 0)
        return gif(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argc > 6 ? argv[6] : NULL);
    if (argc >= 8 && strcmp(argv[1], "color") == 0)
        return color(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atof(argv[7]));
    if (argc >= 3 && strcmp(argv[1], "nonblank") == 0) return nonblank(argv[2]);
    if (argc >= 4 && strcmp(argv[1], "differ") == 0) return compare(argv[2], argv[3], argc > 4 ? atof(argv[4]) : 0.002, 0);
    if (argc >= 4 && strcmp(argv[1], "same") == 0) return compare(argv[2], argv[3], 0, 1);
    if (argc >= 4 && strcmp(argv[1], "bounds") == 0) return bounds(argv[2], argv[3], argc > 4 ? atof(argv[4]) : 3.0);
    if (argc >= 7 && strcmp(argv[1], "golden") == 0)
        return golden(argv[2], argv[3], argv[4], atoi(argv[5]), atof(argv[6]));
    fprintf(stderr, "usage: skv_check nonblank IMG | differ A B [FRAC] | same A B | bounds POSE BIND [F]\n"
                    "       | golden ACTUAL EXPECTED DIFF TOLERANCE MAX_FRACTION\n"
                    "       | gif FILE FRAMES W H [MIDDLE.png] | color IMG R G B TOLERANCE MIN_FRACTION\n"
                    "       | probe IMG X Y R G B TOL | extent IMG TOL | through A B X Y EXPECTED TOL\n"
                    "       | intermediate IMG MIN MAX\n"
                    "       | silhouette A B MIN_FRAC | channels IMG X Y A B MARGIN | apart IMG X1 Y1 X2 Y2 MIN\n");
    return 2;
}
