/// What an `rtp.allocate` input asks for, validated and with every default filled in: the media
/// as the SFU negotiated them, header extensions, RTCP multiplexing and SRTP keying. The SDP
/// Tessera returns for the allocation says exactly this (`SessionDescription.make`), and two
/// requests that are equal keep the same ports across an update.
public struct RTPAllocationRequest: Codable, Sendable, Equatable {
    public var video: Medium?
    public var audio: Medium?
    /// Header extension URI → one-byte id (1–14).
    public var extensions: [String: Int]
    /// RTCP on the RTP port: one port per medium instead of an RTP/RTCP pair.
    public var rtcpMux: Bool
    public var srtp: SRTPSpec?

    public init(video: Medium? = nil, audio: Medium? = nil, extensions: [String: Int] = [:], rtcpMux: Bool = false,
                srtp: SRTPSpec? = nil) {
        self.video = video; self.audio = audio; self.extensions = extensions; self.rtcpMux = rtcpMux; self.srtp = srtp
    }

    /// The UDP ports one medium takes: RTP, and RTCP on the next port unless multiplexed.
    public var portsPerMedium: Int { rtcpMux ? 1 : 2 }

    /// One medium's format, as `a=rtpmap` / `a=fmtp` will say it.
    public struct Medium: Codable, Sendable, Equatable {
        public var codec: RTPCodec
        public var payloadType: UInt8
        public var clockRate: Int
        /// Audio channels; 1 for video.
        public var channels: Int
        public var fmtp: String?
        /// Video: the RTX payload type (RFC 4588) the sender may retransmit with.
        public var rtxPayloadType: UInt8?

        public init(codec: RTPCodec, payloadType: UInt8, clockRate: Int, channels: Int, fmtp: String?,
                    rtxPayloadType: UInt8? = nil) {
            self.codec = codec; self.payloadType = payloadType; self.clockRate = clockRate; self.channels = channels
            self.fmtp = fmtp; self.rtxPayloadType = rtxPayloadType
        }

        /// The codec's usual format (what the string form `"video": "H264"` asks for): the
        /// payload types browsers and common SFUs use, so a forward can often keep its own.
        public init(codec: RTPCodec) {
            switch codec {
            case .h264: self.init(codec: codec, payloadType: 96, clockRate: 90000, channels: 1, fmtp: "packetization-mode=1")
            case .vp8: self.init(codec: codec, payloadType: 97, clockRate: 90000, channels: 1, fmtp: nil)
            case .vp9: self.init(codec: codec, payloadType: 98, clockRate: 90000, channels: 1, fmtp: nil)
            case .opus: self.init(codec: codec, payloadType: 111, clockRate: 48000, channels: 2, fmtp: nil)
            case .aac:
                // AAC-LC, 48 kHz, stereo (AudioSpecificConfig 0x1190), with RFC 3640's AAC-hbr headers.
                self.init(codec: codec, payloadType: 100, clockRate: 48000, channels: 2, fmtp: Self.defaultAACParameters)
            case .pcmu: self.init(codec: codec, payloadType: 0, clockRate: 8000, channels: 1, fmtp: nil)
            case .pcma: self.init(codec: codec, payloadType: 8, clockRate: 8000, channels: 1, fmtp: nil)
            }
        }

        static let defaultAACParameters =
            "streamtype=5;profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1190"

        /// The `a=rtpmap` encoding: `H264/90000`, `opus/48000/2`. Channels are written for audio
        /// with more than one, and always for Opus, whose rtpmap is `opus/48000/2` by definition
        /// (RFC 7587 §7).
        public var rtpmapEncoding: String {
            let base = "\(codec.rawValue)/\(clockRate)"
            return codec.kind == .audio && (channels > 1 || codec == .opus) ? "\(base)/\(channels)" : base
        }

        // RTPCodec is coded by its encoding name, here, so that the codec type itself needs no
        // Codable conformance of its own.
        private enum CodingKeys: String, CodingKey { case codec, payloadType, clockRate, channels, fmtp, rtxPayloadType }

        public init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            let name = try fields.decode(String.self, forKey: .codec)
            guard let codec = RTPCodec(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .codec, in: fields, debugDescription: "unknown codec \(name)")
            }
            self.init(codec: codec, payloadType: try fields.decode(UInt8.self, forKey: .payloadType),
                      clockRate: try fields.decode(Int.self, forKey: .clockRate),
                      channels: try fields.decode(Int.self, forKey: .channels),
                      fmtp: try fields.decodeIfPresent(String.self, forKey: .fmtp),
                      rtxPayloadType: try fields.decodeIfPresent(UInt8.self, forKey: .rtxPayloadType))
        }

        public func encode(to encoder: any Encoder) throws {
            var fields = encoder.container(keyedBy: CodingKeys.self)
            try fields.encode(codec.rawValue, forKey: .codec)
            try fields.encode(payloadType, forKey: .payloadType)
            try fields.encode(clockRate, forKey: .clockRate)
            try fields.encode(channels, forKey: .channels)
            try fields.encodeIfPresent(fmtp, forKey: .fmtp)
            try fields.encodeIfPresent(rtxPayloadType, forKey: .rtxPayloadType)
        }
    }
}
