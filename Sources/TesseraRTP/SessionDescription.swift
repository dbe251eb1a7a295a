/// Whether an RTP stream carries pictures or sound; each participant has at most one of each.
public enum RTPMediaKind: String, Sendable, Equatable {
    case video, audio
}

/// The codecs Tessera depacketizes itself; the raw values are the encoding names of `a=rtpmap`.
public enum RTPCodec: String, Sendable, Equatable, CaseIterable {
    case h264 = "H264", vp8 = "VP8", vp9 = "VP9", opus = "opus", aac = "mpeg4-generic", pcmu = "PCMU", pcma = "PCMA"

    public var kind: RTPMediaKind {
        switch self {
        case .h264, .vp8, .vp9: return .video
        case .opus, .aac, .pcmu, .pcma: return .audio
        }
    }

    /// The codec an `a=rtpmap` encoding name means (names are case-insensitive, RFC 4855 §3).
    public init?(encodingName: String) {
        let lowered = encodingName.lowercased()
        guard let codec = RTPCodec.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = codec
    }

    /// The codec an `rtp.allocate` request names for `kind`: H264, VP8, VP9 / opus, aac, pcmu,
    /// pcma, in any case.
    public init?(allocationName: String, kind: RTPMediaKind) {
        let lowered = allocationName.lowercased()
        let name = lowered == "aac" ? RTPCodec.aac.rawValue.lowercased() : lowered
        guard let codec = RTPCodec(encodingName: name), codec.kind == kind else { return nil }
        self = codec
    }
}

/// One usable m= section of an SDP: where to listen and how to read the payload.
public struct RTPMediaDescription: Sendable, Equatable {
    public var kind: RTPMediaKind
    /// The RTP port to bind.
    public var port: Int
    /// `a=rtcp:<port>` if given, else port + 1; equals `port` with rtcp-mux.
    public var rtcpPort: Int
    public var rtcpMux: Bool
    public var payloadType: UInt8
    public var codec: RTPCodec
    public var clockRate: Int
    /// Audio channels (the rtpmap's third field, default 1); 1 for video.
    public var channels: Int
    /// `a=fmtp` of the chosen payload type: keys lower-cased, values as written.
    public var formatParameters: [String: String]
    /// The media section's c= address, else the session's.
    public var address: String?
    /// Video only: the `a=extmap` id of the video-orientation extension (CVO), when the SDP maps it.
    public var videoOrientation: VideoOrientationExtension?
    /// Video only: the RFC 4588 retransmission payload type whose `apt` is `payloadType`.
    public var rtxPayloadType: UInt8?
    /// The RTCP feedback the SDP offers for `payloadType` (`a=rtcp-fb`).
    public var feedback: RTCPFeedbackSupport = []
    /// The SRTP key the sender protects with (SDES, the section's first usable `a=crypto`);
    /// nil for plain RTP.
    public var srtp: SRTPKeying?

    /// The UDP ports a receiver binds for this stream: RTP, and RTCP unless multiplexed.
    public var boundPorts: [Int] { rtcpMux ? [port] : [port, rtcpPort] }

    public init(kind: RTPMediaKind, port: Int, rtcpPort: Int, rtcpMux: Bool, payloadType: UInt8, codec: RTPCodec,
                clockRate: Int, channels: Int, formatParameters: [String: String], address: String?,
                videoOrientation: VideoOrientationExtension? = nil) {
        self.kind = kind; self.port = port; self.rtcpPort = rtcpPort; self.rtcpMux = rtcpMux
        self.payloadType = payloadType; self.codec = codec; self.clockRate = clockRate; self.channels = channels
        self.formatParameters = formatParameters; self.address = address; self.videoOrientation = videoOrientation
    }
}

/// The RTCP feedback a receiver may send (RFC 4585 `a=rtcp-fb`, RFC 5104 `ccm fir`).
public struct RTCPFeedbackSupport: OptionSet, Sendable, Equatable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Generic NACK (`nack`).
    public static let nack = RTCPFeedbackSupport(rawValue: 1)
    /// Picture loss indication (`nack pli`).
    public static let pli = RTCPFeedbackSupport(rawValue: 2)
    /// Full intra request (`ccm fir`).
    public static let fir = RTCPFeedbackSupport(rawValue: 4)

    /// From the lower-cased `a=rtcp-fb` types of a payload type.
    public init(types: Set<String>) {
        self = []
        if types.contains("nack") { insert(.nack) }
        if types.contains("nack pli") { insert(.pli) }
        if types.contains("ccm fir") { insert(.fir) }
    }
}

/// What an SFU will send for one participant (RFC 4566), reduced to the first usable video and
/// audio stream.
///
/// The parse is strict about what Tessera would otherwise get wrong later and silently (SRTP,
/// interleaved H.264, AAC without its configuration, ports that collide) and lenient about the
/// rest of SDP, which an SFU fills with attributes a plain receiver does not need.
public struct SessionDescription: Sendable, Equatable {
    public var video: RTPMediaDescription?
    public var audio: RTPMediaDescription?

    public init(video: RTPMediaDescription?, audio: RTPMediaDescription?) {
        self.video = video; self.audio = audio
    }

    /// Every UDP port a receiver of this session binds.
    public var boundPorts: [Int] { (video?.boundPorts ?? []) + (audio?.boundPorts ?? []) }

    /// Why an SDP cannot be received: one short sentence that names the offending line.
    public struct Invalid: Error, CustomStringConvertible, Equatable, Sendable {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// A task document is bounded, and so is the SDP inside it; anything larger is not an SFU's offer.
    public static let maximumBytes = 64 * 1024

    public static func parse(_ text: String) throws(Invalid) -> SessionDescription {
        guard text.utf8.count <= maximumBytes else {
            throw Invalid("SDP is longer than 64 KiB (\(text.utf8.count) bytes)")
        }
        return try SDPMediaSelector(document: SDPSectionReader.read(text)).select()
    }
}
