/* gpu.h - a headless OpenGL 3.3 core context through EGL.
 *
 * Tries Mesa's surfaceless platform first (no X server, no GPU needed:
 * llvmpipe), then an EGL device (NVIDIA's EGL), then the default display.
 * Rendering goes to an offscreen skv_target; there is no window surface. */
#ifndef SKV_GPU_H
#define SKV_GPU_H

#include "error.h"

typedef struct skv_gpu {
    void *display;
    void *context;
} skv_gpu;

/* `debug`: ask for a debug context (KHR_debug messages). */
skv_result gpu_headless_create(skv_gpu *gpu, int debug, skv_error *err);
/* Makes the context current again, and GL's functions its own, after
 * another context (a window's) has been current. */
skv_result gpu_headless_make_current(skv_gpu *gpu, skv_error *err);
/* No context current on this thread, so that another (a window's) may be
 * made current; the context lives on. */
void gpu_headless_release(skv_gpu *gpu);
void gpu_headless_destroy(skv_gpu *gpu);

#endif
