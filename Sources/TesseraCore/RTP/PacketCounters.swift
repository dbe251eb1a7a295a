/// What happened to the packets of an RTP input: its status shows them so an operator can tell
/// a lossy network from a silent sender.
public struct PacketCounters: Codable, Sendable, Equatable {
    public var received: Int64 = 0
    public var lost: Int64 = 0
    public var reordered: Int64 = 0
    public var late: Int64 = 0
    /// Datagrams that were not usable RTP for this input: malformed, another payload type,
    /// a stranger's SSRC, truncated.
    public var malformed: Int64 = 0
    /// Times a sender restarted (new SSRC or renumbered stream) and was taken up again.
    public var senderRestarts: Int64 = 0
    /// Datagrams refused, by reason (`payloadType`, `source`, `malformed`, `truncated`,
    /// `authentication`); `malformed` above is their sum, as before reasons were told apart.
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
