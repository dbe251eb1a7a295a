import CFFmpeg

extension Decoder {
    /// A decoder for a bare codec (no container to describe it), as RTP gives: packets carry
    /// timestamps in microseconds, and `extradata` is what the SDP says (AAC's AudioSpecificConfig).
    convenience init(codec id: AVCodecID, sampleRate: Int = 0, channels: Int = 0, extradata: [UInt8] = []) throws {
        guard let codec = avcodec_find_decoder(id) else {
            throw MediaError("no decoder for codec \(String(cString: avcodec_get_name(id)))")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError("out of memory") }
        let microseconds = AVRational(num: 1, den: 1_000_000)
        context.pointee.pkt_timebase = microseconds
        context.pointee.thread_count = 1
        if sampleRate > 0 { context.pointee.sample_rate = Int32(sampleRate) }
        if channels > 0 { av_channel_layout_default(&context.pointee.ch_layout, Int32(channels)) }
        if !extradata.isEmpty, let buffer = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) {
            extradata.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: extradata.count) }
            context.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
            context.pointee.extradata_size = Int32(extradata.count)
        }
        let code = avcodec_open2(context, codec, nil)
        if code < 0 {
            var toFree: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&toFree)
            throw MediaError("cannot open decoder \(String(cString: codec.pointee.name))", code: code)
        }
        self.init(openedContext: context, timeBase: microseconds)
    }
}

extension Packet {
    /// A packet holding a copy of `bytes`, stamped in microseconds.
    convenience init(bytes: [UInt8], ptsMicroseconds: Int64, isKeyframe: Bool) throws {
        self.init()
        try FFmpeg.check(av_new_packet(pointer, Int32(bytes.count)), "cannot allocate a packet")
        bytes.withUnsafeBytes { pointer.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
        pointer.pointee.pts = ptsMicroseconds
        pointer.pointee.dts = ptsMicroseconds
        if isKeyframe { pointer.pointee.flags |= AV_PKT_FLAG_KEY }
    }
}
