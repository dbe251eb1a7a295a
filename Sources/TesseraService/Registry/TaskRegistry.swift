import Foundation
import Logging
import TesseraTask
import TesseraStore
import TesseraWorkerProtocol

/// The tasks this node runs: validates each request once, at the edge (every field-path error
/// comes from `TaskValidator`, with this server's limits; a `PATCH`'s rules are
/// `TaskValidator.validateUpdate`'s), records tasks in the task store, and runs each in a worker
/// process of its own, which gets the resolved plan. A rejected request starts and changes
/// nothing. `ClusterService` puts the store's view of the whole cluster around it.
///
/// Its other parts: `+Update` (a `PATCH`, SEI, snapshots), `+Outputs` (one writer per recording,
/// disk space), `+Running` (stops, reports and leases for the control loop, the watchdog),
/// `+Validation` (reading and validating documents off the cooperative pool).
public actor TaskRegistry {
    let configuration: RegistryConfiguration
    let store: any TaskStore
    var tasks: [String: ManagedTask] = [:]
    /// HLS origins of tasks that ended here, served a while after `tasks` forgets them.
    let endedOrigins = HLSEndedOrigins()
    /// Ids a `POST` here is recording and starting (`create`): the only path that launches them.
    var creating: Set<String> = []
    /// `POST`s of an id being created here, waiting for that creation's outcome.
    private var creationWaiters: [String: [@Sendable () -> Void]] = [:]
    var shuttingDown = false
    /// Posts every task's state changes to its `callbackUrl` (see `WebhookNotifier`).
    let webhooks: WebhookNotifier
    let rtp: RTPAllocations
    let logger = Logger(label: "tessera.registry")
    /// The output directory's free space, checked by the watchdog's rounds (logged once per crossing).
    var diskWatch: DiskSpaceWatch

    /// How far a resumed task's webhook sequence jumps past the stored one.
    static let webhookSequenceJump: Int64 = 100
    /// How long a `POST` or `PATCH` waits for new RTP inputs' ports to be bound by the worker.
    static let rtpReadyTimeoutSeconds = 3.0
    /// How long a second `POST` of an id being created here waits for the first's outcome.
    static let creationWaitSeconds = 20.0
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
        /// starts with, its `rtp.allocate` inputs given the SDPs of the ports allocated.
        let plan: ResolvedTask
    }

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
        // Each HLS output gets its viewer key now, in the document: restarts and other nodes keep it.
        return PreparedTask(taskId: resolved.taskId, document: HLSViewerKeys.assigning(document, plan: resolved), plan: resolved)
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
        // A second POST of an id being created here waits for the first's outcome.
        await waitForCreation(of: id)
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
        defer { finishCreating(id) }
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

    /// Returns once no `POST` here is creating `id`, or after `creationWaitSeconds`.
    private func waitForCreation(of id: String) async {
        let deadline = MonotonicClock.seconds + Self.creationWaitSeconds
        while creating.contains(id), MonotonicClock.seconds < deadline {
            await SignalWait.first(within: deadline - MonotonicClock.seconds, orElse: ()) { finished in
                guard creating.contains(id) else { return () }
                creationWaiters[id, default: []].append { finished(()) }
                return nil
            }
        }
    }

    private func finishCreating(_ id: String) {
        creating.remove(id)
        creationWaiters.removeValue(forKey: id)?.forEach { $0() }
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
    /// `validated`: the plan of `stored` as `prepare` found it (a `POST`); nil when the task comes
    /// back from the store (a restart, a move), whose document is validated here. Either way it is
    /// validated once: the ports allocated for its `rtp.allocate` inputs go into the plan as the
    /// SDPs written for them (`ResolvedTask.allocating`).
    @discardableResult
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
        if fields["inputs"] != nil { fields["inputs"] = inputs }
        let task: ManagedTask
        do {
            let plan = if let validated { validated } else { try await validate(stored, kind: .invalidTask) }
            let resolved = plan.allocating(allocations.mapValues(\.sdp))
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

    func task(_ id: String) throws -> ManagedTask {
        guard let task = tasks[id] else { throw ServiceError.taskNotFound(id) }
        return task
    }
}
