import TesseraRTP
/// `inputs[].rtp` as a caller writes it: an SDP to receive, or ports for the service to allocate
/// (with what the SFU negotiated), and where packets may come from.
public struct RTPSpec: Codable, Sendable, Equatable {
    public var sdp: String?
    public var allocate: RTPAllocation?
    /// The only sender the input takes packets from: an address or CIDR block, optionally with a
    /// port (`10.0.0.7`, `10.0.0.0/24`, `[::1]:5004`); see `RTPSourceFilter`.
    public var source: String?

    public init(sdp: String? = nil, allocate: RTPAllocation? = nil, source: String? = nil) {
        self.sdp = sdp; self.allocate = allocate; self.source = source
    }
}

/// `inputs[].rtp.allocate`: which media to allocate ports for, described as the SFU negotiated
/// them, so the SDP Tessera returns can be used as it is.
public struct RTPAllocation: Codable, Sendable, Equatable {
    public var video: RTPMediumSpec?
    public var audio: RTPMediumSpec?
    /// Header extensions: URI → one-byte id (1–14, RFC 8285).
    public var extensions: [String: Int]?
    /// RTCP on the RTP port (RFC 5761) [false].
    public var rtcpMux: Bool?
    /// SDES keying (`a=crypto`, RFC 4568); nil: plain RTP.
    public var srtp: SRTPSpec?

    public init(video: RTPMediumSpec? = nil, audio: RTPMediumSpec? = nil, extensions: [String: Int]? = nil,
                rtcpMux: Bool? = nil, srtp: SRTPSpec? = nil) {
        self.video = video; self.audio = audio; self.extensions = extensions; self.rtcpMux = rtcpMux; self.srtp = srtp
    }
}

/// One medium of an allocation: a codec name alone (`"H264"`, the form tasks have always used),
/// or an object with the payload type, clock rate, channels, fmtp and RTX the SFU negotiated.
/// Unset fields take the codec's usual values (`RTPAllocationRequest.Medium(codec:)`).
public struct RTPMediumSpec: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    public var codec: String
    public var payloadType: Int?
    public var clockRate: Int?
    public var channels: Int?
    public var fmtp: String?
    public var rtxPayloadType: Int?

    public init(codec: String, payloadType: Int? = nil, clockRate: Int? = nil, channels: Int? = nil,
                fmtp: String? = nil, rtxPayloadType: Int? = nil) {
        self.codec = codec; self.payloadType = payloadType; self.clockRate = clockRate; self.channels = channels
        self.fmtp = fmtp; self.rtxPayloadType = rtxPayloadType
    }

    public init(stringLiteral codec: String) { self.init(codec: codec) }

    /// Only a codec is named: the string form says the same.
    public var isCodecOnly: Bool {
        payloadType == nil && clockRate == nil && channels == nil && fmtp == nil && rtxPayloadType == nil
    }

    private enum CodingKeys: String, CodingKey { case codec, payloadType, clockRate, channels, fmtp, rtxPayloadType }

    public init(from decoder: any Decoder) throws {
        if let codec = try? decoder.singleValueContainer().decode(String.self) {
            self.init(codec: codec)
            return
        }
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        self.init(codec: try fields.decode(String.self, forKey: .codec),
                  payloadType: try fields.decodeIfPresent(Int.self, forKey: .payloadType),
                  clockRate: try fields.decodeIfPresent(Int.self, forKey: .clockRate),
                  channels: try fields.decodeIfPresent(Int.self, forKey: .channels),
                  fmtp: try fields.decodeIfPresent(String.self, forKey: .fmtp),
                  rtxPayloadType: try fields.decodeIfPresent(Int.self, forKey: .rtxPayloadType))
    }

    /// A codec alone is written back in the string form, so documents stored before the object
    /// form existed read and write the same.
    public func encode(to encoder: any Encoder) throws {
        if isCodecOnly {
            var single = encoder.singleValueContainer()
            try single.encode(codec)
            return
        }
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(codec, forKey: .codec)
        try fields.encodeIfPresent(payloadType, forKey: .payloadType)
        try fields.encodeIfPresent(clockRate, forKey: .clockRate)
        try fields.encodeIfPresent(channels, forKey: .channels)
        try fields.encodeIfPresent(fmtp, forKey: .fmtp)
        try fields.encodeIfPresent(rtxPayloadType, forKey: .rtxPayloadType)
    }
}
