/// What an `RTPSenderSession` asks its caller to do.
public enum RTPSenderAction: Sendable, Equatable {
    /// Send this RTCP datagram (a compound) to the receiver's RTCP address.
    case send([UInt8])
    /// Make the encoder emit a keyframe next.
    case requestKeyframe
}

/// The RTCP side of one sent stream (RFC 3550, 4585, 5104): sender reports about once a second,
/// and the receiver's feedback turned into keyframe requests and statistics.
///
/// A state machine with no clock or I/O: the caller passes in monotonic time (seconds), NTP wall
/// time and the stream's counts, and carries out the returned actions. Keyframe requests are
/// rate-limited: an SFU asks once per subscriber that joins or loses a picture, and a keyframe
/// costs several times a delta frame, so at most one is asked per `keyframeInterval`; the first at
/// once, and any asked during the hold once, when it ends (`tick`, see `nextDeadline`).
public struct RTPSenderSession: Sendable {
    public let ssrc: UInt32
    public let clockRate: Int
    public let cname: String
    /// Audio streams count PLI and FIR but never ask for a keyframe.
    public let isVideo: Bool
    /// Shortest time between two keyframe requests, in seconds.
    public let keyframeInterval: Double
    /// Mean time between sender reports, in seconds.
    public let reportInterval: Double
    /// Each interval is `reportInterval × (1 ± reportJitter)`, uniformly: RFC 3550 §6.3.5's
    /// 0.5–1.5 spread (0.5), so streams started together do not report in lockstep; 0 for none.
    public let reportJitter: Double
    public private(set) var statistics = RTPSenderStatistics()

    private var random: ReportIntervalRandom
    /// When the next report is due; nil before the first tick, which sends one at once.
    private var nextReportTime: Double?
    /// Until when keyframe requests wait; nil before the first.
    private var keyframeHoldUntil: Double?
    /// A request arrived during the hold and waits for it to end.
    private var keyframeHeld = false
    private var lastFIRSequence: UInt8?
    /// The LSR values (middle 32 bits of NTP) of our latest sender reports, newest last: a report
    /// block's round trip is only worked out against one of them, so a block echoing something
    /// else (another sender's SR, a receiver's bug) cannot give a made-up RTT.
    private var sentReportLSRs: [UInt32] = []
    private static let rememberedReports = 8
    private var stopped = false

    /// `seed`: for the report interval's randomisation; nil uses the SSRC.
    public init(ssrc: UInt32, clockRate: Int, cname: String, isVideo: Bool, keyframeInterval: Double = 1.0,
                reportInterval: Double = 1.0, reportJitter: Double = 0.5, seed: UInt64? = nil) {
        self.ssrc = ssrc; self.clockRate = clockRate; self.cname = cname; self.isVideo = isVideo
        self.keyframeInterval = keyframeInterval
        self.reportInterval = reportInterval
        self.reportJitter = min(max(reportJitter, 0), 1)
        random = ReportIntervalRandom(seed: seed ?? UInt64(ssrc))
    }

    /// When `tick` has something to do next (a report, or a held keyframe request), in the same
    /// monotonic seconds; nil before the first tick (which reports at once) and after `goodbye`.
    public var nextDeadline: Double? {
        guard !stopped, let nextReportTime else { return nil }
        guard keyframeHeld, let keyframeHoldUntil else { return nextReportTime }
        return min(nextReportTime, keyframeHoldUntil)
    }

    // MARK: - Time passing

    /// `ntp`: wall time now, 64-bit NTP; `rtpTimestamp`: the stream's RTP time now (from the media
    /// clock, not a packet's); the counts from `RTPStreamSender`.
    public mutating func tick(now: Double, ntp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32,
                              octetCount: UInt32) -> [RTPSenderAction] {
        guard !stopped else { return [] }
        var actions: [RTPSenderAction] = []
        if keyframeHeld, let keyframeHoldUntil, now >= keyframeHoldUntil {
            keyframeHeld = false
            statistics.keyframesDelayed += 1
            actions.append(requestKeyframe(now: now))
        }
        if nextReportTime.map({ now >= $0 }) ?? true {
            let report = RTCPSenderWriter.senderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtpTimestamp,
                                                       packetCount: packetCount, octetCount: octetCount)
            sentReportLSRs.append(Self.middleBits(ntp))
            if sentReportLSRs.count > Self.rememberedReports { sentReportLSRs.removeFirst() }
            statistics.reportsSent += 1
            // From now, not from when it was due: after a stall the reports resume, they do not burst.
            nextReportTime = now + reportInterval * (1 + reportJitter * (2 * random.unit() - 1))
            actions.append(.send(report + RTCPFeedbackWriter.sourceDescription(ssrc: ssrc, cname: cname)))
        }
        return actions
    }

    // MARK: - Feedback

    /// Acts on what the receiver sent; only what names this stream's SSRC counts.
    public mutating func received(_ feedback: RTCPSenderFeedback, now: Double, ntp: UInt64) -> [RTPSenderAction] {
        guard !stopped else { return [] }
        if feedback.goodbye { statistics.goodbyeReceived = true }
        for block in feedback.reportBlocks where block.ssrc == ssrc { note(block, ntp: ntp) }
        for nack in feedback.nacks where nack.mediaSSRC == ssrc {
            statistics.nack += 1
            statistics.nackedPackets += Int64(nack.sequenceNumbers.count)
        }
        let pictureLosses = feedback.pictureLossSSRCs.filter { $0 == ssrc }.count
        statistics.pli += Int64(pictureLosses)
        var wantsKeyframe = pictureLosses > 0
        // RFC 5104 §4.3.1.2: a FIR repeated with the same sequence number is the same request.
        for request in feedback.fullIntraRequests where request.ssrc == ssrc && request.sequenceNumber != lastFIRSequence {
            lastFIRSequence = request.sequenceNumber
            statistics.fir += 1
            wantsKeyframe = true
        }
        guard wantsKeyframe && isVideo else { return [] }
        if let keyframeHoldUntil, now < keyframeHoldUntil {
            if keyframeHeld { statistics.keyframeRequestsMerged += 1 }
            keyframeHeld = true
            return []
        }
        return [requestKeyframe(now: now)]
    }

    /// RFC 3550 §6.4.1: RTT = A − LSR − DLSR, all in the middle 32 bits of NTP (1/65536 s), A
    /// being when the report arrived. LSR 0 means the receiver has had no SR yet.
    private mutating func note(_ block: RTCPReportBlock, ntp: UInt64) {
        statistics.reportsReceived += 1
        statistics.fractionLost = Double(block.fractionLost) / 256
        statistics.cumulativeLost = Int64(block.cumulativeLost)
        statistics.jitterMs = Double(block.jitter) * 1000 / Double(max(clockRate, 1))
        guard block.lastSenderReport != 0, sentReportLSRs.contains(block.lastSenderReport) else { return }
        let roundTrip = Self.middleBits(ntp) &- block.lastSenderReport &- block.delaySinceLastSenderReport
        // Negative when the receiver's DLSR overstates its hold; no RTT is better than a wrong one.
        guard Int32(bitPattern: roundTrip) >= 0 else { return }
        statistics.rttMs = Double(roundTrip) * 1000 / 65536
    }

    private mutating func requestKeyframe(now: Double) -> RTPSenderAction {
        keyframeHoldUntil = now + keyframeInterval
        statistics.keyframesRequested += 1
        return .requestKeyframe
    }

    // MARK: - Stopping

    /// The compound to send when the stream stops: an empty RR (a compound must start with a
    /// report, RFC 3550 §6.1, and an SR would need counts and clocks this call does not have),
    /// SDES CNAME and BYE. Afterwards `tick` and `received` do nothing.
    public mutating func goodbye(reason: String? = nil) -> [UInt8] {
        stopped = true
        return RTCPFeedbackWriter.receiverReport(senderSSRC: ssrc, blocks: [])
            + RTCPFeedbackWriter.sourceDescription(ssrc: ssrc, cname: cname)
            + RTCPSenderWriter.goodbye(ssrcs: [ssrc], reason: reason)
    }

    /// The middle 32 bits of a 64-bit NTP time: seconds mod 2¹⁶ and the fraction's top 16 bits.
    static func middleBits(_ ntp: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: ntp >> 16) }
}

/// SplitMix64: a small seeded generator, so report times are reproducible in tests.
struct ReportIntervalRandom: Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    /// Uniform in [0, 1), from the top 53 bits.
    mutating func unit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
