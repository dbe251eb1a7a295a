/// Which missing packets to ask a sender to retransmit (generic NACK, RFC 4585), and when.
///
/// The reorder buffer knows the holes: sequence numbers after the next expected one that have not
/// arrived while later ones have. Each pass the reader hands them over; a hole is NACKed when it
/// first shows, then again every `retry` up to `maximumAttempts` times, and forgotten once it is
/// filled or the reorder buffer gives up on it (it is no longer among the holes). The number of
/// holes tracked is bounded, so a burst of loss, or a stranger's stream, costs one short packet.
public struct NACKScheduler: Sendable {
    private struct Hole: Sendable {
        var attempts: Int
        var dueMicroseconds: Int64
    }

    public let retryMicroseconds: Int64
    public let maximumAttempts: Int
    public let maximumHoles: Int
    private var holes: [UInt16: Hole] = [:]
    /// Sequence numbers named in NACKs so far (a retry counts again).
    public private(set) var requestedPackets: Int64 = 0

    public init(retryMicroseconds: Int64 = 20_000, maximumAttempts: Int = 3, maximumHoles: Int = 128) {
        self.retryMicroseconds = max(1_000, retryMicroseconds)
        self.maximumAttempts = max(1, maximumAttempts)
        self.maximumHoles = max(1, maximumHoles)
    }

    /// Takes the holes as they are now and returns the sequence numbers to NACK now (empty when
    /// none is due), oldest first.
    public mutating func update(missing: [UInt16], nowMicroseconds: Int64) -> [UInt16] {
        let current = Set(missing.prefix(maximumHoles))
        holes = holes.filter { current.contains($0.key) }
        var due: [UInt16] = []
        for sequence in missing.prefix(maximumHoles) {
            var hole = holes[sequence] ?? Hole(attempts: 0, dueMicroseconds: nowMicroseconds)
            if hole.attempts < maximumAttempts, nowMicroseconds >= hole.dueMicroseconds {
                hole.attempts += 1
                hole.dueMicroseconds = nowMicroseconds + retryMicroseconds
                due.append(sequence)
            }
            holes[sequence] = hole
        }
        requestedPackets += Int64(due.count)
        return due
    }

    /// When a retry next falls due; nil when none will.
    public var nextDeadlineMicroseconds: Int64? {
        holes.values.lazy.filter { $0.attempts < self.maximumAttempts }.map(\.dueMicroseconds).min()
    }

    /// A new sender: the old one's holes are not worth asking for.
    public mutating func reset() { holes = [:] }
}
