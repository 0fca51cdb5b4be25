/* images.h - texture image files decoded into RGBA8 texels, for the
 * importer only: PNG through libspng, JPEG through libjpeg-turbo (both
 * Debian's, maintained and fuzzed for hostile input), and the two
 * formats model packs still ship, TGA, BMP and DDS (block-compressed, as
 * games ship textures: images_dds.c), by decoders of our own that check
 * every size against the bytes (tests/tools/fuzz_images.c fuzzes each).
 * Anything else (GIF, PSD, PNM, HDR ...) is refused by name.
 *
 * The bytes are untrusted: these run in the guarded import's sandboxed
 * child (guard.c), never in the process that draws, but for --trust. No
 * Assimp type here, no global state: decodes may run on several threads
 * at once. */
#ifndef SKV_IMAGES_H
#define SKV_IMAGES_H

#include <stddef.h>
#include <stdint.h>

typedef enum image_format {
    IMAGE_UNKNOWN,
    IMAGE_PNG,
    IMAGE_JPEG,
    IMAGE_TGA,
    IMAGE_BMP,
    IMAGE_DDS,
} image_format;

/* What a file's header says, before any decoding. */
typedef struct image_info {
    image_format format;
    int width, height;
    /* Memory a decode takes besides its texels (a progressive JPEG keeps
     * every coefficient of the image): with width * height * 4, what a
     * budget must hold for it. */
    uint64_t working_bytes;
} image_info;

/* Bounds a decode must stay within. Zero fields: no bound. */
typedef struct image_limits {
    uint64_t max_bytes; /* texels plus working memory */
    /* CLOCK_MONOTONIC seconds past which a decode gives up (checked
     * between a JPEG's scans and row groups). */
    double deadline;
} image_limits;

/* Reads the header of `bytes` (`size` of them) into `info`: 0, or -1
 * with why (one line, no file name) in `why`. A size of 0 x 0 or over
 * 65535 on a side is refused here. */
int image_probe(const unsigned char *bytes, size_t size, image_info *info, char *why, size_t why_size);

/* Decodes `bytes` into malloc'd RGBA8 texels, the top row first, of the
 * size image_probe gives (*width, *height). NULL with why in `why` where
 * the bytes are not a whole, valid image of a supported format, or the
 * decode would pass `limits`. */
unsigned char *image_decode(const unsigned char *bytes, size_t size, const image_limits *limits, int *width,
                            int *height, char *why, size_t why_size);

/* "PNG", "JPEG", ... for messages. */
const char *image_format_name(image_format format);

#endif
