/// What a receiver knows about one sender's stream, for its receiver reports (RFC 3550 §6.4.1,
/// with the arithmetic of appendix A.3 for loss and A.8 for jitter).
///
/// Fed every packet as it arrives (before the reorder buffer, so jitter measures the network) and
/// every sender report; `reportBlock` turns that into one report block and starts the next
/// interval. A new sender (SSRC) starts afresh with `restart`.
public struct RTPReceptionStatistics: Sendable {
    public private(set) var ssrc: UInt32?
    private let clockRate: Int
    private var baseSequence: Int64 = 0
    /// The highest sequence number seen, extended past 16 bits.
    private var highestSequence: Int64 = 0
    private var received: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var receivedPrior: Int64 = 0
    /// A.8's running estimate, in timestamp units (kept fractional; the report rounds it).
    private var jitter: Double = 0
    /// The previous packet's transit (arrival in timestamp units − RTP timestamp).
    private var lastTransit: Int64?
    /// The latest SR's middle 32 NTP bits and when it arrived (µs).
    private var lastSenderReport: (middle: UInt32, arrivalMicroseconds: Int64)?

    public init(clockRate: Int) {
        self.clockRate = max(1, clockRate)
    }

    /// A new sender: nothing of the previous one's counts or timing applies to it.
    public mutating func restart(ssrc: UInt32) {
        self = RTPReceptionStatistics(clockRate: clockRate)
        self.ssrc = ssrc
    }

    /// A packet of the current sender arrived at `arrivalMicroseconds` (local monotonic clock).
    /// The first packet, or one of another SSRC, starts the statistics over for that SSRC.
    public mutating func note(sequenceNumber: UInt16, rtpTimestamp: UInt32, ssrc: UInt32, arrivalMicroseconds: Int64) {
        if self.ssrc != ssrc || received == 0 {
            restart(ssrc: ssrc)
            baseSequence = Int64(sequenceNumber)
            highestSequence = baseSequence
        }
        let extended = RTPReorderBuffer.extend(sequenceNumber, near: highestSequence)
        highestSequence = max(highestSequence, extended)
        received += 1
        // Transit in timestamp units; only differences matter, so its origin is arbitrary. The
        // RTP timestamp is taken as signed 32-bit so a wrap-around changes it by one unit.
        let arrivalUnits = arrivalMicroseconds * Int64(clockRate) / 1_000_000
        let transit = arrivalUnits - Int64(Int32(bitPattern: rtpTimestamp))
        if let lastTransit {
            var difference = abs(transit - lastTransit)
            // A wrap of the 32-bit timestamp between the two packets is not jitter.
            if difference > Int64(UInt32.max) / 2 { difference = abs(difference - Int64(UInt32.max) - 1) }
            jitter += (Double(difference) - jitter) / 16
        }
        lastTransit = transit
    }

    /// A sender report of the current sender arrived: its time is echoed back as LSR / DLSR, from
    /// which the sender works out the round trip.
    public mutating func noteSenderReport(ssrc: UInt32, ntpTimestamp: UInt64, arrivalMicroseconds: Int64) {
        guard ssrc == self.ssrc else { return }
        lastSenderReport = (UInt32(truncatingIfNeeded: ntpTimestamp >> 16), arrivalMicroseconds)
    }

    /// The report block for the interval since the previous one; nil before any packet.
    public mutating func reportBlock(nowMicroseconds: Int64) -> RTCPReportBlock? {
        guard let ssrc, received > 0 else { return nil }
        let expected = highestSequence - baseSequence + 1
        let lost = expected - received
        let expectedInterval = expected - expectedPrior
        let receivedInterval = received - receivedPrior
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction = expectedInterval <= 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        var delay: UInt32 = 0
        if let lastSenderReport {
            let elapsed = max(0, nowMicroseconds - lastSenderReport.arrivalMicroseconds)
            delay = UInt32(truncatingIfNeeded: min(Int64(UInt32.max), elapsed * 65_536 / 1_000_000))
        }
        return RTCPReportBlock(ssrc: ssrc, fractionLost: fraction,
                               cumulativeLost: Int32(max(-0x80_0000, min(0x7F_FFFF, lost))),
                               highestSequence: UInt32(truncatingIfNeeded: highestSequence),
                               jitter: UInt32(jitter.rounded()),
                               lastSenderReport: lastSenderReport?.middle ?? 0, delaySinceLastSenderReport: delay)
    }

    /// Jitter in milliseconds, for the status.
    public var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }
}
