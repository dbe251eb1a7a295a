import Foundation
import TesseraCore

/// One task of the service as the supervisor sees it: its document, its worker process (started
/// again when it crashes, up to a limit) and the latest status the worker reported.
///
/// Threads: called from the registry and from the worker's event thread; all state is guarded
/// by `lock`. Webhook events are made from statuses taken under `webhookOrder`, after `lock` is
/// released (never the other way round).
final class ManagedTask: @unchecked Sendable {
    let id: String
    private let configuration: RegistryConfiguration
    private let lock = NSLock()
    private(set) var document: JSONValue
    private var worker: WorkerProcess?
    private var restarts = 0
    private var stopping = false
    private var workerStatus: WorkerStatus
    /// The participants and (redacted) outputs of the document in force. A worker's report can
    /// predate the latest update; it is fitted to these, so a status never loses a participant
    /// that an update has already answered for.
    private var inputIds: [String]
    private var outputURLs: [String]
    private var finalState: TaskState?
    private var finalReason: String?
    private var lastEventAt = Date()
    private let startedAt = Date()
    private var lastSequence: Int64?
    /// Why the worker was last restarted; kept in the status once the new worker reports.
    private var restartNote: String?
    /// Frames encoded by workers that have since crashed, so `frames` keeps counting up.
    private var framesBeforeRestart: Int64 = 0
    private var nextRequestId = 0
    private var snapshotWaiters: [Int: (Result<Data, ServiceError>) -> Void] = [:]
    private var exitWaiters: [() -> Void] = []
    /// Posts this task's state changes to its `callbackUrl`; nil without one.
    private let webhook: TaskWebhook?
    /// Two threads may publish at once: taking the status and queueing its events under one lock
    /// keeps an older status from being diffed after a newer one.
    private let webhookOrder = NSLock()

    init(id: String, document: JSONValue, resolved: ResolvedTask, configuration: RegistryConfiguration,
         webhooks: WebhookNotifier? = nil) {
        self.id = id
        self.document = document
        self.configuration = configuration
        webhook = resolved.callbackUrl.flatMap(URL.init(string:)).flatMap { url in
            webhooks?.makeWebhook(taskId: id, url: url)
        }
        inputIds = resolved.inputs.map(\.id)
        outputURLs = resolved.outputs.map { URLRedaction.redact($0.url) }
        workerStatus = WorkerStatus(state: .starting, reason: nil, frames: 0, fps: 0, bitrateKbps: 0, lateFrames: 0,
                                    inputs: inputIds.map { InputStatus(id: $0, state: .waiting) },
                                    outputs: outputURLs.map { OutputStatus(url: $0, state: .connecting) })
    }

    // MARK: Life

    func start() throws {
        let worker = try WorkerProcess(
            executable: configuration.workerExecutable,
            onEvent: { [weak self] event in self?.received(event) },
            onExit: { [weak self] status, signalled in self?.workerExited(status: status, signalled: signalled) })
        lock.withLock {
            self.worker = worker
            lastEventAt = Date()
        }
        worker.send(WorkerCommand(type: .start, document: document, mediaRoot: configuration.mediaRoot,
                                  outputDirectory: configuration.outputDirectory,
                                  outputGiveUpSeconds: configuration.outputGiveUpSeconds))
        // The first start announces the task (`task.state` starting); a restart reports running → starting.
        publishStatus()
    }

    /// Asks the worker to end the task properly and waits (at most `timeout`, then kills it).
    func stop(timeoutSeconds: Double) async {
        let worker: WorkerProcess? = lock.withLock {
            stopping = true
            if finalState == nil { workerStatus.state = .stopping }
            return self.worker
        }
        publishStatus()
        guard let worker else { return }
        worker.send(WorkerCommand(type: .stop))
        if await waitForExit(timeoutSeconds: timeoutSeconds) { return }
        worker.kill()
        _ = await waitForExit(timeoutSeconds: 5)
    }

    private func waitForExit(timeoutSeconds: Double) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Once()
            let alreadyDone: Bool = lock.withLock {
                if finalState != nil { return true }
                exitWaiters.append { if once.claim() { continuation.resume(returning: true) } }
                return false
            }
            if alreadyDone { if once.claim() { continuation.resume(returning: true) } ; return }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds) {
                if once.claim() { continuation.resume(returning: false) }
            }
        }
    }

    // MARK: Updates and snapshots

    /// Sends the whole updated document to the worker; refuses a stale `sequence`.
    func update(document updated: JSONValue, resolved: ResolvedTask, sequence: Int64?) throws {
        lock.lock()
        if finalState != nil || stopping {
            let current = finalState ?? workerStatus.state
            lock.unlock()
            throw ServiceError.invalidState("task \"\(id)\" is \(current.rawValue)")
        }
        if let sequence, let lastSequence, sequence <= lastSequence {
            lock.unlock()
            throw ServiceError.staleSequence(got: sequence, last: lastSequence)
        }
        if let sequence { lastSequence = sequence }
        document = updated
        // Answer with the new participants and outputs at once; the worker's next report follows.
        inputIds = resolved.inputs.map(\.id)
        outputURLs = resolved.outputs.map { URLRedaction.redact($0.url) }
        fitToDocument(&workerStatus)
        let worker = self.worker
        lock.unlock()
        worker?.send(WorkerCommand(type: .update, document: updated))
        publishStatus()
    }

    /// Keeps what the worker reported for the document's participants and outputs, adds the ones
    /// it has not reported yet (waiting / connecting) and drops removed ones. Call under `lock`.
    private func fitToDocument(_ status: inout WorkerStatus) {
        status.inputs = inputIds.map { id in status.inputs.first(where: { $0.id == id }) ?? InputStatus(id: id, state: .waiting) }
        // Outputs are matched by redacted URL, in order (two keys on one path redact alike).
        var unused = status.outputs
        status.outputs = outputURLs.map { url in
            if let index = unused.firstIndex(where: { $0.url == url }) { return unused.remove(at: index) }
            return OutputStatus(url: url, state: .connecting)
        }
    }

    func snapshot() async throws -> Data {
        let (worker, requestId): (WorkerProcess?, Int) = lock.withLock {
            nextRequestId += 1
            return (self.worker, nextRequestId)
        }
        guard let worker, lock.withLock({ finalState == nil }) else {
            throw ServiceError.invalidState("task \"\(id)\" is not running")
        }
        let result: Result<Data, ServiceError> = await withCheckedContinuation { continuation in
            let once = Once()
            lock.withLock { snapshotWaiters[requestId] = { result in if once.claim() { continuation.resume(returning: result) } } }
            worker.send(WorkerCommand(type: .snapshot, requestId: requestId))
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { [weak self] in
                _ = self?.lock.withLock { self?.snapshotWaiters.removeValue(forKey: requestId) }
                if once.claim() { continuation.resume(returning: .failure(.invalidState("no frame within 5 s"))) }
            }
        }
        return try result.get()
    }

    // MARK: Status

    var state: TaskState { lock.withLock { finalState ?? workerStatus.state } }
    var isFinal: Bool { lock.withLock { finalState != nil } }
    var workerPID: Int32? { lock.withLock { worker?.pid } }

    var status: TaskStatus {
        lock.withLock {
            var status = TaskStatus(taskId: id, state: finalState ?? workerStatus.state,
                       reason: finalReason ?? workerStatus.reason ?? restartNote,
                       startedAt: ISO8601DateFormatter().string(from: startedAt),
                       uptimeSeconds: (Date().timeIntervalSince(startedAt) * 10).rounded() / 10,
                       frames: framesBeforeRestart + workerStatus.frames, fps: (workerStatus.fps * 10).rounded() / 10,
                       bitrateKbps: workerStatus.bitrateKbps.rounded(), lateFrames: workerStatus.lateFrames,
                       sequence: lastSequence, inputs: workerStatus.inputs, outputs: workerStatus.outputs)
            status.workerPid = worker?.pid
            status.workerRestarts = restarts
            return status
        }
    }

    /// Queues a webhook event for each change since the last published status (no waiting on the
    /// network). Call after every change of state, outside `lock`.
    private func publishStatus() {
        guard let webhook else { return }
        webhookOrder.withLock { webhook.observe(status) }
    }

    /// A worker silent for longer than the hang limit is killed (and then restarted or failed).
    func checkHang() {
        let worker: WorkerProcess? = lock.withLock {
            guard finalState == nil, Date().timeIntervalSince(lastEventAt) > configuration.workerHangSeconds else { return nil }
            lastEventAt = Date()
            return self.worker
        }
        worker?.kill()
    }

    // MARK: Worker events (event thread)

    private func received(_ event: WorkerEvent) {
        var snapshotReply: ((Result<Data, ServiceError>) -> Void)?
        var reply: Result<Data, ServiceError>?
        lock.withLock {
            lastEventAt = Date()
            switch event.type {
            case .status, .exit:
                if let status = event.status {
                    var status = status
                    if stopping && !status.state.isFinal { status.state = .stopping }
                    fitToDocument(&status)
                    workerStatus = status
                }
                if event.type == .exit, let status = event.status {
                    finalState = status.state
                    finalReason = status.reason
                }
            case .snapshot:
                if let requestId = event.requestId, let waiter = snapshotWaiters.removeValue(forKey: requestId) {
                    snapshotReply = waiter
                    if let png = event.png, let data = Data(base64Encoded: png) {
                        reply = .success(data)
                    } else {
                        reply = .failure(.invalidState(event.error ?? "no snapshot"))
                    }
                }
            }
        }
        if let snapshotReply, let reply { snapshotReply(reply) }
        if event.type != .snapshot { publishStatus() }
    }

    private func workerExited(status: Int32, signalled: Bool) {
        var restart = false
        var waiters: [() -> Void] = []
        lock.withLock {
            worker = nil
            if finalState == nil {
                let how = signalled ? "was killed by signal \(status)" : "exited with status \(status)"
                if !stopping && restarts < configuration.maxWorkerRestarts {
                    restarts += 1
                    restart = true
                    framesBeforeRestart += workerStatus.frames
                    workerStatus.frames = 0
                    workerStatus.state = .starting
                    restartNote = "worker process \(how); restarted (\(restarts) of \(configuration.maxWorkerRestarts))"
                } else {
                    finalState = stopping ? .stopped : .failed
                    finalReason = stopping ? finalReason : "worker process \(how)"
                }
            }
            if finalState != nil {
                waiters = exitWaiters
                exitWaiters.removeAll()
            }
        }
        // Before the waiters: a DELETE answers only after the final event is queued.
        publishStatus()
        waiters.forEach { $0() }
        if restart {
            do { try start() } catch {
                lock.withLock {
                    finalState = .failed
                    finalReason = "cannot restart the worker: \(error)"
                    waiters = exitWaiters
                    exitWaiters.removeAll()
                }
                publishStatus()
                waiters.forEach { $0() }
            }
        }
    }
}

/// Lets exactly one of several racing callbacks resume a continuation.
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool { lock.withLock { defer { claimed = true }; return !claimed } }
}
