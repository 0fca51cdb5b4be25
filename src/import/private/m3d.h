/* m3d.h - the DirectX 11 book's .m3d text models (m3d.c), read into a
 * glTF 2.0 binary in memory for Assimp. No Assimp type here.
 *
 * The format, as the book's M3DLoader reads it: whitespace-separated
 * tokens, every value after a label token; a header (#Materials,
 * #Vertices, #Triangles, #Bones, #AnimationClips), then sections each
 * opened by a banner line: Materials, SubsetTable, Vertices (Position,
 * Tangent with handedness, Normal, Tex-Coords, and for skinned files
 * BlendWeights and BlendIndices), Triangles, BoneOffsets (row-major, for
 * row vectors), BoneHierarchy (parents first), AnimationClips (per bone
 * its keys: Time, Pos, Scale, Quat). Left-handed, y up. */
#ifndef SKV_M3D_H
#define SKV_M3D_H

#include <stddef.h>

#include "error.h"

/* Does the file open with the .m3d header's banner? */
int m3d_recognised(const unsigned char *bytes, size_t size);

/* The file as a glTF binary (*glb, malloc'd, *glb_size bytes), z negated
 * into a right-handed space. A file that lies (a count past what is
 * there, an index past what it indexes, a parent after its child, a
 * number that is not finite): SKV_ERR_IMPORT with one line. */
skv_result m3d_to_glb(const unsigned char *bytes, size_t size, unsigned char **glb, size_t *glb_size, skv_error *err);

#endif
