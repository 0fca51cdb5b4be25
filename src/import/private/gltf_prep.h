/* gltf_prep.h - glTF files made plain for Assimp before it reads them
 * (gltf_prep.c): KHR_mesh_quantization's integer attributes and animation
 * outputs as floats, EXT_meshopt_compression's buffer views decoded; a
 * file requiring an extension nothing reads refused by name. No Assimp
 * type here. */
#ifndef SKV_GLTF_PREP_H
#define SKV_GLTF_PREP_H

#include <stddef.h>

#include "error.h"

/* Might the file (a .gltf's JSON or a .glb) need gltf_prep? A cheap look
 * for the extensions' names, no parse. */
int gltf_prep_wanted(const unsigned char *bytes, size_t size);

/* The file at `path` (its `bytes`) rewritten as a glTF binary (*out,
 * malloc'd) where it uses either extension; *out NULL where it needs
 * nothing. Buffers it names are read from beneath the model's real folder
 * only. SKV_ERR_IMPORT with one line ("glTF: ...") for a file it refuses. */
skv_result gltf_prep(const char *path, const unsigned char *bytes, size_t size, unsigned char **out, size_t *out_size,
                     skv_error *err);

/* What a glTF's animation samplers say, read beside Assimp (which drops
 * STEP and CUBICSPLINE and plays every sampler as LINEAR): per animation,
 * per channel that targets a node. */
enum { GLTF_LINEAR, GLTF_STEP, GLTF_CUBIC };
typedef struct gltf_track {
    char node[256]; /* the target node's name; "" where it has none */
    int path;       /* 0 translation, 1 rotation, 2 scale, 3 weights */
    int mode;       /* GLTF_LINEAR, GLTF_STEP, GLTF_CUBIC */
    int count;      /* keys, >= 1 */
    int width;      /* floats a value: 3, 4, or the weights' targets */
    double *times;  /* seconds, increasing */
    float *values;  /* count * width */
    float *tangents; /* GLTF_CUBIC: per key its in-tangent then its out-tangent (width each), per second; else NULL */
} gltf_track;
typedef struct gltf_clip {
    char name[256];
    int track_count;
    gltf_track *tracks;
} gltf_clip;
typedef struct gltf_curves {
    int clip_count; /* the file's animations, in its order */
    gltf_clip *clips;
} gltf_curves;

/* Reads every animation's channels from the file at `path` (`bytes`):
 * its buffers as gltf_prep reads them (beneath the model's folder;
 * meshopt views decoded; integer outputs as the specification says).
 * SKV_ERR_IMPORT with one line for samplers that do not hold together. */
skv_result gltf_curves_read(const char *path, const unsigned char *bytes, size_t size, gltf_curves *out,
                            skv_error *err);
void gltf_curves_free(gltf_curves *curves);

/* KHR_texture_transform on a material's texture: the glTF UV map
 * uv' = T * R * S * uv (offset, rotation counter-clockwise in radians,
 * scale), as the file gives it, in glTF's UV space (v down the image). */
typedef struct gltf_uv_transform {
    int material; /* the file's material index */
    int slot;     /* SKV_TEX_BASE_COLOR .. SKV_TEX_EMISSIVE (model.h) */
    float offset[2], rotation, scale[2];
} gltf_uv_transform;
/* Every transformed texture of every material, *out malloc'd (NULL and 0
 * where none). SKV_ERR_IMPORT for a transform whose numbers are not
 * numbers; a texCoord override is ignored (one UV set is read). */
skv_result gltf_uv_transforms_read(const unsigned char *bytes, size_t size, gltf_uv_transform **out, int *count,
                                   skv_error *err);

/* A glTF's document without its binary data: a .gltf whole, a .glb's
 * header and JSON chunk (its length field made theirs, so that the
 * readers above take it as a .glb without a BIN chunk); NULL where the
 * file cannot be read. The readers that need only the JSON (the
 * texture transforms; whether a sampler names a curve) read this, not
 * a model's megabytes of vertices, once each. */
unsigned char *gltf_read_json(const char *path, size_t *size);

/* Whether the JSON of a .gltf or .glb (`bytes`: the file, or
 * gltf_read_json's) holds `word` anywhere: a cheap test before a parse. */
int gltf_json_names(const unsigned char *bytes, size_t size, const char *word);

/* Does a glTF's JSON (`bytes`: the file, or gltf_read_json's) show what
 * Assimp will make of it a scene whose big skinned mesh is indexed
 * already: every primitive indexed triangles, one drawn by a skinned node
 * with over `vertices` vertices and at least two corners a vertex, and
 * its primitives times its biggest skin's joints at most `bones`? A guess
 * from the document, for read_scene to check on the scene it gets. */
int gltf_big_indexed_skin(const unsigned char *bytes, size_t size, long vertices, long bones);

/* The whole of a regular file (textures.c). */
unsigned char *read_whole_file(const char *path, long *size);

#endif
