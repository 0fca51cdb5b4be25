/* import_scene.h - the importer's conversion step on its own, for callers
 * that already hold an aiScene (the importer's unit tests build small
 * scenes in memory). With private/import_internal.h the only headers that name Assimp
 * types; the rest of Skinview includes import.h. Private to the importer
 * (src/import/private/): only it, its unit tests and the benchmark see it. */
#ifndef SKV_IMPORT_SCENE_H
#define SKV_IMPORT_SCENE_H

#include <limits.h> /* assimp/material.h uses INT_MAX */
#include <assimp/scene.h>

#include "error.h"
#include "import.h"
#include "model.h"

/* Converts `scene` (not modified, not freed) into `model`. `path` names
 * the file, for messages and for finding external textures beside it. */
skv_result import_scene(const struct aiScene *scene, const char *path, const skv_import_desc *desc,
                        skv_model *model, skv_error *err);

#endif
