import TesseraService
import Testing

@Suite struct WebhookRetryPolicyTests {
    let policy = WebhookRetryPolicy()

    @Test(arguments: [
        (WebhookAttemptResult.answered(statusCode: 200, retryAfterSeconds: nil), 1, WebhookDecision.delivered),
        (.answered(statusCode: 204, retryAfterSeconds: nil), 4, .delivered),
        (.answered(statusCode: 500, retryAfterSeconds: nil), 1, .retry(afterSeconds: 1)),
        (.answered(statusCode: 503, retryAfterSeconds: nil), 2, .retry(afterSeconds: 2)),
        (.failed(reason: "timedOut"), 3, .retry(afterSeconds: 4)),
        (.failed(reason: "cannotConnectToHost"), 4, .giveUp),
        (.answered(statusCode: 429, retryAfterSeconds: 10), 1, .retry(afterSeconds: 10)),
        (.answered(statusCode: 429, retryAfterSeconds: 3600), 1, .retry(afterSeconds: 30)),
        (.answered(statusCode: 404, retryAfterSeconds: nil), 1, .giveUp),
        (.answered(statusCode: 400, retryAfterSeconds: nil), 1, .giveUp),
        (.answered(statusCode: 302, retryAfterSeconds: nil), 1, .giveUp),
    ])
    func decides(result: WebhookAttemptResult, attempt: Int, expected: WebhookDecision) {
        #expect(policy.decision(after: result, attempt: attempt) == expected)
    }

    @Test func triesFourTimesByDefault() {
        #expect(policy.maxAttempts == 4)
        #expect(policy.timeoutSeconds == 5)
    }
}
