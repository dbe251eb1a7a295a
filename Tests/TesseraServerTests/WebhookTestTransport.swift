import Foundation
import TesseraService

/// A webhook transport that answers from a script and records every attempt; with `gated`, each
/// POST (or, with `gatedPath`, each POST to that URL path) waits until `release()`: a receiver
/// that does not answer.
final class ScriptedWebhookTransport: WebhookTransport, @unchecked Sendable {
    struct Attempt: Sendable {
        var request: WebhookRequest
        var attempt: Int
        var headers: [String: String]
    }

    private let lock = NSLock()
    private var script: [WebhookAttemptResult]
    private var attempts: [Attempt] = []
    private var gated: Bool
    private let gatedPath: String?
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Answers with `script` in turn, then 200 for ever.
    init(script: [WebhookAttemptResult] = [], gated: Bool = false, gatedPath: String? = nil) {
        self.script = script
        self.gated = gated || gatedPath != nil
        self.gatedPath = gatedPath
    }

    var recorded: [Attempt] { lock.withLock { attempts } }
    /// POSTs held at the gate now.
    var held: Int { lock.withLock { waiting.count } }

    /// Lets every waiting POST and every later one through.
    func release() {
        let continuations: [CheckedContinuation<Void, Never>] = lock.withLock {
            gated = false
            defer { waiting.removeAll() }
            return waiting
        }
        continuations.forEach { $0.resume() }
    }

    func post(_ request: WebhookRequest, attempt: Int, timeoutSeconds: Double) async -> WebhookAttemptResult {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let pass: Bool = lock.withLock {
                let held = gated && (gatedPath == nil || gatedPath == request.url.path)
                if held { waiting.append(continuation) }
                return !held
            }
            if pass { continuation.resume() }
        }
        return lock.withLock {
            attempts.append(Attempt(request: request, attempt: attempt, headers: request.headers(attempt: attempt)))
            return script.isEmpty ? .answered(statusCode: 200, retryAfterSeconds: nil) : script.removeFirst()
        }
    }
}

/// Polls `condition` until it holds or `seconds` pass. Generous: it returns as soon as the
/// condition holds, and when the whole suite runs, CPU-bound tests can keep the cooperative pool
/// (where deliveries and their back-off run) busy for seconds.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
