import Foundation
import Logging
import TesseraStore
import TesseraWorkerProtocol

/// The API's view of the whole cluster: any node answers every route for every task. Where a
/// request goes is `TaskRoute`'s decision; the verbs (`ClusterService+Requests.swift`) carry it
/// out: a task this node runs is answered by its `TaskRegistry`, one another node runs is passed
/// on to that node (`PeerClient`), one whose node is lost is answered from the task store
/// (`StoredStatus`), and a new task goes where `PlacementRound` finds room.
///
/// `run()` is this node's control loop (`ClusterService+ControlLoop.swift`, deciding through
/// `Reconciler`, `OutageGuard` and `StatusWritePolicy`). Times come from the injected clock, so
/// tests drive the loop on a manual one.
public actor ClusterService: TaskService {
    public let registry: TaskRegistry
    let store: any TaskStore
    let peers: any PeerClient
    let cluster: ClusterConfiguration
    var outage: OutageGuard
    let logger = Logger(label: "tessera.cluster")
    var draining = false
    var stopped = false
    /// When each task's status was last written to the store.
    var written = StatusWritePolicy()
    /// Time since this service began, and a sleep, both of the injected clock.
    let elapsed: @Sendable () -> Duration
    let sleep: @Sendable (Duration) async throws -> Void
    /// Tasks this node placed on others in the last few seconds, by node: their heartbeats do not
    /// count them yet, so a burst of creations would otherwise all land on the same node.
    var recentPlacements: [String: [Double]] = [:]
    static let placementMemorySeconds: Double = 3
    /// When stopped tasks were last cleared from the store.
    var lastForget: Double = -.infinity
    /// How long the store keeps a stopped task's final status for `GET`.
    static let keepStoppedSeconds: Double = 24 * 3600

    public init<C: Clock>(registry: TaskRegistry, store: any TaskStore, peers: any PeerClient, cluster: ClusterConfiguration,
                          clock: C = ContinuousClock()) where C.Duration == Duration {
        self.registry = registry
        self.store = store
        self.peers = peers
        self.cluster = cluster
        outage = OutageGuard(nodeId: cluster.nodeId, timeoutSeconds: cluster.nodeTimeoutSeconds,
                             intervalSeconds: cluster.reconcileIntervalSeconds)
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
    }

    /// Seconds of the injected clock since this service began.
    var now: Double {
        let elapsed = elapsed()
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

    /// The cluster's nodes as the store sees them (`GET /v1/nodes`).
    public func nodes() async throws -> [NodeInfo] {
        do { return try await store.nodes() } catch { throw ServiceError.storeUnavailable(error) }
    }

    // MARK: Shutdown

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

    // MARK: What this node knows

    /// The facts `TaskRoute` decides from; the store is read only when the route needs it.
    func facts(for verb: TaskRoute.Verb, _ taskId: String = "") async -> TaskRoute.Facts {
        var facts = TaskRoute.Facts(nodeId: cluster.nodeId, forwarded: ForwardedRequest.fromNode != nil,
                                    storeDown: outage.storeDown, leaving: draining || stopped)
        if verb.namesATask { facts.runsHere = await registry.localStatus(taskId) != nil }
        if facts.mustReadStore(for: verb) { facts.stored = await lookUp(taskId) }
        return facts
    }

    private func lookUp(_ taskId: String) async -> TaskRoute.Stored {
        let found: StoredTask?
        do { found = try await store.task(taskId) } catch {
            noteStoreFailure(error)
            return .failed(.storeUnavailable(error))
        }
        guard let found else { return .missing }
        return .found(found, alive: await aliveNodes())
    }

    /// Nodes alive in the store, and those whose heartbeats are old but which answer at their URL
    /// (cut off from the store alone: they still run their tasks).
    func aliveNodes() async -> [String: NodeInfo] {
        let nodes = outage.storeDown ? outage.knownNodes : ((try? await store.nodes()) ?? outage.knownNodes)
        let time = now
        return Dictionary(nodes.filter { $0.alive || outage.answered($0.nodeId, at: time) }.map { ($0.nodeId, $0) },
                          uniquingKeysWith: { first, _ in first })
    }

    func noteStoreFailure(_ error: (any Error)? = nil) {
        if !outage.storeDown {
            logger.warning("the task store cannot be reached", metadata: [
                "node_id": .string(cluster.nodeId), "error": .string(error.map { "\($0)" } ?? "a read failed")])
        }
        outage.storeFailed(at: now)
    }

    func heartbeat(running: Int) -> NodeHeartbeat {
        NodeHeartbeat(nodeId: cluster.nodeId, advertiseURL: cluster.advertiseURL, capacity: cluster.capacity,
                      running: running, draining: draining, leaseSeconds: cluster.nodeTimeoutSeconds)
    }

    func localStatuses() async -> [TaskStatus] {
        var statuses: [TaskStatus] = []
        for id in await registry.localTaskIds.sorted() {
            if let status = await registry.localStatus(id) { statuses.append(status) }
        }
        return statuses
    }
}
