/* fbx_scan.h - what Assimp's FBX reader drops, read from the file beside
 * it (fbx_scan.c). No Assimp type here. */
#ifndef SKV_FBX_SCAN_H
#define SKV_FBX_SCAN_H

#include <stddef.h>

/* A blend-shape channel's name and the percent its shape rests at. */
typedef struct fbx_percent {
    char name[128];
    double percent;
} fbx_percent;

/* Each BlendShapeChannel's DeformPercent in a binary or ASCII FBX, into
 * `out` (at most `capacity`). Returns how many the file holds (possibly
 * more than `capacity`), or -1 for a binary file whose records do not
 * hold together. */
int fbx_deform_percents(const unsigned char *bytes, size_t size, fbx_percent *out, int capacity);

#endif
