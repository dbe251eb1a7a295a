import CFFmpeg

/// FFmpeg's `mp4` muxer writing CMAF into memory: the initialization section (`ftyp` + `moov`)
/// first, then one fragment (`moof` + `mdat`, every stream's samples since the last) each time
/// `flushFragment` is called — an LL-HLS part.
///
/// `movflags=frag_custom` leaves every cut to the caller (`av_write_frame(ctx, NULL)`), `empty_moov`
/// puts no samples in the header, `default_base_moof` makes each fragment stand alone (offsets
/// from its own `moof`), `cmaf` the brands and layout of RFC 8216bis's CMAF segments.
///
/// Threads: one thread at a time (the LL-HLS writer's).
final class CMAFFragmentWriter {
    /// Collects what the muxer writes, until taken.
    private final class Sink {
        var bytes: [UInt8] = []
    }

    private let context: UnsafeMutablePointer<AVFormatContext>
    private var io: UnsafeMutablePointer<AVIOContext>?
    private let sink = Sink()
    private let sourceTimeBases: [AVRational]
    private let startOffsetMicroseconds: Int64
    private var finished = false
    /// The header's bytes.
    private(set) var initialization: [UInt8] = []

    init(streams: [StreamDescription], startOffsetMicroseconds: Int64) throws {
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_alloc_output_context2(&allocated, nil, "mp4", nil), "cannot create a CMAF writer")
        guard let context = allocated else { throw MediaError("cannot create a CMAF writer") }
        self.context = context
        self.startOffsetMicroseconds = startOffsetMicroseconds
        sourceTimeBases = streams.map(\.timeBase)
        let size: Int32 = 64 * 1024
        // From here on `deinit` frees what was made, if a step below throws.
        guard let buffer = av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self) else { throw MediaError("out of memory") }
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        io = avio_alloc_context(buffer, size, 1, opaque, nil, { opaque, data, count in
            guard let opaque, let data, count > 0 else { return count }
            let sink = Unmanaged<Sink>.fromOpaque(opaque).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
            return count
        }, nil)
        guard io != nil else {
            av_free(buffer)
            throw MediaError("out of memory")
        }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        try StreamDescription.addStreams(streams, to: context)
        let options = OptionDictionary(["movflags": "frag_custom+empty_moov+default_base_moof+cmaf"])
        try FFmpeg.check(avformat_write_header(context, &options.pointer), "cannot write the CMAF header")
        avio_flush(io)
        initialization = sink.bytes
        sink.bytes = []
    }

    deinit {
        if let io { av_freep(&io.pointee.buffer) }
        avio_context_free(&io)
        context.pointee.pb = nil
        avformat_free_context(context)
    }

    /// Queues a copy of `packet` as stream `streamIndex` for the fragment being built.
    func write(_ packet: Packet, streamIndex: Int) throws {
        let copy = packet.copy(asStream: streamIndex, of: context, from: sourceTimeBases[streamIndex],
                               offsetMicroseconds: startOffsetMicroseconds)
        try FFmpeg.check(av_write_frame(context, copy.pointer), "cannot write a CMAF sample")
    }

    /// Ends the fragment being built: its `moof` + `mdat` (empty when nothing was queued).
    func flushFragment() throws -> [UInt8] {
        try FFmpeg.check(av_write_frame(context, nil), "cannot cut a CMAF fragment")
        avio_flush(io)
        defer { sink.bytes = [] }
        return sink.bytes
    }

    /// The last fragment; the trailer (an `mfra` index no HLS player reads) is not kept.
    func finish() throws -> [UInt8] {
        guard !finished else { return [] }
        finished = true
        let last = try flushFragment()
        _ = av_write_trailer(context)
        avio_flush(io)
        sink.bytes = []
        return last
    }
}
