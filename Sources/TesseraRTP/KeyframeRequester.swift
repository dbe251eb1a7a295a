/// When to ask a video sender for a keyframe (PLI, and FIR where offered): the decoder of a
/// participant who joined mid-call, whose sender restarted, or who lost a reference picture has
/// nothing to show until one comes, and a WebRTC sender sends one only when asked.
///
/// A state machine with no clock or I/O: the reader says when the decoder needs a keyframe and
/// when one arrived, and asks `poll` whether a request is due. The first request goes out at once
/// (unless one went out less than `minimumGap` ago); while none arrives it repeats, starting at
/// `firstRetry` and growing by half each time up to `maximumRetry`, so a sender that cannot answer
/// (or a path that drops feedback) gets a steady trickle, never a storm.
public struct KeyframeRequester: Sendable {
    public enum Reason: String, Sendable, Equatable {
        case start = "the input started"
        case newSender = "a new sender was adopted"
        case referenceLost = "packets were lost"
        case decodeError = "a picture failed to decode"
    }

    public let minimumGapMicroseconds: Int64
    public let firstRetryMicroseconds: Int64
    public let maximumRetryMicroseconds: Int64

    /// Since when a keyframe is needed, and why; nil while the decoder has its references.
    public private(set) var pending: Reason?
    private var lastRequestMicroseconds: Int64?
    private var retryMicroseconds: Int64
    private var dueMicroseconds: Int64?
    /// Requests so far: what the status shows.
    public private(set) var requests: Int64 = 0

    public init(minimumGapMicroseconds: Int64 = 200_000, firstRetryMicroseconds: Int64 = 500_000,
                maximumRetryMicroseconds: Int64 = 2_000_000) {
        self.minimumGapMicroseconds = minimumGapMicroseconds
        self.firstRetryMicroseconds = firstRetryMicroseconds
        self.maximumRetryMicroseconds = max(firstRetryMicroseconds, maximumRetryMicroseconds)
        retryMicroseconds = firstRetryMicroseconds
    }

    /// The decoder cannot go on without a keyframe. A need while one is already pending keeps
    /// the schedule it has: a burst of losses asks once.
    public mutating func need(_ reason: Reason, nowMicroseconds: Int64) {
        guard pending == nil else { return }
        pending = reason
        retryMicroseconds = firstRetryMicroseconds
        let earliest = lastRequestMicroseconds.map { $0 + minimumGapMicroseconds } ?? nowMicroseconds
        dueMicroseconds = max(nowMicroseconds, earliest)
    }

    /// A keyframe reached the decoder: nothing more to ask for.
    public mutating func keyframeArrived() {
        pending = nil
        dueMicroseconds = nil
        retryMicroseconds = firstRetryMicroseconds
    }

    /// When `poll` will next say yes; nil when nothing is pending.
    public var nextDeadlineMicroseconds: Int64? { dueMicroseconds }

    /// Whether a request is to be sent now; if so it is counted and the next one scheduled.
    public mutating func poll(nowMicroseconds: Int64) -> Reason? {
        guard let pending, let due = dueMicroseconds, nowMicroseconds >= due else { return nil }
        requests += 1
        lastRequestMicroseconds = nowMicroseconds
        dueMicroseconds = nowMicroseconds + retryMicroseconds
        retryMicroseconds = min(maximumRetryMicroseconds, retryMicroseconds * 3 / 2)
        return pending
    }
}
