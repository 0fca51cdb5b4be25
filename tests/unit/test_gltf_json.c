/* test_gltf_json.c - gltf_read_json and gltf_json_names (gltf_prep.c):
 * a .glb read as its header and JSON chunk alone, its length field made
 * theirs, a word found only in the JSON, and the texture transforms read
 * from that document as from the whole file; a .gltf read whole; files
 * that are not there or not regular. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gltf_prep.h"

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char json[] =
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_texture_transform\"],"
    "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0,\"extensions\":"
    "{\"KHR_texture_transform\":{\"offset\":[0.25,0.5],\"rotation\":0.5,\"scale\":[2,3]}}}}}]}  ";

/* A .glb of the JSON above (padded to 4 bytes) and a BIN chunk that holds
 * the word CUBICSPLINE (which the JSON does not). */
static size_t write_glb(const char *path)
{
    size_t json_len = (sizeof json - 1 + 3) / 4 * 4;
    const char bin[] = "....CUBICSPLINE.....";
    size_t bin_len = (sizeof bin - 1 + 3) / 4 * 4;
    size_t total = 12 + 8 + json_len + 8 + bin_len;
    unsigned char *b = calloc(1, total);
    memcpy(b, "glTF", 4), put32(b + 4, 2), put32(b + 8, (uint32_t)total);
    put32(b + 12, (uint32_t)json_len), put32(b + 16, 0x4E4F534Au);
    memset(b + 20, ' ', json_len), memcpy(b + 20, json, sizeof json - 1);
    put32(b + 20 + json_len, (uint32_t)bin_len), put32(b + 24 + json_len, 0x004E4942u);
    memcpy(b + 28 + json_len, bin, sizeof bin - 1);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, total, f) == total);
    if (f) fclose(f);
    free(b);
    return total;
}

int main(void)
{
    char dir[] = "/tmp/skv_gltf_json_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char glb[256], gltf[256], missing[256];
    snprintf(glb, sizeof glb, "%s/a.glb", dir);
    snprintf(gltf, sizeof gltf, "%s/a.gltf", dir);
    snprintf(missing, sizeof missing, "%s/none.glb", dir);
    size_t whole = write_glb(glb);

    long whole_size = 0;
    unsigned char *all = read_whole_file(glb, &whole_size);
    CHECK(all && (size_t)whole_size == whole);
    CHECK(gltf_json_names(all, whole, "CUBICSPLINE") == 0); /* the BIN chunk is not looked into */
    CHECK(gltf_json_names(all, whole, "KHR_texture_transform") == 1);

    size_t size = 0;
    unsigned char *doc = gltf_read_json(glb, &size);
    size_t json_len = (sizeof json - 1 + 3) / 4 * 4;
    CHECK(doc != NULL && size == 20 + json_len);
    CHECK(doc && get32(doc + 8) == size); /* the length is the document's now */
    CHECK(doc && memcmp(doc + 20, all + 20, json_len) == 0);
    CHECK(doc && gltf_json_names(doc, size, "KHR_texture_transform") == 1);
    CHECK(doc && gltf_json_names(doc, size, "CUBICSPLINE") == 0);

    /* The transforms read from the JSON alone equal those of the whole file. */
    gltf_uv_transform *from_doc = NULL, *from_all = NULL;
    int n_doc = -1, n_all = -1;
    skv_error err;
    CHECK(gltf_uv_transforms_read(doc, size, &from_doc, &n_doc, &err) == SKV_OK);
    CHECK(gltf_uv_transforms_read(all, whole, &from_all, &n_all, &err) == SKV_OK);
    CHECK(n_doc == 1 && n_all == 1);
    if (n_doc == 1 && n_all == 1) {
        CHECK(memcmp(from_doc, from_all, sizeof *from_doc) == 0);
        CHECK(from_doc->offset[0] == 0.25f && from_doc->offset[1] == 0.5f && from_doc->rotation == 0.5f &&
              from_doc->scale[0] == 2.0f && from_doc->scale[1] == 3.0f);
    }
    free(from_doc), free(from_all), free(doc), free(all);

    /* A .gltf is its JSON: read whole. */
    FILE *f = fopen(gltf, "wb");
    CHECK(f && fwrite(json, 1, sizeof json - 1, f) == sizeof json - 1);
    if (f) fclose(f);
    doc = gltf_read_json(gltf, &size);
    CHECK(doc && size == sizeof json - 1 && memcmp(doc, json, size) == 0);
    free(doc);

    /* Nothing there, a folder, an empty file. */
    CHECK(gltf_read_json(missing, &size) == NULL && size == 0);
    CHECK(gltf_read_json(dir, &size) == NULL);
    f = fopen(missing, "wb");
    if (f) fclose(f);
    CHECK(gltf_read_json(missing, &size) == NULL);

    /* A quantized file whose primitive's attributes are an array, not an
     * object (a fuzzer's): its entries have no names; refused or passed
     * on, never read as names. */
    static const char unnamed[] =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
        "\"extensionsRequired\":[\"KHR_mesh_quantization\"],\"meshes\":[{\"primitives\":"
        "[{\"attributes\":[0,1]}]}],\"accessors\":[{\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}]}";
    unsigned char *prepped = NULL;
    size_t prepped_size = 0;
    skv_result r = gltf_prep(gltf, (const unsigned char *)unnamed, sizeof unnamed - 1, &prepped, &prepped_size, &err);
    CHECK(r == SKV_OK || r == SKV_ERR_IMPORT);
    free(prepped);

    unlink(missing), unlink(glb), unlink(gltf), rmdir(dir);
    return check_summary();
}
