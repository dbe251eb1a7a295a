import Foundation
import TesseraWorkerProtocol

/// The webhook of one task: turns the task's successive statuses into numbered events and posts
/// them to its `callbackUrl` one at a time, in order.
///
/// Threads: `observe` is called from the registry and from the worker's event thread; it only
/// diffs and queues (under `lock`) and never waits for the network. The delivery loop runs while
/// the queue has events and ends when it is empty, as a child of the notifier's delivery service
/// (`WebhookNotifier.startLoop`); it holds this object until it ends.
public final class TaskWebhook: @unchecked Sendable {
    let taskId: String
    let url: URL
    private let notifier: WebhookNotifier
    private let lock = NSLock()
    private var lastStatus: TaskStatus?
    private var nextSequence: Int64 = 1
    private var queue: WebhookQueue<WebhookRequest>
    private var delivering = false

    init(taskId: String, url: URL, notifier: WebhookNotifier, firstSequence: Int64 = 1) {
        self.taskId = taskId
        self.url = url
        self.notifier = notifier
        nextSequence = max(1, firstSequence)
        queue = WebhookQueue(capacity: notifier.queueCapacity)
    }

    /// The sequence number the next event takes: kept in the task store, so events keep counting
    /// when the task restarts on this node or another.
    public var upcomingSequence: Int64 { lock.withLock { nextSequence } }

    /// Queues an event for each change since the last status observed. Callers must pass statuses
    /// in the order they were taken (ManagedTask serialises this).
    public func observe(_ status: TaskStatus, at date: Date = Date()) {
        lock.withLock {
            let changes = WebhookChange.changes(from: lastStatus, to: status)
            lastStatus = status
            for change in changes {
                let payload = WebhookPayload(change: change, sequence: nextSequence, timestamp: date, status: status)
                nextSequence += 1
                // Encoding a TaskStatus cannot fail (strings, numbers, arrays); the sequence gap would show it if it did.
                guard let request = try? WebhookRequest(url: url, payload: payload, secret: notifier.secret) else { continue }
                notifier.enqueued()
                if queue.push(request) != nil { notifier.finish(.dropped) }
            }
            guard !delivering, !queue.isEmpty else { return }
            delivering = true
            notifier.startLoop { await self.deliverQueued() }
        }
    }

    private func deliverQueued() async {
        while let request = next() {
            await notifier.deliver(request)
        }
    }

    /// The oldest queued event; nil (and the loop ends) when there is none.
    private func next() -> WebhookRequest? {
        lock.withLock {
            if let request = queue.popFirst() { return request }
            delivering = false
            return nil
        }
    }
}
