/* gl_limit_shim.c - an LD_PRELOAD library for tests: makes the driver
 * report a smaller GL_MAX_TEXTURE_BUFFER_SIZE (SKV_SHIM_MAX_TEXTURE_BUFFER
 * texels), so that the path taken when influence lists do not fit runs on
 * any machine (llvmpipe takes 2^27).
 *
 * Skinview's glad loads libEGL with dlopen and every GL function through
 * eglGetProcAddress (headless), and the window's GLFW loads libGL with
 * dlopen and them through glXGetProcAddress(ARB), so plain symbol
 * interposition reaches none of them: the shim wraps dlsym, hands out its
 * own get-proc-address functions, and those hand out its own
 * glGetIntegerv, which asks the driver and then lowers the one limit.
 * Nothing else changes. x86-64 glibc (dlsym's version name); not under
 * AddressSanitizer, whose start-up calls dlsym before this one can find
 * the real one. */
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
static get_proc_fn real_egl_get_proc, real_glx_get_proc, real_glx_get_proc_arb;
static get_integerv_fn real_get_integerv;

static void shim_get_integerv(unsigned pname, int *data)
{
    real_get_integerv(pname, data);
    const char *limit = getenv("SKV_SHIM_MAX_TEXTURE_BUFFER");
    if (pname == SHIM_MAX_TEXTURE_BUFFER_SIZE && limit) *data = atoi(limit);
}

static shim_fn shimmed(shim_fn f, const char *name)
{
    if (f && strcmp(name, "glGetIntegerv") == 0) {
        real_get_integerv = (get_integerv_fn)f;
        return (shim_fn)shim_get_integerv;
    }
    return f;
}
static shim_fn shim_egl_get_proc(const char *name) { return shimmed(real_egl_get_proc(name), name); }
static shim_fn shim_glx_get_proc(const char *name) { return shimmed(real_glx_get_proc(name), name); }
static shim_fn shim_glx_get_proc_arb(const char *name) { return shimmed(real_glx_get_proc_arb(name), name); }

void *dlsym(void *handle, const char *name)
{
    if (!real_dlsym) real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    void *found = real_dlsym(handle, name);
    if (!found) return found;
    if (strcmp(name, "eglGetProcAddress") == 0) return real_egl_get_proc = (get_proc_fn)found, (void *)shim_egl_get_proc;
    if (strcmp(name, "glXGetProcAddress") == 0) return real_glx_get_proc = (get_proc_fn)found, (void *)shim_glx_get_proc;
    if (strcmp(name, "glXGetProcAddressARB") == 0)
        return real_glx_get_proc_arb = (get_proc_fn)found, (void *)shim_glx_get_proc_arb;
    return found;
}
