/* frame_writer.h - frames written on a thread of their own while the
 * next one is drawn.
 *
 * A headless run of many frames (--frames, --gif, --video) spends much
 * of each frame encoding it (PNG, GIF, the video codec) while the GPU,
 * or llvmpipe's threads, could be drawing the next. The writer holds two
 * frame buffers: the caller fills one (frame_writer_next) and hands it
 * over (frame_writer_submit); the writer's thread passes it to `write`
 * in the order handed over, while the caller fills the other. A frame
 * whose write fails stops the writing: no later frame is written, and
 * the failure comes back from the next submit or from
 * frame_writer_finish. Without a thread (asked for, or none could be
 * started), submit writes the frame itself. */
#ifndef SKV_FRAME_WRITER_H
#define SKV_FRAME_WRITER_H

#include <stddef.h>

#include "error.h"

/* Writes frame `index` (its pixels in `rgba`, frame_bytes long, which the
 * call may change); called on the writer's thread, one frame at a time. */
typedef skv_result (*skv_frame_write)(void *user, int index, unsigned char *rgba, skv_error *err);

typedef struct skv_frame_writer skv_frame_writer;

/* `threaded` 0: no thread, each frame written in its hand-over (writes
 * that fork a child, such as --ref's sandboxed image import, must not run
 * beside the caller's work: the child would inherit locks another thread
 * holds, the sanitizers' allocators' among them). SKV_ERR_MEMORY when
 * memory for the buffers runs out. */
skv_result frame_writer_create(skv_frame_writer **writer, size_t frame_bytes, skv_frame_write write, void *user,
                               int threaded, skv_error *err);
/* The buffer to fill with the next frame, once the writer no longer
 * reads it (waits for that). */
unsigned char *frame_writer_next(skv_frame_writer *writer);
/* Hands the buffer frame_writer_next gave over as frame `index`. An
 * earlier frame's failure is returned instead (err filled as its write
 * filled it), and this frame is not written; without a thread, this
 * frame's own failure. */
skv_result frame_writer_submit(skv_frame_writer *writer, int index, skv_error *err);
/* Waits until every frame handed over is written; the first failure. */
skv_result frame_writer_finish(skv_frame_writer *writer, skv_error *err);
/* Waits for the frames handed over (their failure is the caller's to
 * have asked for) and frees the writer; NULL is fine. */
void frame_writer_destroy(skv_frame_writer *writer);

#endif
