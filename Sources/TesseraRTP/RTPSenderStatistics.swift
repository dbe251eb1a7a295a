/// What the receiver of a sent stream has said about it, and what it has asked for: for the
/// output's status. Loss, jitter and round trip are from the latest report block about the stream.
public struct RTPSenderStatistics: Codable, Sendable, Equatable {
    /// Sender reports sent (each in a compound with SDES CNAME).
    public var reportsSent: Int64 = 0
    /// Report blocks received about this stream (in RRs or SRs).
    public var reportsReceived: Int64 = 0
    /// PLIs naming this stream.
    public var pli: Int64 = 0
    /// FIR entries naming this stream with a new sequence number (repeats are not counted).
    public var fir: Int64 = 0
    /// Generic NACK packets naming this stream.
    public var nack: Int64 = 0
    /// Sequence numbers those NACKs asked for.
    public var nackedPackets: Int64 = 0
    /// Keyframes asked of the encoder (`RTPSenderAction.requestKeyframe`).
    public var keyframesRequested: Int64 = 0
    /// Of those, the ones held back by the rate limit and asked for when the hold ended.
    public var keyframesDelayed: Int64 = 0
    /// PLIs and FIRs that arrived while a request was already held, and so asked for nothing more.
    public var keyframeRequestsMerged: Int64 = 0
    /// Fraction of packets lost between the receiver's last two reports, 0…1.
    public var fractionLost: Double = 0
    /// Packets lost since the start, as the receiver counts them (negative with duplicates).
    public var cumulativeLost: Int64 = 0
    /// Interarrival jitter in milliseconds.
    public var jitterMs: Double = 0
    /// Round-trip time in milliseconds; nil until a report answers one of our sender reports.
    public var rttMs: Double?
    /// Whether the receiver has sent BYE.
    public var goodbyeReceived = false

    public init() {}
}
