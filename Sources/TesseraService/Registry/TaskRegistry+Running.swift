import Foundation
import TesseraStore
import TesseraWorkerProtocol

/// The tasks running here as the API, the cluster's control loop and the watchdog see them:
/// statuses, stops, reports for the store, leases, shutdown.
extension TaskRegistry {
    /// The tasks this node holds a worker for (final ones until the store has their end).
    public var localTaskIds: [String] { Array(tasks.keys) }

    public func localStatus(_ taskId: String) -> TaskStatus? {
        tasks[taskId]?.status
    }

    /// The document a task running here was last accepted with, as the store holds it.
    public func acceptedDocument(_ taskId: String) -> AcceptedDocument? {
        guard let task = tasks[taskId], let text = try? Self.jsonText(task.storedDocument) else { return nil }
        return AcceptedDocument(taskId: taskId, document: text, sequence: task.sequence)
    }

    /// Stops a task here and returns its final status; the store learns the outcome.
    public func stop(_ taskId: String, cause: TaskSupervision.StopCause = .deleted, timeoutSeconds: Double = 15) async throws -> TaskStatus {
        let task = try task(taskId)
        await task.stop(cause, timeoutSeconds: timeoutSeconds)
        await persistFinal(task)
        // While this waited, a new task may have taken the id (and ports) of the finished one.
        if tasks[taskId] === task { rtp.release(taskId: taskId) }
        return task.status
    }

    // MARK: For the cluster's reconcile loop

    /// Each running task's status for the store, with the generation it is held at.
    /// `key` changes when the store must learn of it at once (see `StatusWritePolicy`).
    public func reports() -> [(taskId: String, generation: Int64, report: StatusReport, key: String, isFinal: Bool)] {
        tasks.compactMap { id, task in task.keyedReport.map { (id, task.generation, $0.report, $0.key, task.isFinal) } }
    }

    /// Writes a final task's last status (and, when it ended for good, its desired state) to the
    /// store and forgets it here.
    public func persistFinal(_ taskId: String) async {
        guard let task = tasks[taskId], task.isFinal else { return }
        await persistFinal(task)
    }

    private func persistFinal(_ task: ManagedTask) async {
        guard task.isFinal else { return }
        if let report = task.report {
            _ = try? await store.saveStatus(taskId: task.id, report, node: configuration.nodeId, generation: task.generation)
        }
        if task.desiredAfterFinal == .stopped {
            // A DELETE, or the task ended by itself: it stays stopped (unless a newer claim moved it).
            if let record = try? await store.task(task.id), record.generation == task.generation {
                _ = try? await store.setDesired(taskId: task.id, .stopped)
            }
        }
        if tasks[task.id] === task {
            endedOrigins.keep(task.hlsOrigin)
            tasks[task.id] = nil
            rtp.release(taskId: task.id)
        }
    }

    /// Lets every worker run `seconds` more (called after each successful heartbeat).
    public func renewLeases(seconds: Double) {
        for task in tasks.values where !task.isFinal { task.renewLease(seconds: seconds) }
    }

    /// Stops a task whose lease this node no longer holds, at once.
    public func fence(_ taskId: String) {
        tasks[taskId]?.kill(.fenced)
    }

    /// The generation this node holds a task at, if it runs it.
    public func generation(of taskId: String) -> Int64? { tasks[taskId]?.generation }

    /// Refuses new tasks from now on.
    public func beginShutdown() { shuttingDown = true }

    /// Ends every task here properly (encoders flushed, trailers written), waiting at most
    /// `seconds`; `cause` says what the store keeps (resume on the next start, or moved).
    public func stopAll(cause: TaskSupervision.StopCause, deadlineSeconds seconds: Double) async {
        shuttingDown = true
        let running = tasks.values.filter { !$0.isFinal }
        await withTaskGroup(of: Void.self) { group in
            for task in running {
                group.addTask { await task.stop(cause, timeoutSeconds: max(1, seconds - 1)) }
            }
        }
        for task in running { await persistFinal(task) }
        // Give the tasks' last events a moment to leave; a dead receiver does not hold the exit.
        await webhooks.drain(timeoutSeconds: 1)
    }

    /// Worker process ids by task (for operators and tests).
    public func workerPIDs() -> [String: Int32] {
        tasks.compactMapValues { $0.workerPID }
    }

    /// Kills workers that stopped reporting (a hang inside FFmpeg), every 2 s until cancelled;
    /// they are then restarted or failed. Run by the service group (`WatchdogService`).
    public func runWatchdog() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(Self.watchdogIntervalSeconds))
            // While every task stops (shutdown), a slow stop is the stop's own timeout's business.
            if !shuttingDown { checkHangs() }
            checkDiskSpace()
        }
    }

    static let watchdogIntervalSeconds = 2.0

    /// The webhooks of this node's tasks (their deliveries run in the service group).
    public nonisolated var webhookNotifier: WebhookNotifier { webhooks }

    /// `package` so the registry's tests can run one check without waiting for the watchdog.
    package func checkHangs() {
        for task in tasks.values { task.checkHang() }
    }
}
