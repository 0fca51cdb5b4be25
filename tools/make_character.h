/* make_character.h - the bundled default model (make_character.c). */
#ifndef SKV_MAKE_CHARACTER_H
#define SKV_MAKE_CHARACTER_H

/* Writes the mannequin as binary glTF to `path`: 0, or -1 when it could
 * not be written. */
int write_character(const char *path);

#endif
