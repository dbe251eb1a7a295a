import CFFmpeg

/// An opened decoder for one stream.
final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let timeBase: AVRational

    init(stream: UnsafeMutablePointer<AVStream>, threads: Int) throws {
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw MediaError("no decoder for codec \(name)")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError("out of memory") }
        self.context = context
        timeBase = stream.pointee.time_base
        try FFmpeg.check(avcodec_parameters_to_context(context, parameters), "cannot configure decoder")
        context.pointee.pkt_timebase = stream.pointee.time_base
        context.pointee.thread_count = Int32(threads)
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        try FFmpeg.check(avcodec_open2(context, codec, nil),
                         "cannot open decoder \(String(cString: codec.pointee.name))")
    }

    /// Takes ownership of an opened context.
    init(openedContext: UnsafeMutablePointer<AVCodecContext>, timeBase: AVRational) {
        context = openedContext
        self.timeBase = timeBase
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&toFree)
    }

    var codecName: String { String(cString: avcodec_get_name(context.pointee.codec_id)) }

    /// Sends `packet` (nil drains) and hands every frame it yields to `deliver`, into `frame`;
    /// stops early (returning false) when `deliver` does. The one send/receive loop of every input:
    /// a full decoder (EAGAIN) wants frames read first, and reading them then frees room.
    func decode(_ packet: Packet?, into frame: Frame, deliver: (Frame) throws -> Bool) throws -> Bool {
        var sent = try send(packet)
        while true {
            while try receive(into: frame) {
                if !(try deliver(frame)) { return false }
            }
            if sent { return true }
            sent = try send(packet)
        }
    }

    /// Sends a packet, or nil to drain. Returns false when the decoder wants frames read first.
    private func send(_ packet: Packet?) throws -> Bool {
        let code = avcodec_send_packet(context, packet?.pointer)
        if code == FFmpeg.again { return false }
        if code == FFmpeg.eof { return true }
        if code < 0 { throw MediaError("decode failed", code: code) }
        return true
    }

    /// Receives the next decoded frame; false when none is ready (or the decoder is drained).
    private func receive(into frame: Frame) throws -> Bool {
        frame.unref()
        let code = avcodec_receive_frame(context, frame.pointer)
        if code == FFmpeg.again || code == FFmpeg.eof { return false }
        if code < 0 { throw MediaError("decode failed", code: code) }
        return true
    }

    /// Forgets buffered state after a seek (for `loop`).
    func flush() { avcodec_flush_buffers(context) }
}
