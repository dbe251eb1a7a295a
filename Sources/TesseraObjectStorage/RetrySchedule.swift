/// How long to wait before trying a failed upload request again: the first retry after
/// `firstSeconds`, each later one twice as long, never longer than `capSeconds`. No retry count
/// limit: a recording keeps trying while its spool has room (`SpoolBudget`).
///
/// Once the task has ended the waits are cut to `finishingCapSeconds`: the worker has only a few
/// seconds left to send the rest (`WorkerMain.uploadFinishSeconds`), and a store that has just
/// come back must not find the last segments waiting out an 8 s back-off until that time is up.
public struct RetrySchedule: Sendable, Equatable {
    public var firstSeconds: Double
    public var capSeconds: Double
    public var finishingCapSeconds: Double

    public init(firstSeconds: Double = 0.5, capSeconds: Double = 8, finishingCapSeconds: Double = 1) {
        self.firstSeconds = firstSeconds; self.capSeconds = capSeconds; self.finishingCapSeconds = finishingCapSeconds
    }

    /// The wait after `failures` failures in a row (1 for the first failure).
    public func delay(afterFailures failures: Int, finishing: Bool = false) -> Double {
        guard failures > 0 else { return 0 }
        var delay = firstSeconds
        for _ in 1..<failures where delay < capSeconds { delay *= 2 }
        return min(delay, finishing ? min(capSeconds, finishingCapSeconds) : capSeconds)
    }

    /// When a retry planned for `retryAt` is due now that the task has (or has not) ended: a wait
    /// planned while it ran is cut short once it is finishing.
    public func due(_ retryAt: Double?, nowSeconds now: Double, finishing: Bool) -> Double? {
        guard let retryAt else { return nil }
        return finishing ? min(retryAt, now + min(capSeconds, finishingCapSeconds)) : retryAt
    }
}
