/// What became of the webhook events a server made. Every event ends as exactly one of
/// delivered, failed or dropped; `retries` counts the extra attempts along the way.
public struct WebhookDeliveryCounts: Sendable, Equatable {
    /// A 2xx answer.
    public var delivered: Int64 = 0
    /// Given up on: a 4xx (or an unfollowed redirect), or every attempt failed.
    public var failed: Int64 = 0
    /// Pushed out of a full task queue before it was sent.
    public var dropped: Int64 = 0
    public var retries: Int64 = 0

    public init(delivered: Int64 = 0, failed: Int64 = 0, dropped: Int64 = 0, retries: Int64 = 0) {
        self.delivered = delivered; self.failed = failed; self.dropped = dropped; self.retries = retries
    }
}
