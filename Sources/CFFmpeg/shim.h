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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
///
/// The stall watch: while `watched` is set (by the thread making the call, which is also the
/// thread FFmpeg polls the callback on), a call gives up when the destination has taken no bytes
/// for `stall_us`. Two signs, whichever is known:
/// - an RTMP connection's TCP socket: bytes wait in it and the peer has acknowledged none of them
///   for that long (its window closed). This is seen even while the kernel's send buffer still
///   takes writes, which can hold megabytes — minutes of a stream — before a write would block.
///   The clock runs across calls on one connection.
/// - otherwise: the container's output position has not moved during this call (FFmpeg hands its
///   buffer, 32 KiB at most, to the protocol as it is taken). A container without its own I/O
///   (HLS, which opens one per segment) is thus watched from the start of the call.
typedef struct TesseraInterrupt {
    atomic_int cancelled;
    _Atomic int64_t deadline_us; // 0: none; else av_gettime_relative() limit for the current call
    atomic_int stalled;          // set by the callback when the stall watch gave up
    AVFormatContext *watched;    // the stall watch's container (NULL: no watch)
    int64_t stall_us;
    int64_t watched_position;
    int64_t progress_us;         // when the watched position last moved (this call)
    AVFormatContext *socket_owner; // the container `socket_fd` was found for
    int socket_fd;               // its TCP socket (-1: none known)
    uint64_t socket_acked;       // the peer's acknowledged bytes when last looked at
    int64_t socket_progress_us;  // when they last grew (or nothing was waiting)
    int64_t socket_checked_us;
} TesseraInterrupt;

/// The TCP socket under an `rtmp://` container's I/O, or -1. The URL context and the protocol's
/// private context are reached through FFmpeg's public option tree (`av_opt_child_next`), each
/// checked by its class name; two first fields are read from private layouts that have stood
/// since FFmpeg 4 — RTMPContext's `stream` and TCPContext's `fd` right after their class — and
/// the descriptor found must be a stream socket. Anything else (rtmps, another protocol) is -1.
static inline int tessera_rtmp_socket(AVFormatContext *ctx) {
    if (!ctx || !ctx->pb) return -1;
    void *url = av_opt_child_next(ctx->pb, NULL);
    if (!url || !*(const AVClass **)url || strcmp((*(const AVClass **)url)->class_name, "URLContext") != 0) return -1;
    void *rtmp = av_opt_child_next(url, NULL);
    if (!rtmp || !*(const AVClass **)rtmp || strcmp((*(const AVClass **)rtmp)->class_name, "rtmp") != 0) return -1;
    void *stream = ((void **)rtmp)[1];
    if (!stream || !*(const AVClass **)stream || strcmp((*(const AVClass **)stream)->class_name, "URLContext") != 0) return -1;
    void *tcp = av_opt_child_next(stream, NULL);
    if (!tcp || !*(const AVClass **)tcp || strcmp((*(const AVClass **)tcp)->class_name, "tcp") != 0) return -1;
    int fd = *(int *)((char *)tcp + sizeof(void *));
    int type = 0;
    socklen_t length = sizeof type;
    if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return -1;
    return fd;
}

/// Bytes the peer acknowledged (Linux's tcp_info.tcpi_bytes_acked, at byte 120 of the kernel's
/// struct since 4.2; read raw so that no second definition of the struct meets glibc's) and
/// bytes still in the send queue. 0 when the kernel cannot say.
static inline int tessera_socket_progress(int fd, uint64_t *acked, int *queued) {
    unsigned char info[256];
    socklen_t length = sizeof info;
    memset(info, 0, sizeof info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &length) != 0 || length < 128) return 0;
    memcpy(acked, info + 120, sizeof *acked);
    if (ioctl(fd, TIOCOUTQ, queued) != 0) return 0;
    return 1;
}

static inline int tessera_interrupt_cb(void *opaque) {
    TesseraInterrupt *state = (TesseraInterrupt *)opaque;
    if (atomic_load(&state->cancelled)) return 1;
    int64_t now = av_gettime_relative();
    int64_t deadline = atomic_load(&state->deadline_us);
    if (deadline > 0 && now > deadline) return 1;
    if (!state->watched || state->stall_us <= 0) return 0;
    if (state->socket_owner == state->watched && state->socket_fd >= 0) {
        if (now - state->socket_checked_us < 50000) return 0;
        state->socket_checked_us = now;
        uint64_t acked = 0;
        int queued = 0;
        if (tessera_socket_progress(state->socket_fd, &acked, &queued)) {
            if (acked != state->socket_acked || queued == 0) {
                state->socket_acked = acked;
                state->socket_progress_us = now;
            } else if (now - state->socket_progress_us > state->stall_us) {
                atomic_store(&state->stalled, 1);
                return 1;
            }
            return 0;
        }
    }
    AVIOContext *pb = state->watched->pb;
    int64_t position = pb ? pb->pos : state->watched_position;
    if (position != state->watched_position) {
        state->watched_position = position;
        state->progress_us = now;
    } else if (now - state->progress_us > state->stall_us) {
        atomic_store(&state->stalled, 1);
        return 1;
    }
    return 0;
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
/// Starts the stall watch on `ctx` for the next call (NULL ends it); call on the thread that then
/// calls FFmpeg. A new container (a new connection) starts its socket's clock afresh.
static inline void tessera_interrupt_watch(TesseraInterrupt *state, AVFormatContext *ctx, int64_t stall_us) {
    int64_t now = av_gettime_relative();
    state->watched = ctx;
    state->stall_us = stall_us;
    state->watched_position = ctx && ctx->pb ? ctx->pb->pos : 0;
    state->progress_us = now;
    atomic_store(&state->stalled, 0);
    if (ctx && ctx != state->socket_owner) {
        state->socket_owner = ctx;
        state->socket_fd = tessera_rtmp_socket(ctx);
        state->socket_acked = 0;
        state->socket_progress_us = now;
        state->socket_checked_us = 0;
    }
}
/// Forgets the container (closed): a later one at the same address is a new connection.
static inline void tessera_interrupt_forget(TesseraInterrupt *state, AVFormatContext *ctx) {
    if (state->watched == ctx) state->watched = NULL;
    if (state->socket_owner == ctx) { state->socket_owner = NULL; state->socket_fd = -1; }
}
static inline int tessera_interrupt_stalled(TesseraInterrupt *state) { return atomic_load(&state->stalled); }

#endif
