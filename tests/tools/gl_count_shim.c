/* gl_count_shim.c - an LD_PRELOAD library for tests: counts the GL
 * contexts a run creates (EGL and GLX) and the programs it links, and at
 * exit writes them to the file SKV_SHIM_COUNT_FILE names, as
 * "contexts N\nprograms N\n" (nothing else changes).
 *
 * Reached as tests/tools/gl_limit_shim.c reaches glGetIntegerv, and for
 * the same reason: glad and GLFW load libEGL/libGL with dlopen and find
 * every function with dlsym or a get-proc-address call, so the shim wraps
 * dlsym and hands out its own get-proc-address functions and its own
 * context and link calls. x86-64 glibc; not under AddressSanitizer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void (*shim_fn)(void);
typedef shim_fn (*get_proc_fn)(const char *name);
typedef void *(*dlsym_fn)(void *handle, const char *name);
typedef void *(*egl_create_context_fn)(void *display, void *config, void *share, const int *attribs);
typedef void *(*glx_create_attribs_fn)(void *display, void *config, void *share, int direct, const int *attribs);
typedef void *(*glx_create_new_fn)(void *display, void *config, int type, void *share, int direct);
typedef void *(*glx_create_fn)(void *display, void *visual, void *share, int direct);
typedef void (*link_program_fn)(unsigned program);

static dlsym_fn real_dlsym;
static get_proc_fn real_egl_get_proc, real_glx_get_proc, real_glx_get_proc_arb;
static egl_create_context_fn real_egl_create_context;
static glx_create_attribs_fn real_glx_create_attribs;
static glx_create_new_fn real_glx_create_new;
static glx_create_fn real_glx_create;
static link_program_fn real_link_program;
static int contexts, programs;
static pid_t counted_pid; /* the process the counts are of, not a forked child */

static void *shim_egl_create_context(void *display, void *config, void *share, const int *attribs)
{
    void *context = real_egl_create_context(display, config, share, attribs);
    if (context) contexts++;
    return context;
}
static void *shim_glx_create_attribs(void *display, void *config, void *share, int direct, const int *attribs)
{
    void *context = real_glx_create_attribs(display, config, share, direct, attribs);
    if (context) contexts++;
    return context;
}
static void *shim_glx_create_new(void *display, void *config, int type, void *share, int direct)
{
    void *context = real_glx_create_new(display, config, type, share, direct);
    if (context) contexts++;
    return context;
}
static void *shim_glx_create(void *display, void *visual, void *share, int direct)
{
    void *context = real_glx_create(display, visual, share, direct);
    if (context) contexts++;
    return context;
}
static void shim_link_program(unsigned program)
{
    programs++;
    real_link_program(program);
}

/* The shim's function for `name` (found as `f`), or `f` itself. */
static void *shimmed(void *f, const char *name)
{
    if (!f) return f;
    if (strcmp(name, "eglCreateContext") == 0) return real_egl_create_context = f, (void *)shim_egl_create_context;
    if (strcmp(name, "glXCreateContextAttribsARB") == 0)
        return real_glx_create_attribs = f, (void *)shim_glx_create_attribs;
    if (strcmp(name, "glXCreateNewContext") == 0) return real_glx_create_new = f, (void *)shim_glx_create_new;
    if (strcmp(name, "glXCreateContext") == 0) return real_glx_create = f, (void *)shim_glx_create;
    if (strcmp(name, "glLinkProgram") == 0) return real_link_program = f, (void *)shim_link_program;
    return f;
}
static shim_fn shim_egl_get_proc(const char *name) { return (shim_fn)shimmed((void *)real_egl_get_proc(name), name); }
static shim_fn shim_glx_get_proc(const char *name) { return (shim_fn)shimmed((void *)real_glx_get_proc(name), name); }
static shim_fn shim_glx_get_proc_arb(const char *name)
{
    return (shim_fn)shimmed((void *)real_glx_get_proc_arb(name), name);
}

void *dlsym(void *handle, const char *name)
{
    if (!real_dlsym) real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    void *found = real_dlsym(handle, name);
    if (!found) return found;
    if (strcmp(name, "eglGetProcAddress") == 0) return real_egl_get_proc = (get_proc_fn)found, (void *)shim_egl_get_proc;
    if (strcmp(name, "glXGetProcAddress") == 0) return real_glx_get_proc = (get_proc_fn)found, (void *)shim_glx_get_proc;
    if (strcmp(name, "glXGetProcAddressARB") == 0)
        return real_glx_get_proc_arb = (get_proc_fn)found, (void *)shim_glx_get_proc_arb;
    return shimmed(found, name);
}

__attribute__((constructor)) static void note_pid(void) { counted_pid = getpid(); }

__attribute__((destructor)) static void write_counts(void)
{
    const char *path = getenv("SKV_SHIM_COUNT_FILE");
    if (!path || getpid() != counted_pid) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "contexts %d\nprograms %d\n", contexts, programs);
    fclose(f);
}
