import Foundation
import Logging
import TesseraStore
import TesseraWorkerProtocol

/// The API's view of the whole cluster: any node answers every route for every task. A task
/// this node runs is answered by its `TaskRegistry`; one another node runs is passed on to that
/// node (`PeerClient`); one whose node is lost is answered from the task store. New tasks go to
/// the node with the most free capacity.
///
/// `run()` is this node's control loop (see `Reconciler`): heartbeat and lease, resuming its
/// tasks after a restart, claiming the tasks of lost nodes, fencing tasks it no longer holds,
/// and writing each task's status to the store. Beside it, a liveness loop probes the other
/// nodes while the store fails and renews or stops the workers as `OutageGuard` decides: a store
/// outage is not a stream outage.
public actor ClusterService: TaskService {
    public let registry: TaskRegistry
    private let store: any TaskStore
    private let peers: any PeerClient
    private let cluster: ClusterConfiguration
    private var outage: OutageGuard
    private let logger = Logger(label: "tessera.cluster")
    private var draining = false
    private var stopped = false
    /// When each task's status was last written to the store.
    private var written = StatusWritePolicy()
    private let origin = ContinuousClock.now
    /// Tasks this node placed on others in the last few seconds, by node: their heartbeats do not
    /// count them yet, so a burst of creations would otherwise all land on the same node.
    private var recentPlacements: [String: [Double]] = [:]
    private static let placementMemorySeconds: Double = 3
    /// When stopped tasks were last cleared from the store.
    private var lastForget: Double = -.infinity
    /// How long the store keeps a stopped task's final status for `GET`.
    private static let keepStoppedSeconds: Double = 24 * 3600

    public init(registry: TaskRegistry, store: any TaskStore, peers: any PeerClient, cluster: ClusterConfiguration) {
        self.registry = registry
        self.store = store
        self.peers = peers
        self.cluster = cluster
        outage = OutageGuard(nodeId: cluster.nodeId, timeoutSeconds: cluster.nodeTimeoutSeconds,
                             intervalSeconds: cluster.reconcileIntervalSeconds)
    }

    private var now: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: Health

    /// `/readyz`: the store answers and this node is not draining.
    public func isReady() -> Bool { readiness().ready }

    /// `/readyz` with its body (see `OutageGuard.readiness`).
    public func readiness() -> Readiness {
        let reachable = !outage.storeDown
        var readiness: Readiness
        if draining || stopped {
            readiness = Readiness(ready: false, status: "not ready", storeReachable: reachable, reason: "draining")
        } else {
            switch outage.readiness(at: now) {
            case .ready: readiness = .ready
            case .storeUnreachable:
                readiness = Readiness(ready: true, status: "store unreachable", storeReachable: false,
                                      reason: "the task store cannot be reached from any node this one reaches; reads are answered, writes refused")
            case .notReady(let reason): readiness = Readiness(ready: false, status: "not ready", storeReachable: reachable, reason: reason)
            }
        }
        // Still ready for API traffic and for tasks that record nothing: the disk is said, not judged.
        let disk = registry.outputSpace()
        readiness.outputDirFreeBytes = disk.freeBytes
        if disk.low, readiness.reason == nil {
            readiness.reason = "the output directory has \(disk.freeBytes ?? 0) bytes free, below --min-free-bytes: new recording tasks are refused here"
        }
        return readiness
    }

    /// Writes go to the store first: while it is known down they are refused at once.
    private func refuseWritesWhileStoreDown() throws {
        if outage.storeDown {
            throw ServiceError.storeUnavailable(TaskStoreError("the last calls failed; retry once it is back"))
        }
    }

    // MARK: TaskService

    public func create(_ body: Data) async throws -> TaskStatus {
        if draining || stopped { throw ServiceError.shuttingDown }
        try refuseWritesWhileStoreDown()
        let prepared = try await registry.prepare(body)
        if ForwardedRequest.fromNode != nil { return try await registry.create(prepared) }
        let document = try TaskRegistry.jsonText(prepared.document)
        switch TaskCreation.decide(existing: try? await store.task(prepared.taskId), document: document) {
        case .create: break
        case .alreadyCreated: return try await status(prepared.taskId)
        case .conflict: throw ServiceError.taskExists(prepared.taskId)
        }
        let nodes = (try? await store.nodes()) ?? []
        let localCount = await registry.activeCount
        var view = nodes.map { node -> NodeInfo in
            var node = node
            if node.nodeId == cluster.nodeId { node.running = localCount; node.draining = draining; node.alive = true }
            return node
        }
        if !view.contains(where: { $0.nodeId == cluster.nodeId }) {
            view.append(NodeInfo(nodeId: cluster.nodeId, advertiseURL: cluster.advertiseURL, capacity: cluster.capacity,
                                 running: localCount, draining: draining, leaseSeconds: cluster.nodeTimeoutSeconds,
                                 heartbeatAt: Date(), alive: true))
        }
        var tried: Set<String> = []
        // A node low on disk space refuses a recording; another node may take it.
        var storageRefusal: ServiceError?
        let pending = recentPending()
        // Recent placements may be counted twice once a heartbeat includes them: without them, a
        // node with room is never refused for that.
        while let target = Placement.choose(among: view, excluding: tried, pending: pending)
                ?? Placement.choose(among: view, excluding: tried) {
            tried.insert(target.nodeId)
            if target.nodeId == cluster.nodeId {
                do { return try await registry.create(prepared) } catch let error as ServiceError where error.kind == .tooManyTasks {
                    continue
                } catch let error as ServiceError where error.kind == .insufficientStorage {
                    storageRefusal = error
                    continue
                }
            }
            do {
                let response = try await peers.send(PeerRequest(method: "POST", path: "/v1/tasks", body: Data(document.utf8)),
                                                    to: target.advertiseURL)
                if (200..<300).contains(response.status) {
                    recentPlacements[target.nodeId, default: []].append(now)
                    return try decodeStatus(response)
                }
                // Full by now, or going away: try the next node.
                if response.status == 429 || response.status == 503 { continue }
                if response.status == 507 { storageRefusal = response.serviceError; continue }
                throw response.serviceError
            } catch let error as ServiceError {
                throw error
            } catch {
                continue
            }
        }
        if let storageRefusal { throw storageRefusal }
        throw ServiceError(.tooManyTasks,
                           message: "no node of the cluster has room for another task (each runs at most its --max-tasks)",
                           retryAfterSeconds: 10)
    }

    public func list() async -> [TaskStatus] { await listing().tasks }

    /// Every task from the store, running ones as their node last wrote them. A list another
    /// node asked for is this node's own tasks; while the store is down, the tasks every
    /// reachable node runs, marked partial.
    public func listing() async -> TaskListing {
        if ForwardedRequest.fromNode != nil { return TaskListing(tasks: await localStatuses()) }
        guard !outage.storeDown, let records = try? await store.allTasks() else {
            noteStoreFailure()
            return await reachableListing()
        }
        let alive = await aliveNodes()
        var statuses: [TaskStatus] = []
        for record in records {
            if let local = await registry.localStatus(record.taskId) { statuses.append(local); continue }
            if let stored = storedStatus(record, alive: alive) { statuses.append(stored) }
        }
        return TaskListing(tasks: statuses)
    }

    public func status(_ taskId: String) async throws -> TaskStatus {
        if let local = await registry.localStatus(taskId) { return local }
        if outage.storeDown {
            if ForwardedRequest.fromNode != nil { throw ServiceError.taskNotFound(taskId) }
            return try await reachableStatus(taskId)
        }
        let record = try await record(taskId)
        if let owner = try await liveOwner(record) {
            if let response = try? await peers.send(PeerRequest(method: "GET", path: Self.path(taskId)), to: owner.advertiseURL),
               (200..<300).contains(response.status), let status = try? decodeStatus(response) {
                return status
            }
        }
        guard let status = storedStatus(record, alive: await aliveNodes()) else { throw ServiceError.taskNotFound(taskId) }
        return status
    }

    public func update(_ taskId: String, _ body: Data) async throws -> TaskStatus {
        try refuseWritesWhileStoreDown()
        if await registry.localStatus(taskId) != nil { return try await registry.update(taskId, body) }
        let record = try await record(taskId)
        if record.desired == .stopped { throw ServiceError.invalidState("task \"\(taskId)\" is stopped") }
        guard let owner = try await liveOwner(record) else {
            throw ServiceError.invalidState("task \"\(taskId)\" is moving to another node; retry in a few seconds")
        }
        return try await forward(PeerRequest(method: "PATCH", path: Self.path(taskId), body: body), to: owner)
    }

    public func stop(_ taskId: String) async throws -> TaskStatus {
        try refuseWritesWhileStoreDown()
        if await registry.localStatus(taskId) != nil {
            let status = try await registry.stop(taskId, cause: .deleted)
            written.forget(taskId: taskId)
            return status
        }
        let record = try await record(taskId)
        if record.desired == .running, let owner = try await liveOwner(record) {
            if let status = try? await forward(PeerRequest(method: "DELETE", path: Self.path(taskId)), to: owner) {
                return status
            }
        }
        // Its node is lost (or the task waits for one): the store stops it; a node that claims it
        // meanwhile sees the stop on its next round.
        do { try await store.setDesired(taskId: taskId, .stopped) } catch { throw ServiceError.storeUnavailable(error) }
        var updated = record
        updated.desired = .stopped
        guard let status = storedStatus(updated, alive: await aliveNodes()) else { throw ServiceError.taskNotFound(taskId) }
        return status
    }

    public func snapshot(_ taskId: String) async throws -> Data {
        if await registry.localStatus(taskId) != nil { return try await registry.snapshot(taskId) }
        // Store down: a read like the status, answered by whichever reachable node runs the task.
        if outage.storeDown {
            if ForwardedRequest.fromNode != nil { throw ServiceError.taskNotFound(taskId) }
            // The owner waits up to 5 s for its next frame (`ManagedTask.snapshot`).
            return try await reachable(taskId, PeerRequest(method: "GET", path: Self.path(taskId) + "/snapshot.png",
                                                           timeoutSeconds: 6)).body
        }
        let record = try await record(taskId)
        guard record.desired == .running, let owner = try await liveOwner(record) else {
            throw ServiceError.invalidState("task \"\(taskId)\" is not running")
        }
        let response = try await send(PeerRequest(method: "GET", path: Self.path(taskId) + "/snapshot.png"), to: owner)
        guard (200..<300).contains(response.status) else { throw response.serviceError }
        return response.body
    }

    /// Runs on the node that runs the task, like `PATCH`; refused on a stopped one.
    /// Store down: the message changes nothing the store holds, so it goes to whichever
    /// reachable node runs the task (the others refuse it without acting).
    public func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted {
        if await registry.localStatus(taskId) != nil { return try await registry.injectSEI(taskId, body) }
        let request = PeerRequest(method: "POST", path: Self.path(taskId) + "/sei", body: body)
        let response: PeerResponse
        if outage.storeDown {
            if ForwardedRequest.fromNode != nil { throw ServiceError.taskNotFound(taskId) }
            response = try await reachable(taskId, request)
        } else {
            let record = try await record(taskId)
            guard record.desired == .running, let owner = try await liveOwner(record) else {
                throw ServiceError.invalidState("task \"\(taskId)\" is not running")
            }
            response = try await send(request, to: owner)
        }
        guard (200..<300).contains(response.status) else { throw response.serviceError }
        do { return try JSONDecoder().decode(SEIAccepted.self, from: response.body) } catch {
            throw ServiceError(.peerError, message: "a node answered an SEI request unreadably")
        }
    }

    /// SIGTERM: with a shared store, turn `/readyz` to 503 and hand every task to another node
    /// (stopped here properly, then given to the node placement picks); tasks with nowhere to go,
    /// and every task of a single node, stop as they did and resume on the next start.
    public func shutdown(deadlineSeconds seconds: Double) async {
        await shutdown(deadlineSeconds: seconds, forGood: false)
    }

    /// `forGood` (`--on-shutdown stop`): this node's tasks end here as if deleted, with the reason
    /// "server shut down"; none is handed over, and none runs again on the next start.
    public func shutdown(deadlineSeconds seconds: Double, forGood: Bool) async {
        draining = true
        await registry.beginShutdown()
        if forGood {
            await registry.stopAll(cause: .shutdownForGood, deadlineSeconds: seconds)
        } else {
            if cluster.shared { await handOver(deadlineSeconds: seconds) }
            await registry.stopAll(cause: .shutdown, deadlineSeconds: seconds)
        }
        stopped = true
        // One last heartbeat says this node runs nothing and is going.
        try? await store.heartbeat(heartbeat(running: 0))
        if cluster.shared { try? await store.removeNode(cluster.nodeId) }
    }

    // MARK: Control loop

    /// Runs until cancelled or until `shutdown` finished: one `reconcile()` per interval, and
    /// beside it one `checkLiveness()` per interval (a store call that hangs for its timeout
    /// must not hold the workers' lease renewals).
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled, await !self.stopped {
                    await self.reconcile()
                    try? await Task.sleep(for: .milliseconds(Int(self.cluster.reconcileIntervalSeconds * 1000)))
                }
            }
            group.addTask {
                while !Task.isCancelled, await !self.stopped {
                    await self.checkLiveness()
                    try? await Task.sleep(for: .milliseconds(Int(self.cluster.reconcileIntervalSeconds * 1000)))
                }
            }
        }
    }

    /// Probes the nodes `OutageGuard` names (every peer while the store fails, else nodes whose
    /// heartbeats went stale), then renews the workers' leases or stops them all.
    public func checkLiveness() async {
        if stopped { return }
        let targets = outage.probeTargets(at: now)
        let peers = self.peers
        let timeout = outage.probeTimeoutSeconds
        let answers = await withTaskGroup(of: (String, Bool?).self) { group in
            for (node, url) in targets {
                group.addTask {
                    guard let response = try? await peers.send(PeerRequest(method: "GET", path: "/readyz", timeoutSeconds: timeout),
                                                               to: url) else { return (node, nil) }
                    struct Body: Decodable { var store: String? }
                    let body = try? JSONDecoder().decode(Body.self, from: response.body)
                    return (node, body?.store.map { $0 == "reachable" } ?? (response.status == 200))
                }
            }
            var answers: [(String, Bool?)] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
        for (node, seesStore) in answers {
            if let seesStore { outage.peerAnswered(node, seesStore: seesStore, at: now) } else { outage.peerSilent(node, at: now) }
        }
        for action in outage.tick(at: now) {
            switch action {
            case .renewWorkerLeases(let seconds):
                await registry.renewLeases(seconds: seconds)
            case .stopAll(let reason):
                let local = await registry.localTaskIds
                logger.warning("stopping every task on this node", metadata: [
                    "node_id": .string(cluster.nodeId), "tasks": .stringConvertible(local.count), "reason": .string(reason)])
                for taskId in local {
                    await registry.fence(taskId)
                    written.forget(taskId: taskId)
                }
                ClusterMetrics.stoppedAll()
            }
        }
    }

    /// One round: heartbeat, then make this node's workers agree with the store.
    public func reconcile() async {
        if stopped { return }
        let local = await localGenerations()
        let running = local.count
        do {
            try await store.heartbeat(heartbeat(running: running))
            if outage.storeDown { logger.notice("the task store answers again", metadata: ["node_id": .string(cluster.nodeId)]) }
            outage.storeAnswered(at: now)
            await registry.renewLeases(seconds: outage.workerLeaseSeconds)
        } catch {
            // Cut off from the store: `checkLiveness` decides whether the tasks here go on.
            ClusterMetrics.storeError()
            noteStoreFailure(error)
            return
        }
        await writeStatuses()
        if now - lastForget > 60 {
            lastForget = now
            _ = try? await store.forgetStoppedTasks(before: Date().addingTimeInterval(-Self.keepStoppedSeconds))
        }
        do {
            async let mine = store.tasks(onNode: cluster.nodeId)
            async let orphans = store.orphanedTasks()
            async let nodes = store.nodes()
            let held = try await mine
            let lastRunBy = Dictionary(held.compactMap { record in Self.statusNode(record).map { (record.taskId, $0) } },
                                       uniquingKeysWith: { first, _ in first })
            let nodeList = try await nodes
            outage.sawNodes(nodeList, at: now)
            // A lost node's tasks move only once it has also been silent at its URL for long enough,
            // and not while heartbeats are judged afresh after an outage (`OutageGuard.mayClaim`).
            let claimable = try await orphans.filter { outage.mayClaim(from: $0.node, at: now) }
            let input = Reconciler.Input(
                nodeId: cluster.nodeId, leaving: draining, freeSlots: max(0, cluster.capacity - running),
                mine: held, orphans: claimable, nodes: nodeList, local: local, lastRunBy: lastRunBy,
                creating: await registry.creatingTaskIds)
            ClusterMetrics.nodes(input.nodes)
            for action in Reconciler.plan(input) { await perform(action) }
        } catch {
            ClusterMetrics.storeError()
            return
        }
    }

    private func perform(_ action: Reconciler.Action) async {
        switch action {
        case .resume(let record, let note):
            if await registry.resume(record, note: note) {
                ClusterMetrics.arrived(note.hasPrefix("moved") ? "handed_over" : "resumed")
            }
        case .stop(let taskId):
            _ = try? await registry.stop(taskId, cause: .deleted)
        case .fence(let taskId):
            await registry.fence(taskId)
            ClusterMetrics.fenced()
            written.forget(taskId: taskId)
        case .claim(let record, let note):
            guard let generation = try? await store.claim(taskId: record.taskId, node: cluster.nodeId,
                                                          expectedGeneration: record.generation) else { return }
            var claimed = record
            claimed.generation = generation
            claimed.node = cluster.nodeId
            if await registry.resume(claimed, note: note) { ClusterMetrics.arrived("moved") }
        }
    }

    /// Writes each local task's status when its states or files changed, else every 10 s (see
    /// `StatusWritePolicy`); a refused write means another node holds the task now. Final tasks
    /// are written and let go.
    private func writeStatuses() async {
        for entry in await registry.reports() {
            if entry.isFinal {
                await registry.persistFinal(entry.taskId)
                written.forget(taskId: entry.taskId)
                continue
            }
            guard written.shouldWrite(taskId: entry.taskId, key: entry.key, at: now) else { continue }
            guard let accepted = try? await store.saveStatus(taskId: entry.taskId, entry.report, node: cluster.nodeId,
                                                             generation: entry.generation) else { continue }
            ClusterMetrics.statusWritten()
            if accepted {
                written.wrote(taskId: entry.taskId, key: entry.key, at: now)
            } else {
                await registry.fence(entry.taskId)
                ClusterMetrics.fenced()
            }
        }
    }

    /// Drain: each task stops here properly, then goes to the node placement picks.
    private func handOver(deadlineSeconds seconds: Double) async {
        guard var nodes = try? await store.nodes() else { return }
        nodes.removeAll { $0.nodeId == cluster.nodeId }
        try? await store.heartbeat(heartbeat(running: await registry.activeCount))
        var pending: [String: Int] = [:]
        var moves: [(taskId: String, generation: Int64, target: String)] = []
        for (taskId, generation) in await localGenerations().sorted(by: { $0.key < $1.key }) {
            guard let target = Placement.choose(among: nodes, pending: pending) else { break }
            pending[target.nodeId, default: 0] += 1
            moves.append((taskId, generation, target.nodeId))
        }
        let registry = self.registry
        let store = self.store
        await withTaskGroup(of: Void.self) { group in
            for move in moves {
                group.addTask {
                    _ = try? await registry.stop(move.taskId, cause: .handover, timeoutSeconds: max(1, seconds - 2))
                    if (try? await store.claim(taskId: move.taskId, node: move.target, expectedGeneration: move.generation)) != nil {
                        ClusterMetrics.handedOver()
                    }
                }
            }
        }
    }

    // MARK: Private

    /// Placements made here that the nodes' heartbeats may not count yet.
    private func recentPending() -> [String: Int] {
        let cutoff = now - Self.placementMemorySeconds
        recentPlacements = recentPlacements.mapValues { $0.filter { $0 > cutoff } }.filter { !$0.value.isEmpty }
        return recentPlacements.mapValues(\.count)
    }

    private func heartbeat(running: Int) -> NodeHeartbeat {
        NodeHeartbeat(nodeId: cluster.nodeId, advertiseURL: cluster.advertiseURL, capacity: cluster.capacity,
                      running: running, draining: draining, leaseSeconds: cluster.nodeTimeoutSeconds)
    }

    private func localGenerations() async -> [String: Int64] {
        var result: [String: Int64] = [:]
        for id in await registry.localTaskIds {
            if let generation = await registry.generation(of: id) { result[id] = generation }
        }
        return result
    }

    private func record(_ taskId: String) async throws -> StoredTask {
        let found: StoredTask?
        try refuseWritesWhileStoreDown()
        do { found = try await store.task(taskId) } catch {
            noteStoreFailure(error)
            throw ServiceError.storeUnavailable(error)
        }
        guard let found else { throw ServiceError.taskNotFound(taskId) }
        return found
    }

    /// The live node that runs a task, when it is another one and this request was not passed
    /// on already.
    private func liveOwner(_ record: StoredTask) async throws -> NodeInfo? {
        guard ForwardedRequest.fromNode == nil, let node = record.node, node != cluster.nodeId else { return nil }
        return await aliveNodes()[node]
    }

    /// Nodes alive in the store, and those whose heartbeats are old but which answer at their URL
    /// (cut off from the store alone: they still run their tasks).
    private func aliveNodes() async -> [String: NodeInfo] {
        let nodes = outage.storeDown ? outage.knownNodes : ((try? await store.nodes()) ?? outage.knownNodes)
        let time = now
        return Dictionary(nodes.filter { $0.alive || outage.answered($0.nodeId, at: time) }.map { ($0.nodeId, $0) },
                          uniquingKeysWith: { first, _ in first })
    }

    private func noteStoreFailure(_ error: (any Error)? = nil) {
        if !outage.storeDown {
            logger.warning("the task store cannot be reached", metadata: [
                "node_id": .string(cluster.nodeId), "error": .string(error.map { "\($0)" } ?? "a read failed")])
        }
        outage.storeFailed(at: now)
    }

    private func localStatuses() async -> [TaskStatus] {
        var statuses: [TaskStatus] = []
        for id in await registry.localTaskIds.sorted() {
            if let status = await registry.localStatus(id) { statuses.append(status) }
        }
        return statuses
    }

    /// Store down: the nodes this one reaches are asked for their own tasks, short timeouts.
    private func reachableListing() async -> TaskListing {
        var statuses = await localStatuses()
        let peers = self.peers
        let timeout = max(1, outage.probeTimeoutSeconds * 2)
        let targets = outage.peers.filter { outage.answered($0.key, at: now) }
        let lists = await withTaskGroup(of: [TaskStatus]?.self) { group in
            for url in targets.values {
                group.addTask {
                    struct Body: Decodable { var tasks: [TaskStatus] }
                    guard let response = try? await peers.send(PeerRequest(method: "GET", path: "/v1/tasks", timeoutSeconds: timeout), to: url),
                          response.status == 200 else { return nil }
                    return try? JSONDecoder().decode(Body.self, from: response.body).tasks
                }
            }
            var lists: [[TaskStatus]?] = []
            for await list in group { lists.append(list) }
            return lists
        }
        let seen = Set(statuses.map(\.taskId))
        statuses += lists.compactMap { $0 }.joined().filter { !seen.contains($0.taskId) }
        let answered = lists.compactMap { $0 }.count
        return TaskListing(tasks: statuses.sorted { $0.taskId < $1.taskId },
                           partial: "the task store cannot be reached: these are the tasks running on this node and on "
                               + "the \(answered) other node\(answered == 1 ? "" : "s") that answered")
    }

    /// Store down: the task's node, whichever reachable node that is, answers with its live status.
    private func reachableStatus(_ taskId: String) async throws -> TaskStatus {
        try decodeStatus(try await reachable(taskId, PeerRequest(method: "GET", path: Self.path(taskId))))
    }

    /// Store down: `request` (about a task this node does not run) to every node this one
    /// reaches, with short timeouts unless it names its own; the first success is the answer of the node that runs it
    /// (the others answer 404 without acting: a forwarded request is never passed on).
    private func reachable(_ taskId: String, _ request: PeerRequest) async throws -> PeerResponse {
        let peers = self.peers
        var request = request
        request.timeoutSeconds = request.timeoutSeconds ?? max(1, outage.probeTimeoutSeconds * 2)
        let targets = outage.peers.filter { outage.answered($0.key, at: now) }
        let found = await withTaskGroup(of: PeerResponse?.self) { group -> PeerResponse? in
            for url in targets.values {
                group.addTask { [request] in
                    guard let response = try? await peers.send(request, to: url), (200..<300).contains(response.status) else { return nil }
                    return response
                }
            }
            for await response in group { if let response { group.cancelAll(); return response } }
            return nil
        }
        if let found { return found }
        throw ServiceError.storeUnavailable(TaskStoreError("no node this one reaches runs task \"\(taskId)\""))
    }

    private func send(_ request: PeerRequest, to node: NodeInfo) async throws -> PeerResponse {
        do {
            return try await peers.send(request, to: node.advertiseURL)
        } catch {
            throw ServiceError(.nodeUnavailable,
                               message: "node \(node.nodeId), which runs the task, cannot be reached: \(error)",
                               retryAfterSeconds: 5)
        }
    }

    private func forward(_ request: PeerRequest, to node: NodeInfo) async throws -> TaskStatus {
        let response = try await send(request, to: node)
        guard (200..<300).contains(response.status) else { throw response.serviceError }
        return try decodeStatus(response)
    }

    private func decodeStatus(_ response: PeerResponse) throws -> TaskStatus {
        do { return try JSONDecoder().decode(TaskStatus.self, from: response.body) } catch {
            throw ServiceError(.peerError, message: "a node answered with an unreadable status")
        }
    }

    /// The status the store holds, adjusted to what the store knows better: a stopped task is
    /// stopped, and one whose node is lost waits for another.
    private func storedStatus(_ record: StoredTask, alive: [String: NodeInfo]) -> TaskStatus? {
        guard let text = record.status, var status = try? JSONDecoder().decode(TaskStatus.self, from: Data(text.utf8)) else {
            return TaskStatus(taskId: record.taskId, state: record.desired == .stopped ? .stopped : .starting,
                              startedAt: ISO8601DateFormatter().string(from: record.createdAt))
        }
        status.workerPid = nil
        status.node = record.node
        if record.desired == .stopped {
            if !status.state.isFinal { status.state = .stopped }
        } else if record.node.map({ alive[$0] == nil }) ?? true {
            status.state = .starting
            status.reason = record.node.map { "node \($0) was lost; the task waits for another node" }
                ?? "the task waits for a node with room"
        }
        return status
    }

    private static func statusNode(_ record: StoredTask) -> String? {
        struct NodeOnly: Decodable { var node: String? }
        return record.status.flatMap { try? JSONDecoder().decode(NodeOnly.self, from: Data($0.utf8)).node }
    }

    private static func path(_ taskId: String) -> String {
        "/v1/tasks/" + (taskId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? taskId)
    }
}
