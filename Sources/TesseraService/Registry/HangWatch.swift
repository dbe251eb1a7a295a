/// Hang detection for one task's worker: a worker that reports nothing for longer than the limit
/// is stuck (a call inside FFmpeg that never returns, a deadlock) and is killed; `TaskSupervision`
/// then restarts it or fails the task, as for a crash. Workers report at least once a second, so
/// silence is the one sign that needs no cooperation from the stuck process.
///
/// Pure: the caller passes the time (seconds on a monotonic clock) and does the killing.
public struct HangWatch: Sendable, Equatable {
    public let limitSeconds: Double
    private var lastHeardAt: Double

    /// - Parameter now: when the worker was started (its silence is counted from then).
    public init(limitSeconds: Double, now: Double) {
        self.limitSeconds = limitSeconds
        lastHeardAt = now
    }

    /// The worker reported something (any event), or a new worker was started.
    public mutating func heard(at now: Double) { lastHeardAt = max(lastHeardAt, now) }

    /// Whether the worker must be killed now. A kill counts as hearing from it, so one hang is
    /// one kill: the next is due only if the restarted worker is silent for a whole limit again.
    public mutating func isHung(at now: Double) -> Bool {
        guard now - lastHeardAt > limitSeconds else { return false }
        lastHeardAt = now
        return true
    }
}
