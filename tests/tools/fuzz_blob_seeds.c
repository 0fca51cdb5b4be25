/* fuzz_blob_seeds.c - the seed corpus of fuzz_blob: real model blocks
 * (blob_write) of the models given, imported trusted, each also with
 * 8 influence slots, with every influence blended from the lists, and
 * with tangents, so that the fuzzer starts from every shape of block the
 * parent reads. A clip's channels keep at most KEEP_KEYS keys (a mocap
 * file's seconds of keys are megabytes the fuzzer would only slow down
 * on). Each block written is read back first: a seed must be accepted.
 *
 * Usage: fuzz_blob_seeds OUT_DIR MODEL... (writes OUT_DIR/NAME.VARIANT.blob) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "import.h"

enum { KEEP_KEYS = 12, KEEP_TEXELS = 64 * 64 };

static void trim_keys(skv_model *model)
{
    for (int c = 0; c < model->clip_count; c++) {
        skv_clip *clip = &model->clips[c];
        for (int i = 0; i < clip->channel_count; i++) {
            skv_channel *ch = &clip->channels[i];
            if (ch->position_count > KEEP_KEYS) ch->position_count = KEEP_KEYS;
            if (ch->rotation_count > KEEP_KEYS) ch->rotation_count = KEEP_KEYS;
            if (ch->scale_count > KEEP_KEYS) ch->scale_count = KEEP_KEYS;
        }
        for (int i = 0; i < clip->morph_channel_count; i++)
            if (clip->morph_channels[i].key_count > KEEP_KEYS) clip->morph_channels[i].key_count = KEEP_KEYS;
    }
}

/* Writes `model`'s block to OUT_DIR/NAME.VARIANT.blob once it reads back; 0 or -1. */
static int write_seed(const skv_model *model, const char *dir, const char *name, const char *variant)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    skv_error err = {{0}};
    if (blob_write(model, 0, &bytes, &size, &err) != SKV_OK) {
        fprintf(stderr, "fuzz_blob_seeds: %s (%s): %s\n", name, variant, err.message);
        return -1;
    }
    skv_model back;
    if (blob_read(bytes, size, &back, NULL, &err) != SKV_OK) {
        fprintf(stderr, "fuzz_blob_seeds: %s (%s) does not read back: %s\n", name, variant, err.message);
        free(bytes);
        return -1;
    }
    model_free(&back);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.blob", dir, name, variant);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(bytes, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    free(bytes);
    if (!ok) fprintf(stderr, "fuzz_blob_seeds: cannot write %s\n", path);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_blob_seeds OUT_DIR MODEL...\n");
        return 2;
    }
    int failed = 0;
    for (int i = 2; i < argc; i++) {
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        for (int slots = 4; slots <= 8; slots += 4) {
            skv_model model;
            skv_error err = {{0}};
            skv_import_desc desc = {.trusted = 1, .influences = slots == 8 ? 8 : 0};
            if (import_model(argv[i], &desc, &model, &err) != SKV_OK) {
                fprintf(stderr, "fuzz_blob_seeds: %s: %s\n", argv[i], err.message);
                failed = 1;
                break;
            }
            /* Small texels stay, as a guarded child hands them back; big
             * ones go, with their size (blob_check: none is 0 x 0), so the
             * fuzzer is not slowed by megabytes of pixels. */
            for (int t = 0; t < model.texture_count; t++) {
                skv_texture *tex = &model.textures[t];
                if (tex->rgba && (size_t)tex->width * (size_t)tex->height <= KEEP_TEXELS) continue;
                free(tex->rgba);
                tex->rgba = NULL;
                tex->width = tex->height = 0;
            }
            trim_keys(&model);
            failed |= write_seed(&model, argv[1], name, slots == 8 ? "slots8" : "default") != 0;
            if (slots == 8) {
                model_free(&model);
                continue;
            }
            /* Every influence from the lists (the importer's default past
             * 4 a vertex): the slots are each list's first, as blob_check
             * wants them. */
            int lists = model.influence_lists;
            model.influence_lists = 1;
            failed |= write_seed(&model, argv[1], name, "lists") != 0;
            model.influence_lists = lists;
            /* Tangents, as a normal-mapped material's mesh has them. */
            if (!model.tangents && model.vertex_count > 0 &&
                (model.tangents = malloc((size_t)model.vertex_count * 4 * sizeof(float)))) {
                for (int v = 0; v < model.vertex_count; v++) {
                    float *t = &model.tangents[(size_t)v * 4];
                    t[0] = 1.0f, t[1] = 0.0f, t[2] = 0.0f, t[3] = v % 2 ? -1.0f : 1.0f;
                }
                failed |= write_seed(&model, argv[1], name, "tangents") != 0;
            }
            model_free(&model);
        }
    }
    return failed;
}
