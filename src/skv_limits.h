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

/* Influences stored per vertex (one ivec4 + one vec4 attribute). */
#define SKV_MAX_INFLUENCES 4

/* Vertex attribute locations. */
#define SKV_ATTR_POSITION 0
#define SKV_ATTR_NORMAL 1
#define SKV_ATTR_UV 2
#define SKV_ATTR_BONE_IDS 3
#define SKV_ATTR_WEIGHTS 4

/* Uniform block binding point of the bone palette. */
#define SKV_BONES_BINDING 0

#endif
