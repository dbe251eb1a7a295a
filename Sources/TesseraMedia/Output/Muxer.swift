import CFFmpeg

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
    /// Network outputs: how long closing may take (a last flush to a peer that stopped reading
    /// would otherwise wait for ever). Nil for files, whose writes are never cut short.
    private let closeTimeoutSeconds: Double?
    /// Installed on the context before the header (an HLS run's playlist rewriting), kept as long.
    private let attachment: MuxerAttachment?

    /// Creates the container, its streams (from the encoders' `streams`) and opens `url` for writing.
    /// `protocols` is FFmpeg's whitelist for this open.
    init(url: String, formatName: String, streams: [StreamDescription], startOffsetMicroseconds: Int64 = 0,
         options: [String: String] = [:], protocols: String, interrupt: InterruptFlag,
         openTimeoutSeconds: Double? = 10, closeTimeoutSeconds: Double? = nil, attachment: MuxerAttachment? = nil) throws {
        self.interrupt = interrupt
        self.attachment = attachment
        self.closeTimeoutSeconds = closeTimeoutSeconds
        self.startOffsetMicroseconds = startOffsetMicroseconds
        var allocated: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpeg.check(avformat_alloc_output_context2(&allocated, nil, formatName, url), "cannot create a \(formatName) output")
        guard let context = allocated else { throw MediaError("cannot create a \(formatName) output") }
        self.context = context
        sourceTimeBases = streams.map(\.timeBase)
        context.pointee.interrupt_callback = interrupt.callback
        try StreamDescription.addStreams(streams, to: context)
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            interrupt.setDeadline(secondsFromNow: openTimeoutSeconds)
            defer { interrupt.setDeadline(secondsFromNow: nil) }
            var callback = interrupt.callback
            let whitelist = OptionDictionary(["protocol_whitelist": protocols])
            try FFmpeg.check(avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, &whitelist.pointer),
                             "cannot open for writing")
        }
        attachment?.attach(to: context)
        let muxerOptions = OptionDictionary(options)
        // A muxer that opens its own connections (HLS over HTTP: the first segment's PUT, the old
        // playlist's GET) does so in the header write: bounded like an open, so an origin that
        // takes the connection and never answers is a failed open, retried, not a task that
        // waits for ever in `connecting`.
        let opensItsOwn = context.pointee.oformat.pointee.flags & AVFMT_NOFILE != 0 && closeTimeoutSeconds != nil
        if opensItsOwn { interrupt.setDeadline(secondsFromNow: openTimeoutSeconds) }
        defer { if opensItsOwn { interrupt.setDeadline(secondsFromNow: nil) } }
        try FFmpeg.check(avformat_write_header(context, &muxerOptions.pointer), "cannot write the container header")
        headerWritten = true
    }

    deinit {
        closeIO(timeoutSeconds: closeTimeoutSeconds)
        interrupt.forget(context)
        avformat_free_context(context)
    }

    /// Closes the connection or file (a network one within `seconds`; nil waits as long as it takes).
    private func closeIO(timeoutSeconds seconds: Double?) {
        guard context.pointee.pb != nil else { return }
        guard let seconds else {
            avio_closep(&context.pointee.pb)
            return
        }
        interrupt.setDeadline(secondsFromNow: seconds)
        avio_closep(&context.pointee.pb)
        interrupt.setDeadline(secondsFromNow: nil)
    }

    /// Drops a network connection without waiting on its peer: whatever is unsent stays unsent,
    /// and the close sends nothing more (a peer that stopped reading would hold it for ever).
    func abandon() {
        guard context.pointee.pb != nil else { return }
        interrupt.expire()
        avio_closep(&context.pointee.pb)
        interrupt.setDeadline(secondsFromNow: nil)
    }

    /// Muxer whose format wants codec headers out of band (MP4, FLV, Matroska).
    static func needsGlobalHeader(formatName: String) -> Bool {
        guard let format = av_guess_format(formatName, nil, nil) else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Writes a copy of `packet` as stream `streamIndex`, rescaled from its encoder's time base
    /// to the stream's (which `avformat_write_header` may have changed).
    ///
    /// `stallSeconds`: a network output gives up with `OutputStall` once its destination has taken
    /// no bytes for that long during the write (nil: no watch, as for files).
    func write(_ packet: Packet, streamIndex: Int, stallSeconds: Double? = nil) throws {
        let copy = packet.copy(asStream: streamIndex, of: context, from: sourceTimeBases[streamIndex],
                               offsetMicroseconds: startOffsetMicroseconds)
        attachment?.prepare(copy.pointer, streamIndex: streamIndex)
        try watched(stallSeconds) {
            try FFmpeg.check(av_interleaved_write_frame(context, copy.pointer), "cannot write")
        }
    }

    /// Flushes interleaving queues and writes the trailer (the MP4 index, FLV duration). A network
    /// output gives up with `OutputStall` when its destination takes no bytes for `stallSeconds`,
    /// and its close then has a deadline too.
    func finish(stallSeconds: Double? = nil) throws {
        guard headerWritten, !trailerWritten else { return }
        trailerWritten = true
        do {
            try watched(stallSeconds) {
                try FFmpeg.check(av_write_trailer(context), "cannot finish the container")
            }
        } catch {
            // A dead connection is left without waiting on it; a file (a full disk) is still
            // closed normally, so whatever FFmpeg buffered and can still write is kept.
            if closeTimeoutSeconds != nil { abandon() } else { closeIO(timeoutSeconds: nil) }
            throw error
        }
        closeIO(timeoutSeconds: closeTimeoutSeconds)
    }

    /// Runs `body` under the stall watch (when `stallSeconds` is given); an interruption the watch
    /// caused is thrown as `OutputStall`.
    private func watched(_ stallSeconds: Double?, _ body: () throws -> Void) throws {
        guard let stallSeconds else { return try body() }
        interrupt.watchProgress(of: context, stallSeconds: stallSeconds)
        defer { interrupt.watchProgress(of: nil, stallSeconds: 0) }
        do {
            try body()
        } catch let error as MediaError where error.isInterrupted && interrupt.didStall {
            throw OutputStall(seconds: stallSeconds)
        }
    }
}
