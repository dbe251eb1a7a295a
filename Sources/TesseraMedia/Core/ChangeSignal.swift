import Dispatch
import Synchronization

/// Tells a waiting thread that something it watches has changed, so it acts at once instead of
/// looking every so often: a task's worker sends its status when an input, output or the task
/// itself changes state, and otherwise only as a heartbeat; a publisher's thread wakes for a
/// packet queued or its end.
///
/// Notifications coalesce: however many come while the waiter is busy, it wakes once, and one
/// that came while nobody waited counts once. The flag is cleared as the waiter wakes, before it
/// looks at what changed, so a change notified after that look wakes it again.
///
/// Threads: `notify` from any thread; one thread waits.
public final class ChangeSignal: Sendable {
    private let pending = Atomic<Bool>(false)
    /// Signalled by the notification that raised `pending`, so the waiter wakes once per raise.
    private let wakeup = DispatchSemaphore(value: 0)

    public init() {}

    public func notify() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) { wakeup.signal() }
    }

    /// Waits until notified or `seconds` pass (on the monotonic clock). True when notified.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        guard wakeup.wait(timeout: .now() + max(0, seconds)) == .success else { return false }
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
        return true
    }

    /// Waits until notified.
    public func wait() {
        wakeup.wait()
        _ = pending.exchange(false, ordering: .acquiringAndReleasing)
    }
}
