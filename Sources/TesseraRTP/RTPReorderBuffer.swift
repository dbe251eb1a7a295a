/// Puts one RTP stream's packets back in sequence order (a small jitter buffer).
///
/// A state machine with no clock and no I/O: `insert` and `expire` return what to do next as
/// events, in order, so the socket side only forwards them. The very first packet starts the
/// stream without a `.restart`; `.restart` is only emitted when a *different* stream replaces it.
///
/// A new SSRC, or the same SSRC jumping more than `maximumJump` sequence numbers, is not adopted
/// at once: a stray or corrupt datagram that happens to parse must not reset a healthy stream, so
/// the newcomer is on probation until `probation` packets of it have arrived in sequence.
public struct RTPReorderBuffer: Sendable {
    public struct Statistics: Sendable, Equatable {
        /// Every packet handed to `insert`.
        public var received: Int64 = 0
        /// Packets emitted as `.packet`.
        public var released: Int64 = 0
        /// Sequence numbers announced in `.gap` events.
        public var lost: Int64 = 0
        /// Packets that arrived after a later-numbered one and still filled their hole in time.
        public var reordered: Int64 = 0
        /// Packets that arrived after their hole was declared lost (dropped).
        public var late: Int64 = 0
        /// Packets already held or released (dropped).
        public var duplicates: Int64 = 0
        /// Packets of another stream while it was on probation.
        public var foreign: Int64 = 0
        /// Times a new stream was adopted.
        public var restarts: Int64 = 0

        public init() {}
    }

    public enum Event: Sendable, Equatable {
        /// The next packet in sequence, with the time it arrived.
        case packet(RTPPacket, arrivalMicroseconds: Int64)
        /// These never came; emitted before the packet after them.
        case gap(lostPackets: Int)
        /// A new SSRC / renumbered stream was adopted; packets after this belong to it.
        case restart
    }

    /// Further than this from the next expected sequence number is another stream, not loss or
    /// reordering (about 3 s of 720p video, far more of audio).
    public static let maximumJump: Int64 = 1000

    private struct HeldPacket: Sendable {
        /// The sequence number extended past 16 bits, so order survives wrap-around.
        var sequence: Int64
        var packet: RTPPacket
        var arrivalMicroseconds: Int64
    }

    private struct Stream: Sendable {
        var ssrc: UInt32
        var firstSequence: Int64
        var nextSequence: Int64
    }

    private let maxDelayMicroseconds: Int64
    private let capacity: Int
    private let probation: Int
    private var stream: Stream?
    /// Sorted by `sequence`; all of them after `stream.nextSequence`.
    private var held: [HeldPacket] = []
    /// Recently declared lost: one of these arriving is late, anything else behind is a duplicate.
    private var declaredLost: Set<Int64> = []
    /// Consecutive packets of a would-be new stream.
    private var candidate: [(packet: RTPPacket, arrivalMicroseconds: Int64)] = []
    public private(set) var statistics = Statistics()

    public init(maxDelayMicroseconds: Int64 = 50_000, capacity: Int = 256, probation: Int = 3) {
        self.maxDelayMicroseconds = maxDelayMicroseconds
        self.capacity = max(1, capacity)
        self.probation = max(1, probation)
    }

    /// When `expire` next has something to release: the oldest held packet's arrival + maxDelay.
    public var nextDeadlineMicroseconds: Int64? {
        held.lazy.map(\.arrivalMicroseconds).min().map { $0 + maxDelayMicroseconds }
    }

    /// The SSRC of the stream being released; nil before the first packet.
    public var currentSSRC: UInt32? { stream?.ssrc }

    /// Sequence numbers not yet arrived between the next expected one and the newest held
    /// packet, oldest first, at most `limit`: the packets a NACK can still ask for in time.
    public func missingSequenceNumbers(limit: Int = 128) -> [UInt16] {
        guard let next = stream?.nextSequence, let newest = held.last?.sequence else { return [] }
        var missing: [UInt16] = []
        var heldIndex = 0
        var sequence = next
        while sequence < newest, missing.count < limit {
            while heldIndex < held.count, held[heldIndex].sequence < sequence { heldIndex += 1 }
            if heldIndex < held.count, held[heldIndex].sequence == sequence {
                heldIndex += 1
            } else {
                missing.append(UInt16(truncatingIfNeeded: sequence))
            }
            sequence += 1
        }
        return missing
    }

    /// Any deadline already past at `arrivalMicroseconds` is honoured first, so the result does
    /// not depend on how punctually the caller runs `expire`.
    public mutating func insert(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [Event] {
        statistics.received += 1
        var events = expire(nowMicroseconds: arrivalMicroseconds)
        guard let stream else {
            let first = Int64(packet.sequenceNumber)
            self.stream = Stream(ssrc: packet.ssrc, firstSequence: first, nextSequence: first)
            emit(packet, arrivalMicroseconds: arrivalMicroseconds, into: &events)
            return events
        }
        let sequence = Self.extend(packet.sequenceNumber, near: stream.nextSequence)
        if packet.ssrc != stream.ssrc || abs(sequence - stream.nextSequence) > Self.maximumJump {
            considerAdopting(packet, arrivalMicroseconds: arrivalMicroseconds, into: &events)
        } else {
            place(HeldPacket(sequence: sequence, packet: packet, arrivalMicroseconds: arrivalMicroseconds), into: &events)
        }
        return events
    }

    /// Releases held packets that have waited maxDelay (declaring the missing ones lost). Call
    /// when nextDeadlineMicroseconds passes.
    public mutating func expire(nowMicroseconds: Int64) -> [Event] {
        var events: [Event] = []
        // `held` is in sequence order, so the last one that has waited enough releases all before it.
        if let index = held.lastIndex(where: { nowMicroseconds - $0.arrivalMicroseconds >= maxDelayMicroseconds }) {
            release(through: held[index].sequence, into: &events)
        }
        return events
    }

    // MARK: - The current stream

    private mutating func place(_ arriving: HeldPacket, into events: inout [Event]) {
        guard let stream else { return }
        if arriving.sequence < stream.nextSequence {
            let late = declaredLost.remove(arriving.sequence) != nil || arriving.sequence < stream.firstSequence
            if late { statistics.late += 1 } else { statistics.duplicates += 1 }
            return
        }
        let index = held.firstIndex { $0.sequence >= arriving.sequence } ?? held.endIndex
        if index < held.endIndex, held[index].sequence == arriving.sequence {
            statistics.duplicates += 1
            return
        }
        if index < held.endIndex { statistics.reordered += 1 }
        held.insert(arriving, at: index)
        if held.count > capacity {
            release(through: held[0].sequence, into: &events)
        } else {
            releaseConsecutive(into: &events)
        }
    }

    /// Emits every held packet up to `target`, with a `.gap` for each missing run before one.
    private mutating func release(through target: Int64, into events: inout [Event]) {
        while let first = held.first, first.sequence <= target {
            held.removeFirst()
            declareLost(upTo: first.sequence, into: &events)
            emit(first.packet, arrivalMicroseconds: first.arrivalMicroseconds, into: &events)
        }
        releaseConsecutive(into: &events)
    }

    private mutating func releaseConsecutive(into events: inout [Event]) {
        while let first = held.first, first.sequence == stream?.nextSequence {
            held.removeFirst()
            emit(first.packet, arrivalMicroseconds: first.arrivalMicroseconds, into: &events)
        }
    }

    /// Gives up on everything from the next expected sequence number to just before `sequence`.
    private mutating func declareLost(upTo sequence: Int64, into events: inout [Event]) {
        guard let next = stream?.nextSequence, sequence > next else { return }
        events.append(.gap(lostPackets: Int(sequence - next)))
        statistics.lost += sequence - next
        declaredLost.formUnion(next..<sequence)
        stream?.nextSequence = sequence
        // Anything further back than maximumJump is another stream's business, not late.
        if declaredLost.count > 2 * Int(Self.maximumJump) {
            declaredLost = declaredLost.filter { $0 >= sequence - Self.maximumJump }
        }
    }

    private mutating func emit(_ packet: RTPPacket, arrivalMicroseconds: Int64, into events: inout [Event]) {
        events.append(.packet(packet, arrivalMicroseconds: arrivalMicroseconds))
        statistics.released += 1
        stream?.nextSequence += 1
    }

    // MARK: - Probation

    private mutating func considerAdopting(_ packet: RTPPacket, arrivalMicroseconds: Int64, into events: inout [Event]) {
        statistics.foreign += 1
        if let last = candidate.last?.packet, last.ssrc == packet.ssrc, packet.sequenceNumber == last.sequenceNumber &+ 1 {
            candidate.append((packet, arrivalMicroseconds))
        } else {
            candidate = [(packet, arrivalMicroseconds)]
        }
        guard candidate.count >= probation else { return }
        // The old stream is over: what it still holds goes out first, then the newcomer.
        if let last = held.last { release(through: last.sequence, into: &events) }
        events.append(.restart)
        statistics.restarts += 1
        let first = Int64(candidate[0].packet.sequenceNumber)
        stream = Stream(ssrc: packet.ssrc, firstSequence: first, nextSequence: first)
        declaredLost = []
        for adopted in candidate { emit(adopted.packet, arrivalMicroseconds: adopted.arrivalMicroseconds, into: &events) }
        candidate = []
    }

    /// The 16-bit sequence number as the extended one nearest `reference` (RFC 3550 A.1):
    /// within ±32768 of it, so wrap-around from 65535 to 0 counts as +1.
    public static func extend(_ sequenceNumber: UInt16, near reference: Int64) -> Int64 {
        reference + Int64(Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: reference)))
    }
}
