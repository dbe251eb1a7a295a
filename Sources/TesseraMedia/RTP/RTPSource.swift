import CFFmpeg
import TesseraCore

/// RTP input described by an SDP: one bound port pair (RTP, RTCP) and one decoder per medium.
/// Opening binds the ports, so a port another process holds fails here, by number.
public final class RTPSource: OpenedInput {
    public let session: SessionDescription
    let streams: [RTPStream]
    let interrupt: InterruptFlag
    public let description: MediaSource.Description
    public var arrivesInRealTime: Bool { true }
    /// The only sender taken (`rtp.source`); nil: the first sender is latched.
    public let sourceFilter: RTPSourceFilter?

    /// - Parameters:
    ///   - reorderWaitMicroseconds: how long a stream waits for a missing packet (the jitter allowance).
    ///   - sourceFilter: `rtp.source`, applied by the receive loop.
    ///   - bindAddress: the `--rtp-bind-address` setting (nil: none); each medium's sockets bind
    ///     the address `RTPBindAddress.choose` gives for it and its `c=` address.
    public init(sdp: String, interrupt: InterruptFlag, reorderWaitMicroseconds: Int64 = 50_000,
                sourceFilter: RTPSourceFilter? = nil, bindAddress: String? = nil) throws {
        do {
            session = try SessionDescription.parse(sdp)
        } catch {
            throw MediaError("invalid SDP: \(error)")
        }
        streams = try [session.video, session.audio].compactMap { $0 }.map {
            let address = RTPBindAddress.choose(sessionAddress: $0.address, setting: bindAddress,
                                                isLocal: UDPSocket.isLocalAddress)
            return try RTPStream(media: $0, reorder: RTPReorderBuffer(maxDelayMicroseconds: reorderWaitMicroseconds),
                                 bindAddress: address)
        }
        self.sourceFilter = sourceFilter
        self.interrupt = interrupt
        description = MediaSource.Description(hasVideo: session.video != nil, hasAudio: session.audio != nil,
                                              videoCodec: session.video?.codec.rawValue,
                                              audioCodec: session.audio?.codec.rawValue, durationMicroseconds: nil)
    }

    public func makeReader(loop: Bool, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) -> InputReader {
        RTPReader(source: self, outputSampleRate: outputSampleRate, outputChannels: outputChannels, pool: pool)
    }
}

/// One medium of an RTP input: its sockets, reorder buffer, depacketizer and decoder. Used only
/// by the input's thread.
final class RTPStream {
    let media: RTPMediaDescription
    let socket: UDPSocket
    /// RTCP's own port; nil with rtcp-mux, where RTCP arrives on `socket`.
    let controlSocket: UDPSocket?
    var reorder: RTPReorderBuffer
    var depacketizer: any RTPDepacketizer
    let decoder: Decoder
    /// Datagrams refused before the reorder buffer: not RTP, another payload type, truncated.
    var refusedDatagrams: Int64 = 0
    /// Video: the newest orientation the sender signalled (CVO), in packet order; upright until
    /// it says otherwise, and for senders that never do.
    var orientation = PictureOrientation.upright
    /// Video: each frame's orientation, carried across the decoder to its picture.
    var frameOrientations = FrameOrientationQueue()

    /// `bindAddress`: the local address both sockets bind (nil: every interface).
    init(media: RTPMediaDescription, reorder: RTPReorderBuffer, bindAddress: String? = nil) throws {
        self.media = media
        self.reorder = reorder
        socket = try UDPSocket(port: media.port, bindAddress: bindAddress)
        controlSocket = media.rtcpMux ? nil : try UDPSocket(port: media.rtcpPort, bindAddress: bindAddress)
        let parameters = media.formatParameters
        switch media.codec {
        case .h264:
            depacketizer = H264Depacketizer(parameterSets: H264Depacketizer.parameterSets(fromSprop: parameters["sprop-parameter-sets"] ?? ""))
            decoder = try Decoder(codec: AV_CODEC_ID_H264)
        case .vp8:
            depacketizer = VP8Depacketizer()
            decoder = try Decoder(codec: AV_CODEC_ID_VP8)
        case .vp9:
            depacketizer = VP9Depacketizer()
            decoder = try Decoder(codec: AV_CODEC_ID_VP9)
        case .opus:
            depacketizer = WholePacketDepacketizer()
            decoder = try Decoder(codec: AV_CODEC_ID_OPUS, sampleRate: 48_000, channels: max(1, min(2, media.channels)))
        case .pcmu, .pcma:
            depacketizer = WholePacketDepacketizer()
            decoder = try Decoder(codec: media.codec == .pcmu ? AV_CODEC_ID_PCM_MULAW : AV_CODEC_ID_PCM_ALAW,
                                  sampleRate: media.clockRate, channels: max(1, media.channels))
        case .aac:
            let config = parameters["config"].flatMap(AACDepacketizer.audioSpecificConfig(fromHex:)) ?? []
            depacketizer = AACDepacketizer(sizeLength: parameters["sizelength"].flatMap { Int($0) } ?? 13,
                                           indexLength: parameters["indexlength"].flatMap { Int($0) } ?? 3,
                                           indexDeltaLength: parameters["indexdeltalength"].flatMap { Int($0) } ?? 3)
            decoder = try Decoder(codec: AV_CODEC_ID_AAC, sampleRate: media.clockRate, channels: max(1, media.channels),
                                  extradata: config)
        }
    }

    var sockets: [UDPSocket] { [socket] + (controlSocket.map { [$0] } ?? []) }
}
