/// Where a live input's media lands on the output timeline, and the one rule that moves it.
///
/// Each connection's first media fixes the offset: it lands `latency` ahead of the task clock
/// (`earliest`), so there is room for jitter. Media that arrives by itself (RTP) is then watched
/// against the same reference, by one rule (`Deviation`) in two directions:
///
/// - **ahead**: media found more than `slackMicroseconds` further ahead than `earliest` pulls the
///   input earlier, at once. A stream placed by a late first packet (a burst after a stall, an
///   SFU's cached keyframe) would otherwise stay that late for the whole call. Pictures queued
///   under the old placement come after newer ones now: the caller drops them (`.pulledEarlier`).
/// - **behind**: media the output has already passed (behind `now`) is never heard nor seen; if it
///   stays behind for `lateReplacementMicroseconds` the input is pushed ahead to `earliest` again.
///   One late frame is jitter, and pushing it would add delay for good.
///
/// `ParticipantClock` judges a sender's RTP mapping against arrival times by the same rule
/// (`deviation`), with its own tolerance: a stream that strays that far jumped and is re-anchored.
///
/// Media read at its own pace (files, pull URLs) is only placed, never moved: the reader is held
/// back to the placement instead.
public struct InputPlacement: Sendable, Equatable {
    /// How much further ahead than its latency real-time media may run before the input is
    /// pulled earlier: more than the jitter of a steady stream, so a steady stream is never moved.
    public static let slackMicroseconds: Int64 = 30_000
    /// How long real-time media may stay behind the output before it is placed ahead again.
    public static let lateReplacementMicroseconds: Int64 = 300_000

    /// What placing one piece of media did.
    public enum Move: Sendable, Equatable {
        case kept
        /// The connection's first media: placed `latency` ahead.
        case placed
        /// Pulled earlier: pictures queued at or after the new time are stale.
        case pulledEarlier
        /// Pushed ahead again after staying behind the output.
        case pushedLater
    }

    /// Where media lands against where it is due, by the one tolerance each side allows.
    public enum Deviation: Sendable, Equatable {
        case within
        /// Further ahead than allowed, by this much beyond the due time (µs).
        case ahead(Int64)
        /// Further behind than allowed, by this much before the due time (µs).
        case behind(Int64)
    }

    /// The one measure of a jump: `placed` more than `aheadTolerance` after `due`, or more than
    /// `behindTolerance` before it.
    public static func deviation(placed: Int64, due: Int64, aheadTolerance: Int64, behindTolerance: Int64) -> Deviation {
        if placed - due > aheadTolerance { return .ahead(placed - due) }
        if due - placed > behindTolerance { return .behind(due - placed) }
        return .within
    }

    /// Input time + this = output time (µs).
    public private(set) var offsetMicroseconds: Int64
    private var needsPlacement: Bool
    /// Since when (task clock, µs) media has been behind the output; nil while on time.
    private var behindSince: Int64?
    /// False for media read at its own pace: only placed, never moved.
    private var arrivesInRealTime = false

    /// Offline (`live` false) every input keeps `startAtMicroseconds` as its offset; live, the
    /// first media of each connection places it.
    public init(startAtMicroseconds: Int64, live: Bool) {
        offsetMicroseconds = startAtMicroseconds
        needsPlacement = live
    }

    /// A (re)connection: its first media is placed afresh.
    public mutating func connected(arrivesInRealTime: Bool) {
        needsPlacement = true
        self.arrivesInRealTime = arrivesInRealTime
    }

    /// Places media at input time `media`; `earliest` is where media is due (the task clock plus
    /// the latency, not before the input's start), `now` the task clock (both µs).
    public mutating func place(_ media: Int64, earliest: Int64, now: Int64) -> (pts: Int64, move: Move) {
        var move = Move.kept
        if needsPlacement {
            needsPlacement = false
            behindSince = nil
            offsetMicroseconds = earliest - media
            move = .placed
        }
        var pts = offsetMicroseconds + media
        guard arrivesInRealTime else { return (pts, move) }
        if case .ahead(let by) = Self.deviation(placed: pts, due: earliest, aheadTolerance: Self.slackMicroseconds,
                                                behindTolerance: .max) {
            offsetMicroseconds -= by
            pts = earliest
            move = .pulledEarlier
        }
        guard case .behind = Self.deviation(placed: pts, due: now, aheadTolerance: .max, behindTolerance: 0) else {
            behindSince = nil
            return (pts, move)
        }
        let since = behindSince ?? now
        behindSince = since
        guard now - since >= Self.lateReplacementMicroseconds else { return (pts, move) }
        offsetMicroseconds += earliest - pts
        behindSince = nil
        return (earliest, .pushedLater)
    }
}
