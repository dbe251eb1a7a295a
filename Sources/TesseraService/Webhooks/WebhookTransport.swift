import Foundation

/// Sends one HTTP POST. The notifier decides about retries; a transport only reports what
/// happened. Injected so the delivery rules are tested without a network.
public protocol WebhookTransport: Sendable {
    func post(_ request: WebhookRequest, attempt: Int, timeoutSeconds: Double) async -> WebhookAttemptResult
}

/// What one POST came to.
public enum WebhookAttemptResult: Sendable, Equatable {
    /// The receiver answered. `retryAfterSeconds` is its `Retry-After` (delta-seconds form) if any.
    case answered(statusCode: Int, retryAfterSeconds: Double?)
    /// No answer: refused, reset, timed out, or a redirect that was not followed.
    case failed(reason: String)
}
