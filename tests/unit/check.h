/* check.h - the unit tests' few macros. Each test program runs its cases,
 * prints one line per failed check and ends with "N passed, N failed";
 * its exit status is non-zero when anything failed. */
#ifndef SKV_CHECK_H
#define SKV_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (cond) check_passed++;                                                \
        else {                                                                   \
            check_failed++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                    \
    do {                                                                         \
        double check_a_ = (a), check_b_ = (b);                                   \
        if (fabs(check_a_ - check_b_) <= (tol)) check_passed++;                  \
        else {                                                                   \
            check_failed++;                                                      \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %s = %.9g (tolerance %g)\n", \
                    __FILE__, __LINE__, #a, check_a_, #b, check_b_, (double)(tol)); \
        }                                                                        \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
