/// When a node writes a running task's status to the store, as a pure state machine: at once
/// when what the store must know changed (`key`: the task, input and output states, the reason,
/// files, node, webhook sequence), and otherwise at most every `refreshSeconds`. Counters (fps,
/// frames, uptime, bytes…) change every second; they are read live from the node that runs the
/// task, so the store is not written a thousand times a second for a thousand tasks.
/// Times are seconds of an injected monotonic clock.
public struct StatusWritePolicy: Sendable, Equatable {
    public static let defaultRefreshSeconds: Double = 10
    public let refreshSeconds: Double
    private var written: [String: Written] = [:]

    private struct Written: Sendable, Equatable {
        var key: String
        var at: Double
    }

    public init(refreshSeconds: Double = defaultRefreshSeconds) { self.refreshSeconds = refreshSeconds }

    /// Whether this task's status is due for the store now.
    public func shouldWrite(taskId: String, key: String, at now: Double) -> Bool {
        guard let last = written[taskId] else { return true }
        return last.key != key || now - last.at >= refreshSeconds
    }

    /// The store accepted a write of this status.
    public mutating func wrote(taskId: String, key: String, at now: Double) {
        written[taskId] = Written(key: key, at: now)
    }

    /// The task no longer runs here (stopped, fenced): its next status, if any, is written at once.
    public mutating func forget(taskId: String) { written[taskId] = nil }
}
