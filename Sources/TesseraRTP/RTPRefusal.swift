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

/// One refused datagram: its reason (what it is counted under) and the sentence that names it
/// for the status (`payload type 96 is not in the input's SDP (expected 111 for audio)`).
public struct RTPRefusalNotice: Sendable, Equatable {
    public var reason: RTPRefusal
    public var text: String

    public init(reason: RTPRefusal, text: String) {
        self.reason = reason
        self.text = text
    }
}
