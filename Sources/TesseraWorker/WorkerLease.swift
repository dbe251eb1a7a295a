import Synchronization
import TesseraTask

/// How long the worker may go on without hearing from its server (`WorkerStart.leaseSeconds`,
/// `WorkerCommand.lease`).
/// Threads: renewed by the command thread, read by the reporter thread.
final class WorkerLease: Sendable {
    private struct State {
        /// On `MonotonicClock`, in seconds.
        var deadline: Double?
        var expiredOnce = false
    }

    private let state: Mutex<State>

    init(seconds: Double?) { state = Mutex(State(deadline: seconds.map { MonotonicClock.seconds + $0 })) }

    func renew(seconds: Double) { state.withLock { $0.deadline = MonotonicClock.seconds + seconds } }
    var expired: Bool { state.withLock { $0.deadline.map { MonotonicClock.seconds > $0 } ?? false } }
    /// Seconds until the lease runs out (at least a millisecond), or nil without a lease.
    var secondsLeft: Double? { state.withLock { $0.deadline.map { max(0.001, $0 - MonotonicClock.seconds) } } }
    func noteExpiry() { state.withLock { $0.expiredOnce = true } }
    var didExpire: Bool { state.withLock { $0.expiredOnce } }
}
