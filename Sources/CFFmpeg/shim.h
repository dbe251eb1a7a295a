// The one C header Swift sees. It includes the FFmpeg headers Tessera uses and gives Swift
// small inline functions for the macros it cannot import (AVERROR(e), AVERROR_EOF, ...).
#ifndef TESSERA_CFFMPEG_SHIM_H
#define TESSERA_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* An eventfd that a thread waiting in poll() can be woken through (-1 if none could be made). */
static inline int tessera_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
static inline void tessera_eventfd_signal(int fd) { uint64_t one = 1; (void)!write(fd, &one, sizeof one); }

static inline int tessera_averror(int e) { return AVERROR(e); }
static inline int tessera_averror_eof(void) { return AVERROR_EOF; }
static inline int tessera_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int tessera_averror_exit(void) { return AVERROR_EXIT; }
static inline int tessera_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
/// errno is a macro over a thread-local that Swift cannot import.
static inline int tessera_errno(void) { return errno; }
static inline int64_t tessera_nopts(void) { return AV_NOPTS_VALUE; }
static inline AVRational tessera_time_base_q(void) { return AV_TIME_BASE_Q; }

/// FFmpeg's error text for a code (av_err2str is a macro over a compound literal).
static inline void tessera_error_text(int code, char *buffer, size_t size) {
    if (av_strerror(code, buffer, size) < 0) snprintf(buffer, size, "error %d", code);
}

/// Points every AVFrame data pointer at the caller's planes; Swift sees `data` as a tuple.
static inline uint8_t *tessera_frame_plane(const AVFrame *frame, int plane) { return frame->data[plane]; }
static inline int tessera_frame_linesize(const AVFrame *frame, int plane) { return frame->linesize[plane]; }
static inline const uint8_t **tessera_frame_extended_data(const AVFrame *frame) {
    return (const uint8_t **)frame->extended_data;
}
static inline void tessera_frame_set_plane(AVFrame *frame, int plane, uint8_t *data, int linesize) {
    frame->data[plane] = data;
    frame->linesize[plane] = linesize;
}
static inline uint8_t **tessera_frame_extended_data_mut(AVFrame *frame) { return frame->extended_data; }
/* Hands the frame a reference to the memory its planes live in (so FFmpeg refs it, not copies). */
static inline void tessera_frame_set_buffer(AVFrame *frame, AVBufferRef *buffer) { frame->buf[0] = buffer; }

/// av_log's callback takes a va_list that Swift cannot capture: the message is formatted here
/// (at or above the level set here only) and handed to Swift's sink with FFmpeg's level and the
/// name of the context that logged it (`tcp`, `rtmp`, `libx264`), so it goes through Tessera's
/// logger with the task's id — never raw to standard error.
typedef void (*tessera_log_sink_fn)(int level, const char *component, const char *message);
static int tessera_log_level = AV_LOG_ERROR;
static tessera_log_sink_fn tessera_log_sink = NULL;
static inline void tessera_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    level &= 0xff; // the bits above are colour hints
    if (level > tessera_log_level || tessera_log_sink == NULL) return;
    char line[1024];
    int print_prefix = 0; // no "[tcp @ 0x...]": the component goes separately
    av_log_format_line(avcl, level, fmt, vl, line, sizeof(line), &print_prefix);
    const char *component = NULL;
    if (avcl) {
        const AVClass *avc = *(const AVClass **)avcl;
        if (avc) component = avc->item_name ? avc->item_name(avcl) : avc->class_name;
    }
    tessera_log_sink(level, component, line);
}
static inline void tessera_install_log_callback(int level, tessera_log_sink_fn sink) {
    tessera_log_level = level;
    tessera_log_sink = sink;
    av_log_set_level(level);
    av_log_set_callback(tessera_log_callback);
}

/// An interrupt flag and deadline shared with FFmpeg's blocking calls: FFmpeg polls the callback,
/// so a dead peer or a cancelled task never holds a thread for good.
typedef struct TesseraInterrupt {
    atomic_int cancelled;
    _Atomic int64_t deadline_us; // 0: none; else av_gettime_relative() limit for the current call
} TesseraInterrupt;

static inline int tessera_interrupt_cb(void *opaque) {
    TesseraInterrupt *state = (TesseraInterrupt *)opaque;
    if (atomic_load(&state->cancelled)) return 1;
    int64_t deadline = atomic_load(&state->deadline_us);
    return deadline > 0 && av_gettime_relative() > deadline;
}
static inline void tessera_set_interrupt(AVFormatContext *ctx, TesseraInterrupt *state) {
    ctx->interrupt_callback.callback = tessera_interrupt_cb;
    ctx->interrupt_callback.opaque = state;
}
static inline AVIOInterruptCB tessera_make_interrupt(TesseraInterrupt *state) {
    AVIOInterruptCB cb = { tessera_interrupt_cb, state };
    return cb;
}
static inline void tessera_interrupt_cancel(TesseraInterrupt *state) { atomic_store(&state->cancelled, 1); }
static inline void tessera_interrupt_set_deadline(TesseraInterrupt *state, int64_t deadline_us) {
    atomic_store(&state->deadline_us, deadline_us);
}
static inline int tessera_interrupt_is_cancelled(TesseraInterrupt *state) { return atomic_load(&state->cancelled); }

#endif
