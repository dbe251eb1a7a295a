/// When this node must stop its workers because it could not renew its lease in the store.
///
/// Other nodes take a node's tasks once its heartbeat is `timeoutSeconds` old by the store's
/// clock. This node gives up its tasks well before that — after half the timeout without a
/// successful heartbeat — and its workers end by themselves after `workerLeaseSeconds` without a
/// renewal (a paused server cannot fence them), so a task never runs on two nodes at once.
/// Times are seconds of a monotonic clock; pure, so it is tested without waiting.
public struct NodeLease: Sendable, Equatable {
    public let timeoutSeconds: Double
    public private(set) var lastRenewal: Double?

    public init(timeoutSeconds: Double) { self.timeoutSeconds = timeoutSeconds }

    /// How long a worker may run after a renewal it was sent.
    public var workerLeaseSeconds: Double { max(1, timeoutSeconds / 2) }

    public mutating func renewed(at now: Double) { lastRenewal = now }

    /// No successful heartbeat for half the timeout: stop everything here now.
    public func mustFence(at now: Double) -> Bool {
        guard let lastRenewal else { return false }
        return now - lastRenewal > timeoutSeconds / 2
    }

    /// The store is reachable enough to take API traffic.
    public func isHealthy(at now: Double) -> Bool {
        guard let lastRenewal else { return false }
        return now - lastRenewal <= timeoutSeconds / 2
    }
}
