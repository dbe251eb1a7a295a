import Foundation
import TesseraService
import TesseraWorkerProtocol
import Testing

@Suite struct WebhookNotifierTests {
    static let url = URL(string: "http://127.0.0.1:9/hooks")!
    /// Back-off in milliseconds, so retries run in a test's time.
    static let fastPolicy = WebhookRetryPolicy(backoffSeconds: [0.01, 0.01, 0.01], timeoutSeconds: 1)

    static func notifier(_ transport: ScriptedWebhookTransport, secret: String? = "k", capacity: Int = 256) -> WebhookNotifier {
        WebhookNotifier(secret: secret, transport: transport, policy: fastPolicy, queueCapacity: capacity)
    }

    /// A task's life: starting, running with the input and output live, then stopped.
    static let life: [TaskStatus] = [
        WebhookDiffTests.status(.starting),
        WebhookDiffTests.status(.running),
        WebhookDiffTests.status(.running, inputs: [("guest", .live)]),
        WebhookDiffTests.status(.running, inputs: [("guest", .live)], outputs: [("rtmp://cdn/live/***", .live)], frames: 90),
        WebhookDiffTests.status(.stopping, inputs: [("guest", .live)], outputs: [("rtmp://cdn/live/***", .live)]),
        WebhookDiffTests.status(.stopped, inputs: [("guest", .ended)], outputs: [("rtmp://cdn/live/***", .live)]),
    ]

    /// Runs `body` while the notifier's delivery runner runs beside it, as the service group runs
    /// it under `tessera serve`; the runner is cancelled when `body` returns.
    static func delivering(_ notifier: WebhookNotifier, _ body: () async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await notifier.runDeliveries() }
            await body()
            group.cancelAll()
        }
    }

    static func events(_ attempts: [ScriptedWebhookTransport.Attempt]) -> [String] {
        attempts.map { attempt in
            let body = (try? JSONSerialization.jsonObject(with: attempt.request.body)) as? [String: Any] ?? [:]
            let subject = (body["task"] ?? body["input"] ?? body["output"]) as? [String: Any] ?? [:]
            return "\(body["sequence"] ?? "?") \(attempt.request.event) \(subject["state"] ?? "-")"
        }
    }

    @Test func deliversATasksEventsInOrderWithGrowingSequence() async {
        let transport = ScriptedWebhookTransport()
        let notifier = Self.notifier(transport)
        await Self.delivering(notifier) {
            let webhook = notifier.makeWebhook(taskId: "room", url: Self.url)
            for status in Self.life { webhook.observe(status) }
            #expect(await eventually { notifier.deliveryCounts.delivered == 7 })
            #expect(Self.events(transport.recorded) == [
                "1 task.state starting", "2 task.state running", "3 input.state live", "4 output.state live",
                "5 task.state stopping", "6 input.state ended", "7 task.state stopped",
            ])
            for attempt in transport.recorded {
                #expect(attempt.headers["X-Tessera-Signature"]
                        == "sha256=" + WebhookRequest.hexSignature(key: Data("k".utf8), body: attempt.request.body))
            }
            #expect(notifier.deliveryCounts == WebhookDeliveryCounts(delivered: 7))
        }
    }

    /// The delivery loops are children of the service group's runner: events observed before it
    /// runs wait for it, and the runner ends when it is cancelled.
    @Test func deliveriesRunInsideTheRunnerUntilItIsCancelled() async {
        let transport = ScriptedWebhookTransport()
        let notifier = Self.notifier(transport)
        let webhook = notifier.makeWebhook(taskId: "room", url: Self.url)
        webhook.observe(Self.life[0])
        #expect(!notifier.hasDeliveryRunner)
        #expect(transport.recorded.isEmpty)
        await withDiscardingTaskGroup { group in
            group.addTask { await notifier.runDeliveries() }
            #expect(await eventually { notifier.hasDeliveryRunner })
            for status in Self.life.dropFirst() { webhook.observe(status) }
            #expect(await eventually { notifier.deliveryCounts.delivered == 7 })
            group.cancelAll()
        }
        #expect(!notifier.hasDeliveryRunner)
    }

    @Test(arguments: [nil, ""])
    func withoutASecretEventsGoUnsigned(secret: String?) async {
        let transport = ScriptedWebhookTransport()
        let notifier = Self.notifier(transport, secret: secret)
        await Self.delivering(notifier) {
            notifier.makeWebhook(taskId: "room", url: Self.url).observe(Self.life[0])
            #expect(await eventually { notifier.deliveryCounts.delivered == 1 })
            #expect(transport.recorded.first?.headers["X-Tessera-Signature"] == nil)
        }
    }

    @Test func retriesServerErrorsThenDelivers() async {
        let transport = ScriptedWebhookTransport(script: [.answered(statusCode: 500, retryAfterSeconds: nil),
                                                          .failed(reason: "timedOut")])
        let notifier = Self.notifier(transport)
        await Self.delivering(notifier) {
            let webhook = notifier.makeWebhook(taskId: "room", url: Self.url)
            webhook.observe(Self.life[0])
            webhook.observe(Self.life[1])
            #expect(await eventually { notifier.deliveryCounts.delivered == 2 })
            let attempts = transport.recorded
            #expect(attempts.map(\.attempt) == [1, 2, 3, 1])
            #expect(Set(attempts.prefix(3).map { $0.headers["X-Tessera-Delivery"] }).count == 1)
            // The second event waited for the first: still in order.
            #expect(Self.events(attempts) == ["1 task.state starting", "1 task.state starting", "1 task.state starting",
                                              "2 task.state running"])
            #expect(notifier.deliveryCounts == WebhookDeliveryCounts(delivered: 2, retries: 2))
        }
    }

    @Test func givesUpOnAClientErrorAndAfterTheLastAttempt() async {
        let down = WebhookAttemptResult.failed(reason: "cannotConnectToHost")
        let transport = ScriptedWebhookTransport(script: [.answered(statusCode: 404, retryAfterSeconds: nil), down, down, down, down])
        let notifier = Self.notifier(transport)
        await Self.delivering(notifier) {
            let webhook = notifier.makeWebhook(taskId: "room", url: Self.url)
            webhook.observe(Self.life[0])
            webhook.observe(Self.life[1])
            webhook.observe(Self.life[2])
            #expect(await eventually { notifier.deliveryCounts.delivered == 1 })
            #expect(transport.recorded.map(\.attempt) == [1, 1, 2, 3, 4, 1])
            #expect(notifier.deliveryCounts == WebhookDeliveryCounts(delivered: 1, failed: 2, retries: 3))
        }
    }

    /// A receiver that never answers: observing stays instant, the queue keeps the newest events,
    /// and the rest are counted as dropped.
    @Test func aStuckReceiverCostsABoundedQueueAndNeverBlocks() async {
        let transport = ScriptedWebhookTransport(gated: true)
        let notifier = Self.notifier(transport, capacity: 8)
        await Self.delivering(notifier) {
            let webhook = notifier.makeWebhook(taskId: "room", url: Self.url)
            webhook.observe(WebhookDiffTests.status(.starting))
            #expect(await eventually { transport.held == 1 })
            let started = ContinuousClock.now
            // 40 input state changes while the first POST hangs.
            for index in 0..<40 {
                webhook.observe(WebhookDiffTests.status(.running, inputs: [("guest", index % 2 == 0 ? .live : .waiting)]))
            }
            // observe only diffs and queues: 40 calls are instant even with the POST hanging.
            #expect(ContinuousClock.now - started < .seconds(2))
            // Event 1 is in flight, 2 (running) … 42: 41 queued into 8 places.
            #expect(await eventually { notifier.deliveryCounts.dropped == 33 })
            transport.release()
            #expect(await eventually { notifier.deliveryCounts.delivered == 9 })
            let sequences = transport.recorded.map(\.request.sequence)
            #expect(sequences == [1] + Array(35...42))
            await notifier.drain(timeoutSeconds: 1)
            #expect(notifier.deliveryCounts == WebhookDeliveryCounts(delivered: 9, dropped: 33))
        }
    }

    /// Two tasks of one server, one of them with a stuck receiver: the other's events still flow.
    @Test func oneStuckTaskDoesNotHoldAnother() async {
        let transport = ScriptedWebhookTransport(gatedPath: "/stuck")
        let notifier = Self.notifier(transport)
        await Self.delivering(notifier) {
            let stuck = notifier.makeWebhook(taskId: "a", url: URL(string: "http://127.0.0.1:9/stuck")!)
            let healthy = notifier.makeWebhook(taskId: "b", url: URL(string: "http://127.0.0.1:9/fine")!)
            for status in Self.life {
                stuck.observe(status)
                healthy.observe(status)
            }
            #expect(await eventually { notifier.deliveryCounts.delivered == 7 })
            #expect(transport.recorded.allSatisfy { $0.request.url.path == "/fine" })
            transport.release()
            #expect(await eventually { notifier.deliveryCounts.delivered == 14 })
        }
    }

    @Test func drainWaitsForQueuedEventsButNotForEver() async {
        let transport = ScriptedWebhookTransport(gated: true)
        let notifier = Self.notifier(transport)
        await Self.delivering(notifier) {
            notifier.makeWebhook(taskId: "room", url: Self.url).observe(Self.life[0])
            let started = ContinuousClock.now
            await notifier.drain(timeoutSeconds: 0.2)
            let waited = ContinuousClock.now - started
            // Not before the deadline while an event is held; the upper bound only says "not for ever"
            // (a busy test machine may resume the waiter late).
            #expect(waited >= .milliseconds(200) && waited < .seconds(20))
            transport.release()
            await notifier.drain(timeoutSeconds: 5)
            #expect(notifier.deliveryCounts.delivered == 1)
        }
    }
}
