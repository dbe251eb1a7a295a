import CFFmpeg
import TesseraCore

/// One output container (file or network) fed with the shared encoders' packets.
final class Muxer {
    private let context: UnsafeMutablePointer<AVFormatContext>
    /// Encoder time base per output stream, in the order the streams were added.
    private let sourceTimeBases: [AVRational]
    /// Added to every timestamp so none is negative (see `OutputSet.startOffsetMicroseconds`).
    private let startOffsetMicroseconds: Int64
    private var headerWritten = false
    private var trailerWritten = false
    let interrupt: InterruptFlag

    /// Creates the container, its streams (from the encoders' `streams`) and opens `url` for writing.
    /// `protocols` is FFmpeg's whitelist for this open.
    init(url: String, formatName: String, streams: [StreamDescription], startOffsetMicroseconds: Int64 = 0,
         options: [String: String] = [:], protocols: String, interrupt: InterruptFlag,
         openTimeoutSeconds: Double? = 10) throws {
        self.interrupt = interrupt
        self.startOffsetMicroseconds = startOffsetMicroseconds
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpeg.check(avformat_alloc_output_context2(&allocated, nil, formatName, url), "cannot create a \(formatName) output")
        guard let context = allocated else { throw MediaError("cannot create a \(formatName) output") }
        self.context = context
        sourceTimeBases = streams.map(\.timeBase)
        context.pointee.interrupt_callback = interrupt.callback
        for description in streams {
            guard let stream = avformat_new_stream(context, nil) else { throw MediaError("out of memory") }
            try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, description.parameters), "stream parameters")
            stream.pointee.time_base = description.timeBase
            if description.isVideo, description.frameRate.num > 0 {
                stream.pointee.avg_frame_rate = description.frameRate
                stream.pointee.r_frame_rate = description.frameRate
            }
        }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            interrupt.setDeadline(secondsFromNow: openTimeoutSeconds)
            defer { interrupt.setDeadline(secondsFromNow: nil) }
            var callback = interrupt.callback
            let whitelist = OptionDictionary(["protocol_whitelist": protocols])
            try FFmpeg.check(avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, &whitelist.pointer),
                             "cannot open for writing")
        }
        let muxerOptions = OptionDictionary(options)
        try FFmpeg.check(avformat_write_header(context, &muxerOptions.pointer), "cannot write the container header")
        headerWritten = true
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Muxer whose format wants codec headers out of band (MP4, FLV, Matroska).
    static func needsGlobalHeader(formatName: String) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Writes a copy of `packet` as stream `streamIndex`, rescaled from its encoder's time base
    /// to the stream's (which `avformat_write_header` may have changed).
    func write(_ packet: Packet, streamIndex: Int) throws {
        let copy = packet.clone()
        copy.pointer.pointee.stream_index = Int32(streamIndex)
        let stream = context.pointee.streams[streamIndex]!
        av_packet_rescale_ts(copy.pointer, sourceTimeBases[streamIndex], stream.pointee.time_base)
        if startOffsetMicroseconds != 0 {
            let offset = rescale(startOffsetMicroseconds, from: microsecondsTimeBase, to: stream.pointee.time_base)
            if copy.pointer.pointee.pts != FFmpeg.noPTS { copy.pointer.pointee.pts += offset }
            if copy.pointer.pointee.dts != FFmpeg.noPTS { copy.pointer.pointee.dts += offset }
        }
        try FFmpeg.check(av_interleaved_write_frame(context, copy.pointer), "cannot write")
    }

    /// Flushes interleaving queues and writes the trailer (the MP4 index, FLV duration).
    func finish() throws {
        guard headerWritten, !trailerWritten else { return }
        trailerWritten = true
        try FFmpeg.check(av_write_trailer(context), "cannot finish the container")
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
    }
}
