import Foundation

/// Tells a waiting thread that something it reports has changed, so it reports at once instead
/// of looking every so often: a task's worker sends its status when an input, output or the
/// task itself changes state, and otherwise only as a heartbeat.
///
/// Threads: `notify` from any thread; one thread waits.
public final class ChangeSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending = false

    public init() {}

    public func notify() {
        condition.lock()
        pending = true
        condition.signal()
        condition.unlock()
    }

    /// Waits until notified or `seconds` pass. True when notified (a notification that came while
    /// nobody waited counts once).
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !pending {
            if !condition.wait(until: deadline) { break }
        }
        defer { pending = false }
        return pending
    }
}
