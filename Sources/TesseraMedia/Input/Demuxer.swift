import CFFmpeg

/// An opened input container (`AVFormatContext`) and the streams Tessera reads from it.
final class Demuxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let interrupt: InterruptFlag
    let videoStreamIndex: Int32?
    let audioStreamIndex: Int32?
    /// For network inputs: a read that gets nothing for this long fails (dead peer), so a live
    /// input can show its placeholder and reconnect instead of hanging.
    var readTimeoutSeconds: Double?

    /// Opens and probes `url`. `protocols` is FFmpeg's protocol whitelist for this open: only these
    /// may be reached, whatever the URL or a playlist inside it says (an HTTP redirect to `file:`
    /// included). An open that allows `file` also gets a format whitelist without the playlist
    /// demuxers (`LocalFileFormats`).
    init(url: String, protocols: String, format: String? = nil, options: [String: String] = [:],
         interrupt: InterruptFlag, openTimeoutSeconds: Double? = 15) throws {
        self.interrupt = interrupt
        guard var context = avformat_alloc_context() else { throw MediaError("out of memory") }
        context.pointee.interrupt_callback = interrupt.callback
        var allOptions = options
        allOptions["protocol_whitelist"] = protocols
        if LocalFileFormats.applies(toProtocols: protocols) {
            allOptions["format_whitelist"] = LocalFileFormats.whitelist
        }
        let dictionary = OptionDictionary(allOptions)
        let inputFormat = format.flatMap { av_find_input_format($0) }
        interrupt.setDeadline(secondsFromNow: openTimeoutSeconds)
        defer { interrupt.setDeadline(secondsFromNow: nil) }
        var opened: UnsafeMutablePointer<AVFormatContext>? = context
        let openCode = avformat_open_input(&opened, url, inputFormat, &dictionary.pointer)
        guard openCode >= 0, let openedContext = opened else {
            throw MediaError("cannot open", code: openCode)
        }
        context = openedContext
        let infoCode = avformat_find_stream_info(context, nil)
        if infoCode < 0 {
            var toClose: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&toClose)
            throw MediaError("cannot read stream information", code: infoCode)
        }
        self.context = context
        let video = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let audio = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        // Attached pictures (cover art) are not video.
        if video >= 0, context.pointee.streams[Int(video)]!.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 {
            videoStreamIndex = video
        } else {
            videoStreamIndex = nil
        }
        audioStreamIndex = audio >= 0 ? audio : nil
        for index in 0..<Int(context.pointee.nb_streams) where Int32(index) != videoStreamIndex && Int32(index) != audioStreamIndex {
            context.pointee.streams[index]!.pointee.discard = AVDISCARD_ALL
        }
        if videoStreamIndex == nil && audioStreamIndex == nil {
            var toClose: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&toClose)
            throw MediaError("has no audio or video stream")
        }
    }

    deinit {
        var toClose: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&toClose)
    }

    func stream(_ index: Int32) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[Int(index)]! }

    /// The container's start time in microseconds (0 when unknown): every stream's timestamps are
    /// measured from here, so audio and video keep their offset from each other.
    var startTimeMicroseconds: Int64 {
        let start = context.pointee.start_time
        return start == FFmpeg.noPTS ? 0 : start
    }

    /// The container's duration in microseconds, when it knows one.
    var durationMicroseconds: Int64? {
        let duration = context.pointee.duration
        return duration == FFmpeg.noPTS || duration <= 0 ? nil : duration
    }

    /// Reads the next packet of a stream Tessera uses; false at the end of the input.
    func read(into packet: Packet) throws -> Bool {
        while true {
            packet.unref()
            if let readTimeoutSeconds { interrupt.setDeadline(secondsFromNow: readTimeoutSeconds) }
            let code = av_read_frame(context, packet.pointer)
            if readTimeoutSeconds != nil { interrupt.setDeadline(secondsFromNow: nil) }
            if code == FFmpeg.eof { return false }
            if code < 0 {
                // A file that ends in a torn packet reads as an I/O error at its end; treat as EOF.
                if code == tessera_averror(EIO), context.pointee.pb != nil, avio_feof(context.pointee.pb) != 0 { return false }
                throw MediaError("read failed", code: code)
            }
            let index = packet.pointer.pointee.stream_index
            if index == videoStreamIndex || index == audioStreamIndex { return true }
        }
    }

    /// Goes back to the first packet (for `loop`).
    func seekToStart() throws {
        let code = avformat_seek_file(context, -1, Int64.min, startTimeMicroseconds, startTimeMicroseconds, 0)
        if code < 0 {
            try FFmpeg.check(av_seek_frame(context, -1, startTimeMicroseconds, AVSEEK_FLAG_BACKWARD), "cannot seek to start")
        }
    }
}
