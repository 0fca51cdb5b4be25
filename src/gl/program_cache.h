/* program_cache.h - linked GL programs kept across runs: a program's
 * binary (GL_ARB_get_program_binary, core since GL 4.1) in the user's
 * cache folder ($XDG_CACHE_HOME, else ~/.cache: skinview/programs), so
 * that a later run loads it instead of compiling and linking its shaders
 * again. An entry holds its whole key (the driver's vendor, renderer and
 * version strings, and every source text the program is built from) and
 * is used only where that key matches byte for byte and the driver takes
 * the binary back; anything else (no folder, a short or corrupt file,
 * another driver, a refused binary) is a miss, never an error: the
 * program is built from its sources as without a cache. Storing keeps the
 * folder bounded (the least recently stored entries past a count removed,
 * and temporary files a stopped run left). The folder may be turned off
 * with SKINVIEW_PROGRAM_CACHE=off.
 *
 * Needs a current GL context with glad loaded. */
#ifndef SKV_PROGRAM_CACHE_H
#define SKV_PROGRAM_CACHE_H

#include <glad/gl.h>
#include <stddef.h>

/* Whether this context can hand out and take back program binaries
 * (the extension, and at least one binary format). */
int program_cache_usable(void);

/* The program kept under `key` (key_size bytes), linked; 0 on a miss. */
GLuint program_cache_load(const char *key, size_t key_size);

/* Keeps linked `program`'s binary under `key` (best effort: a folder that
 * cannot be made or written leaves the cache as it was). The program must
 * have been linked with GL_PROGRAM_BINARY_RETRIEVABLE_HINT set. */
void program_cache_store(GLuint program, const char *key, size_t key_size);

#endif
