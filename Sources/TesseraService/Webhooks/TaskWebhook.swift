import Foundation
import Synchronization
import TesseraWorkerProtocol

/// The webhook of one task: turns the task's successive statuses into numbered events and posts
/// them to its `callbackUrl` one at a time, in order.
///
/// Threads: `observe` is called from the registry and from the worker's event thread; it only
/// diffs and queues (inside its `Mutex`) and never waits for the network. The delivery loop runs
/// while the queue has events and ends when it is empty, as a child of the notifier's delivery
/// service (`WebhookNotifier.startLoop`); it holds this object until it ends.
public final class TaskWebhook: Sendable {
    let taskId: String
    let url: URL
    private let notifier: WebhookNotifier
    private let state: Mutex<State>

    private struct State {
        var lastStatus: TaskStatus?
        var nextSequence: Int64
        var queue: WebhookQueue<WebhookRequest>
        /// A delivery loop is running (or handed to the notifier): the next events join its queue.
        var delivering = false
    }

    init(taskId: String, url: URL, notifier: WebhookNotifier, firstSequence: Int64 = 1) {
        self.taskId = taskId
        self.url = url
        self.notifier = notifier
        state = Mutex(State(nextSequence: max(1, firstSequence), queue: WebhookQueue(capacity: notifier.queueCapacity)))
    }

    /// The sequence number the next event takes: kept in the task store, so events keep counting
    /// when the task restarts on this node or another.
    public var upcomingSequence: Int64 { state.withLock { $0.nextSequence } }

    /// Queues an event for each change since the last status observed. Callers must pass statuses
    /// in the order they were taken (ManagedTask serialises this).
    public func observe(_ status: TaskStatus, at date: Date = Date()) {
        state.withLock { state in
            let changes = WebhookChange.changes(from: state.lastStatus, to: status)
            state.lastStatus = status
            for change in changes {
                let payload = WebhookPayload(change: change, sequence: state.nextSequence, timestamp: date, status: status)
                state.nextSequence += 1
                // Encoding a TaskStatus cannot fail (strings, numbers, arrays); the sequence gap would show it if it did.
                guard let request = try? WebhookRequest(url: url, payload: payload, secret: notifier.secret) else { continue }
                notifier.enqueued()
                if state.queue.push(request) != nil { notifier.finish(.dropped) }
            }
            guard !state.delivering, !state.queue.isEmpty else { return }
            state.delivering = true
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
        state.withLock { state in
            if let request = state.queue.popFirst() { return request }
            state.delivering = false
            return nil
        }
    }
}
