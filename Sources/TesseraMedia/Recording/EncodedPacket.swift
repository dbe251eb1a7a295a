import CFFmpeg
import TesseraRTP

/// One encoded packet as an input's reader received it, handed to the sink for per-participant
/// recordings (`MediaSink.encoded`) before anything is decoded from it or after: the reader's own
/// `AVPacket` (by reference, not copied), stamped on the input's timeline as its decoded picture
/// or audio is, with what a recording needs to split and describe it.
public struct EncodedPacket {
    public let kind: ParticipantRecordingPlan.Kind
    /// On the input's timeline, as the reader stamps the decoded media (µs).
    public let ptsMicroseconds: Int64
    /// Decoding order; equal to `ptsMicroseconds` for RTP (no reordered frames).
    public let dtsMicroseconds: Int64
    /// 0 when not known.
    public let durationMicroseconds: Int64
    public let isKeyframe: Bool
    /// The sender's SSRC (RTP); nil for files and pull URLs.
    public let sender: UInt32?
    /// Video: the picture size the decoder found (0: not known).
    public let width: Int
    public let height: Int
    let packet: Packet
    /// The formats of every stream of the packet's input: a file opened at a video keyframe also
    /// holds the input's audio.
    let formats: RecordingFormats

    init(packet: Packet, kind: ParticipantRecordingPlan.Kind, formats: RecordingFormats, ptsMicroseconds: Int64, dtsMicroseconds: Int64,
         durationMicroseconds: Int64 = 0, isKeyframe: Bool, sender: UInt32? = nil, width: Int = 0, height: Int = 0) {
        self.packet = packet
        self.formats = formats
        self.kind = kind
        self.ptsMicroseconds = ptsMicroseconds
        self.dtsMicroseconds = dtsMicroseconds
        self.durationMicroseconds = durationMicroseconds
        self.isKeyframe = isKeyframe
        self.sender = sender
        self.width = width
        self.height = height
    }

    /// FFmpeg's name of the codec (`h264`, `vp8`, `opus`, …).
    public var codecName: String { (kind == .video ? formats.video : formats.audio)?.codecName ?? "none" }

    /// A copy of the packet's bytes (for the one packet a file starts with).
    var bytes: [UInt8] {
        guard let data = packet.pointer.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointer.pointee.size)))
    }

    /// What the recording plan needs of it, at `ptsMicroseconds` on the task clock.
    public func planned(atMicroseconds pts: Int64) -> ParticipantRecordingPlan.Packet {
        ParticipantRecordingPlan.Packet(kind: kind, isKeyframe: isKeyframe, sender: sender, width: width, height: height,
                                        ptsMicroseconds: pts)
    }
}

extension MediaSink {
    /// Readers ask before handing packets over: most sinks record nothing.
    public var wantsPackets: Bool { false }
    public func encoded(_ packet: EncodedPacket) {}
}

/// The recordable streams of one input (made once by its reader).
final class RecordingFormats {
    let video: RecordingStreamFormat?
    let audio: RecordingStreamFormat?

    init(video: RecordingStreamFormat?, audio: RecordingStreamFormat?) {
        self.video = video
        self.audio = audio
    }
}

/// How one input stream is described to a container: a private copy of its codec parameters
/// (from the demuxer, or built from the SDP for RTP). Made once per stream and shared by every
/// packet the stream hands over; used on the input's thread.
final class RecordingStreamFormat {
    let parameters: UnsafeMutablePointer<AVCodecParameters>

    /// A demuxed stream's parameters (extradata, size, sample rate included).
    init(copying source: UnsafePointer<AVCodecParameters>) throws {
        guard let parameters = avcodec_parameters_alloc() else { throw MediaError("out of memory") }
        self.parameters = parameters
        try FFmpeg.check(avcodec_parameters_copy(parameters, source), "stream parameters")
        // The source container's tag means nothing in another container.
        parameters.pointee.codec_tag = 0
    }

    /// An RTP stream as its SDP describes it: Opus with its OpusHead at 48 kHz, AAC with its
    /// AudioSpecificConfig; video sizes (and H.264's parameter sets) come with the first keyframe.
    init(rtp media: RTPMediaDescription) throws {
        guard let parameters = avcodec_parameters_alloc() else { throw MediaError("out of memory") }
        self.parameters = parameters
        let channels = max(1, min(2, media.channels))
        switch media.codec {
        case .h264: setVideo(AV_CODEC_ID_H264)
        case .vp8: setVideo(AV_CODEC_ID_VP8)
        case .vp9: setVideo(AV_CODEC_ID_VP9)
        case .opus:
            setAudio(AV_CODEC_ID_OPUS, sampleRate: 48_000, channels: channels)
            setExtradata(RecordingCodecHeaders.opusHead(channels: channels))
        case .aac:
            setAudio(AV_CODEC_ID_AAC, sampleRate: media.clockRate, channels: max(1, media.channels))
            setExtradata(media.formatParameters["config"].flatMap(AACDepacketizer.audioSpecificConfig(fromHex:)) ?? [])
        case .pcmu, .pcma:
            setAudio(media.codec == .pcmu ? AV_CODEC_ID_PCM_MULAW : AV_CODEC_ID_PCM_ALAW, sampleRate: media.clockRate,
                     channels: max(1, media.channels))
        }
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&toFree)
    }

    var isVideo: Bool { parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
    var codecID: AVCodecID { parameters.pointee.codec_id }
    var codecName: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }
    var isH264: Bool { parameters.pointee.codec_id == AV_CODEC_ID_H264 }
    var hasExtradata: Bool { parameters.pointee.extradata_size > 0 }

    private func setVideo(_ codec: AVCodecID) {
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = codec
    }

    private func setAudio(_ codec: AVCodecID, sampleRate: Int, channels: Int) {
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = codec
        parameters.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&parameters.pointee.ch_layout, Int32(channels))
    }

    /// Replaces the extradata with `bytes` (padded as FFmpeg wants).
    func setExtradata(_ bytes: [UInt8]) {
        Self.setExtradata(bytes, of: parameters)
    }

    static func setExtradata(_ bytes: [UInt8], of parameters: UnsafeMutablePointer<AVCodecParameters>) {
        av_freep(&parameters.pointee.extradata)
        parameters.pointee.extradata_size = 0
        guard !bytes.isEmpty, let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { return }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        parameters.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata_size = Int32(bytes.count)
    }
}
