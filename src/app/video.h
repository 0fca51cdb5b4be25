/* video.h - --video: frames encoded through Debian's FFmpeg libraries
 * (libavcodec, libavformat, libswscale) into one file, no external
 * process.
 *
 * The container and codec come from the file name's extension:
 *     .mp4   MPEG-4 with H.264 (libx264)
 *     .webm  WebM with VP9 (libvpx-vp9); with `alpha`, VP9's alpha plane
 *     .mkv   Matroska with H.264
 * Frames are RGBA (first row at the top, straight alpha), converted to
 * 4:2:0 Y'CbCr (BT.709, limited range, as players assume for video),
 * so the width and height must be even.
 *
 * The file goes through outfile.h: written to a temporary beside it and
 * renamed over it only once complete, so a full disk or a failed encoder
 * leaves the old file as it was.
 *
 * Usage:
 *     skv_video v;
 *     r = video_begin(&v, "clip.mp4", 800, 600, 30.0, 0, &err);
 *     for each frame: r = video_frame(&v, rgba, &err);
 *     r = video_end(&v, "clip.mp4", r != SKV_OK, &err);   (always, also after a failure)
 * Nothing here prints: FFmpeg's own log lines are held back, the last
 * error among them goes into the one line of `err`. */
#ifndef SKV_VIDEO_H
#define SKV_VIDEO_H

#include "error.h"
#include "outfile.h"

/* The encoder's state behind a pointer: FFmpeg's types stay in video.c. */
typedef struct skv_video_codec skv_video_codec;

typedef struct skv_video {
    skv_outfile out;
    const char *path; /* as given to video_begin */
    skv_video_codec *codec;
    int width, height;
    long frames; /* frames handed to the encoder */
    const char *codec_name; /* "H.264", "VP9", "VP9 with alpha" */
} skv_video;

/* Is `path` a name video_begin writes (.mp4, .webm, .mkv, any case)? */
int video_path_ok(const char *path);
/* Does the format of `path` keep an alpha channel (.webm)? */
int video_path_has_alpha(const char *path);

/* Opens the temporary, the muxer and the encoder. `alpha`: keep the
 * frames' alpha (only .webm). SKV_ERR_ARGUMENT for a name, size or alpha
 * the format cannot take, SKV_ERR_OUTPUT when the file or the encoder
 * cannot be opened, SKV_ERR_MEMORY. On failure nothing is left to end. */
skv_result video_begin(skv_video *video, const char *path, int width, int height, double fps, int alpha,
                       skv_error *err);
/* Encodes one frame: width*height*4 bytes of RGBA. */
skv_result video_frame(skv_video *video, const unsigned char *rgba, skv_error *err);
/* Drains the encoder, finishes the container and renames the file over
 * `path`; after a failure (`failed`) drops it instead, leaving any old
 * file as it was. Frees everything either way. */
skv_result video_end(skv_video *video, const char *path, int failed, skv_error *err);

/* The FFmpeg libraries' versions, "libavcodec 59.37.100, ...". */
const char *video_library_versions(void);

#endif
