/// Follows a sender whose clock runs a little fast or slow against ours, so that its delay stays
/// where it started instead of growing until its audio is discarded (slow sender) or shrinking
/// until it is cut (fast sender).
///
/// Fed each frame's media time (the sender's clock, already in local µs by `ParticipantClock`)
/// and its arrival on our monotonic clock, it maps media time to local time through a ratio:
///
///     local(m) = baseLocal + (m − baseMedia) × (1 + correction)
///
/// and re-bases (baseMedia, baseLocal) whenever the ratio changes, so the mapping never steps.
///
/// **Estimate.** Network queueing only ever adds delay, so the *smallest* `arrival − media` of a
/// window (1 s) is the sender's clock seen through the shortest path; its slope across the last
/// 30 windows (Theil–Sen: the median of pairwise slopes, which one congested window cannot bend)
/// is the sender's drift `s`. A sender at rate r (media µs per real µs) has s = 1 − r and needs
/// correction 1/r − 1 = s / (1 − s).
///
/// **Hold.** On top of the estimate, the delay (smallest `arrival − local` of a window) is pulled
/// back to its first window's value with a time constant `pullBackSeconds`:
///
///     correction = s / (1 − s) + (delay − target) / pullBack
///
/// bounded by `maxCorrection` and moved by at most `maxCorrectionStep` a window, so audio
/// resampled by it never changes pitch audibly at once.
///
/// **Jumps.** A delay that leaves the band by more than `jumpThresholdMicroseconds` is not drift:
/// the mapping is re-placed at once, counted, and reported. Too early cannot be network delay and
/// is re-placed on the spot; too late is re-placed only once every frame for
/// `lateConfirmationMicroseconds` (500 ms) is late (a sender stall), so a burst that drains at once (packets
/// held up by the network, then delivered together) is left alone.
public struct ClockDriftEstimator: Sendable {
    public struct Settings: Sendable {
        public var windowMicroseconds: Int64 = 1_000_000
        public var historyWindows = 30
        /// ±1.5 %: a 1 % sender (seen in the field) plus room to pull its delay back.
        public var maxCorrection = 0.015
        /// 0.25 % a window: a 1 % sender is followed within a few seconds; a pitch change of
        /// 4 cents a second is not heard.
        public var maxCorrectionStep = 0.0025
        public var pullBackSeconds = 30.0
        public var jumpThresholdMicroseconds: Int64 = 200_000
        /// Half a second: a receiving thread starved of CPU on a loaded machine reads a few hundred ms
        /// of packets late at once; that is not the sender's jump.
        public var lateConfirmationMicroseconds: Int64 = 500_000
        public init() {}
    }

    public let settings: Settings
    private var baseMedia: Int64 = 0
    private var baseLocal: Int64 = 0
    /// The mapping's ratio minus one: > 0 stretches a slow sender's media over more local time.
    public private(set) var correction = 0.0
    /// Times the mapping was re-placed after a jump.
    public private(set) var jumps: Int64 = 0

    private struct Sample: Sendable { var arrival: Int64; var rawDelay: Int64 }
    /// Per closed window, where its smallest `arrival − media` was seen.
    private var history: [Sample] = []
    private var windowStart: Int64?
    private var windowRawMinimum = Sample(arrival: 0, rawDelay: .max)
    private var windowDelayMinimum = Int64.max
    /// The delay the mapping holds: the first window's smallest; until then the first frame's.
    private var targetDelay: Int64?
    private var targetIsProvisional = true
    /// Arrival of the first of an unbroken run of late frames, and the least late of them.
    private var lateSince: Int64?
    private var lateExcess = Int64.max

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    public var correctionPpm: Double { correction * 1_000_000 }

    /// True while frames arrive late beyond the jump threshold but not yet long enough to re-place.
    public var suspectsLateJump: Bool { lateSince != nil }

    /// Local µs of media time `media` (any stream of the participant).
    public func local(_ media: Int64) -> Int64 {
        let elapsed = media - baseMedia
        return baseLocal + elapsed + Int64((Double(elapsed) * correction).rounded())
    }

    /// The media time that maps to local µs `local`: where a stream anchored at that instant starts.
    public func media(atLocal local: Int64) -> Int64 {
        let elapsed = local - baseLocal
        return baseMedia + elapsed - Int64((Double(elapsed) * correction / (1 + correction)).rounded())
    }

    /// One frame of the steering stream. Returns the shift (µs, local) when it re-placed the mapping.
    @discardableResult
    public mutating func observe(mediaMicroseconds media: Int64, arrivalMicroseconds arrival: Int64) -> Int64? {
        let delay = arrival - local(media)
        let target = targetDelay ?? delay
        targetDelay = target
        let excess = delay - target
        if excess < -settings.jumpThresholdMicroseconds { return replace(by: excess) }
        if excess > settings.jumpThresholdMicroseconds {
            lateExcess = min(lateExcess, excess)
            let since = lateSince ?? arrival
            lateSince = since
            // Late frames stay out of the windows: they are the jump, not the clock.
            return arrival - since >= settings.lateConfirmationMicroseconds ? replace(by: lateExcess) : nil
        }
        lateSince = nil
        lateExcess = .max
        if arrival - media < windowRawMinimum.rawDelay { windowRawMinimum = Sample(arrival: arrival, rawDelay: arrival - media) }
        windowDelayMinimum = min(windowDelayMinimum, delay)
        let start = windowStart ?? arrival
        windowStart = start
        if arrival - start >= settings.windowMicroseconds { closeWindow(at: media) }
        return nil
    }

    /// The steering stream's media times moved by `delta` on purpose (a sender report put it on
    /// the sender's wall clock): the participant moves with it, and what was measured before is
    /// shifted so that the step is not taken for drift.
    public mutating func mediaStepped(by delta: Int64) {
        guard delta != 0 else { return }
        let localDelta = delta + Int64((Double(delta) * correction).rounded())
        for index in history.indices { history[index].rawDelay -= delta }
        if windowRawMinimum.rawDelay != .max { windowRawMinimum.rawDelay -= delta }
        if windowDelayMinimum != .max { windowDelayMinimum -= localDelta }
        targetDelay = targetDelay.map { $0 - localDelta }
    }

    /// The steering stream started afresh (a new sender, or another stream steers now): what was
    /// measured belongs to the old one. The mapping and its ratio stay (the clock is the same
    /// sender's); the delay to hold is measured anew.
    public mutating func restart() {
        history.removeAll()
        resetWindow()
        targetDelay = nil
        targetIsProvisional = true
        lateSince = nil
        lateExcess = .max
    }

    // MARK: Steering

    private mutating func closeWindow(at media: Int64) {
        history.append(windowRawMinimum)
        if history.count > settings.historyWindows { history.removeFirst(history.count - settings.historyWindows) }
        if targetIsProvisional {
            targetIsProvisional = false
            targetDelay = windowDelayMinimum
        }
        let held = windowDelayMinimum - (targetDelay ?? windowDelayMinimum)
        resetWindow()
        // Three windows (two seconds) before the first slope: one or two minima say nothing.
        guard history.count >= 3, let drift = Self.medianSlope(history) else { return }
        let pull = Double(held) / (settings.pullBackSeconds * 1_000_000)
        let wanted = min(max(drift / (1 - drift) + pull, -settings.maxCorrection), settings.maxCorrection)
        let step = min(max(wanted - correction, -settings.maxCorrectionStep), settings.maxCorrectionStep)
        setCorrection(correction + step, at: media)
    }

    /// Re-bases at `media`, so the new ratio applies from there on and nothing steps.
    private mutating func setCorrection(_ new: Double, at media: Int64) {
        baseLocal = local(media)
        baseMedia = media
        correction = new
    }

    private mutating func replace(by shift: Int64) -> Int64 {
        baseLocal += shift
        jumps += 1
        // The raw delays before the jump are on the other side of it; the delay held stays.
        history.removeAll()
        resetWindow()
        lateSince = nil
        lateExcess = .max
        return shift
    }

    private mutating func resetWindow() {
        windowStart = nil
        windowRawMinimum = Sample(arrival: 0, rawDelay: .max)
        windowDelayMinimum = .max
    }

    /// Theil–Sen: the median of the slopes between every pair of points (µs of delay per µs).
    private static func medianSlope(_ points: [Sample]) -> Double? {
        var slopes: [Double] = []
        slopes.reserveCapacity(points.count * (points.count - 1) / 2)
        for i in points.indices {
            for j in points.indices where j > i && points[j].arrival != points[i].arrival {
                slopes.append(Double(points[j].rawDelay - points[i].rawDelay) / Double(points[j].arrival - points[i].arrival))
            }
        }
        guard !slopes.isEmpty else { return nil }
        slopes.sort()
        let middle = slopes.count / 2
        return slopes.count % 2 == 1 ? slopes[middle] : (slopes[middle - 1] + slopes[middle]) / 2
    }
}
