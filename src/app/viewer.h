/* viewer.h - the interactive window: GLFW, input, orbit camera, HUD.
 *
 * Draws through the same renderer into the same kind of offscreen target
 * as --screenshot, then blits it to the window and adds the HUD on top. */
#ifndef SKV_VIEWER_H
#define SKV_VIEWER_H

#include "scene.h"
#include "error.h"

/* Zero-initialised: an 800x600 window playing the scene by its clock
 * (scene.h: where the clip is, its speed; the window advances it). */
typedef struct skv_viewer_desc {
    int width, height; /* 0: 800x600 */
    /* When set: draw one paused frame at the clock's time, write what the window
     * shows (without the HUD) to this PNG, and close. */
    const char *capture_path;
    int debug; /* debug context; a GL error ends the run with SKV_ERR_GPU */
    const skv_import_desc *import; /* for files dropped on the window */
    /* Where the S key saves (MODEL_skinview_N.png, N the next free
     * number); NULL: beside the model. */
    const char *screenshot_dir;
    int msaa; /* samples per pixel of the offscreen target (0: SKV_DEFAULT_MSAA) */
    /* What the window says (also shown in the HUD for a few seconds):
     * screenshots saved, files opened, clips added; NULL: nothing. */
    skv_say_fn say;
    void *user;
} skv_viewer_desc;

/* True when an X11 or Wayland display is there to open a window on. */
int viewer_display_available(void);

/* The window of a run: opened by the first model shown, reused by each
 * later one (one GL context and its programs, the HUD), closed by
 * viewer_window_destroy at the end. Zero-initialised: not open. */
typedef struct skv_viewer_window {
    struct viewer *viewer;
} skv_viewer_window;

/* Shows the scene in `window` (opened now if it is not) until the user
 * closes it (or, with desc->capture_path, for one frame); the window then
 * stays open for the next model. NULL: a window of this call's own,
 * closed before it returns. The window's size and debug context are
 * those of the desc it was opened with. */
skv_result viewer_run(skv_scene *scene, const skv_viewer_desc *desc, skv_viewer_window *window, skv_error *err);

/* Closes the window, if open. */
void viewer_window_destroy(skv_viewer_window *window);

#endif
