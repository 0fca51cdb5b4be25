/* fuzz_parsers.c - libFuzzer target for one of the importer's own readers
 * of file bytes, chosen at build time (FUZZ_PARSER: 1 the .m3d reader,
 * 2 the glTF rewrite, 3 the FBX DeformPercent scan). Each runs in the
 * guarded child on a downloaded file's bytes; here in-process, so that
 * any read past a buffer, leak or hang is the fuzzer's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbx_scan.h"
#include "gltf_prep.h"
#include "m3d.h"

#if !defined(FUZZ_PARSER) || FUZZ_PARSER < 1 || FUZZ_PARSER > 3
#error "FUZZ_PARSER: 1 m3d, 2 gltf_prep, 3 fbx_scan"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *bytes = malloc(size ? size : 1); /* exactly `size`: ASan sees a read past it */
    if (!bytes) return 0;
    memcpy(bytes, data, size);
    skv_error err;
    unsigned char *out = NULL;
    size_t out_size = 0;
    switch (FUZZ_PARSER) {
    case 1:
        if (m3d_to_glb(bytes, size, &out, &out_size, &err) == SKV_OK && (!out || out_size < 12)) abort();
        break;
    case 2: {
        /* A buffer URI names a file beside the "model": none is there. */
        if (gltf_prep_wanted(bytes, size) && gltf_prep("/nonexistent/fuzz.gltf", bytes, size, &out, &out_size, &err) ==
                                                 SKV_OK && out && out_size < 28)
            abort();
        break;
    }
    default: {
        fbx_percent percents[16];
        int n = fbx_deform_percents(bytes, size, percents, 16);
        for (int i = 0; i < n && i < 16; i++)
            if (strlen(percents[i].name) >= sizeof percents[i].name) abort();
        break;
    }
    }
    free(out);
    free(bytes);
    return 0;
}
