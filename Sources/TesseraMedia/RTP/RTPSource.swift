import CFFmpeg
import TesseraComposition
import TesseraRTP

/// RTP input described by an SDP: one bound port pair (RTP, RTCP) and one decoder per medium.
/// Opening binds the ports, so a port another process holds fails here, by number.
public final class RTPSource: OpenedInput {
    public let session: SessionDescription
    let streams: [RTPStream]
    let interrupt: InterruptFlag
    /// The input's timeout: a sender silent this long has left (its medium shows `no packets`,
    /// and another sender may take its place).
    let senderSilenceMicroseconds: Int64
    public let description: MediaSource.Description
    public var arrivesInRealTime: Bool { true }
    /// The only sender taken (`rtp.source`); nil: the first sender is latched.
    public let sourceFilter: RTPSourceFilter?

    /// - Parameters:
    ///   - reorderWaitMicroseconds: how long a stream waits for a missing packet (the jitter
    ///     allowance, and the time a NACKed packet has to come back).
    ///   - senderSilenceMicroseconds: how long the latched sender must be silent before another
    ///     one is taken (the input's timeout).
    ///   - sourceFilter: `rtp.source`, applied by the receive loop.
    ///   - bindAddress: the `--rtp-bind-address` setting (nil: none); each medium's sockets bind
    ///     the address `RTPBindAddress.choose` gives for it and its `c=` address.
    public init(sdp: String, interrupt: InterruptFlag, reorderWaitMicroseconds: Int64 = 50_000,
                senderSilenceMicroseconds: Int64 = 2_000_000, sourceFilter: RTPSourceFilter? = nil,
                bindAddress: String? = nil) throws {
        do {
            session = try SessionDescription.parse(sdp)
        } catch {
            throw MediaError("invalid SDP: \(error)")
        }
        streams = try [session.video, session.audio].compactMap { $0 }.map {
            let address = RTPBindAddress.choose(sessionAddress: $0.address, setting: bindAddress,
                                                isLocal: UDPSocket.isLocalAddress)
            return try RTPStream(media: $0, reorder: RTPReorderBuffer(maxDelayMicroseconds: reorderWaitMicroseconds),
                                 nackRetryMicroseconds: max(5_000, reorderWaitMicroseconds / 3),
                                 senderSilenceMicroseconds: senderSilenceMicroseconds, bindAddress: address)
        }
        self.sourceFilter = sourceFilter
        self.interrupt = interrupt
        self.senderSilenceMicroseconds = senderSilenceMicroseconds
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
    /// Datagrams refused before the reorder buffer, by reason.
    var refused: [RTPRefusal: Int64] = [:]
    /// Unprotects the sender's SRTP and SRTCP (SDES keys from the SDP); nil for plain RTP.
    /// Feedback goes back as plain RTCP: an SFU's forward (Janus's) reads it unencrypted.
    let srtp: SRTPSession?
    /// The RTCP this receiver sends about the stream: reports, keyframe requests, NACKs.
    var rtcp: RTCPReceiver
    /// The sender whose packets are taken, when the task names no `rtp.source`.
    var latch: RTPSenderLatch
    /// Where the sender's RTCP comes from: feedback goes back there (an SFU's forward listens
    /// for it on that socket); until one arrives, the RTP sender's address at port + 1.
    var rtcpPeer: RTPEndpoint?
    var rtpPeer: RTPEndpoint?
    /// When the latest accepted packet arrived (µs on the reader's clock).
    var lastPacketMicroseconds: Int64?
    /// Video: no picture can be decoded until a keyframe arrives (start, new sender, loss).
    var awaitingKeyframe = true
    /// Audio: sound was decoded since the stream (re)started.
    var decodedSinceStart = false
    /// Video: the newest orientation the sender signalled (CVO), in packet order; upright until
    /// it says otherwise, and for senders that never do.
    var orientation = PictureOrientation.upright
    /// Video: each frame's orientation, carried across the decoder to its picture.
    var frameOrientations = FrameOrientationQueue()

    /// `bindAddress`: the local address both sockets bind (nil: every interface).
    init(media: RTPMediaDescription, reorder: RTPReorderBuffer, nackRetryMicroseconds: Int64,
         senderSilenceMicroseconds: Int64, bindAddress: String? = nil) throws {
        self.media = media
        self.reorder = reorder
        var feedback = media.feedback
        // A sender that offers retransmission streams (RFC 4588) takes NACKs, said or not.
        if media.rtxPayloadType != nil { feedback.insert(.nack) }
        // Only video has references to lose; audio conceals its losses and is reported on.
        if media.kind == .audio { feedback = [] }
        rtcp = RTCPReceiver(receiverSSRC: UInt32.random(in: 1...UInt32.max), cname: "tessera", clockRate: media.clockRate,
                            feedback: feedback, nackRetryMicroseconds: nackRetryMicroseconds)
        latch = RTPSenderLatch(silenceMicroseconds: senderSilenceMicroseconds)
        do {
            srtp = try media.srtp.map { try SRTPSession(keying: $0, direction: .inbound) }
        } catch {
            throw MediaError("\(media.kind.rawValue) SRTP: \(error)")
        }
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
