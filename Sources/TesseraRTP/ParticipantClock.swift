/// Maps one participant's RTP timestamps to local presentation time (µs on the caller's
/// monotonic clock), keeping audio and video in sync.
///
/// RTP timestamps of the two streams start at unrelated random values, so on their own they only
/// say how far apart two packets *of one stream* are. Each stream is therefore anchored on the
/// arrival of its first packet — which leaves audio and video as far apart as their first packets'
/// network and pacing delays (tens of ms). RTCP sender reports fix that: each gives the sender's
/// one wall clock (NTP) at an RTP timestamp, so both streams can be put on that clock, shifted to
/// local time by one participant-wide offset.
///
///     before an SR:  local(ts) = anchorLocal + (ts − anchorTs) × 10⁶ / rate
///     after an SR:   local(ts) = srNtp + (ts − srTs) × 10⁶ / rate + senderOffset
///
/// The offset is fixed by the first SR accepted, so that the stream it belongs to keeps its mapping
/// at that SR (no jump); the other stream's mapping steps once, when its own SR arrives — that
/// step is the A/V correction.
///
/// Both streams then go through one `ClockDriftEstimator`, steered by one of them (audio when
/// there is any: small packets at an even pace), so that a sender whose clock runs fast or slow
/// keeps its delay, and its video follows its audio by the same ratio (lip sync is kept).
public struct ParticipantClock: Sendable {
    private struct StreamMapping: Sendable {
        var ssrc: UInt32
        var clockRate: Int
        /// The latest RTP timestamp extended past 32 bits: the reference for extending the next.
        var newestTimestamp: Int64
        var anchorTimestamp: Int64
        var anchorMicroseconds: Int64
        /// The stream's latest accepted SR: (extended RTP timestamp, sender NTP µs).
        var senderReport: (timestamp: Int64, ntpMicroseconds: Int64)?

        /// The sender's clock at `timestamp` when an SR is known; else local time from the anchor.
        func mapped(_ timestamp: Int64, senderOffset: Int64?) -> Int64 {
            if let senderReport, let senderOffset {
                return senderReport.ntpMicroseconds + ticksToMicroseconds(timestamp - senderReport.timestamp) + senderOffset
            }
            return anchorMicroseconds + ticksToMicroseconds(timestamp - anchorTimestamp)
        }

        /// Whole seconds first: `ticks × 10⁶` alone would overflow for a stream months long.
        func ticksToMicroseconds(_ ticks: Int64) -> Int64 {
            let rate = Int64(clockRate)
            return ticks / rate * 1_000_000 + ticks % rate * 1_000_000 / rate
        }

        /// Nearest to the newest timestamp (RFC 3550 A.1 for 32 bits): steps back of less than half
        /// the range are B-frames or reordering, not wrap-around.
        func extend(_ timestamp: UInt32) -> Int64 {
            newestTimestamp + Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: newestTimestamp)))
        }
    }

    private struct HeldReport: Sendable {
        var report: RTCPSenderReport
        var arrivalMicroseconds: Int64
    }

    private let maxDriftMicroseconds: Int64
    private var streams: [RTPMediaKind: StreamMapping] = [:]
    /// The latest SR of a stream not mapped yet (or of another SSRC). Senders send their first SR
    /// with their first packet, long before a frame is decoded (a late join waits for a keyframe),
    /// and the next one only seconds later: held, it syncs the stream from its first picture.
    private var heldReports: [RTPMediaKind: HeldReport] = [:]
    /// local = sender NTP + this; one value for both streams so they share the sender's clock.
    private var senderOffsetMicroseconds: Int64?
    /// True while at least one stream is mapped through a sender report.
    public private(set) var synchronizedBySenderReports = false
    /// Sender time → local time, following the sender's clock rate.
    private var drift = ClockDriftEstimator()
    /// The stream whose frames steer `drift`.
    private var steeringKind: RTPMediaKind?

    /// How much faster our clock runs than the sender's, as followed (ppm; > 0: a slow sender).
    public var driftCorrectionPpm: Double { drift.correctionPpm }
    /// The ratio by which the participant's audio is stretched: 1 + the correction.
    public var driftRatio: Double { 1 + drift.correction }
    /// Times the participant was re-placed after a jump of its sender or its path.
    public var jumps: Int64 { drift.jumps }

    /// `maxDriftMicroseconds`: how far a mapping may stray from arrival times before it is taken
    /// for a sender clock jump (or a bogus SR) rather than network delay.
    public init(maxDriftMicroseconds: Int64 = 1_000_000) {
        self.maxDriftMicroseconds = maxDriftMicroseconds
    }

    public mutating func presentationMicroseconds(kind: RTPMediaKind, ssrc: UInt32, rtpTimestamp: UInt32,
                                                  clockRate: Int, arrivalMicroseconds: Int64) -> Int64 {
        guard var stream = streams[kind], stream.ssrc == ssrc, stream.clockRate == clockRate else {
            return anchor(kind, ssrc: ssrc, timestamp: Int64(rtpTimestamp), clockRate: clockRate, at: arrivalMicroseconds)
        }
        let timestamp = stream.extend(rtpTimestamp)
        stream.newestTimestamp = max(stream.newestTimestamp, timestamp)
        let media = stream.mapped(timestamp, senderOffset: senderOffsetMicroseconds)
        streams[kind] = stream
        if kind == steeringKind {
            // Drift, and jumps of the whole participant, are the estimator's.
            drift.observe(mediaMicroseconds: media, arrivalMicroseconds: arrivalMicroseconds)
            return drift.local(media)
        }
        let local = drift.local(media)
        switch InputPlacement.deviation(placed: local, due: arrivalMicroseconds, aheadTolerance: maxDriftMicroseconds,
                                        behindTolerance: maxDriftMicroseconds) {
        case .within:
            return local
        case .behind where drift.suspectsLateJump:
            // Late frames of both streams are a stall the steering stream is about to re-place.
            return local
        case .ahead, .behind:
            // This stream's RTP clock jumped (or restarted with the same SSRC): start it afresh;
            // its next SR brings it back onto the shared clock.
            return anchor(kind, ssrc: ssrc, timestamp: timestamp, clockRate: clockRate, at: arrivalMicroseconds)
        }
    }

    public mutating func noteSenderReport(_ report: RTCPSenderReport, kind: RTPMediaKind, arrivalMicroseconds: Int64) {
        // An SR before the stream's first packet, or from another SSRC (a restarting sender's,
        // during its probation), has nothing to map yet: kept for when that stream is anchored.
        guard var stream = streams[kind], stream.ssrc == report.ssrc else {
            heldReports[kind] = HeldReport(report: report, arrivalMicroseconds: arrivalMicroseconds)
            return
        }
        let timestamp = stream.extend(report.rtpTimestamp)
        let ntp = report.ntpMicroseconds
        let offset = senderOffsetMicroseconds ?? stream.mapped(timestamp, senderOffset: nil) - ntp
        // The SR describes the sender's "now", so mapped through the offset it must land near its
        // own arrival; far off means a garbage report or a sender whose wall clock jumped.
        guard abs(drift.local(ntp + offset) - arrivalMicroseconds) <= maxDriftMicroseconds else { return }
        let before = stream.mapped(stream.newestTimestamp, senderOffset: senderOffsetMicroseconds)
        stream.senderReport = (timestamp, ntp)
        streams[kind] = stream
        senderOffsetMicroseconds = offset
        synchronizedBySenderReports = true
        // The steering stream moved onto the sender's wall clock (the A/V correction): a step the
        // drift estimate must not take for drift.
        if kind == steeringKind {
            drift.mediaStepped(by: stream.mapped(stream.newestTimestamp, senderOffset: offset) - before)
        }
    }

    /// The stream restarted (new SSRC): anchor afresh on its next packet.
    public mutating func reset(kind: RTPMediaKind) {
        streams[kind] = nil
        forgetOffsetIfUnused()
    }

    /// Starts the stream's mapping at `timestamp` → `local` and returns where `timestamp` lands:
    /// `local`, unless a held sender report of this SSRC already puts it on the sender's clock.
    private mutating func anchor(_ kind: RTPMediaKind, ssrc: UInt32, timestamp: Int64, clockRate: Int, at local: Int64) -> Int64 {
        // Anchored where the drift mapping puts `local`, so the stream lands on its arrival.
        streams[kind] = StreamMapping(ssrc: ssrc, clockRate: max(1, clockRate), newestTimestamp: timestamp,
                                      anchorTimestamp: timestamp, anchorMicroseconds: drift.media(atLocal: local), senderReport: nil)
        forgetOffsetIfUnused()
        // Audio steers once there is any; a steering stream anchored afresh is a new series.
        if steeringKind == nil || steeringKind == kind || (kind == .audio && steeringKind != .audio) {
            steeringKind = kind
            drift.restart()
        }
        if let held = heldReports[kind], held.report.ssrc == ssrc {
            heldReports[kind] = nil
            noteSenderReport(held.report, kind: kind, arrivalMicroseconds: held.arrivalMicroseconds)
        }
        guard let media = streams[kind]?.mapped(timestamp, senderOffset: senderOffsetMicroseconds) else { return local }
        if kind == steeringKind { drift.observe(mediaMicroseconds: media, arrivalMicroseconds: local) }
        return drift.local(media)
    }

    /// With no stream left on the sender's clock the offset constrains nothing, and keeping it
    /// would refuse every SR after a sender wall-clock jump; the next SR fixes a fresh one.
    private mutating func forgetOffsetIfUnused() {
        synchronizedBySenderReports = streams.values.contains { $0.senderReport != nil }
        if !synchronizedBySenderReports { senderOffsetMicroseconds = nil }
    }
}
