/// When a webhook POST is tried again, and after how long.
public struct WebhookRetryPolicy: Sendable, Equatable {
    /// Pause before each retry: with the default 1, 2 and 4 s an event is tried four times over
    /// about 7 s plus the time the tries themselves take.
    public var backoffSeconds: [Double]
    /// How long one POST may take, connection included.
    public var timeoutSeconds: Double
    /// The most a receiver's `Retry-After` may stretch one pause: a receiver cannot park the
    /// queue of a task for long.
    public var maxRetryAfterSeconds: Double

    public init(backoffSeconds: [Double] = [1, 2, 4], timeoutSeconds: Double = 5, maxRetryAfterSeconds: Double = 30) {
        self.backoffSeconds = backoffSeconds; self.timeoutSeconds = timeoutSeconds
        self.maxRetryAfterSeconds = maxRetryAfterSeconds
    }

    public var maxAttempts: Int { backoffSeconds.count + 1 }

    /// What to do after the `attempt`-th try (from 1) ended in `result`.
    public func decision(after result: WebhookAttemptResult, attempt: Int) -> WebhookDecision {
        let retryable: Bool
        var retryAfter: Double?
        switch result {
        case .answered(let code, _) where (200..<300).contains(code):
            return .delivered
        case .answered(let code, let after):
            // 5xx is the receiver's trouble and 429 asks for patience: both may pass. Any other
            // answer (4xx, or a 3xx that was not followed) will be the same next time.
            retryable = code >= 500 || code == 429
            retryAfter = after
        case .failed:
            retryable = true
        }
        guard retryable, attempt < maxAttempts else { return .giveUp }
        let backoff = backoffSeconds[attempt - 1]
        return .retry(afterSeconds: max(backoff, min(retryAfter ?? 0, maxRetryAfterSeconds)))
    }
}

public enum WebhookDecision: Sendable, Equatable {
    case delivered
    case retry(afterSeconds: Double)
    case giveUp
}
