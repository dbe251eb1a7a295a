import Foundation
import Logging
import TesseraComposition
import TesseraTask
import TesseraStore
import TesseraWorkerProtocol

/// The tasks this node runs: validates requests once, at the edge (every field-path error comes
/// from `TaskValidator`, with this server's limits), records them in the task store, and runs
/// each in a worker process of its own, which gets the resolved plan. A rejected request starts
/// and changes nothing. `ClusterService` puts the store's view of the whole cluster around it.
public actor TaskRegistry {
    let configuration: RegistryConfiguration
    let store: any TaskStore
    private var tasks: [String: ManagedTask] = [:]
    /// Ids a `POST` here is recording and starting (`create`): the only path that launches them.
    private var creating: Set<String> = []
    private var shuttingDown = false
    /// Posts every task's state changes to its `callbackUrl` (see `TaskRegistry+Webhooks.swift`).
    let webhooks: WebhookNotifier
    private let rtp: RTPAllocations
    private let logger = Logger(label: "tessera.registry")
    /// The output directory's free space, checked by the watchdog's rounds (logged once per crossing).
    private var diskWatch: DiskSpaceWatch

    /// How far a resumed task's webhook sequence jumps past the stored one.
    static let webhookSequenceJump: Int64 = 100
    /// How long a `POST` or `PATCH` waits for new RTP inputs' ports to be bound by the worker.
    static let rtpReadyTimeoutSeconds = 3.0

    /// Fields an update may carry; everything else is fixed for a task's life.
    private static let updatableFields: Set<String> = ["layout", "audio", "inputs", "outputs", "sequence", "sei"]

    public init(configuration: RegistryConfiguration, store: any TaskStore) {
        self.configuration = configuration
        self.store = store
        diskWatch = DiskSpaceWatch(minFreeBytes: configuration.minFreeBytes)
        webhooks = WebhookNotifier(secret: configuration.webhookSecret)
        rtp = RTPAllocations(range: configuration.rtpPortRange, announceAddress: configuration.rtpAnnounceAddress,
                             bindAddress: configuration.rtpBindAddress, udpPorts: configuration.udpPorts)
    }

    /// A request validated at the edge: the document to store and the id it runs under.
    public struct PreparedTask: Sendable {
        public let taskId: String
        /// As accepted, with the defaults this server fixed (generated id, longest duration).
        public let document: JSONValue
        /// The document validated (with this node's limits and deny-list): the plan the task
        /// starts with, unless RTP ports are allocated into it (then their SDPs are checked too).
        let plan: ResolvedTask
    }

    private var validationOptions: ValidationOptions { configuration.validationOptions }

    // MARK: Creating

    /// Reads and validates a task document (`POST /v1/tasks`) without starting anything.
    public func prepare(_ body: Data) async throws -> PreparedTask {
        if shuttingDown { throw ServiceError.shuttingDown }
        guard case .object(var fields) = try parse(body, kind: .invalidTask) else {
            throw ServiceError(.invalidTask, message: "the task document must be a JSON object", path: "")
        }
        // Fix the generated id into the document, so a restarted worker or an update keeps it.
        if fields["taskId"] == nil { fields["taskId"] = .string(TaskValidator.generateTaskId()) }
        // A task that names no end gets the server's longest (`--max-duration-seconds`), written
        // into the document so a restarted worker keeps it; one that asks for more is refused.
        let durationLimit = configuration.maxTaskDurationSeconds
        if let durationLimit, fields["maxDurationSeconds"] == nil || fields["maxDurationSeconds"] == .null {
            fields["maxDurationSeconds"] = .number(durationLimit)
        }
        let document = JSONValue.object(fields)
        let resolved = try await validate(document, kind: .invalidTask)
        if let durationLimit, let asked = resolved.maxDurationSeconds, asked > durationLimit {
            throw ServiceError(.invalidTask, message: "maxDurationSeconds \(asked) is over the server's "
                               + "maximum task duration of \(durationLimit) s", path: "maxDurationSeconds")
        }
        if resolved.mode == .relay { try await checkRelayCodecs(resolved) }
        try await BucketCheck.check(resolved, storage: configuration.storage, kind: .invalidTask)
        return PreparedTask(taskId: resolved.taskId, document: document, plan: resolved)
    }

    /// Whether this node can take one more task.
    public var hasRoom: Bool { !shuttingDown && activeCount < configuration.maxTasks }
    /// Tasks running here, and those a `POST` is recording and starting right now: creations that
    /// wait on a slow store must not all see the same free slot.
    public var activeCount: Int {
        tasks.values.filter { !$0.isFinal }.count + creating.filter { tasks[$0]?.isFinal ?? true }.count
    }

    /// Records a new task in the store and starts it here: the one launch of a new task (the
    /// control loop leaves ids being created alone, see `Reconciler.Input.creating`). The same id
    /// with the same document again is the same task, answered with its status; a different
    /// document under a running id is 409 (see `TaskCreation`). A failed start leaves the task
    /// stopped in the store, so nothing runs it.
    public func create(_ prepared: PreparedTask) async throws -> TaskStatus {
        if shuttingDown { throw ServiceError.shuttingDown }
        let id = prepared.taskId
        let text = try Self.jsonText(prepared.document)
        // A second POST of an id being created here waits for the first's outcome (at most 20 s).
        for _ in 0..<2000 where creating.contains(id) { try? await Task.sleep(for: .milliseconds(10)) }
        if creating.contains(id) { throw ServiceError.taskExists(id) }
        if let existing = tasks[id], !existing.isFinal {
            guard (try? Self.jsonText(existing.storedDocument)) == text else { throw ServiceError.taskExists(id) }
            return existing.status
        }
        if !hasRoom { throw ServiceError.tooManyTasks(limit: configuration.maxTasks) }
        // Busy RTP ports are refused before the task is recorded (a rejected request changes
        // nothing); `launch` resolves them again and records them.
        if case .object(let fields) = prepared.document {
            _ = try rtp.resolve(inputs: fields["inputs"] ?? .null, taskId: id, knownSDPs: [])
        }
        creating.insert(id)
        defer { creating.remove(id) }
        // A recording has one writer in the whole cluster. Asked (reading only) before the task is
        // recorded, so a refusal changes nothing...
        let claims = OutputClaimKeys.keys(of: prepared.plan)
        try refuseRecordingWhenLowOnSpace(claims, plan: prepared.plan)
        let lastHolders = try await refuseOutputsInUse(claims, plan: prepared.plan)
        // A playlist another task wrote is not continued, an object another task wrote not
        // replaced (see `OutputFiles.beginRun`).
        let foreign = Set(claims.filter { lastHolders[$0.key] != id }.map { prepared.plan.outputs[$0.index].url })
        let existingObjects = await ExistingObjects.spoolPaths(of: prepared.plan, storage: configuration.storage)
        let outcome: CreateOutcome
        do {
            outcome = try await store.createTask(NewTask(taskId: id, document: text, node: configuration.nodeId))
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
        let record = try? await store.task(id)
        if outcome == .exists {
            guard TaskCreation.decide(existing: record, document: text) == .alreadyCreated else { throw ServiceError.taskExists(id) }
            if let local = tasks[id], !local.isFinal { return local.status }
            return Self.recordedStatus(record, taskId: id)
        }
        // ...and again once it runs in the store, which is what holds them: of two tasks created
        // at once on two nodes, the second to get here loses, and its record is stopped.
        do {
            try await claimOutputs(claims, plan: prepared.plan)
        } catch {
            try? await store.setDesired(taskId: id, .stopped)
            throw error
        }
        // 1 for a new id; one past the old run's when a stopped task of this id was replaced.
        let generation = record?.generation ?? 1
        do {
            let task = try await launch(id: id, stored: prepared.document, generation: generation,
                                        history: ManagedTask.History(foreignRecordings: foreign, existingObjects: existingObjects),
                                        validated: prepared.plan)
            await task.waitUntilRTPInputsReady(timeoutSeconds: Self.rtpReadyTimeoutSeconds)
            return task.status
        } catch {
            try? await store.setDesired(taskId: id, .stopped)
            throw error
        }
    }

    /// `OutputInUse` at the first recording output another running task holds, asking the store
    /// without writing to it; the keys' last holders otherwise.
    private func refuseOutputsInUse(_ claims: [(index: Int, key: String)], plan: ResolvedTask) async throws -> [String: String] {
        guard !claims.isEmpty else { return [:] }
        do {
            let holders = try await store.lastHolders(of: claims.map(\.key))
            for (index, key) in claims {
                guard let holder = holders[key], holder != plan.taskId,
                      try await store.task(holder)?.desired == .running else { continue }
                throw ServiceError.outputInUse(index: index, url: URLRedaction.redact(plan.outputs[index].url), holder: holder)
            }
            return holders
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
    }

    /// Holds the task's recording outputs in the store; `OutputInUse` at the first one another
    /// running task holds.
    private func claimOutputs(_ claims: [(index: Int, key: String)], plan: ResolvedTask) async throws {
        guard !claims.isEmpty else { return }
        let conflict: OutputClaimConflict?
        do {
            conflict = try await store.claimOutputs(claims.map(\.key), taskId: plan.taskId)
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
        guard let conflict, let index = claims.first(where: { $0.key == conflict.key })?.index else { return }
        throw ServiceError.outputInUse(index: index, url: URLRedaction.redact(plan.outputs[index].url), holder: conflict.holder)
    }

    /// Ids a `POST` here is recording and starting right now.
    public var creatingTaskIds: Set<String> { creating }

    /// The status a record holds (the one its node last wrote), or `starting` before any.
    static func recordedStatus(_ record: StoredTask?, taskId: String) -> TaskStatus {
        if let text = record?.status, let status = try? JSONDecoder().decode(TaskStatus.self, from: Data(text.utf8)) { return status }
        return TaskStatus(taskId: taskId, state: .starting, startedAt: ISO8601DateFormatter().string(from: record?.createdAt ?? Date()))
    }

    /// Starts a task this node holds in the store (at `record.generation`): after this node
    /// restarted, or claimed from a lost or draining node. False if it cannot run here.
    @discardableResult
    public func resume(_ record: StoredTask, note: String) async -> Bool {
        if shuttingDown || creating.contains(record.taskId) { return false }
        if let existing = tasks[record.taskId], !existing.isFinal { return true }
        guard let document = try? JSONValue.parse(Data(record.document.utf8)) else { return false }
        let previous = record.status.flatMap { try? JSONDecoder().decode(TaskStatus.self, from: Data($0.utf8)) }
        // The store has the sequence as of the last status written (at most a second old): events
        // sent after it by a node that died would be numbered again. A jump of 100 keeps every
        // number unique; receivers read the gap as events they may not have received.
        var history = ManagedTask.History(files: record.files, webhookSequence: record.webhookSequence + Self.webhookSequenceJump,
                                          sequence: record.sequence, arrivalNote: note)
        if let started = previous.flatMap({ ISO8601DateFormatter().date(from: $0.startedAt) }) { history.startedAt = started }
        do {
            try await launch(id: record.taskId, stored: document, generation: record.generation, history: history)
            return true
        } catch {
            logger.error("cannot resume task", metadata: ["task_id": .string(record.taskId), "error": "\(error)"])
            return false
        }
    }

    /// Resolves RTP allocations, validates with this node's limits and starts the worker.
    @discardableResult
    /// `validated`: the plan of `stored` as `prepare` found it (a `POST`), so the document is
    /// validated once; nil when the task comes back from the store (a restart, a move).
    private func launch(id: String, stored: JSONValue, generation: Int64, history: ManagedTask.History,
                        validated: ResolvedTask? = nil) async throws -> ManagedTask {
        guard case .object(var fields) = stored else { throw ServiceError.invalidState("task has no document") }
        if let existing = tasks[id] {
            guard existing.isFinal else { throw ServiceError.taskExists(id) }
            rtp.release(taskId: id)
        }
        // Allocated RTP inputs become SDP inputs on ports of the range; busy ports are refused here.
        // Resolved and recorded with no suspension between, so two starts never get one port.
        let (inputs, allocations) = try rtp.resolve(inputs: fields["inputs"] ?? .null, taskId: id, knownSDPs: [])
        rtp.commit(taskId: id, allocations)
        // Allocated ports rewrite `rtp.allocate` inputs into SDP inputs: a document that changed
        // is validated again; one that did not is the plan `prepare` validated.
        let rewritten = fields["inputs"] != nil && fields["inputs"] != inputs
        if fields["inputs"] != nil { fields["inputs"] = inputs }
        let task: ManagedTask
        do {
            let resolved = if let validated, !rewritten { validated } else { try await validate(.object(fields), kind: .invalidTask) }
            task = ManagedTask(id: id, document: .object(fields), storedDocument: stored, plan: resolved,
                               generation: generation, history: history, configuration: configuration, webhooks: webhooks)
            task.setRTP(allocations.mapValues(\.status))
            // Placed before the spawn: a second start of the id while this one waits is refused.
            tasks[id] = task
            try await BlockingWork.run { try task.start() }
        } catch let error as ServiceError {
            rtp.release(taskId: id)
            throw error
        } catch {
            rtp.release(taskId: id)
            if tasks[id]?.isFinal == false { tasks[id] = nil }
            // The reason names local paths: it goes to the server's log, not to the caller.
            logger.error("cannot start a worker", metadata: ["task_id": .string(id), "error": "\(error)"])
            throw ServiceError(.internalError, message: "cannot start a worker process for the task")
        }
        return task
    }

    // MARK: Answering for local tasks

    /// The tasks this node holds a worker for (final ones until the store has their end).
    public var localTaskIds: [String] { Array(tasks.keys) }

    public func localStatus(_ taskId: String) -> TaskStatus? {
        tasks[taskId]?.status
    }

    public func update(_ taskId: String, _ body: Data) async throws -> TaskStatus {
        let task = try task(taskId)
        guard case .object(let changes) = try parse(body, kind: .invalidUpdate) else {
            throw ServiceError(.invalidUpdate, message: "the update must be a JSON object", path: "")
        }
        for key in changes.keys.sorted() where !Self.updatableFields.contains(key) {
            let what = ["encoder", "mode", "callbackUrl"].contains(key) ? "cannot be changed while a task runs"
                : key == "taskId" ? "cannot be changed" : "is not a field an update may change (layout, audio, inputs, outputs, sei, sequence)"
            throw ServiceError(.invalidUpdate, message: "\(key) \(what)", path: key)
        }
        var sequence: Int64?
        if let value = changes["sequence"] {
            guard case .number(let number) = value, number == number.rounded(), abs(number) < 9e15 else {
                throw ServiceError(.invalidUpdate, message: "sequence must be an integer", path: "sequence")
            }
            sequence = Int64(number)
        }
        guard case .object(var merged) = task.document, case .object(var stored) = task.storedDocument else {
            throw ServiceError.invalidState("task has no document")
        }
        for (key, value) in changes where key != "sequence" {
            if case .null = value { merged[key] = nil; stored[key] = nil } else { merged[key] = value; stored[key] = value }
        }
        let before = task.planInForce
        let after = try await validate(.object(merged), kind: .invalidUpdate)
        if (before.video == nil) != (after.video == nil) {
            throw ServiceError(.invalidUpdate,
                               message: "an update cannot switch a task between audio-only and audio-video", path: "layout")
        }
        try await BucketCheck.check(after, storage: configuration.storage, kind: .invalidUpdate,
                                    skipping: Set(before.outputs.compactMap { $0.upload?.bucket }))
        // Refused before the store is written: a refused update changes nothing.
        switch task.admitsUpdate(sequence: sequence) {
        case .accept: break
        case .refuseEnded(let state): throw ServiceError.invalidState("task \"\(taskId)\" is \(state.rawValue)")
        case .refuseStale(let got, let last): throw ServiceError.staleSequence(got: got, last: last)
        }
        // A recording the update adds has one writer too (the task already holds its others):
        // asked now, held just before the update is stored.
        let held = Set(OutputClaimKeys.keys(of: before).map(\.key))
        let added = OutputClaimKeys.keys(of: after).filter { !held.contains($0.key) }
        let addedHolders = try await refuseOutputsInUse(added, plan: after)
        let foreign = Set(added.filter { addedHolders[$0.key] != taskId }.map { after.outputs[$0.index].url })
        let running = RTPAllocations.sdpTexts(in: task.document)
        let (inputs, allocations) = try rtp.resolve(inputs: merged["inputs"] ?? .null, taskId: taskId, knownSDPs: running)
        if merged["inputs"] != nil { merged["inputs"] = inputs }
        // The plan with the ports resolved. `after` checked every host already; without the
        // deny-list this needs no DNS, so it runs here, between resolving and recording the ports.
        var plain = validationOptions
        plain.deniedHosts = HostDenyList()
        let resolved = try Self.validateNow(.object(merged), options: plain, kind: .invalidUpdate)
        try await claimOutputs(added, plan: after)
        // The store first: an update is answered 200 only once it is the task's for good (a node
        // that lost the task's lease refuses it).
        let accepted: Bool
        do {
            accepted = try await store.updateDocument(taskId: taskId, document: try Self.jsonText(.object(stored)),
                                                      sequence: sequence ?? task.sequence, node: configuration.nodeId,
                                                      generation: task.generation)
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
        guard accepted else { throw ServiceError.invalidState("task \"\(taskId)\" has moved to another node; retry") }
        try task.update(document: .object(merged), storedDocument: .object(stored), plan: resolved, sequence: sequence,
                        rtp: allocations.mapValues(\.status), foreignRecordings: foreign)
        rtp.commit(taskId: taskId, allocations)
        await task.waitUntilRTPInputsReady(timeoutSeconds: Self.rtpReadyTimeoutSeconds)
        return task.status
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

    /// `POST /v1/tasks/{taskId}/sei`: validated here, then handed to the task's worker.
    public func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted {
        let task = try task(taskId)
        let injection: SEIInjection
        switch SEIInjection.read(body) {
        case .success(let read): injection = read
        case .failure(let failure):
            let first = failure.issues.first
            throw ServiceError(.invalidSEI, message: first?.message ?? "invalid SEI request",
                               path: first?.path ?? "",
                               issues: failure.issues.count > 1 ? failure.issues.map { .init(path: $0.path, message: $0.message) } : [])
        }
        if task.isAudioOnly {
            throw ServiceError(.invalidSEI,
                               message: "the task is audio-only (no encoder.video): it has no video to carry SEI", path: "encoder.video")
        }
        if task.isRelay {
            throw ServiceError(.invalidSEI,
                               message: "a relay passes its input's video through unchanged; it cannot add SEI", path: "mode")
        }
        try task.injectSEI(injection)
        return SEIAccepted(taskId: taskId, uuid: SEIUUID.hex(injection.message.uuid ?? []),
                           bytes: injection.message.payload.count - 16, repeat: injection.repeatCount)
    }

    public func snapshot(_ taskId: String) async throws -> Data {
        let task = try task(taskId)
        if task.isAudioOnly { throw ServiceError.invalidState("task \"\(taskId)\" is audio-only: it has no picture") }
        return try await task.snapshot()
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

    // MARK: Private

    private func task(_ id: String) throws -> ManagedTask {
        guard let task = tasks[id] else { throw ServiceError.taskNotFound(id) }
        return task
    }

    static func jsonText(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func parse(_ body: Data, kind: ServiceError.Kind) throws -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw ServiceError(kind, message: "\(error)", path: "")
        }
    }

    /// Validation reads files and may resolve host names: off the cooperative pool.
    private func validate(_ document: JSONValue, kind: ServiceError.Kind) async throws -> ResolvedTask {
        let options = validationOptions
        return try await BlockingWork.run { try Self.validateNow(document, options: options, kind: kind) }
    }

    private static func validateNow(_ document: JSONValue, options: ValidationOptions, kind: ServiceError.Kind) throws -> ResolvedTask {
        let data = try JSONEncoder().encode(document)
        switch TaskValidator.validate(json: data, options: options) {
        case .success(let resolved):
            return resolved
        case .failure(let failure):
            throw ServiceError.invalid(failure, kind: kind)
        }
    }

    /// FLV carries H.264 only: a relay of a file in another codec to RTMP is refused up front,
    /// by a short-lived `tessera probe` process (this server never opens callers' media).
    private func checkRelayCodecs(_ task: ResolvedTask) async throws {
        guard let input = task.inputs.first, case .file = input.source else { return }
        let executable = configuration.workerExecutable
        try await BlockingWork.run { try CodecProbe.check(task, executable: executable) }
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

    /// The output directory's free bytes now, and whether that is below `--min-free-bytes`.
    public nonisolated func outputSpace() -> (freeBytes: Int64?, low: Bool) {
        let free = FileSystemSpace.freeBytes(atPath: configuration.outputDirectory)
        return (free, free.map { $0 < configuration.minFreeBytes } ?? false)
    }

    /// Warns once when the output directory runs low, and says once when space is back.
    func checkDiskSpace() {
        guard let free = outputSpace().freeBytes else { return }
        let metadata: Logger.Metadata = ["output_dir": .string(configuration.outputDirectory), "free_bytes": "\(free)",
                                         "min_free_bytes": "\(configuration.minFreeBytes)"]
        switch diskWatch.observe(freeBytes: free) {
        case .becameLow: logger.warning("the output directory is low on space: new recording tasks are refused here", metadata: metadata)
        case .recovered: logger.info("the output directory has space again: recording tasks are taken", metadata: metadata)
        case .none: break
        }
    }

    /// A node low on disk space starts no new recording (a full disk would fail it at once). HLS
    /// sent to an HTTP origin writes nothing here and is not refused.
    private func refuseRecordingWhenLowOnSpace(_ claims: [(index: Int, key: String)], plan: ResolvedTask) throws {
        let local = claims.filter { claim in
            if case .hls(let settings) = plan.outputs[claim.index].kind, settings.overHTTP, plan.outputs[claim.index].upload == nil {
                return false
            }
            return true
        }
        guard !local.isEmpty else { return }
        let claims = local
        let space = outputSpace()
        guard space.low, let free = space.freeBytes else { return }
        checkDiskSpace()
        throw ServiceError(.insufficientStorage,
                           message: "this node's output directory has \(free) bytes free, below its --min-free-bytes of \(configuration.minFreeBytes): it starts no new recording",
                           path: "outputs[\(claims[0].index)].url", retryAfterSeconds: 60)
    }

    static let watchdogIntervalSeconds = 2.0

    /// The webhooks of this node's tasks (their deliveries run in the service group).
    public nonisolated var webhookNotifier: WebhookNotifier { webhooks }

    /// `package` so the registry's tests can run one check without waiting for the watchdog.
    package func checkHangs() {
        for task in tasks.values { task.checkHang() }
    }

}

extension ServiceError {
    /// The task store cannot be reached: nothing was changed.
    public static func storeUnavailable(_ error: any Error) -> ServiceError {
        ServiceError(.storeUnavailable, message: "the task store cannot be reached: \(error)",
                     retryAfterSeconds: 5)
    }
}
