/* gpu.c - headless EGL context creation. */
#include "gpu.h"

#include <glad/egl.h>
#include <glad/gl.h>
#include <string.h>

static int has_extension(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static EGLDisplay open_display(void)
{
    /* Before a display is initialised glad has loaded only EGL 1.0, so the
     * platform entry points come from eglGetProcAddress (EXT names work on
     * every 1.4 and 1.5 implementation). */
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    EGLDisplay display = EGL_NO_DISPLAY;
    if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless"))
        display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (display == EGL_NO_DISPLAY && get_platform_display && query_devices &&
        has_extension(client, "EGL_EXT_platform_device")) {
        EGLDeviceEXT devices[4];
        EGLint count = 0;
        if (query_devices(4, devices, &count) && count > 0)
            display = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[0], NULL);
    }
    if (display == EGL_NO_DISPLAY) display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    return display;
}

skv_result gpu_headless_create(skv_gpu *gpu, int debug, skv_error *err)
{
    memset(gpu, 0, sizeof *gpu);
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) return skv_fail(err, SKV_ERR_GPU, "cannot load libEGL");
    EGLDisplay display = open_display();
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor))
        return skv_fail(err, SKV_ERR_GPU, "no EGL display (0x%x)", eglGetError());
    gpu->display = display;
    /* Reload with the display so its extensions' entry points resolve. */
    gladLoaderLoadEGL(display);

    if (!eglBindAPI(EGL_OPENGL_API)) {
        gpu_headless_destroy(gpu);
        return skv_fail(err, SKV_ERR_GPU, "EGL has no desktop OpenGL");
    }
    const EGLint with_pbuffer[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
                                   EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    const EGLint any_surface[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
    EGLConfig config;
    EGLint count = 0;
    if (!eglChooseConfig(display, with_pbuffer, &config, 1, &count) || count < 1)
        if (!eglChooseConfig(display, any_surface, &config, 1, &count) || count < 1) {
            gpu_headless_destroy(gpu);
            return skv_fail(err, SKV_ERR_GPU, "no EGL config for desktop OpenGL");
        }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_CONTEXT_OPENGL_DEBUG, debug ? EGL_TRUE : EGL_FALSE, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
    if (context == EGL_NO_CONTEXT) {
        gpu_headless_destroy(gpu);
        return skv_fail(err, SKV_ERR_GPU, "cannot create an OpenGL 3.3 core context (0x%x)", eglGetError());
    }
    gpu->context = context;
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        gpu_headless_destroy(gpu);
        return skv_fail(err, SKV_ERR_GPU, "cannot make the EGL context current (0x%x)", eglGetError());
    }
    if (!gladLoadGL((GLADloadfunc)eglGetProcAddress)) {
        gpu_headless_destroy(gpu);
        return skv_fail(err, SKV_ERR_GPU, "cannot load OpenGL functions");
    }
    return SKV_OK;
}

skv_result gpu_headless_make_current(skv_gpu *gpu, skv_error *err)
{
    if (!eglMakeCurrent(gpu->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gpu->context))
        return skv_fail(err, SKV_ERR_GPU, "cannot make the EGL context current (0x%x)", eglGetError());
    if (!gladLoadGL((GLADloadfunc)eglGetProcAddress)) return skv_fail(err, SKV_ERR_GPU, "cannot load OpenGL functions");
    return SKV_OK;
}

void gpu_headless_release(skv_gpu *gpu)
{
    if (gpu->display) eglMakeCurrent(gpu->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

void gpu_headless_destroy(skv_gpu *gpu)
{
    /* Releases what gpu_headless_create made: the context and its binding.
     * The display is process-wide in EGL (the same handle comes back from
     * every eglGetPlatformDisplay call) and stays initialised, and libEGL
     * stays loaded: eglTerminate and unloading make Mesa dlclose its
     * driver, orphaning the driver's own state, which LeakSanitizer and
     * valgrind then report as leaks that are not ours. */
    if (gpu->display) {
        eglMakeCurrent(gpu->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (gpu->context) eglDestroyContext(gpu->display, gpu->context);
    }
    memset(gpu, 0, sizeof *gpu);
}
