import Foundation
import TesseraCore
import TesseraStore

/// The API's view of the whole cluster: any node answers every route for every task. A task
/// this node runs is answered by its `TaskRegistry`; one another node runs is passed on to that
/// node (`PeerClient`); one whose node is lost is answered from the task store. New tasks go to
/// the node with the most free capacity.
///
/// `run()` is this node's control loop (see `Reconciler`): heartbeat and lease, resuming its
/// tasks after a restart, claiming the tasks of lost nodes, fencing tasks it no longer holds,
/// and writing each task's status to the store.
public actor ClusterService: TaskService {
    public let registry: TaskRegistry
    private let store: any TaskStore
    private let peers: any PeerClient
    private let cluster: ClusterConfiguration
    private var lease: NodeLease
    private var draining = false
    private var stopped = false
    /// Last status text written per task, so unchanged statuses are not written again.
    private var written: [String: (text: String, at: Double)] = [:]
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
        lease = NodeLease(timeoutSeconds: cluster.nodeTimeoutSeconds)
    }

    private var now: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: Health

    /// `/readyz`: the store answers and this node is not draining.
    public func isReady() -> Bool { !draining && !stopped && lease.isHealthy(at: now) }

    // MARK: TaskService

    public func create(_ body: Data) async throws -> TaskStatus {
        if draining || stopped { throw ServiceError.shuttingDown }
        let prepared = try await registry.prepare(body)
        if ForwardedRequest.fromNode != nil { return try await registry.create(prepared) }
        if let existing = try? await store.task(prepared.taskId), existing.desired == .running {
            throw ServiceError.taskExists(prepared.taskId)
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
        let document = try TaskRegistry.jsonText(prepared.document)
        let pending = recentPending()
        // Recent placements may be counted twice once a heartbeat includes them: without them, a
        // node with room is never refused for that.
        while let target = Placement.choose(among: view, excluding: tried, pending: pending)
                ?? Placement.choose(among: view, excluding: tried) {
            tried.insert(target.nodeId)
            if target.nodeId == cluster.nodeId {
                do { return try await registry.create(prepared) } catch let error as ServiceError where error.httpStatus == 429 {
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
                throw response.serviceError
            } catch let error as ServiceError {
                throw error
            } catch {
                continue
            }
        }
        throw ServiceError(code: "TooManyTasks", httpStatus: 429,
                           message: "no node of the cluster has room for another task (each runs at most its --max-tasks)",
                           retryAfterSeconds: 10)
    }

    public func list() async -> [TaskStatus] {
        guard let records = try? await store.allTasks() else {
            var statuses: [TaskStatus] = []
            for id in await registry.localTaskIds.sorted() {
                if let status = await registry.localStatus(id) { statuses.append(status) }
            }
            return statuses
        }
        let alive = await aliveNodes()
        var statuses: [TaskStatus] = []
        for record in records {
            if let local = await registry.localStatus(record.taskId) { statuses.append(local); continue }
            if let stored = storedStatus(record, alive: alive) { statuses.append(stored) }
        }
        return statuses
    }

    public func status(_ taskId: String) async throws -> TaskStatus {
        if let local = await registry.localStatus(taskId) { return local }
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
        if await registry.localStatus(taskId) != nil { return try await registry.update(taskId, body) }
        let record = try await record(taskId)
        if record.desired == .stopped { throw ServiceError.invalidState("task \"\(taskId)\" is stopped") }
        guard let owner = try await liveOwner(record) else {
            throw ServiceError.invalidState("task \"\(taskId)\" is moving to another node; retry in a few seconds")
        }
        return try await forward(PeerRequest(method: "PATCH", path: Self.path(taskId), body: body), to: owner)
    }

    public func stop(_ taskId: String) async throws -> TaskStatus {
        if await registry.localStatus(taskId) != nil {
            let status = try await registry.stop(taskId, cause: .deleted)
            written[taskId] = nil
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
        let record = try await record(taskId)
        guard record.desired == .running, let owner = try await liveOwner(record) else {
            throw ServiceError.invalidState("task \"\(taskId)\" is not running")
        }
        let response = try await send(PeerRequest(method: "GET", path: Self.path(taskId) + "/snapshot.png"), to: owner)
        guard (200..<300).contains(response.status) else { throw response.serviceError }
        return response.body
    }

    /// Runs on the node that runs the task, like `PATCH`; refused on a stopped one.
    public func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted {
        if await registry.localStatus(taskId) != nil { return try await registry.injectSEI(taskId, body) }
        let record = try await record(taskId)
        guard record.desired == .running, let owner = try await liveOwner(record) else {
            throw ServiceError.invalidState("task \"\(taskId)\" is not running")
        }
        let response = try await send(PeerRequest(method: "POST", path: Self.path(taskId) + "/sei", body: body), to: owner)
        guard (200..<300).contains(response.status) else { throw response.serviceError }
        do { return try JSONDecoder().decode(SEIAccepted.self, from: response.body) } catch {
            throw ServiceError(code: "PeerError", httpStatus: 502, message: "a node answered an SEI request unreadably")
        }
    }

    /// SIGTERM: with a shared store, turn `/readyz` to 503 and hand every task to another node
    /// (stopped here properly, then given to the node placement picks); tasks with nowhere to go,
    /// and every task of a single node, stop as they did and resume on the next start.
    public func shutdown(deadlineSeconds seconds: Double) async {
        draining = true
        await registry.beginShutdown()
        if cluster.shared { await handOver(deadlineSeconds: seconds) }
        await registry.stopAll(cause: .shutdown, deadlineSeconds: seconds)
        stopped = true
        // One last heartbeat says this node runs nothing and is going.
        try? await store.heartbeat(heartbeat(running: 0))
        if cluster.shared { try? await store.removeNode(cluster.nodeId) }
    }

    // MARK: Control loop

    /// Runs until cancelled or until `shutdown` finished: one `reconcile()` per interval.
    public func run() async {
        while !Task.isCancelled && !stopped {
            await reconcile()
            try? await Task.sleep(for: .milliseconds(Int(cluster.reconcileIntervalSeconds * 1000)))
        }
    }

    /// One round: heartbeat, then make this node's workers agree with the store.
    public func reconcile() async {
        if stopped { return }
        let local = await localGenerations()
        let running = local.count
        do {
            try await store.heartbeat(heartbeat(running: running))
            lease.renewed(at: now)
            await registry.renewLeases(seconds: lease.workerLeaseSeconds)
        } catch {
            ClusterMetrics.storeError()
            if lease.mustFence(at: now) {
                // Cut off from the store: another node may soon take these tasks.
                for taskId in local.keys { await registry.fence(taskId) }
            }
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
            let input = Reconciler.Input(
                nodeId: cluster.nodeId, leaving: draining, freeSlots: max(0, cluster.capacity - running),
                mine: held, orphans: try await orphans, nodes: try await nodes, local: local, lastRunBy: lastRunBy)
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
            written[taskId] = nil
        case .claim(let record, let note):
            guard let generation = try? await store.claim(taskId: record.taskId, node: cluster.nodeId,
                                                          expectedGeneration: record.generation) else { return }
            var claimed = record
            claimed.generation = generation
            claimed.node = cluster.nodeId
            if await registry.resume(claimed, note: note) { ClusterMetrics.arrived("moved") }
        }
    }

    /// Writes each local task's status when it changed (and at least every few seconds); a
    /// refused write means another node holds the task now. Final tasks are written and let go.
    private func writeStatuses() async {
        for entry in await registry.reports() {
            if entry.isFinal {
                await registry.persistFinal(entry.taskId)
                written[entry.taskId] = nil
                continue
            }
            if let last = written[entry.taskId], last.text == entry.report.status, now - last.at < 5 { continue }
            guard let accepted = try? await store.saveStatus(taskId: entry.taskId, entry.report, node: cluster.nodeId,
                                                             generation: entry.generation) else { continue }
            if accepted {
                written[entry.taskId] = (entry.report.status, now)
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
        do { found = try await store.task(taskId) } catch { throw ServiceError.storeUnavailable(error) }
        guard let found else { throw ServiceError.taskNotFound(taskId) }
        return found
    }

    /// The live node that runs a task, when it is another one and this request was not passed
    /// on already.
    private func liveOwner(_ record: StoredTask) async throws -> NodeInfo? {
        guard ForwardedRequest.fromNode == nil, let node = record.node, node != cluster.nodeId else { return nil }
        return await aliveNodes()[node]
    }

    private func aliveNodes() async -> [String: NodeInfo] {
        let nodes = (try? await store.nodes()) ?? []
        return Dictionary(nodes.filter(\.alive).map { ($0.nodeId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func send(_ request: PeerRequest, to node: NodeInfo) async throws -> PeerResponse {
        do {
            return try await peers.send(request, to: node.advertiseURL)
        } catch {
            throw ServiceError(code: "NodeUnavailable", httpStatus: 503,
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
            throw ServiceError(code: "PeerError", httpStatus: 502, message: "a node answered with an unreadable status")
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
