/* gl_limit_shim.c - an LD_PRELOAD library for tests: makes the driver
 * report a smaller GL_MAX_TEXTURE_BUFFER_SIZE (SKV_SHIM_MAX_TEXTURE_BUFFER
 * texels), so that the path taken when influence lists do not fit runs on
 * any machine (llvmpipe takes 2^27).
 *
 * Skinview's glad loads libEGL with dlopen and every GL function through
 * eglGetProcAddress, so plain symbol interposition reaches neither: the
 * shim wraps dlsym, hands out its own eglGetProcAddress, and that hands
 * out its own glGetIntegerv, which asks the driver and then lowers the
 * one limit. Nothing else changes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define SHIM_MAX_TEXTURE_BUFFER_SIZE 0x8C2B

typedef void (*shim_fn)(void);
typedef void (*get_integerv_fn)(unsigned pname, int *data);
typedef shim_fn (*get_proc_fn)(const char *name);
typedef void *(*dlsym_fn)(void *handle, const char *name);

static dlsym_fn real_dlsym;
static get_proc_fn real_get_proc;
static get_integerv_fn real_get_integerv;

static void shim_get_integerv(unsigned pname, int *data)
{
    real_get_integerv(pname, data);
    const char *limit = getenv("SKV_SHIM_MAX_TEXTURE_BUFFER");
    if (pname == SHIM_MAX_TEXTURE_BUFFER_SIZE && limit) *data = atoi(limit);
}

static shim_fn shim_get_proc(const char *name)
{
    shim_fn f = real_get_proc(name);
    if (f && strcmp(name, "glGetIntegerv") == 0) {
        real_get_integerv = (get_integerv_fn)f;
        return (shim_fn)shim_get_integerv;
    }
    return f;
}

void *dlsym(void *handle, const char *name)
{
    if (!real_dlsym) real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    void *found = real_dlsym(handle, name);
    if (found && strcmp(name, "eglGetProcAddress") == 0) {
        real_get_proc = (get_proc_fn)found;
        return (void *)shim_get_proc;
    }
    return found;
}
