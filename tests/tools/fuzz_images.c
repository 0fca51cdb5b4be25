/* fuzz_images.c - libFuzzer target for one texture decoder of
 * src/import/images.c, chosen at build time (FUZZ_FORMAT: 1 PNG, 2 JPEG,
 * 3 TGA, 4 BMP): the input's first bytes are made that format's magic,
 * so that every input reaches the decoder under test rather than the
 * dispatch (5: DDS). Decodes within a budget, as the importer does, and checks
 * what it claims: texels of the size the header gives. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"

#if !defined(FUZZ_FORMAT) || FUZZ_FORMAT < 1 || FUZZ_FORMAT > 5
#error "FUZZ_FORMAT: 1 PNG, 2 JPEG, 3 TGA, 4 BMP, 5 DDS"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char jpeg[3] = {0xff, 0xd8, 0xff};
    unsigned char *bytes = malloc(size ? size : 1); /* exactly `size`: a read past it is ASan's */
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    switch (FUZZ_FORMAT) {
    case IMAGE_PNG: memcpy(bytes, png, size < 8 ? size : 8); break;
    case IMAGE_JPEG: memcpy(bytes, jpeg, size < 3 ? size : 3); break;
    case IMAGE_BMP: memcpy(bytes, "BM", size < 2 ? size : 2); break;
    case IMAGE_DDS: memcpy(bytes, "DDS ", size < 4 ? size : 4); break;
    default: /* TGA has no magic: keep it from looking like another format */
        if (size > 0 && (bytes[0] == 0x89 || bytes[0] == 0xff || bytes[0] == 'B' || bytes[0] == 'G' ||
                         bytes[0] == 'P' || bytes[0] == 'D' || bytes[0] == '#' || bytes[0] == '8'))
            bytes[0] = 0;
        break;
    }
    /* The importer's per-texture cap is 256 MiB; less here keeps each
     * run fast without changing which paths are reached. */
    image_limits limits = {.max_bytes = (uint64_t)64 << 20};
    image_info info;
    char why[256];
    int probed = image_probe(bytes, size, &info, why, sizeof why) == 0;
    int w = 0, h = 0;
    unsigned char *rgba = image_decode(bytes, size, &limits, &w, &h, why, sizeof why);
    if (rgba) {
        /* A decode gives the header's size, and every texel is there. */
        if (!probed || w != info.width || h != info.height || w <= 0 || h <= 0) abort();
        unsigned sum = 0;
        for (size_t i = 0; i < (size_t)w * (size_t)h * 4; i += 4093) sum += rgba[i];
        sum += rgba[(size_t)w * (size_t)h * 4 - 1];
        if (sum == 0xdeadbeef) abort(); /* keeps the reads */
    } else if (!why[0]) {
        abort(); /* a refusal always says why */
    }
    free(rgba);
    free(bytes);
    return 0;
}
