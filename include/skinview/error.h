/* error.h - result codes and the message buffer fallible calls fill.
 *
 * Deep code never prints: it returns one of these codes and writes one
 * line into an skv_error (in the library's words, not the command line's);
 * main prints it once, naming the file, and maps the code to the process
 * exit status (main.c: exit_status; README "Exit codes"). */
#ifndef SKV_ERROR_H
#define SKV_ERROR_H

#include <stdarg.h>

typedef enum skv_result {
    SKV_OK = 0,
    SKV_ERR_ARGUMENT = 2,    /* an argument the call cannot take (a bad command line, an unsupported combination) */
    SKV_ERR_FILE = 3,        /* missing, unreadable, not a regular file */
    SKV_ERR_IMPORT = 4,      /* Assimp could not read it, or it is corrupt */
    SKV_ERR_CONTENT = 5,     /* read, but nothing to show (no meshes ...) */
    SKV_ERR_ANIM = 6,        /* no such clip */
    SKV_ERR_GPU = 7,         /* no GL context, shader or framebuffer failure */
    SKV_ERR_OUTPUT = 8,      /* could not write an output file */
    SKV_ERR_MEMORY = 9,
    SKV_ERR_REF = 10,        /* the render differs from its reference image */
} skv_result;

typedef struct skv_error {
    char message[512];
} skv_error;

/* Writes the message (printf-style) and returns `code`, so callers can
 * `return skv_fail(err, SKV_ERR_FILE, "...")`. `err` may be NULL. */
skv_result skv_fail(skv_error *err, skv_result code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
