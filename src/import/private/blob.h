/* blob.h - a finished skv_model as one flat, relocatable block of bytes.
 *
 * The guarded child (guard.c) imports and converts an untrusted file and
 * hands the model to the parent this way: counts and offsets, no
 * pointers. The parent treats the block as hostile (its child may have
 * been taken over by the file): blob_read checks the header, every
 * offset and count, every index against what it indexes, that floats are
 * finite, padding zero, nodes parent-first and everything else the
 * parent's consumers take for granted (blob_check), before the model is
 * used; then it rebuilds what is derived (anim_channel_finish, the rest
 * walk). tests/tools/fuzz_blob.c runs the consumers on what it accepts.
 * No Assimp type here.
 *
 * The layout is table-driven (blob.c, rows[]): a struct is copied as it
 * is, with each pointer field replaced by the offset of its array; every
 * pointer field of the model's structs has a row, one line each (an
 * array, a string, an array of strings or of structs, or a derived cache
 * that is not sent). A field added to model.h needs its row if it is a
 * pointer, and in any case its line in its struct's field list (blob.c:
 * the bytes no field covers are padding, which must be zero). */
#ifndef SKV_BLOB_H
#define SKV_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"

/* Serialises `model` into a malloc'd block (*bytes, *size), with `extra`
 * (a number for the caller: import_add_clips' count of clips) in its
 * header. Derived caches are not included. Returns SKV_OK or
 * SKV_ERR_MEMORY. */
skv_result blob_write(const skv_model *model, int64_t extra, unsigned char **bytes, size_t *size, skv_error *err);

/* The size blob_write would give `model`'s block; 0 if it cannot be
 * measured (memory). */
uint64_t blob_size(const skv_model *model);

/* The same block written to `fd` as it is made (the big arrays straight
 * from the model's memory). On a failed write returns an error with its
 * line and sets *error to the errno value (0: memory ran out). */
skv_result blob_write_fd(const skv_model *model, int64_t extra, int fd, int *error, skv_error *err);

/* Rebuilds the model from `bytes` (not kept) into `model` (zeroed
 * first), checks it (blob_check) and rebuilds its derived caches. On a
 * malformed block returns SKV_ERR_IMPORT with the first defect found and
 * leaves `model` empty. */
skv_result blob_read(const unsigned char *bytes, size_t size, skv_model *model, int64_t *extra, skv_error *err);

/* blob_read without copying the big vertex arrays (model.h, block):
 * `mapped` is a private, writable mapping of the block (mmap) that only
 * this process can change, `size` bytes. On success the model owns it
 * (model_free unmaps it); on failure the caller still does. Same checks,
 * same result otherwise. */
skv_result blob_adopt(void *mapped, size_t size, skv_model *model, int64_t *extra, skv_error *err);

/* The checks blob_read makes on a model as a whole, for what the
 * parent's consumers (draws.c, skin.c, morph.c, the walk, report.c,
 * output.c, the renderer) take for granted: every count non-negative and
 * within what the consumers count in ints, every range within its array,
 * every index within what it indexes (a mesh's indices within its
 * vertices, three to a triangle), nodes parent-first, one channel per
 * node as the clip's map says, slots the first of their vertex's list
 * where the lists are blended, material, texture and note values the
 * consumers know, padding zero. (The reader checks, as it reads each
 * array: its offset and count, its record's padding, strings terminated
 * at their end and at most 64 KB, floats finite, and key values, rest
 * transforms and bone offsets within the importer's 1e15.) SKV_OK, or
 * SKV_ERR_IMPORT naming the first defect. */
skv_result blob_check(const skv_model *model, skv_error *err);

/* Is the padding of every struct of `model` (the model, its meshes,
 * materials, textures, clips and their channels) zero, as blob_read
 * wants it in a block? For tests: a field missing from blob.c's field
 * lists reads as padding, and one that holds a value fails this. */
int blob_padding_clean(const skv_model *model);

#endif
