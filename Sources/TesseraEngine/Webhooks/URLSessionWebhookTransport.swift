import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts webhooks with Foundation's URLSession (libcurl on Linux). No cookies, no cache, no
/// proxy, and a redirect is followed only to the same scheme, host and port: a receiver cannot
/// bounce the signed body to another server. A redirect not followed comes back as the 3xx
/// answer, which the policy does not retry.
public final class URLSessionWebhookTransport: WebhookTransport {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Callback URLs are often on the local network: do not send them through an environment proxy.
        configuration.connectionProxyDictionary = [:]
        session = URLSession(configuration: configuration, delegate: SameOriginRedirects(), delegateQueue: nil)
    }

    public func post(_ request: WebhookRequest, attempt: Int, timeoutSeconds: Double) async -> WebhookAttemptResult {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutSeconds)
        urlRequest.httpMethod = "POST"
        for (name, value) in request.headers(attempt: attempt) { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        return await withCheckedContinuation { (continuation: CheckedContinuation<WebhookAttemptResult, Never>) in
            let once = Once()
            let task = session.dataTask(with: urlRequest) { _, response, error in
                guard once.claim() else { return }
                continuation.resume(returning: Self.result(response: response, error: error))
            }
            task.resume()
            // The request's own timeout is an idle timeout on Linux (libcurl's low-speed limit), and a
            // receiver that accepted the connection but never answers was seen to outlast it: cancel
            // the task at the deadline whatever it is doing.
            DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds) {
                guard once.claim() else { return }
                task.cancel()
                continuation.resume(returning: .failed(reason: "no answer within \(timeoutSeconds) s"))
            }
        }
    }

    private static func result(response: URLResponse?, error: (any Error)?) -> WebhookAttemptResult {
        if let error { return .failed(reason: (error as? URLError).map { "\($0.code)" } ?? "\(error)") }
        guard let http = response as? HTTPURLResponse else { return .failed(reason: "not an HTTP response") }
        let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return .answered(statusCode: http.statusCode, retryAfterSeconds: retryAfter)
    }
}

/// Follows a redirect only when it keeps the scheme, host and port of the request.
private final class SameOriginRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let from = task.originalRequest?.url
        let to = request.url
        let sameOrigin = from != nil && to != nil && from?.scheme?.lowercased() == to?.scheme?.lowercased()
            && from?.host?.lowercased() == to?.host?.lowercased() && from?.port == to?.port
        completionHandler(sameOrigin ? request : nil)
    }
}
