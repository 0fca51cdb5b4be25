/* skv_limits.h - numbers shared by the C code and the GLSL shaders.
 *
 * The renderer prepends these as #defines to every shader it compiles
 * (see render.c: shader_preamble), so the bone limit and the attribute
 * locations are written down exactly once. */
#ifndef SKV_SKV_LIMITS_H
#define SKV_SKV_LIMITS_H

/* Bone matrices one draw can use: the size of `uniform mat4 bones[]`.
 * 100 mat4 = 6400 bytes, well inside the 16 KB a GL 3.3 uniform block
 * is guaranteed to hold (a plain uniform array would need 1600
 * components, more than the 1024 GL 3.3 guarantees). */
#define SKV_MAX_BONES 100

/* Influence slots per vertex: 4 by default (one ivec4 + one vec4
 * attribute), 8 with --influences 8 (a second pair). Chosen at load. */
#define SKV_DEFAULT_INFLUENCES 4
#define SKV_MAX_INFLUENCES 8

/* Vertex attribute locations. */
#define SKV_ATTR_POSITION 0
#define SKV_ATTR_NORMAL 1
#define SKV_ATTR_UV 2
#define SKV_ATTR_BONE_IDS 3
#define SKV_ATTR_WEIGHTS 4
#define SKV_ATTR_BONE_IDS_1 5 /* slots 5-8, with 8 influence slots */
#define SKV_ATTR_WEIGHTS_1 6
#define SKV_ATTR_VERTEX 7 /* models with morph targets: the model vertex index */
#define SKV_ATTR_TANGENT 8 /* models with normal maps: xyz + handedness */

/* Uniform block binding point of the bone palette. */
#define SKV_BONES_BINDING 0

#endif
