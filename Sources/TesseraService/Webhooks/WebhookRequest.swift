import Crypto
import Foundation

/// One event ready to post: its body bytes (fixed when the event is made, so every retry sends
/// and signs exactly the same bytes) and its headers.
///
/// Headers:
/// - `Content-Type: application/json`
/// - `X-Tessera-Event`: the body's `event` (`input.state`, …)
/// - `X-Tessera-Delivery`: a UUID per event, the same on every retry of it (for de-duplication)
/// - `X-Tessera-Timestamp`: the body's `timestamp`
/// - `X-Tessera-Signature: sha256=<hex>`: HMAC-SHA256 with the server's webhook secret over the
///   body bytes exactly as received, nothing else; sent only when a secret is configured. The
///   body holds `taskId`, `sequence` and `timestamp`, so they are signed with it; the
///   `X-Tessera-*` headers are not (check the body's copy, not the headers).
/// - `X-Tessera-Attempt`: 1 for the first try, 2… for retries (not signed).
public struct WebhookRequest: Sendable, Equatable {
    public var url: URL
    public var taskId: String
    public var body: Data
    public var event: String
    public var deliveryId: String
    public var timestamp: String
    public var sequence: Int64
    /// `sha256=<hex>`, or nil when the server has no secret.
    public var signature: String?

    public init(url: URL, payload: WebhookPayload, secret: String?, deliveryId: UUID = UUID()) throws {
        self.url = url
        taskId = payload.taskId
        body = try payload.encoded()
        event = payload.event
        self.deliveryId = deliveryId.uuidString.lowercased()
        timestamp = payload.timestamp
        sequence = payload.sequence
        signature = secret.map { "sha256=" + Self.hexSignature(key: Data($0.utf8), body: body) }
    }

    /// Lower-case hex HMAC-SHA256 of `body` under `key` (swift-crypto).
    public static func hexSignature(key: Data, body: Data) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// The headers of the `attempt`-th try (from 1).
    public func headers(attempt: Int) -> [String: String] {
        var headers = [
            "Content-Type": "application/json",
            "User-Agent": "tessera-webhook/1",
            "X-Tessera-Event": event,
            "X-Tessera-Delivery": deliveryId,
            "X-Tessera-Timestamp": timestamp,
            "X-Tessera-Attempt": String(attempt),
        ]
        if let signature { headers["X-Tessera-Signature"] = signature }
        return headers
    }
}
