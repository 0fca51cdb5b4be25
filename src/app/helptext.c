/* helptext.c - the window's keys and the environment, for the window's
 * help and the manual page. */
#include "helptext.h"

#include <stddef.h>

const skv_help_entry skv_window_keys[] = {
    {"drag:", "orbit"},
    {"scroll:", "zoom"},
    {"click/drag the bar:", "scrub"},
    {"Space", "pause"},
    {"Left/Right", "step"},
    {"Home/End", "first/last frame"},
    {",/.", "previous/next key"},
    {"+/-", "speed"},
    {"L", "loop"},
    {"N/P", "clip (cross-fade)"},
    {"K", "skeleton"},
    {"B", "bind pose"},
    {"W", "weights ([ ] or click a joint: bone)"},
    {"C", "influences"},
    {"F", "wireframe"},
    {"O", "normals"},
    {"G", "grid"},
    {"A", "axes"},
    {"V", "background"},
    {"D", "dual quaternions"},
    {"T", "follow the motion"},
    {"I", "in place"},
    {"Y/Shift+Y", "layer (--layer)"},
    {"U/J", "its weight"},
    {"M", "mute it"},
    {"S", "screenshot"},
    {"R", "reset view"},
    {"drop a file:", "open it or add its clips"},
    {"H", "help"},
    {"Q/Esc", "quit"},
    {NULL, NULL},
};

/* viewer.c's viewer_display_available reads the first two; the GL
 * program cache (src/gl/program_cache.c) the others. */
const skv_help_entry skv_environment[] = {
    {"DISPLAY", "the X display the window opens on"},
    {"WAYLAND_DISPLAY",
     "the Wayland display the window opens on; with neither set, a run that would open the window renders "
     "frames of the clip headless instead (--window-capture fails)"},
    {"XDG_CACHE_HOME",
     "where linked GL programs are kept between runs (skinview/programs there; else in ~/.cache), so that a "
     "later run loads them instead of compiling its shaders again; an entry that does not match the driver "
     "and the shaders byte for byte is built again"},
    {"SKINVIEW_PROGRAM_CACHE", "off: keep no GL programs between runs"},
    {NULL, NULL},
};
