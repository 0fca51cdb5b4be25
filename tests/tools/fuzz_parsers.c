/* fuzz_parsers.c - libFuzzer target for one of the importer's own readers
 * of file bytes, chosen at build time (FUZZ_PARSER: 1 the .m3d reader,
 * 2 the glTF rewrite, 3 the FBX DeformPercent scan, 4 the Collada curve
 * reader and its bake). Each runs in the
 * guarded child on a downloaded file's bytes; here in-process, so that
 * any read past a buffer, leak or hang is the fuzzer's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dae_curves.h"
#include "fbx_scan.h"
#include "gltf_prep.h"
#include "m3d.h"

#if !defined(FUZZ_PARSER) || FUZZ_PARSER < 1 || FUZZ_PARSER > 4
#error "FUZZ_PARSER: 1 m3d, 2 gltf_prep, 3 fbx_scan, 4 dae_curves"
#endif

/* Every node the file names in a channel, evaluated and baked (within a
 * small bound: the fuzzer's time goes to the reader). */
static void dae_exercise(const unsigned char *bytes, size_t size)
{
    dae_curves *d = NULL;
    skv_error err;
    if (dae_curves_read(bytes, size, &d, &err) != SKV_OK) {
        if (d) abort();
        return;
    }
    static const char *const ids[] = {"Root", "J1", "J2", "J3", "N"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int node = dae_curves_node(d, ids[i]);
        if (node < 0) continue;
        for (int clip = -1; clip <= 0; clip++) {
            double m[16];
            dae_curves_local(d, node, clip, 0.3, 0, m);
            dae_curves_local(d, node, clip, 1.0, 1, m);
            dae_baked b;
            if (dae_curves_bake(d, node, clip, 512, &b, &err) == SKV_OK) {
                for (int k = 1; k < b.count; k++)
                    if (!(b.times[k] >= b.times[k - 1])) abort();
                dae_baked_free(&b);
            } else if (b.count || b.times) {
                abort();
            }
        }
    }
    dae_curves_destroy(d);
}

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
    case 4:
        dae_exercise(bytes, size);
        break;
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
