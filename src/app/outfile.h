/* outfile.h - an output file (PNG, OBJ, GIF) that replaces its target
 * whole or not at all.
 *
 * Written in place, a full disk or a file-size limit left a truncated file
 * where a good one was, and the run still ended well. So the data goes to
 * a temporary file in the target's folder (rename() is atomic only within
 * one file system), every write is checked, and only a complete file is
 * renamed over the target. On any failure the temporary is removed and the
 * old file stays as it was.
 *
 * The name "-" is the standard output: written as it is (nothing to
 * replace), flushed and checked on commit, and left open. */
#ifndef SKV_OUTFILE_H
#define SKV_OUTFILE_H

#include <stdio.h>

#include "error.h"

typedef struct skv_outfile {
    FILE *file;       /* write here */
    char *target;     /* where it goes (symbolic links followed) */
    char *temporary;  /* beside it; NULL when writing to the target itself
                         (not a regular file: /dev/null, a pipe) */
    int is_stdout;    /* "-": `file` is stdout, never closed here */
} skv_outfile;

/* Opens a temporary beside `path` for writing (binary). */
skv_result outfile_open(skv_outfile *out, const char *path, skv_error *err);

/* Checks that every write went through, closes the file and renames it
 * over the target. On failure removes the temporary and returns
 * SKV_ERR_OUTPUT naming `path`. Either way `out` is closed. */
skv_result outfile_commit(skv_outfile *out, const char *path, skv_error *err);

/* Gives up: closes and removes the temporary. NULL `file` is fine. */
void outfile_discard(skv_outfile *out);

#endif
