import CFFmpeg

/// An owned `AVPacket`; freed with the object.
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// A new packet referencing the same data (no copy).
    func clone() -> Packet {
        let copy = Packet()
        av_packet_ref(copy.pointer, pointer)
        return copy
    }

    func unref() { av_packet_unref(pointer) }

    /// A copy (same data) as stream `streamIndex` of `context`: times rescaled from `source` to
    /// that stream's time base, then moved `offsetMicroseconds` later (an output continuing an
    /// earlier run's timeline). What the muxers write.
    func copy(asStream streamIndex: Int, of context: UnsafeMutablePointer<AVFormatContext>, from source: AVRational,
              offsetMicroseconds: Int64) -> Packet {
        let copy = clone()
        copy.pointer.pointee.stream_index = Int32(streamIndex)
        let stream = context.pointee.streams[streamIndex]!
        av_packet_rescale_ts(copy.pointer, source, stream.pointee.time_base)
        if offsetMicroseconds != 0 {
            let offset = rescale(offsetMicroseconds, from: microsecondsTimeBase, to: stream.pointee.time_base)
            if copy.pointer.pointee.pts != FFmpeg.noPTS { copy.pointer.pointee.pts += offset }
            if copy.pointer.pointee.dts != FFmpeg.noPTS { copy.pointer.pointee.dts += offset }
        }
        return copy
    }
}

/// An owned `AVFrame`; freed with the object.
final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    func unref() { av_frame_unref(pointer) }
}
