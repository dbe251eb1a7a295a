import Foundation
import TesseraComposition
import TesseraTask
import TesseraStore
import TesseraWorkerProtocol

/// One task of the service as its node runs it: its plan, its worker process (started again when
/// it crashes, up to a limit, each time continuing its recordings in new files) and the latest
/// status the worker reported. The decisions are `TaskSupervision`'s; this class does the I/O.
///
/// Threads: called from the registry and from the worker's event thread; all state is guarded
/// by `lock`. Webhook events are made from statuses taken under `webhookOrder`, after `lock` is
/// released (never the other way round).
final class ManagedTask: @unchecked Sendable {
    let id: String
    private let configuration: RegistryConfiguration
    private let lock = NSLock()
    /// The document as the worker runs it (allocated RTP inputs turned into SDP inputs).
    private(set) var document: JSONValue
    /// The document as accepted, for the task store: allocated inputs still ask for ports, so
    /// another node allocates its own.
    private(set) var storedDocument: JSONValue
    /// The resolved plan in force, with the outputs' own file names.
    private var plan: ResolvedTask
    /// The plan in force, as validated when the task started or was last updated (an update
    /// compares against it instead of validating the running document again).
    var planInForce: ResolvedTask { lock.withLock { plan } }
    private var files: OutputFiles
    /// The lease generation this node holds the task at.
    let generation: Int64
    private var worker: (any WorkerHandle)?
    private var supervision: TaskSupervision
    private var workerStatus: WorkerStatus
    /// The participants and (redacted) outputs of the document in force. A worker's report can
    /// predate the latest update; it is fitted to these, so a status never loses a participant
    /// that an update has already answered for.
    private var inputIds: [String]
    /// The inputs that receive RTP: `waitUntilRTPInputsReady` waits for their sockets.
    private var rtpInputIds: Set<String>
    private var outputs: [(url: String, redacted: String)]
    /// Ports and SDP of each allocated RTP input, by input id.
    private var rtp: [String: RTPStatus] = [:]
    /// Kills a worker that stopped reporting (see `HangWatch`).
    private var hangWatch: HangWatch
    private let startedAt: Date
    private var lastSequence: Int64?
    /// Why this node runs the task (resumed after a restart, moved from a lost node), shown in
    /// the status reason until something newer happens.
    private var arrivalNote: String?
    /// Frames encoded by workers that have since crashed, so `frames` keeps counting up.
    private var framesBeforeRestart: Int64 = 0
    /// CPU seconds of workers that have since ended (each reports its own process's from zero).
    private var cpuBeforeRestart: Double = 0
    private var nextRequestId = 0
    private var snapshotWaiters: [Int: (Result<Data, ServiceError>) -> Void] = [:]
    private var exitWaiters: [() -> Void] = []
    /// `waitUntilRTPInputsReady` callers, told when every RTP input is bound or the task ends.
    private var rtpReadyWaiters: [@Sendable () -> Void] = []
    /// Posts this task's state changes to its `callbackUrl`; nil without one.
    private let webhook: TaskWebhook?
    /// Two threads may publish at once: taking the status and queueing its events under one lock
    /// keeps an older status from being diffed after a newer one.
    private let webhookOrder = NSLock()
    private lazy var eventLog = TaskEventLog(taskId: id, nodeId: configuration.nodeId)
    /// The first run only: see `History.foreignRecordings`.
    private var foreignRecordings: Set<String>
    /// Spool paths whose object exists already: taken like files on disk (`ExistingObjects`).
    private let existingObjects: Set<String>
    /// Called (outside `lock`) once the task is final on this node.
    var onFinal: (@Sendable (ManagedTask) -> Void)?

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
        self.document = document
        self.storedDocument = storedDocument
        self.plan = plan
        self.generation = generation
        self.configuration = configuration
        files = OutputFiles(history.files)
        supervision = TaskSupervision(maxRestarts: configuration.maxWorkerRestarts)
        hangWatch = HangWatch(limitSeconds: configuration.workerHangSeconds, now: MonotonicClock.seconds)
        lastSequence = history.sequence
        startedAt = history.startedAt
        arrivalNote = history.arrivalNote
        foreignRecordings = history.foreignRecordings
        existingObjects = history.existingObjects
        webhook = plan.callbackUrl.flatMap(URL.init(string:)).flatMap { url in
            webhooks?.makeWebhook(taskId: id, url: url, firstSequence: history.webhookSequence)
        }
        inputIds = plan.inputs.map(\.id)
        rtpInputIds = Self.rtpInputIds(plan)
        outputs = plan.outputs.map { ($0.url, URLRedaction.redact($0.url)) }
        workerStatus = WorkerStatus(state: .starting, reason: nil, frames: 0, fps: 0, bitrateKbps: 0, lateFrames: 0,
                                    inputs: inputIds.map { InputStatus(id: $0, state: .waiting) },
                                    outputs: outputs.map { OutputStatus(url: $0.redacted, state: .connecting) })
    }

    // MARK: Life

    /// Starts a worker. Its file outputs continue in new files when the task ran before.
    func start() throws {
        let runPlan: ResolvedTask = lock.withLock {
            defer { foreignRecordings = [] }
            let objects = existingObjects
            return files.beginRun(plan, resuming: arrivalNote != nil || supervision.restarts > 0, foreign: foreignRecordings,
                                  exists: { FileManager.default.fileExists(atPath: $0) || objects.contains($0) })
        }
        let launcher = configuration.workerLauncher ?? ProcessWorkerLauncher(configuration: configuration, taskId: id)
        let worker = try launcher.launch(
            onEvent: { [weak self] event in self?.received(event) },
            onExit: { [weak self] status, signalled in self?.workerExited(status: status, signalled: signalled) })
        lock.withLock {
            self.worker = worker
            hangWatch.heard(at: MonotonicClock.seconds)
            fitToDocument(&workerStatus)
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
        let worker: (any WorkerHandle)? = lock.withLock {
            guard supervision.stop(cause) else { return nil }
            workerStatus.state = .stopping
            return self.worker
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
        let worker = lock.withLock { self.worker }
        worker?.send(.lease(seconds: seconds))
    }

    private func waitForExit(timeoutSeconds: Double) async -> Bool {
        await SignalWait.first(within: timeoutSeconds, orElse: false) { exited in
            lock.withLock {
                if supervision.isFinal && worker == nil { return true }
                exitWaiters.append { exited(true) }
                return nil
            }
        }
    }

    // MARK: Updates and snapshots

    /// Sends the updated plan to the worker; refuses a stale `sequence`.
    func update(document updated: JSONValue, storedDocument stored: JSONValue, plan resolved: ResolvedTask,
                sequence: Int64?, rtp allocated: [String: RTPStatus], foreignRecordings foreign: Set<String> = []) throws {
        lock.lock()
        switch admission(sequence: sequence) {
        case .accept(let applied):
            lastSequence = applied
        case .refuseEnded(let state):
            lock.unlock()
            throw ServiceError.invalidState("task \"\(id)\" is \(state.rawValue)")
        case .refuseStale(let got, let last):
            lock.unlock()
            throw ServiceError.staleSequence(got: got, last: last)
        }
        document = updated
        storedDocument = stored
        plan = resolved
        rtp = allocated
        let runPlan = files.apply(resolved, foreign: foreign)
        // Answer with the new participants and outputs at once; the worker's next report follows.
        inputIds = resolved.inputs.map(\.id)
        rtpInputIds = Self.rtpInputIds(resolved)
        outputs = resolved.outputs.map { ($0.url, URLRedaction.redact($0.url)) }
        fitToDocument(&workerStatus)
        let worker = self.worker
        lock.unlock()
        worker?.send(.update(runPlan))
        publishStatus()
    }

    private static func rtpInputIds(_ plan: ResolvedTask) -> Set<String> {
        Set(plan.inputs.filter { if case .rtpSDP = $0.source { return true } else { return false } }.map(\.id))
    }

    /// The allocated RTP inputs' ports and SDP (before the worker starts).
    func setRTP(_ allocated: [String: RTPStatus]) { lock.withLock { rtp = allocated } }

    /// Keeps what the worker reported for the document's participants and outputs, adds the ones
    /// it has not reported yet (waiting / connecting) and drops removed ones. Call under `lock`.
    private func fitToDocument(_ status: inout WorkerStatus) {
        status.inputs = inputIds.map { id in status.inputs.first(where: { $0.id == id }) ?? InputStatus(id: id, state: .waiting) }
        // Outputs are matched by redacted URL, in order (two keys on one path redact alike).
        var unused = status.outputs
        status.outputs = outputs.map { output in
            var entry: OutputStatus
            if let index = unused.firstIndex(where: { $0.url == output.redacted }) {
                entry = unused.remove(at: index)
            } else {
                entry = OutputStatus(url: output.redacted, state: .connecting)
            }
            entry.files = files.files(of: output.url)
            return entry
        }
    }

    func snapshot() async throws -> Data {
        let (worker, requestId): ((any WorkerHandle)?, Int) = lock.withLock {
            nextRequestId += 1
            return (self.worker, nextRequestId)
        }
        guard let worker, lock.withLock({ !supervision.isFinal }) else {
            throw ServiceError.invalidState("task \"\(id)\" is not running")
        }
        let result = await SignalWait.first(within: 5, orElse: Result<Data, ServiceError>.failure(.invalidState("no frame within 5 s"))) { answered in
            lock.withLock { snapshotWaiters[requestId] = answered }
            worker.send(.snapshot(requestId: requestId))
            return nil
        }
        _ = lock.withLock { snapshotWaiters.removeValue(forKey: requestId) }
        return try result.get()
    }

    // MARK: Status

    var state: TaskState { lock.withLock { supervision.finalState ?? workerStatus.state } }
    var isFinal: Bool { lock.withLock { supervision.isFinal } }
    var workerPID: Int32? { lock.withLock { worker?.pid } }
    /// What the store should hold once the task is final here (see `TaskSupervision`).
    var desiredAfterFinal: DesiredState? { lock.withLock { supervision.desiredAfterFinal } }
    var isAudioOnly: Bool { lock.withLock { plan.video == nil } }
    var isRelay: Bool { lock.withLock { plan.mode == .relay } }

    /// Hands an SEI message to the worker for its next output frames.
    func injectSEI(_ injection: SEIInjection) throws {
        let worker: (any WorkerHandle)? = try lock.withLock {
            if supervision.isFinal || supervision.isStopping {
                throw ServiceError.invalidState("task \"\(id)\" is \((supervision.finalState ?? workerStatus.state).rawValue)")
            }
            return self.worker
        }
        guard let worker else { throw ServiceError.invalidState("task \"\(id)\" is not running yet; retry") }
        worker.send(.sei(injection))
    }

    var sequence: Int64? { lock.withLock { lastSequence } }

    /// Whether an update with this `sequence` may be applied now (see `UpdateAdmission`).
    func admitsUpdate(sequence: Int64?) -> UpdateAdmission { lock.withLock { admission(sequence: sequence) } }

    /// Call under `lock`.
    private func admission(sequence: Int64?) -> UpdateAdmission {
        let ending = supervision.isFinal || supervision.isStopping ? supervision.finalState ?? workerStatus.state : nil
        return UpdateAdmission.decide(sequence: sequence, lastSequence: lastSequence, ending: ending)
    }

    /// Waits until every RTP input of the task has its ports bound in the worker (its status says
    /// `ready`), the task ends, or `timeoutSeconds` pass: an SFU told to forward right after the
    /// answer must not lose its first packets (a keyframe among them) to a port nobody holds yet.
    func waitUntilRTPInputsReady(timeoutSeconds: Double) async {
        _ = await SignalWait.first(within: timeoutSeconds, orElse: false) { ready in
            lock.withLock {
                if rtpInputsReadyOrEnded { return true }
                rtpReadyWaiters.append { ready(true) }
                return nil
            }
        }
    }

    /// Under `lock`.
    private var rtpInputsReadyOrEnded: Bool {
        supervision.isFinal || workerStatus.inputs.allSatisfy { input in !rtpInputIds.contains(input.id) || input.ready == true }
    }

    /// Under `lock`: the RTP waiters to tell now (every input bound, or the task ended).
    private func takeRTPReadyWaiters() -> [@Sendable () -> Void] {
        guard !rtpReadyWaiters.isEmpty, rtpInputsReadyOrEnded else { return [] }
        defer { rtpReadyWaiters.removeAll() }
        return rtpReadyWaiters
    }

    var status: TaskStatus {
        lock.withLock {
            var status = TaskStatus(taskId: id, state: supervision.finalState ?? workerStatus.state,
                       reason: supervision.finalReason ?? workerStatus.reason ?? supervision.restartNote
                           ?? (supervision.isFinal ? nil : arrivalNote),
                       startedAt: ISO8601DateFormatter().string(from: startedAt),
                       uptimeSeconds: (Date().timeIntervalSince(startedAt) * 10).rounded() / 10,
                       frames: framesBeforeRestart + workerStatus.frames, fps: (workerStatus.fps * 10).rounded() / 10,
                       bitrateKbps: workerStatus.bitrateKbps.rounded(), lateFrames: workerStatus.lateFrames,
                       sequence: lastSequence, inputs: workerStatus.inputs, outputs: workerStatus.outputs)
            status.workerPid = worker?.pid
            status.workerRestarts = supervision.restarts
            status.node = configuration.nodeId
            status.encodes = workerStatus.encodes
            status.cpuSeconds = TaskCost.cpuSeconds(earlierWorkers: cpuBeforeRestart, current: workerStatus.cpuSeconds)
            status.cpuSecondsPerOutputMinute = TaskCost.perOutputMinute(cpuSeconds: status.cpuSeconds, frames: status.frames,
                                                                        fps: plan.video?.fps, uptimeSeconds: status.uptimeSeconds)
            for index in status.inputs.indices { status.inputs[index].rtp = rtp[status.inputs[index].id] }
            FinalStates.settle(&status)
            return status
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
        let report = lock.withLock {
            StatusReport(status: text, files: files.byURL, webhookSequence: webhook?.upcomingSequence ?? 1)
        }
        let recorded = report.files.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.joined(separator: ","))" }
        return (report, ([status.storeKey, String(report.webhookSequence)] + recorded).joined(separator: "\u{1E}"))
    }

    /// Queues a webhook event for each change since the last published status (no waiting on the
    /// network). Call after every change of state, outside `lock`.
    private func publishStatus() {
        // The log's lines about changes (`StatusChangeLog`), in the webhooks' order.
        webhookOrder.withLock { let status = self.status; eventLog.observe(status, now: MonotonicClock.seconds); webhook?.observe(status) }
    }

    /// A worker silent for longer than the hang limit is killed (and then restarted or failed).
    func checkHang() {
        let worker: (any WorkerHandle)? = lock.withLock {
            guard !supervision.isFinal, hangWatch.isHung(at: MonotonicClock.seconds) else { return nil }
            return self.worker
        }
        worker?.kill()
    }

    /// Kills the worker at once (this node lost the task's lease: no time for a proper stop).
    func kill(_ cause: TaskSupervision.StopCause) {
        let worker: (any WorkerHandle)? = lock.withLock {
            _ = supervision.stop(cause)
            return self.worker
        }
        worker?.kill()
    }

    // MARK: Worker events (event thread)

    private func received(_ event: WorkerEvent) {
        var snapshotReply: ((Result<Data, ServiceError>) -> Void)?
        var reply: Result<Data, ServiceError>?
        var rtpReady: [@Sendable () -> Void] = []
        defer { rtpReady.forEach { $0() } }
        lock.withLock {
            defer { rtpReady = takeRTPReadyWaiters() }
            hangWatch.heard(at: MonotonicClock.seconds)
            switch event.type {
            case .status, .exit:
                if let status = event.status {
                    var status = status
                    if supervision.isStopping && !status.state.isFinal { status.state = .stopping }
                    fitToDocument(&status)
                    workerStatus = status
                }
                if event.type == .exit, let status = event.status {
                    if event.leaseExpired == true { _ = supervision.stop(.fenced) }
                    supervision.workerReportedExit(state: status.state, reason: status.reason)
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
        var waiters: [() -> Void] = []
        let action: TaskSupervision.ExitAction? = lock.withLock {
            worker = nil
            let action = supervision.workerExited(status: status, signalled: signalled)
            if case .restart = action {
                framesBeforeRestart += workerStatus.frames
                cpuBeforeRestart += workerStatus.cpuSeconds ?? 0
                workerStatus.cpuSeconds = nil
                workerStatus.frames = 0
                workerStatus.state = .starting
            }
            if supervision.isFinal {
                waiters = exitWaiters + takeRTPReadyWaiters()
                exitWaiters.removeAll()
            }
            return action
        }
        // Before the waiters: a DELETE answers only after the final event is queued.
        publishStatus()
        waiters.forEach { $0() }
        switch action {
        case .restart?:
            // Spawning blocks: not on the event loop or whichever thread saw the exit.
            DispatchQueue.global().async { self.restart() }
        case .finish?:
            onFinal?(self)
        case nil:
            break
        }
    }

    private func restart() {
        do { try start() } catch {
            var waiters: [() -> Void] = []
            lock.withLock {
                supervision.restartFailed("cannot restart the worker: \(error)")
                waiters = exitWaiters + takeRTPReadyWaiters()
                exitWaiters.removeAll()
            }
            publishStatus()
            waiters.forEach { $0() }
            onFinal?(self)
        }
    }
}
