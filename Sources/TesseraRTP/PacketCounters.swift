/// What happened to the packets of an RTP input: its status shows them so an operator can tell
/// a lossy network from a silent sender.
public struct PacketCounters: Codable, Sendable, Equatable {
    public var received: Int64 = 0
    public var lost: Int64 = 0
    public var reordered: Int64 = 0
    public var late: Int64 = 0
    /// Datagrams that were not usable RTP for this input: not RTP at all, truncated, another
    /// payload type, failing SRTP authentication (the sum of `refused` but for `source`), and
    /// packets whose payload the depacketizer could not read. A well-formed packet refused for
    /// its sender (`refused.source`) is not in it, so no datagram is counted both here and there.
    public var malformed: Int64 = 0
    /// Times a sender restarted (new SSRC or renumbered stream) and was taken up again.
    public var senderRestarts: Int64 = 0
    /// Datagrams refused, by reason (`payloadType`, `source`, `malformed`, `truncated`,
    /// `authentication`): each under one reason only, the first check it failed (whether it is
    /// RTP at all comes before who sent it: `RTPPacket.headerProblem`).
    public var refused: [String: Int64] = [:]
    /// Milliseconds of audio concealed over lost packets.
    public var concealedMilliseconds: Int64 = 0
    /// How much the sender's clock runs slow (> 0) or fast (< 0) against ours, as followed: its
    /// audio is stretched and its pictures placed by 1 + this / 10⁶.
    public var clockDriftPpm: Double = 0
    /// Times the participant was re-placed because its sender or its path jumped (a stall, a
    /// clock step) rather than drifted.
    public var clockJumps: Int64 = 0
    public init() {}

    /// The refusal reason that is about who sent a packet, not what it is: not in `malformed`.
    public static let sourceReason = "source"

    /// Adds one stream's refusals (each datagram under its one reason) and the packets its
    /// depacketizer found malformed (taken packets, never refused ones).
    public mutating func add(refused counts: [String: Int64], depacketizerMalformed: Int64) {
        malformed += depacketizerMalformed
        for (reason, count) in counts where count > 0 {
            refused[reason, default: 0] += count
            if reason != Self.sourceReason { malformed += count }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case received, lost, reordered, late, malformed, senderRestarts, refused, concealedMilliseconds, clockDriftPpm, clockJumps
    }

    /// Every key optional: a status stored by an older node (before `refused` or the clock
    /// fields existed) still reads, as a task moves across a rolling upgrade.
    public init(from decoder: any Swift.Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int64 { try values.decodeIfPresent(Int64.self, forKey: key) ?? 0 }
        received = try count(.received)
        lost = try count(.lost)
        reordered = try count(.reordered)
        late = try count(.late)
        malformed = try count(.malformed)
        senderRestarts = try count(.senderRestarts)
        refused = try values.decodeIfPresent([String: Int64].self, forKey: .refused) ?? [:]
        concealedMilliseconds = try count(.concealedMilliseconds)
        clockDriftPpm = try values.decodeIfPresent(Double.self, forKey: .clockDriftPpm) ?? 0
        clockJumps = try count(.clockJumps)
    }
}
