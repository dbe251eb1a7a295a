import TesseraRTP

/// Why a datagram on an RTP input's port was not used. The raw values are the keys of the
/// status's `packets.refused` object.
public enum RTPRefusal: String, Codable, Sendable, CaseIterable {
    /// Not a valid RTP packet (version, lengths, padding), or no payload.
    case malformed
    /// Longer than a UDP datagram buffer: cut short by the kernel.
    case truncated
    /// A payload type the input's SDP does not name.
    case payloadType
    /// From an address outside `rtp.source`, or from a second sender while the latched one is active.
    case source
    /// SRTP that failed authentication or replay protection.
    case authentication
}

/// What an RTP input's reader reports besides its packet counters: the RTCP it sent, whether
/// each medium is drawn / heard, and the newest reason a packet was refused.
public struct RTPReceptionStatus: Sendable, Equatable {
    public var rtcp = RTCPReceiver.Counters()
    public var videoState: RTPMediumState?
    public var audioState: RTPMediumState?
    /// The newest refusal, named once per new reason or sender (`payload type 96 is not in the
    /// input's SDP (expected 111)`); nil while every packet was taken.
    public var refusal: String?
    /// Bumped whenever `refusal` is set anew, so a repeat of one text is told apart from no news.
    public var refusalCount: Int64 = 0

    public init() {}
}
