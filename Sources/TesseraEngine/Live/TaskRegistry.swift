import Foundation
import TesseraCore
import TesseraMedia

/// The service's tasks: validates requests (every field-path error comes from `TaskValidator`),
/// runs each task in a worker process of its own, and answers for them. A rejected request
/// starts and changes nothing.
public actor TaskRegistry: TaskService {
    private let configuration: RegistryConfiguration
    private var tasks: [String: ManagedTask] = [:]
    /// Creation order, for listing.
    private var order: [String] = []
    private var shuttingDown = false
    private var watchdog: Task<Void, Never>?
    /// Posts every task's state changes to its `callbackUrl` (see `TaskRegistry+Webhooks.swift`).
    let webhooks: WebhookNotifier
    private let rtp: RTPAllocations

    /// Fields an update may carry; everything else is fixed for a task's life.
    private static let updatableFields: Set<String> = ["layout", "audio", "inputs", "outputs", "sequence"]

    public init(configuration: RegistryConfiguration) {
        self.configuration = configuration
        webhooks = WebhookNotifier(secret: configuration.webhookSecret)
        rtp = RTPAllocations(range: configuration.rtpPortRange, announceAddress: configuration.rtpAnnounceAddress)
    }

    private var validationOptions: ValidationOptions {
        var options = ValidationOptions.serve(mediaRoot: configuration.mediaRoot, outputDirectory: configuration.outputDirectory)
        options.maxInputs = configuration.maxInputs
        options.maxRegions = configuration.maxRegions
        options.maxOutputs = configuration.maxOutputs
        // The settings checked every entry at start-up; should one still not parse, deny every
        // network host rather than none.
        options.deniedHosts = (try? HostDenyList(configuration.deniedHosts)) ?? HostDenyList.everything
        return options
    }

    // MARK: TaskService

    public func create(_ body: Data) async throws -> TaskStatus {
        if shuttingDown { throw ServiceError.shuttingDown }
        guard case .object(var fields) = try parse(body, code: "InvalidTask") else {
            throw ServiceError(code: "InvalidTask", httpStatus: 400, message: "the task document must be a JSON object", path: "")
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
        let resolved = try validate(document, code: "InvalidTask")
        if let durationLimit, let asked = resolved.maxDurationSeconds, asked > durationLimit {
            throw ServiceError(code: "InvalidTask", httpStatus: 400, message: "maxDurationSeconds \(asked) is over the server's "
                               + "maximum task duration of \(durationLimit) s", path: "maxDurationSeconds")
        }
        if resolved.mode == .relay { try checkRelayCodecs(resolved) }
        if let existing = tasks[resolved.taskId], !existing.isFinal { throw ServiceError.taskExists(resolved.taskId) }
        let active = tasks.values.filter { !$0.isFinal }.count
        if active >= configuration.maxTasks { throw ServiceError.tooManyTasks(limit: configuration.maxTasks) }

        // Allocated RTP inputs become SDP inputs on ports of the range; busy ports are refused here.
        if let existing = tasks[resolved.taskId], existing.isFinal { rtp.release(taskId: resolved.taskId) }
        let (inputs, allocations) = try rtp.resolve(inputs: fields["inputs"] ?? .null, taskId: resolved.taskId, knownSDPs: [])
        if fields["inputs"] != nil { fields["inputs"] = inputs }
        let task = ManagedTask(id: resolved.taskId, document: .object(fields), resolved: resolved, configuration: configuration,
                               webhooks: webhooks)
        do {
            try task.start()
        } catch {
            // The reason names local paths: it goes to the server's log, not to the caller.
            FileHandle.standardError.write(Data("tessera: cannot start a worker for task \(resolved.taskId): \(error)\n".utf8))
            throw ServiceError(code: "InternalError", httpStatus: 500, message: "cannot start a worker process for the task")
        }
        rtp.commit(taskId: resolved.taskId, allocations)
        if tasks[resolved.taskId] == nil { order.append(resolved.taskId) }
        tasks[resolved.taskId] = task
        startWatchdog()
        return withRTP(task.status)
    }

    public func list() async -> [TaskStatus] {
        order.compactMap { tasks[$0].map { withRTP($0.status) } }
    }

    public func status(_ taskId: String) async throws -> TaskStatus {
        withRTP(try task(taskId).status)
    }

    public func update(_ taskId: String, _ body: Data) async throws -> TaskStatus {
        let task = try task(taskId)
        guard case .object(let changes) = try parse(body, code: "InvalidUpdate") else {
            throw ServiceError(code: "InvalidUpdate", httpStatus: 400, message: "the update must be a JSON object", path: "")
        }
        for key in changes.keys.sorted() where !Self.updatableFields.contains(key) {
            let what = ["encoder", "mode", "callbackUrl"].contains(key) ? "cannot be changed while a task runs"
                : key == "taskId" ? "cannot be changed" : "is not a field an update may change (layout, audio, inputs, outputs, sequence)"
            throw ServiceError(code: "InvalidUpdate", httpStatus: 400, message: "\(key) \(what)", path: key)
        }
        var sequence: Int64?
        if let value = changes["sequence"] {
            guard case .number(let number) = value, number == number.rounded(), abs(number) < 9e15 else {
                throw ServiceError(code: "InvalidUpdate", httpStatus: 400, message: "sequence must be an integer", path: "sequence")
            }
            sequence = Int64(number)
        }
        guard case .object(var merged) = task.document else { throw ServiceError.invalidState("task has no document") }
        for (key, value) in changes where key != "sequence" {
            if case .null = value { merged[key] = nil } else { merged[key] = value }
        }
        let before = try validate(task.document, code: "InvalidUpdate")
        let after = try validate(.object(merged), code: "InvalidUpdate")
        if (before.video == nil) != (after.video == nil) {
            throw ServiceError(code: "InvalidUpdate", httpStatus: 400,
                               message: "an update cannot switch a task between audio-only and audio-video", path: "layout")
        }
        let running = RTPAllocations.sdpTexts(in: task.document)
        let (inputs, allocations) = try rtp.resolve(inputs: merged["inputs"] ?? .null, taskId: taskId, knownSDPs: running)
        if merged["inputs"] != nil { merged["inputs"] = inputs }
        try task.update(document: .object(merged), resolved: after, sequence: sequence)
        rtp.commit(taskId: taskId, allocations)
        return withRTP(task.status)
    }

    public func stop(_ taskId: String) async throws -> TaskStatus {
        let task = try task(taskId)
        await task.stop(timeoutSeconds: 15)
        // While this waited, a new task may have taken the id (and ports) of the finished one.
        if tasks[taskId] === task { rtp.release(taskId: taskId) }
        return withRTP(task.status)
    }

    public func snapshot(_ taskId: String) async throws -> Data {
        let task = try task(taskId)
        guard (try? validate(task.document, code: "InvalidState"))?.video != nil else {
            throw ServiceError.invalidState("task \"\(taskId)\" is audio-only: it has no picture")
        }
        return try await task.snapshot()
    }

    public func shutdown(deadlineSeconds seconds: Double) async {
        shuttingDown = true
        watchdog?.cancel()
        let running = tasks.values.filter { !$0.isFinal }
        await withTaskGroup(of: Void.self) { group in
            for task in running {
                group.addTask { await task.stop(timeoutSeconds: max(1, seconds - 1)) }
            }
        }
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

    private func parse(_ body: Data, code: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            throw ServiceError(code: code, httpStatus: 400, message: "\(error)", path: "")
        }
    }

    private func validate(_ document: JSONValue, code: String) throws -> ResolvedTask {
        let data = try JSONEncoder().encode(document)
        switch TaskValidator.validate(json: data, options: validationOptions) {
        case .success(let resolved):
            return resolved
        case .failure(let failure):
            let first = failure.issues.first
            throw ServiceError(code: code, httpStatus: 400, message: first?.message ?? "invalid", path: first?.path,
                               issues: failure.issues.map { ServiceError.Issue(path: $0.path, message: $0.message) })
        }
    }

    /// FLV carries H.264 only: a relay of a file in another codec to RTMP is refused up front.
    private func checkRelayCodecs(_ task: ResolvedTask) throws {
        guard let input = task.inputs.first, case .file = input.source else { return }
        do {
            let source = try SourceOpener.open(input, interrupt: InterruptFlag(), decoderThreads: 1)
            try RelaySession.checkCodecs(source, outputs: task.outputs)
        } catch {
            throw ServiceError(code: "InvalidTask", httpStatus: 400, message: "\(error)", path: "inputs[0].url")
        }
    }

    /// Kills workers that stopped reporting (a hang inside FFmpeg); they are then restarted or failed.
    private func startWatchdog() {
        guard watchdog == nil else { return }
        watchdog = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                await self?.checkHangs()
            }
        }
    }

    private func checkHangs() {
        for task in tasks.values { task.checkHang() }
        for (id, task) in tasks where task.isFinal { rtp.release(taskId: id) }
    }

    /// The status with the ports and SDP of each allocated RTP input.
    private func withRTP(_ status: TaskStatus) -> TaskStatus {
        var status = status
        for index in status.inputs.indices {
            status.inputs[index].rtp = rtp.status(taskId: status.taskId, inputId: status.inputs[index].id)
        }
        return status
    }
}
