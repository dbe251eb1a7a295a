import Foundation
import Synchronization
import TesseraComposition
import TesseraTask
import TesseraStore
import TesseraWorkerProtocol

/// One task of the service as its node runs it: its plan, its worker process (started again when
/// it crashes, up to a limit, each time continuing its recordings in new files) and the latest
/// status the worker reported. The decisions are pure types' — `TaskSupervision` (restarts, the
/// final state), `UpdateAdmission`, `HangWatch`, `TaskShape` (a report fitted to the document) and
/// `FinalStates` —; this class holds their state and does the I/O.
///
/// Threads: called from the registry and from the worker's event loop; all that changes is in
/// `state`, one `Mutex`. Webhook events are made from statuses taken while `publishing` is held,
/// after `state` is released (never the other way round).
final class ManagedTask: Sendable {
    let id: String
    let configuration: RegistryConfiguration
    let state: Mutex<State>
    /// The lease generation this node holds the task at.
    let generation: Int64
    let startedAt: Date
    /// Spool paths whose object exists already: taken like files on disk (`ExistingObjects`).
    private let existingObjects: Set<String>
    /// Posts this task's state changes to its `callbackUrl`; nil without one.
    let webhook: TaskWebhook?
    /// Two threads may publish at once: taking the status and queueing its events under one lock
    /// keeps an older status from being diffed after a newer one.
    let publishing: Mutex<TaskEventLog>
    /// The LL-HLS parts the worker has published, and the origin's requests waiting for one.
    let hlsProgress = HLSProgressBoard()

    /// What a task brings from its earlier runs (on this node before a restart, or on another).
    struct History: Sendable {
        var files: [String: [String]] = [:]
        var webhookSequence: Int64 = 1
        var sequence: Int64?
        var startedAt = Date()
        /// nil for a new task; else why it runs here now.
        var arrivalNote: String?
        /// A new task: the outputs (URLs as given) whose existing recording another task, or no
        /// known task, wrote; such a playlist is not continued but written under a new name.
        var foreignRecordings: Set<String> = []
        /// A new task: spool paths of `s3://` names that are objects already (`ExistingObjects`).
        var existingObjects: Set<String> = []
    }

    init(id: String, document: JSONValue, storedDocument: JSONValue, plan: ResolvedTask, generation: Int64,
         history: History, configuration: RegistryConfiguration, webhooks: WebhookNotifier? = nil) {
        self.id = id
        self.generation = generation
        self.configuration = configuration
        startedAt = history.startedAt
        existingObjects = history.existingObjects
        webhook = plan.callbackUrl.flatMap(URL.init(string:)).flatMap { url in
            webhooks?.makeWebhook(taskId: id, url: url, firstSequence: history.webhookSequence)
        }
        publishing = Mutex(TaskEventLog(taskId: id, nodeId: configuration.nodeId))
        state = Mutex(State(document: document, storedDocument: storedDocument, plan: plan, history: history,
                            maxRestarts: configuration.maxWorkerRestarts,
                            hangWatch: HangWatch(limitSeconds: configuration.workerHangSeconds, now: MonotonicClock.seconds)))
    }

    // MARK: Life

    /// Starts a worker. Its file outputs continue in new files when the task ran before.
    func start() throws {
        let objects = existingObjects
        let runPlan: ResolvedTask = state.withLock { state in
            defer { state.foreignRecordings = [] }
            return state.files.beginRun(state.plan, resuming: state.arrivalNote != nil || state.supervision.restarts > 0,
                                        foreign: state.foreignRecordings,
                                        exists: { FileManager.default.fileExists(atPath: $0) || objects.contains($0) })
        }
        let launcher = configuration.workerLauncher ?? ProcessWorkerLauncher(configuration: configuration, taskId: id)
        let worker = try launcher.launch(
            onEvent: { [weak self] event in self?.received(event) },
            onExit: { [weak self] status, signalled in self?.workerExited(status: status, signalled: signalled) })
        state.withLock { state in
            state.worker = worker
            state.hangWatch.heard(at: MonotonicClock.seconds)
            state.noteOriginRun(runPlan, document: state.document)
            state.fitToDocument()
        }
        worker.send(.start(WorkerStart(plan: runPlan, outputGiveUpSeconds: configuration.outputGiveUpSeconds,
                                      leaseSeconds: configuration.workerLeaseSeconds, rtpBindAddress: configuration.rtpBindAddress,
                                      storage: configuration.storage, outputStallSeconds: configuration.outputStallSeconds,
                                      logFormat: configuration.logFormat)))
        // The first start announces the task (`task.state` starting); a restart reports running → starting.
        publishStatus()
    }

    /// Asks the worker to end the task properly and waits (at most `timeout`, then kills it).
    func stop(_ cause: TaskSupervision.StopCause, timeoutSeconds: Double) async {
        let worker: (any WorkerHandle)? = state.withLock { state in
            guard state.supervision.stop(cause) else { return nil }
            state.workerStatus.state = .stopping
            return state.worker
        }
        publishStatus()
        guard let worker else { return }
        worker.send(.stop)
        if await waitForExit(timeoutSeconds: timeoutSeconds) { return }
        worker.kill()
        _ = await waitForExit(timeoutSeconds: 5)
    }

    /// Lets the worker run `seconds` more without hearing from this server.
    func renewLease(seconds: Double) {
        state.withLock { $0.worker }?.send(.lease(seconds: seconds))
    }

    /// A worker silent for longer than the hang limit is killed (and then restarted or failed).
    func checkHang() {
        let worker: (any WorkerHandle)? = state.withLock { state in
            guard !state.supervision.isFinal, state.hangWatch.isHung(at: MonotonicClock.seconds) else { return nil }
            return state.worker
        }
        worker?.kill()
    }

    /// Kills the worker at once (this node lost the task's lease: no time for a proper stop).
    func kill(_ cause: TaskSupervision.StopCause) {
        let worker: (any WorkerHandle)? = state.withLock { state in
            _ = state.supervision.stop(cause)
            return state.worker
        }
        worker?.kill()
    }

    // MARK: Updates

    /// Sends the updated plan to the worker; refuses a stale `sequence`.
    func update(document updated: JSONValue, storedDocument stored: JSONValue, plan resolved: ResolvedTask,
                sequence: Int64?, rtp allocated: [String: RTPStatus], foreignRecordings foreign: Set<String> = []) throws {
        let (worker, runPlan): ((any WorkerHandle)?, ResolvedTask) = try state.withLock { state in
            switch state.admission(sequence: sequence) {
            case .accept(let applied): state.lastSequence = applied
            case .refuseEnded(let ended): throw ServiceError.invalidState("task \"\(id)\" is \(ended.rawValue)")
            case .refuseStale(let got, let last): throw ServiceError.staleSequence(got: got, last: last)
            }
            state.document = updated
            state.storedDocument = stored
            state.plan = resolved
            state.rtp = allocated
            let runPlan = state.files.apply(resolved, foreign: foreign)
            state.noteOriginRun(runPlan, document: updated)
            // Answer with the new participants and outputs at once; the worker's next report follows.
            state.shape = TaskShape(resolved)
            state.fitToDocument()
            return (state.worker, runPlan)
        }
        worker?.send(.update(runPlan))
        publishStatus()
    }

    /// The allocated RTP inputs' ports and SDP (before the worker starts).
    func setRTP(_ allocated: [String: RTPStatus]) { state.withLock { $0.rtp = allocated } }

    /// Hands an SEI message to the worker for its next output frames.
    func injectSEI(_ injection: SEIInjection) throws {
        let worker: (any WorkerHandle)? = try state.withLock { state in
            if state.supervision.isFinal || state.supervision.isStopping {
                throw ServiceError.invalidState("task \"\(id)\" is \((state.supervision.finalState ?? state.workerStatus.state).rawValue)")
            }
            return state.worker
        }
        guard let worker else { throw ServiceError.invalidState("task \"\(id)\" is not running yet; retry") }
        worker.send(.sei(injection))
    }

    /// Whether an update with this `sequence` may be applied now (see `UpdateAdmission`).
    func admitsUpdate(sequence: Int64?) -> UpdateAdmission { state.withLock { $0.admission(sequence: sequence) } }

    // MARK: Worker events (event loop)

    private func received(_ event: WorkerEvent) {
        var snapshotReply: (@Sendable (Result<Data, ServiceError>) -> Void)?
        var reply: Result<Data, ServiceError>?
        if event.type == .hls, let part = event.hls {
            // Not a change of status: the origin's held requests only (several a second).
            state.withLock { $0.hangWatch.heard(at: MonotonicClock.seconds) }
            hlsProgress.publish(playlist: part.playlist, position: HLSPartPosition(msn: part.msn, part: part.part))
            return
        }
        let rtpReady: [@Sendable () -> Void] = state.withLock { state in
            state.hangWatch.heard(at: MonotonicClock.seconds)
            switch event.type {
            case .status, .exit:
                if var status = event.status {
                    if state.supervision.isStopping && !status.state.isFinal { status.state = .stopping }
                    state.fit(&status)
                    state.workerStatus = status
                }
                if event.type == .exit, let status = event.status {
                    if event.leaseExpired == true { _ = state.supervision.stop(.fenced) }
                    state.supervision.workerReportedExit(state: status.state, reason: status.reason)
                }
            case .snapshot:
                if let requestId = event.requestId, let waiter = state.snapshotWaiters.removeValue(forKey: requestId) {
                    snapshotReply = waiter
                    if let png = event.png, let data = Data(base64Encoded: png) {
                        reply = .success(data)
                    } else {
                        reply = .failure(.invalidState(event.error ?? "no snapshot"))
                    }
                }
            case .hls:
                break
            }
            return state.takeRTPReadyWaiters()
        }
        if let snapshotReply, let reply { snapshotReply(reply) }
        if event.type != .snapshot { publishStatus() }
        rtpReady.forEach { $0() }
    }

    private func workerExited(status: Int32, signalled: Bool) {
        let (action, waiters): (TaskSupervision.ExitAction?, [@Sendable () -> Void]) = state.withLock { state in
            state.worker = nil
            let action = state.supervision.workerExited(status: status, signalled: signalled)
            if case .restart = action {
                state.framesBeforeRestart += state.workerStatus.frames
                state.cpuBeforeRestart += state.workerStatus.cpuSeconds ?? 0
                state.workerStatus.cpuSeconds = nil
                state.workerStatus.frames = 0
                state.workerStatus.state = .starting
            }
            return (action, state.supervision.isFinal ? state.takeEndWaiters() : [])
        }
        // Held playlist requests are answered with what the worker left on disk.
        hlsProgress.wakeAll()
        // Before the waiters: a DELETE answers only after the final event is queued.
        publishStatus()
        waiters.forEach { $0() }
        if case .restart? = action {
            // Spawning blocks: not on the event loop or whichever thread saw the exit.
            DispatchQueue.global().async { self.restart() }
        }
    }

    private func restart() {
        do { try start() } catch {
            let waiters = state.withLock { state in
                state.supervision.restartFailed("cannot restart the worker: \(error)")
                return state.takeEndWaiters()
            }
            publishStatus()
            waiters.forEach { $0() }
        }
    }
}
