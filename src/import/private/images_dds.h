/* images_dds.h - DDS textures for images.c: the top level of a 2-D DDS
 * (legacy or DX10 header) in BC1..BC5, BC7 or plain channels, into RGBA8,
 * the top row first. Not for direct use: image_probe / image_decode
 * dispatch here. */
#ifndef SKV_IMAGES_DDS_H
#define SKV_IMAGES_DDS_H

#include <stddef.h>
#include <stdint.h>

/* The header's size, checked against the bytes: 0, or -1 with why. */
int dds_probe(const unsigned char *bytes, size_t size, int *width, int *height, char *why, size_t why_size);

/* Malloc'd texels, or NULL with why. */
unsigned char *dds_decode(const unsigned char *bytes, size_t size, int *width, int *height, char *why,
                          size_t why_size);

#endif
