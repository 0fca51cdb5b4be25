/* text.h - text that comes from a file (clip, mesh, node and material
 * names, texture paths, Assimp's messages), made safe for where it goes.
 *
 * A file can put any bytes in a name: an escape sequence that clears the
 * terminal, a newline that starts a line of its own in an OBJ or on
 * stderr, bytes that are not UTF-8. Names are kept as the file gives them
 * (--anim and --weights match them byte for byte) and escaped only where
 * they are printed or written. */
#ifndef SKV_TEXT_H
#define SKV_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Writes `text` to `out` as it may stand inside one line of a terminal, a
 * log or an OBJ file: every byte that is a control character (C0, DEL,
 * and the C1 range U+0080-U+009F) or not part of well-formed UTF-8 becomes
 * \xNN; everything else, backslashes included, is unchanged. Escaping
 * twice changes nothing more. */
void text_put_line(FILE *out, const char *text);

/* The same into `out` (`size` bytes, always NUL-terminated), at most
 * `max_chars` characters (an escape counts its 4): longer text is cut at a
 * character boundary and ends with "…". Returns `out`. */
char *text_line(char *out, size_t size, const char *text, size_t max_chars);

/* Writes `text` to `out` as a JSON string with its quotes: '"', '\' and
 * control characters escaped, each ill-formed UTF-8 sequence as one
 * U+FFFD (as Python's errors="replace" decodes it), so any bytes give
 * valid JSON and well-formed names read back exactly. */
void text_put_json(FILE *out, const char *text);

/* Is `printed` what text_put_json writes for `text`, read back: the same
 * bytes, each ill-formed UTF-8 sequence of `text` as one U+FFFD? (A name
 * the user copied from --list --json.) */
int text_same_as_json(const char *text, const char *printed);

#endif
