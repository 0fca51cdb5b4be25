/* tangents.h - per-vertex tangents for normal-mapped meshes.
 *
 * Core code: neither GL nor Assimp. The importer calls it once the
 * materials are known; only meshes whose material has a normal map get
 * tangents (the rest keep 0, which the shader reads as "none"), and a
 * model without such a mesh keeps model->tangents NULL. */
#ifndef SKV_TANGENTS_H
#define SKV_TANGENTS_H

#include "error.h"
#include "model.h"

/* Fills model->tangents (4 floats per vertex: xyz along +u in the
 * model's space, w = +1 or -1 so that cross(normal, xyz) * w points
 * along -v, the image's up once UVs have their origin at the top, which
 * is where tangent-space normal maps (glTF, OpenGL convention) put +y).
 * Per vertex the sum over its triangles of each triangle's dP/du, made
 * perpendicular to the normal; where that vanishes (no UVs, degenerate
 * UVs) any unit vector perpendicular to the normal. SKV_ERR_MEMORY
 * when memory runs out. */
skv_result model_compute_tangents(skv_model *model);

#endif
