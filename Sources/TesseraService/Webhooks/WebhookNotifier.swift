import Foundation
import Logging
import Metrics
import Synchronization

/// Posts the webhook events of every task of one server: signs them, retries them with back-off,
/// and counts how they ended. Each task has its own `TaskWebhook` (queue and delivery loop), so a
/// slow receiver holds up only the events of the tasks that named it, never a task, the registry
/// or the API: nothing on those paths waits for a delivery.
///
/// Threads: `makeWebhook` and the counters from any thread (their state is one `Mutex`);
/// deliveries run on Swift's cooperative pool and suspend while a POST or a back-off is in
/// progress. Every delivery loop is a child task of `runDeliveries`, which `tessera serve`'s
/// service group runs (the `WebhookDeliveryService`): a notifier delivers while that runs, and
/// events queued before it starts wait for it.
public final class WebhookNotifier: Sendable {
    /// Key of the HMAC-SHA256 `X-Tessera-Signature`; nil sends events unsigned.
    let secret: String?
    let transport: any WebhookTransport
    let policy: WebhookRetryPolicy
    /// Events a task may have waiting; past that the oldest are dropped.
    let queueCapacity: Int
    private let logger = Logger(label: "tessera.webhooks")
    private let state = Mutex(State())
    /// Wakes the runner when a loop is pending.
    private let wakes: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    private struct State {
        var counts = WebhookDeliveryCounts()
        /// Events queued or being delivered, over all tasks (what `drain` waits for).
        var outstanding = 0
        /// `drain` callers waiting for `outstanding` to reach 0.
        var drainWaiters: [@Sendable () -> Void] = []
        /// Delivery loops for `runDeliveries` to start.
        var pendingLoops: [@Sendable () async -> Void] = []
        var runnerAttached = false
    }

    public init(secret: String?, transport: any WebhookTransport = HTTPClientWebhookTransport.shared,
                policy: WebhookRetryPolicy = WebhookRetryPolicy(), queueCapacity: Int = 256) {
        // An empty secret would sign with a key anyone can guess: send unsigned instead.
        self.secret = secret.flatMap { $0.isEmpty ? nil : $0 }
        self.transport = transport
        self.policy = policy
        self.queueCapacity = queueCapacity
        (wakes, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Runs every task's delivery loop as a child task until cancelled (graceful shutdown comes
    /// after the tasks' drain: see `WebhookDeliveryService`). Runs once per notifier.
    public func runDeliveries() async {
        state.withLock { $0.runnerAttached = true }
        await withDiscardingTaskGroup { group in
            for await _ in wakes {
                for loop in takePendingLoops(detaching: false) { group.addTask { await loop() } }
            }
            // Cancelled: loops handed over but not started still run, as cancelled children, so
            // their events end (counted failed) before this returns instead of being left behind.
            for loop in takePendingLoops(detaching: true) { group.addTask { await loop() } }
        }
    }

    private func takePendingLoops(detaching: Bool) -> [@Sendable () async -> Void] {
        state.withLock { state in
            if detaching { state.runnerAttached = false }
            defer { state.pendingLoops.removeAll() }
            return state.pendingLoops
        }
    }

    /// Whether `runDeliveries` is running (the loops are its children).
    public var hasDeliveryRunner: Bool { state.withLock { $0.runnerAttached } }

    /// Hands a task's delivery loop to `runDeliveries`, which starts it as its child.
    func startLoop(_ loop: @escaping @Sendable () async -> Void) {
        state.withLock { $0.pendingLoops.append(loop) }
        wakeContinuation.yield()
    }

    /// The webhook of one task posting to `url`.
    public func makeWebhook(taskId: String, url: URL, firstSequence: Int64 = 1) -> TaskWebhook {
        TaskWebhook(taskId: taskId, url: url, notifier: self, firstSequence: firstSequence)
    }

    public var deliveryCounts: WebhookDeliveryCounts { state.withLock { $0.counts } }

    /// Waits until every queued event is delivered or given up, or `timeoutSeconds` pass (for a
    /// graceful shutdown, so the last `task.state` of each task has a chance to leave).
    /// Wakes when the last event ends (no polling), or at the deadline.
    public func drain(timeoutSeconds: Double) async {
        await SignalWait.first(within: timeoutSeconds, orElse: ()) { drained in
            state.withLock { state in
                if state.outstanding == 0 { return () }
                state.drainWaiters.append { drained(()) }
                return nil
            }
        }
    }

    // MARK: Delivery (called by TaskWebhook)

    /// Posts one event until it is delivered or the policy gives up.
    func deliver(_ request: WebhookRequest) async {
        var attempt = 1
        while true {
            let result = await transport.post(request, attempt: attempt, timeoutSeconds: policy.timeoutSeconds)
            switch policy.decision(after: result, attempt: attempt) {
            case .delivered:
                finish(.delivered)
                return
            case .giveUp:
                logger.warning("webhook not delivered", metadata: [
                    "task_id": .string(request.taskId), "event": .string(request.event), "sequence": "\(request.sequence)",
                    "host": .string(request.url.host ?? "?"), "attempts": "\(attempt)", "result": .string(result.summary)])
                finish(.failed)
                return
            case .retry(let seconds):
                // The service group is stopping (its drain is over): no more attempts.
                if Task.isCancelled {
                    finish(.failed)
                    return
                }
                state.withLock { $0.counts.retries += 1 }
                Counter(label: "tessera_webhook_retries_total").increment()
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                attempt += 1
            }
        }
    }

    enum Outcome: String { case delivered, failed, dropped }

    func enqueued() { state.withLock { $0.outstanding += 1 } }

    /// Counts an event's end, here and as `tessera_webhook_events_total{result}` (swift-metrics:
    /// it reaches `/metrics` once the server has bootstrapped its metrics backend).
    func finish(_ outcome: Outcome) {
        let waiters: [@Sendable () -> Void] = state.withLock { state in
            state.outstanding -= 1
            switch outcome {
            case .delivered: state.counts.delivered += 1
            case .failed: state.counts.failed += 1
            case .dropped: state.counts.dropped += 1
            }
            guard state.outstanding == 0 else { return [] }
            defer { state.drainWaiters.removeAll() }
            return state.drainWaiters
        }
        waiters.forEach { $0() }
        Counter(label: "tessera_webhook_events_total", dimensions: [("result", outcome.rawValue)]).increment()
    }
}

extension WebhookAttemptResult {
    /// For the log: `HTTP 503` or the transport's reason.
    var summary: String {
        switch self {
        case .answered(let code, _): return "HTTP \(code)"
        case .failed(let reason): return reason
        }
    }
}
