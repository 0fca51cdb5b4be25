/* shader_source.h - the GLSL files of shaders/, embedded at build time
 * (CMake generates the table), so the executable runs from anywhere. */
#ifndef SKV_SHADER_SOURCE_H
#define SKV_SHADER_SOURCE_H

/* Source text of `name` (e.g. "skinned.vert"), or NULL. */
const char *shader_source(const char *name);

#endif
