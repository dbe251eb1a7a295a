import Foundation
import TesseraTask
import TesseraStore
import TesseraWorkerProtocol

/// What a task says of itself: to the API, to the task store and, on each change, to its log and
/// its webhook.
extension ManagedTask {
    var status: TaskStatus {
        state.withLock { $0.status(taskId: id, nodeId: configuration.nodeId, startedAt: startedAt) }
    }

    var isFinal: Bool { state.withLock { $0.supervision.isFinal } }
    var workerPID: Int32? { state.withLock { $0.worker?.pid } }
    /// What the store should hold once the task is final here (see `TaskSupervision`).
    var desiredAfterFinal: DesiredState? { state.withLock { $0.supervision.desiredAfterFinal } }
    var isAudioOnly: Bool { state.withLock { $0.plan.video == nil } }
    var sequence: Int64? { state.withLock { $0.lastSequence } }
    /// The document as the worker runs it.
    var document: JSONValue { state.withLock { $0.document } }
    /// The document as accepted, for the task store.
    var storedDocument: JSONValue { state.withLock { $0.storedDocument } }
    /// The plan in force, as validated when the task started or was last updated.
    var planInForce: ResolvedTask { state.withLock { $0.plan } }

    /// What an update is checked against (`TaskValidator.validateUpdate`), taken at one instant;
    /// nil if a document is not an object (never, for a task that started).
    var running: TaskValidator.RunningTask? {
        state.withLock { state in
            guard case .object(let document) = state.document, case .object(let stored) = state.storedDocument else { return nil }
            return TaskValidator.RunningTask(document: document, storedDocument: stored, plan: state.plan)
        }
    }

    /// What the task store keeps of this task as it runs.
    var report: StatusReport? { keyedReport?.report }

    /// The report with its `StatusWritePolicy` key (states, files, webhook sequence), both of one status.
    var keyedReport: (report: StatusReport, key: String)? {
        let status = self.status
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(status), let text = String(data: data, encoding: .utf8) else { return nil }
        let files = state.withLock { $0.files.byURL }
        let report = StatusReport(status: text, files: files, webhookSequence: webhook?.upcomingSequence ?? 1)
        let recorded = report.files.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.joined(separator: ","))" }
        return (report, ([status.storeKey, String(report.webhookSequence)] + recorded).joined(separator: "\u{1E}"))
    }

    /// Queues a webhook event for each change since the last published status (no waiting on the
    /// network), and logs the changes (`StatusChangeLog`) in the same order. Call after every
    /// change of state, outside `state`'s lock.
    func publishStatus() {
        publishing.withLock { log in
            let status = self.status
            log.observe(status, now: MonotonicClock.seconds)
            webhook?.observe(status)
        }
    }
}
