/* helptext.h - what the window's help (H) and the manual page share: the
 * window's keys and the environment skinview reads. The manual's options
 * and exit statuses come from --help (options.h); these from here, so
 * neither can drift from what the program does (tools/make_docs.c writes
 * the manual and the shell completions at build time). */
#ifndef SKV_HELPTEXT_H
#define SKV_HELPTEXT_H

typedef struct skv_help_entry {
    const char *what; /* a key, a mouse move, a variable */
    const char *does; /* what it does, a short phrase */
} skv_help_entry;

/* The window's keys and mouse, in the order the help shows them;
 * what = NULL ends the list. */
extern const skv_help_entry skv_window_keys[];

/* The environment variables skinview reads; what = NULL ends the list. */
extern const skv_help_entry skv_environment[];

#endif
