/* mips.h - a texture's mipmap levels, made on the CPU.
 *
 * Core code: neither GL nor Assimp. The renderer uploads these levels
 * instead of asking the driver for glGenerateMipmap: a software
 * rasteriser (Mesa's llvmpipe, where every headless run without a GPU
 * draws) compiles blit shaders for it on every run, most of a small
 * screenshot's time, and every driver filters its own way; these levels
 * are the same bytes on every machine.
 *
 * Each level is the previous one reduced by a box filter (the filter the
 * GL specification recommends): level l is max(1, floor(w / 2)) by
 * max(1, floor(h / 2)) of level l - 1; along an even side each texel is
 * the mean of two, along an odd side (past 1) of three, weighted by how
 * much of each the texel's footprint covers. Colour maps (srgb) are
 * averaged in linear light, as GL filters an sRGB texture, and written
 * back to sRGB rounded to nearest; alpha and data maps are averaged as
 * they are. */
#ifndef SKV_MIPS_H
#define SKV_MIPS_H

#include <stddef.h>

#include "error.h"

/* 16384 texels a side (the importer's limit) has 14 levels below it. */
#define SKV_MIPS_MAX 31

typedef struct skv_mips {
    int count;                    /* levels below the base: 0 for a 1 x 1 image */
    int width[SKV_MIPS_MAX];      /* level l + 1's size, l < count */
    int height[SKV_MIPS_MAX];
    size_t offset[SKV_MIPS_MAX];  /* level l + 1's first byte in texels */
    unsigned char *texels;        /* RGBA, 4 bytes a texel, rows top first, every level one after another */
} skv_mips;

/* Fills `mips` with every level below the base image `rgba` (width x
 * height RGBA, 4 bytes a texel, both sides >= 1). SKV_ERR_MEMORY when
 * memory runs out (mips is then empty), SKV_ERR_ARGUMENT for a size
 * under 1. */
skv_result mips_create(skv_mips *mips, const unsigned char *rgba, int width, int height, int srgb);
void mips_destroy(skv_mips *mips);

#endif
