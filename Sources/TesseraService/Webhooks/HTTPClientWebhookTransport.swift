import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Posts webhooks with AsyncHTTPClient, under a real deadline for the whole exchange (connect,
/// send, answer): a receiver that accepts the connection and never answers costs its task's queue
/// `timeoutSeconds`, never more. No cookies, no cache, no proxy. A redirect is followed only to the
/// same scheme, host and port (the body posted again, at most 3 times): a receiver cannot bounce
/// the signed body to another server; a redirect not followed comes back as the 3xx answer, which
/// the policy does not retry.
public final class HTTPClientWebhookTransport: WebhookTransport {
    /// One client (one connection pool) for every task's webhooks.
    public static let shared = HTTPClientWebhookTransport()

    private let client: HTTPClient
    private static let maxRedirects = 3

    public init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func post(_ request: WebhookRequest, attempt: Int, timeoutSeconds: Double) async -> WebhookAttemptResult {
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeoutSeconds * 1000))
        var url = request.url
        do {
            for _ in 0...Self.maxRedirects {
                var outgoing = HTTPClientRequest(url: url.absoluteString)
                outgoing.method = .POST
                for (name, value) in request.headers(attempt: attempt) { outgoing.headers.add(name: name, value: value) }
                outgoing.body = .bytes(ByteBuffer(bytes: request.body))
                let response = try await client.execute(outgoing, deadline: deadline)
                // The answer's body is not read; drain at most a little so the connection can be reused.
                _ = try? await response.body.collect(upTo: 64 * 1024)
                let status = Int(response.status.code)
                if (300..<400).contains(status), let location = response.headers.first(name: "Location"),
                   let next = URL(string: location, relativeTo: url)?.absoluteURL, Self.sameOrigin(url, next) {
                    url = next
                    continue
                }
                let retryAfter = response.headers.first(name: "Retry-After")
                    .flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                return .answered(statusCode: status, retryAfterSeconds: retryAfter)
            }
            return .failed(reason: "more than \(Self.maxRedirects) redirects")
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            return .failed(reason: "no answer within \(timeoutSeconds) s")
        } catch {
            return .failed(reason: "\(error)")
        }
    }

    private static func sameOrigin(_ from: URL, _ to: URL) -> Bool {
        from.scheme?.lowercased() == to.scheme?.lowercased() && from.host?.lowercased() == to.host?.lowercased()
            && from.port == to.port
    }
}
