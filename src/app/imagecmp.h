/* imagecmp.h - how close a render is to a reference image: the metric of
 * --ref, and of the test suite's goldens (tests/tools/skv_check.c).
 *
 * A pixel differs when one of its R, G, B channels differs by more than
 * `tolerance` (of 255); two images match when at most a fraction
 * `max_fraction` of their pixels differ. The defaults hold renders of one
 * pose by Mesa's llvmpipe and softpipe rasterisers (the worst seen: 0.003%
 * of pixels over 24, silhouette edges) and fail the smallest pose change
 * in the test suite (1.08% of pixels over 24); README "Comparing with a
 * reference" says how to choose others. */
#ifndef SKV_IMAGECMP_H
#define SKV_IMAGECMP_H

#define SKV_REF_TOLERANCE 24
#define SKV_REF_MAX_FRACTION 0.0025

typedef struct skv_image_diff {
    long over;       /* pixels with a channel over the tolerance */
    double fraction; /* over / pixels */
    int worst;       /* largest channel difference */
} skv_image_diff;

/* Compares two RGBA images of w x h. */
skv_image_diff imagecmp_measure(const unsigned char *a, const unsigned char *b, int w, int h, int tolerance);

/* a | b | difference, side by side (3w x h RGBA, malloc'd; NULL when
 * memory runs out): the difference panel is b dimmed, red where a pixel
 * is over the tolerance. */
unsigned char *imagecmp_side_by_side(const unsigned char *a, const unsigned char *b, int w, int h, int tolerance);

#endif
