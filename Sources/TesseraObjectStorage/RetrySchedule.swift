/// How long to wait before trying a failed upload request again: the first retry after
/// `firstSeconds`, each later one twice as long, never longer than `capSeconds`. No retry count
/// limit: a recording keeps trying while its spool has room (`SpoolBudget`).
public struct RetrySchedule: Sendable, Equatable {
    public var firstSeconds: Double
    public var capSeconds: Double

    public init(firstSeconds: Double = 0.5, capSeconds: Double = 8) {
        self.firstSeconds = firstSeconds; self.capSeconds = capSeconds
    }

    /// The wait after `failures` failures in a row (1 for the first failure).
    public func delay(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return 0 }
        var delay = firstSeconds
        for _ in 1..<failures where delay < capSeconds { delay *= 2 }
        return min(delay, capSeconds)
    }
}
