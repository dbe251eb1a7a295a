import CFFmpeg
import TesseraComposition
import TesseraRTP

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
    ///   - reorderWaitMicroseconds: how long a stream waits for a missing packet (the jitter
    ///     allowance, and the time a NACKed packet has to come back).
    ///   - senderSilenceMicroseconds: how long the latched sender must be silent before another
    ///     one is taken (the input's timeout).
    ///   - sourceFilter: `rtp.source`, applied by each stream's receiver.
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
            let receiver = RTPStreamReceiver(media: $0, sourceFilter: sourceFilter, reorderWaitMicroseconds: reorderWaitMicroseconds,
                                             senderSilenceMicroseconds: senderSilenceMicroseconds)
            return try RTPStream(receiver: receiver, bindAddress: address)
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

/// One medium of an RTP input on the reader's side: its sockets, SRTP session and decoder around
/// the pure receiver that decides what its datagrams become. Used only by the input's thread.
final class RTPStream {
    var receiver: RTPStreamReceiver
    let socket: UDPSocket
    /// RTCP's own port; nil with rtcp-mux, where RTCP arrives on `socket`.
    let controlSocket: UDPSocket?
    let decoder: Decoder
    /// Unprotects the sender's SRTP and SRTCP (SDES keys from the SDP); nil for plain RTP.
    /// Feedback goes back as plain RTCP: an SFU's forward (Janus's) reads it unencrypted.
    let srtp: SRTPSession?
    /// Video: each frame's orientation, carried across the decoder to its picture.
    var frameOrientations = FrameOrientationQueue()

    /// `bindAddress`: the local address both sockets bind (nil: every interface).
    init(receiver: RTPStreamReceiver, bindAddress: String? = nil) throws {
        self.receiver = receiver
        let media = receiver.media
        do {
            srtp = try media.srtp.map { try SRTPSession(keying: $0, direction: .inbound) }
        } catch {
            throw MediaError("\(media.kind.rawValue) SRTP: \(error)")
        }
        socket = try UDPSocket(port: media.port, bindAddress: bindAddress)
        controlSocket = media.rtcpMux ? nil : try UDPSocket(port: media.rtcpPort, bindAddress: bindAddress)
        decoder = try Self.decoder(for: media)
    }

    private static func decoder(for media: RTPMediaDescription) throws -> Decoder {
        switch media.codec {
        case .h264: try Decoder(codec: AV_CODEC_ID_H264)
        case .vp8: try Decoder(codec: AV_CODEC_ID_VP8)
        case .vp9: try Decoder(codec: AV_CODEC_ID_VP9)
        case .opus: try Decoder(codec: AV_CODEC_ID_OPUS, sampleRate: 48_000, channels: max(1, min(2, media.channels)))
        case .pcmu, .pcma:
            try Decoder(codec: media.codec == .pcmu ? AV_CODEC_ID_PCM_MULAW : AV_CODEC_ID_PCM_ALAW,
                        sampleRate: media.clockRate, channels: max(1, media.channels))
        case .aac:
            try Decoder(codec: AV_CODEC_ID_AAC, sampleRate: media.clockRate, channels: max(1, media.channels),
                        extradata: media.formatParameters["config"].flatMap(AACDepacketizer.audioSpecificConfig(fromHex:)) ?? [])
        }
    }

    var media: RTPMediaDescription { receiver.media }
    var sockets: [UDPSocket] { [socket] + (controlSocket.map { [$0] } ?? []) }
}
