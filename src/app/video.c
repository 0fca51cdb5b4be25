/* video.c - frames into an H.264 or VP9 video through libavcodec and
 * libavformat, written through outfile.h.
 *
 * FFmpeg's libraries are opened (dlopen) when the first video is begun,
 * not linked: linked, they and the 120 libraries they pull in (every
 * codec Debian builds in) were loaded by every run of skinview, 40 ms
 * before it did anything, and mapped into the guarded import's child. Each
 * function is called through a pointer of the type its header declares,
 * from the library of the major version the headers are of. */
#include "video.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

/* The libraries by soname, of the versions compiled against. */
#define SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)
#define AV_LIBRARIES(X)                                  \
    X(avutil, SONAME("avutil", LIBAVUTIL_VERSION_MAJOR)) \
    X(swscale, SONAME("swscale", LIBSWSCALE_VERSION_MAJOR)) \
    X(avcodec, SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR)) \
    X(avformat, SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR))

/* Every function used, and its library. */
#define AV_FUNCTIONS(X)                                                                                      \
    X(avutil, av_log_set_callback) X(avutil, av_strerror) X(avutil, av_malloc) X(avutil, av_free)             \
    X(avutil, av_freep) X(avutil, av_frame_alloc) X(avutil, av_frame_free) X(avutil, av_frame_get_buffer)     \
    X(avutil, av_frame_make_writable) X(avutil, av_dict_set) X(avutil, av_dict_free) X(avutil, av_d2q)        \
    X(swscale, sws_getContext) X(swscale, sws_freeContext) X(swscale, sws_setColorspaceDetails)               \
    X(swscale, sws_getCoefficients) X(swscale, sws_scale) X(swscale, swscale_version)                        \
    X(avcodec, avcodec_find_encoder_by_name) X(avcodec, avcodec_find_encoder) X(avcodec, avcodec_alloc_context3) \
    X(avcodec, avcodec_free_context) X(avcodec, avcodec_open2) X(avcodec, avcodec_parameters_from_context)   \
    X(avcodec, avcodec_send_frame) X(avcodec, avcodec_receive_packet) X(avcodec, av_packet_alloc)            \
    X(avcodec, av_packet_free) X(avcodec, av_packet_rescale_ts) X(avcodec, avcodec_version)                  \
    X(avformat, avformat_alloc_output_context2) X(avformat, avformat_new_stream)                             \
    X(avformat, avio_alloc_context) X(avformat, avio_context_free) X(avformat, avformat_free_context)         \
    X(avformat, avformat_write_header) X(avformat, av_interleaved_write_frame) X(avformat, av_write_trailer)  \
    X(avformat, avio_flush) X(avformat, avformat_version)

typedef struct av_api {
#define AV_FIELD(library, name) __typeof__(name) *name;
    AV_FUNCTIONS(AV_FIELD)
#undef AV_FIELD
} av_api;

static av_api av;
/* 1 loaded, -1 failed (why in load_error), 0 not tried. Opened once and
 * kept to the end of the process: encoders leave threads and state that
 * unloading would pull from under them. */
static int av_state;
static char load_error[300];

static int av_load(void)
{
    if (av_state) return av_state;
    void *handles[4] = {NULL};
    const char *sonames[4];
    int k = 0;
#define AV_OPEN(library, soname) sonames[k++] = soname;
    AV_LIBRARIES(AV_OPEN)
#undef AV_OPEN
    for (k = 0; k < 4; k++) {
        handles[k] = dlopen(sonames[k], RTLD_NOW | RTLD_LOCAL);
        if (!handles[k]) {
            snprintf(load_error, sizeof load_error, "FFmpeg's %s is not there (%s); Debian's libavcodec%d, "
                     "libavformat%d and libswscale%d packages have them", sonames[k], dlerror(),
                     LIBAVCODEC_VERSION_MAJOR, LIBAVFORMAT_VERSION_MAJOR, LIBSWSCALE_VERSION_MAJOR);
            return av_state = -1;
        }
    }
    enum { avutil, swscale, avcodec, avformat };
#define AV_LOOKUP(library, name)                                                                                   \
    *(void **)&av.name = dlsym(handles[library], #name);                                                        \
    if (!av.name) {                                                                                              \
        snprintf(load_error, sizeof load_error, "%s has no %s", sonames[library], #name);                        \
        return av_state = -1;                                                                                    \
    }
    AV_FUNCTIONS(AV_LOOKUP)
#undef AV_LOOKUP
    return av_state = 1;
}

/* libavformat 61 (FFmpeg 7) made the written buffer const. */
#if LIBAVFORMAT_VERSION_MAJOR >= 61
#define SKV_AVIO_CONST const
#else
#define SKV_AVIO_CONST
#endif

/* The muxer writes through this much buffer into the outfile. */
#define IO_BUFFER_SIZE (64 * 1024)

struct skv_video_codec {
    AVFormatContext *format;
    AVCodecContext *encoder;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *scale;
    AVIOContext *io;
    FILE *file;     /* the outfile's temporary */
    int io_errno;   /* the first failed write's errno */
    int header_written;
};

typedef struct video_format {
    const char *extension;
    const char *muxer;       /* libavformat's short name */
    const char *encoder;     /* libavcodec's encoder */
    enum AVCodecID codec_id; /* any encoder of it, when that one is missing */
    const char *codec_name;  /* for the user */
    int alpha;               /* the codec keeps alpha (yuva420p) */
} video_format;

static const video_format video_formats[] = {
    {"mp4", "mp4", "libx264", AV_CODEC_ID_H264, "H.264", 0},
    {"webm", "webm", "libvpx-vp9", AV_CODEC_ID_VP9, "VP9", 1},
    {"mkv", "matroska", "libx264", AV_CODEC_ID_H264, "H.264", 0},
};

static const video_format *format_of(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/')) return NULL;
    for (size_t k = 0; k < sizeof video_formats / sizeof video_formats[0]; k++)
        if (strcasecmp(dot + 1, video_formats[k].extension) == 0) return &video_formats[k];
    return NULL;
}

int video_path_ok(const char *path)
{
    return format_of(path) != NULL;
}

int video_path_has_alpha(const char *path)
{
    const video_format *f = format_of(path);
    return f && f->alpha;
}

/* FFmpeg logs through av_log, from the encoders' threads too: held back
 * (only main prints), the last error kept for the one line. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_log[256];

static void keep_log(void *context, int level, const char *fmt, va_list args)
{
    (void)context;
    if (level > AV_LOG_ERROR) return;
    pthread_mutex_lock(&log_lock);
    vsnprintf(last_log, sizeof last_log, fmt, args);
    size_t n = strlen(last_log);
    while (n > 0 && (last_log[n - 1] == '\n' || last_log[n - 1] == ' ')) last_log[--n] = '\0';
    pthread_mutex_unlock(&log_lock);
}

/* One line for an FFmpeg failure: what failed, FFmpeg's reason, its last
 * logged error when there was one. */
static skv_result fail_av(skv_error *err, skv_result kind, const char *path, const char *what, int code)
{
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    av.av_strerror(code, reason, sizeof reason);
    pthread_mutex_lock(&log_lock);
    char logged[sizeof last_log];
    snprintf(logged, sizeof logged, "%s", last_log);
    last_log[0] = '\0';
    pthread_mutex_unlock(&log_lock);
    if (logged[0]) return skv_fail(err, kind, "cannot write %s: %s: %s (%s)", path, what, reason, logged);
    return skv_fail(err, kind, "cannot write %s: %s: %s", path, what, reason);
}

/* The muxer's writes and seeks, on the outfile's FILE: every failure is
 * kept (errno) for the one line, and outfile_commit sees it too. */
static int write_packet(void *opaque, SKV_AVIO_CONST uint8_t *bytes, int count)
{
    skv_video_codec *c = opaque;
    if (c->io_errno) return AVERROR(c->io_errno);
    errno = 0;
    if (fwrite(bytes, 1, (size_t)count, c->file) != (size_t)count || fflush(c->file) != 0) {
        c->io_errno = errno ? errno : EIO;
        return AVERROR(c->io_errno);
    }
    return count;
}

static int64_t seek_file(void *opaque, int64_t offset, int whence)
{
    skv_video_codec *c = opaque;
    if (whence & AVSEEK_SIZE) {
        struct stat st;
        return fstat(fileno(c->file), &st) == 0 ? (int64_t)st.st_size : AVERROR(errno);
    }
    whence &= ~AVSEEK_FORCE;
    if (fseeko(c->file, (off_t)offset, whence) != 0) return AVERROR(errno);
    return (int64_t)ftello(c->file);
}

static void codec_free(skv_video_codec *c)
{
    if (!c) return;
    if (c->io) {
        av.av_freep(&c->io->buffer);
        av.avio_context_free(&c->io);
    }
    if (c->format) {
        c->format->pb = NULL;
        av.avformat_free_context(c->format);
    }
    av.avcodec_free_context(&c->encoder);
    av.av_frame_free(&c->frame);
    av.av_packet_free(&c->packet);
    av.sws_freeContext(c->scale);
    free(c);
}

/* The encoder's settings: quality-driven rates that keep flat renders
 * sharp; VP9 at a speed that keeps pace with the renderer. */
static void encoder_options(const video_format *f, AVDictionary **options)
{
    if (f->codec_id == AV_CODEC_ID_H264) {
        av.av_dict_set(options, "preset", "medium", 0);
        av.av_dict_set(options, "crf", "20", 0);
    } else {
        av.av_dict_set(options, "crf", "32", 0);
        av.av_dict_set(options, "b", "0", 0);
        av.av_dict_set(options, "deadline", "good", 0);
        av.av_dict_set(options, "cpu-used", "4", 0);
        av.av_dict_set(options, "row-mt", "1", 0);
    }
}

skv_result video_begin(skv_video *video, const char *path, int width, int height, double fps, int alpha,
                       skv_error *err)
{
    memset(video, 0, sizeof *video);
    const video_format *f = format_of(path);
    if (!f) return skv_fail(err, SKV_ERR_ARGUMENT, "%s: a video is .mp4, .webm or .mkv", path);
    if (alpha && !f->alpha) return skv_fail(err, SKV_ERR_ARGUMENT, "%s: %s has no alpha channel", path, f->codec_name);
    if (width < 2 || height < 2 || width % 2 || height % 2)
        return skv_fail(err, SKV_ERR_ARGUMENT, "%s: a video needs an even width and height, not %dx%d", path, width,
                        height);
    if (!(fps > 0.0)) fps = 30.0;
    if (av_load() < 0) return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, load_error);
    av.av_log_set_callback(keep_log);

    const AVCodec *encoder = av.avcodec_find_encoder_by_name(f->encoder);
    if (!encoder) encoder = av.avcodec_find_encoder(f->codec_id);
    if (!encoder)
        return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: this FFmpeg has no %s encoder", path, f->codec_name);
    skv_video_codec *c = calloc(1, sizeof *c);
    if (!c) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    skv_result r = outfile_open(&video->out, path, err);
    if (r != SKV_OK) {
        free(c);
        return r;
    }
    c->file = video->out.file;
    enum AVPixelFormat pixels = alpha ? AV_PIX_FMT_YUVA420P : AV_PIX_FMT_YUV420P;
    AVRational rate = av.av_d2q(fps, 1001000);
    int code = av.avformat_alloc_output_context2(&c->format, NULL, f->muxer, NULL);
    if (code < 0 || !c->format) {
        r = fail_av(err, SKV_ERR_OUTPUT, path, "the container", code < 0 ? code : AVERROR(ENOMEM));
        goto failed;
    }
    c->stream = av.avformat_new_stream(c->format, NULL);
    c->encoder = av.avcodec_alloc_context3(encoder);
    c->frame = av.av_frame_alloc();
    c->packet = av.av_packet_alloc();
    unsigned char *buffer = av.av_malloc(IO_BUFFER_SIZE);
    c->io = buffer ? av.avio_alloc_context(buffer, IO_BUFFER_SIZE, 1, c, NULL, write_packet, seek_file) : NULL;
    if (!c->io) av.av_free(buffer);
    c->scale = av.sws_getContext(width, height, AV_PIX_FMT_RGBA, width, height, pixels, SWS_BICUBIC | SWS_ACCURATE_RND,
                              NULL, NULL, NULL);
    if (!c->stream || !c->encoder || !c->frame || !c->packet || !c->io || !c->scale) {
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        goto failed;
    }
    /* Renders hold sRGB in full range; video wants BT.709 in limited range. */
    av.sws_setColorspaceDetails(c->scale, av.sws_getCoefficients(SWS_CS_ITU709), 1, av.sws_getCoefficients(SWS_CS_ITU709), 0,
                             0, 1 << 16, 1 << 16);
    AVCodecContext *e = c->encoder;
    e->width = width;
    e->height = height;
    e->pix_fmt = pixels;
    e->time_base = av_inv_q(rate);
    e->framerate = rate;
    e->color_range = AVCOL_RANGE_MPEG;
    e->colorspace = AVCOL_SPC_BT709;
    e->color_primaries = AVCOL_PRI_BT709;
    e->color_trc = AVCOL_TRC_BT709;
    e->thread_count = 0; /* the encoder's choice */
    if (c->format->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *options = NULL;
    encoder_options(f, &options);
    code = av.avcodec_open2(e, encoder, &options);
    av.av_dict_free(&options);
    if (code < 0) {
        r = fail_av(err, SKV_ERR_OUTPUT, path, "the encoder", code);
        goto failed;
    }
    code = av.avcodec_parameters_from_context(c->stream->codecpar, e);
    if (code < 0) {
        r = fail_av(err, SKV_ERR_OUTPUT, path, "the stream", code);
        goto failed;
    }
    c->stream->time_base = e->time_base;
    c->stream->avg_frame_rate = rate;
    c->format->pb = c->io;
    c->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    c->frame->format = pixels;
    c->frame->width = width;
    c->frame->height = height;
    code = av.av_frame_get_buffer(c->frame, 0);
    if (code < 0) {
        r = skv_fail(err, SKV_ERR_MEMORY, "out of memory");
        goto failed;
    }
    code = av.avformat_write_header(c->format, NULL);
    if (code < 0) {
        r = c->io_errno ? skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, strerror(c->io_errno))
                        : fail_av(err, SKV_ERR_OUTPUT, path, "the header", code);
        goto failed;
    }
    c->header_written = 1;
    video->codec = c;
    video->path = path;
    video->width = width, video->height = height;
    video->codec_name = alpha ? "VP9 with alpha" : f->codec_name;
    return SKV_OK;
failed:
    codec_free(c);
    outfile_discard(&video->out);
    memset(video, 0, sizeof *video);
    return r;
}

/* Hands `frame` (NULL: the end) to the encoder and writes every packet it
 * gives back. */
static skv_result encode(skv_video *video, AVFrame *frame, const char *path, skv_error *err)
{
    skv_video_codec *c = video->codec;
    int code = av.avcodec_send_frame(c->encoder, frame);
    if (code < 0) return fail_av(err, SKV_ERR_OUTPUT, path, "encoding", code);
    for (;;) {
        code = av.avcodec_receive_packet(c->encoder, c->packet);
        if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return SKV_OK;
        if (code < 0) return fail_av(err, SKV_ERR_OUTPUT, path, "encoding", code);
        av.av_packet_rescale_ts(c->packet, c->encoder->time_base, c->stream->time_base);
        c->packet->stream_index = c->stream->index;
        code = av.av_interleaved_write_frame(c->format, c->packet); /* takes the packet's data */
        if (code < 0) {
            if (c->io_errno) return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, strerror(c->io_errno));
            return fail_av(err, SKV_ERR_OUTPUT, path, "writing", code);
        }
    }
}

skv_result video_frame(skv_video *video, const unsigned char *rgba, skv_error *err)
{
    skv_video_codec *c = video->codec;
    const char *path = video->path ? video->path : "the video";
    if (!c) return skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: not open", path);
    int code = av.av_frame_make_writable(c->frame);
    if (code < 0) return skv_fail(err, SKV_ERR_MEMORY, "out of memory");
    const uint8_t *planes[1] = {rgba};
    const int strides[1] = {video->width * 4};
    av.sws_scale(c->scale, planes, strides, 0, video->height, c->frame->data, c->frame->linesize);
    c->frame->pts = video->frames++;
    return encode(video, c->frame, path, err);
}

skv_result video_end(skv_video *video, const char *path, int failed, skv_error *err)
{
    skv_video_codec *c = video->codec;
    skv_result r = SKV_OK;
    if (c && !failed) {
        r = encode(video, NULL, path, err); /* the frames the encoder still holds */
        if (r == SKV_OK) {
            int code = av.av_write_trailer(c->format);
            av.avio_flush(c->io);
            if (c->io_errno) r = skv_fail(err, SKV_ERR_OUTPUT, "cannot write %s: %s", path, strerror(c->io_errno));
            else if (code < 0) r = fail_av(err, SKV_ERR_OUTPUT, path, "the trailer", code);
        }
    }
    codec_free(c);
    video->codec = NULL;
    if (video->out.file) {
        if (c && !failed && r == SKV_OK) r = outfile_commit(&video->out, path, err);
        else outfile_discard(&video->out); /* the old file, if any, stays */
    }
    memset(video, 0, sizeof *video);
    return r;
}

const char *video_library_versions(void)
{
    static char text[320];
    if (av_load() < 0) return load_error;
    unsigned codec = av.avcodec_version(), format = av.avformat_version(), scale = av.swscale_version();
    snprintf(text, sizeof text, "libavcodec %u.%u.%u, libavformat %u.%u.%u, libswscale %u.%u.%u",
             AV_VERSION_MAJOR(codec), AV_VERSION_MINOR(codec), AV_VERSION_MICRO(codec), AV_VERSION_MAJOR(format),
             AV_VERSION_MINOR(format), AV_VERSION_MICRO(format), AV_VERSION_MAJOR(scale), AV_VERSION_MINOR(scale),
             AV_VERSION_MICRO(scale));
    return text;
}
