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

/* The whole of a regular file (textures.c). */
unsigned char *read_whole_file(const char *path, long *size);

#endif
