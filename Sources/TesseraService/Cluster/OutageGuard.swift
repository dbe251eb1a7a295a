import TesseraStore

/// How a node gets through a task-store outage without stopping its streams, and still never
/// lets a task run on two nodes: a pure state machine (times are seconds of an injected
/// monotonic clock; no I/O). `ClusterService` reports what the store and the probes of the other
/// nodes (`GET /readyz` at their advertised URLs) answered, and performs the actions of `tick`.
///
/// - With the store answering, workers' leases are renewed as always.
/// - Without it, the node keeps running its tasks while it reaches a majority of the nodes it
///   last saw alive (itself included): when the store is down for everybody, nobody could take
///   the tasks over anyway.
/// - Cut off from the store *and* that majority for half the node timeout, it stops every task
///   (`stopAll`), and its workers end by themselves at most `workerLeaseSeconds` after the last
///   renewal even if this process is paused.
/// - Another node claims a lost node's tasks only once its lease expired in the store *and* it
///   has not answered at its URL for `silenceBeforeClaimSeconds` (longer than its workers can
///   outlive its last contact with a majority), and never within a node timeout after the store
///   came back: heartbeat ages are judged from then, so nothing moves because everybody was
///   cut off at once.
///
/// Partitions are assumed symmetric (a node that reaches a majority is reached by it); a node
/// that reaches some nodes but not the one about to claim its tasks is not caught by this.
public struct OutageGuard: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Let every worker run this much longer.
        case renewWorkerLeases(seconds: Double)
        /// Stop every task here now (fencing), logging the reason at warning level.
        case stopAll(reason: String)
    }

    /// What `/readyz` says.
    public enum Readiness: Sendable, Equatable {
        case ready
        /// 200: the store is down for every node this one reaches, so this node serves reads as
        /// well as any other.
        case storeUnreachable
        /// 503, with why.
        case notReady(String)
    }

    public let nodeId: String
    public let timeoutSeconds: Double
    public let intervalSeconds: Double
    public private(set) var lease: NodeLease
    /// The last store call failed: writes are refused at once until one succeeds.
    public private(set) var storeDown = false
    /// When the store answered again after failing.
    public private(set) var storeBackAt: Double?
    /// This node stopped its tasks for being cut off, and has not heard from the store since.
    public private(set) var stoppedAll = false
    /// The other nodes this node last saw alive (in the store, or answering), by id: their URLs.
    public private(set) var peers: [String: String] = [:]
    /// The last view of the nodes the store gave.
    public private(set) var knownNodes: [NodeInfo] = []
    private var answeredAt: [String: Double] = [:]
    private var silentSince: [String: Double] = [:]
    private var peerSeesStore: [String: Bool] = [:]

    public init(nodeId: String, timeoutSeconds: Double, intervalSeconds: Double) {
        self.nodeId = nodeId
        self.timeoutSeconds = timeoutSeconds
        self.intervalSeconds = intervalSeconds
        lease = NodeLease(timeoutSeconds: timeoutSeconds)
    }

    public var workerLeaseSeconds: Double { lease.workerLeaseSeconds }
    /// How long one probe of another node may take.
    public var probeTimeoutSeconds: Double { min(1, max(0.2, intervalSeconds)) }
    /// A node's answer counts for this long.
    public var freshSeconds: Double { max(2 * intervalSeconds, min(3, timeoutSeconds / 2)) }
    /// How long a node must have been silent before its tasks may be claimed: its workers have
    /// stopped by then (their lease, renewed only with a fresh majority, has run out).
    public var silenceBeforeClaimSeconds: Double { workerLeaseSeconds + freshSeconds + intervalSeconds }

    // MARK: Events

    /// A heartbeat was written.
    public mutating func storeAnswered(at now: Double) {
        if storeDown { storeBackAt = now }
        storeDown = false
        stoppedAll = false
        lease.renewed(at: now)
    }

    /// A store call failed (or timed out).
    public mutating func storeFailed(at now: Double) { storeDown = true }

    /// The store's view of the nodes. Peers are the live ones and those that answer probes; for
    /// a node timeout after the store came back, the ones seen before are kept too (their
    /// heartbeats may all look old).
    public mutating func sawNodes(_ nodes: [NodeInfo], at now: Double) {
        knownNodes = nodes
        var next: [String: String] = [:]
        for node in nodes where node.nodeId != nodeId && (node.alive || answered(node.nodeId, at: now)) {
            next[node.nodeId] = node.advertiseURL
        }
        if inGrace(at: now) { next.merge(peers) { current, _ in current } }
        peers = next
    }

    /// A probe of `node` was answered; `seesStore` is what that node says of the store.
    public mutating func peerAnswered(_ node: String, seesStore: Bool, at now: Double) {
        answeredAt[node] = now
        silentSince[node] = nil
        peerSeesStore[node] = seesStore
    }

    /// A probe of `node` failed (refused, timed out, or an unreadable answer).
    public mutating func peerSilent(_ node: String, at now: Double) {
        if silentSince[node] == nil { silentSince[node] = now }
    }

    // MARK: Decisions

    /// What to probe this round, by node id: every peer while the store is failing; otherwise
    /// only nodes whose heartbeats went stale (their tasks may soon wait for a claim).
    public func probeTargets(at now: Double) -> [String: String] {
        var targets: [String: String] = [:]
        if storeDown || !lease.isHealthy(at: now) { targets = peers }
        let newest = knownNodes.map(\.heartbeatAt).max()
        for node in knownNodes where node.nodeId != nodeId {
            let age = newest.map { $0.timeIntervalSince(node.heartbeatAt) } ?? 0
            if !node.alive || age > timeoutSeconds / 2 { targets[node.nodeId] = node.advertiseURL }
        }
        return targets
    }

    /// Once per round, after the probes: renew the workers' leases, stop everything, or wait.
    public mutating func tick(at now: Double) -> [Action] {
        if !storeDown && lease.isHealthy(at: now) { return [.renewWorkerLeases(seconds: workerLeaseSeconds)] }
        let (reached, of) = majority(at: now)
        if reached * 2 > of {
            if stoppedAll { return [] }
            return [.renewWorkerLeases(seconds: workerLeaseSeconds)]
        }
        guard lease.mustFence(at: now), !stoppedAll else { return [] }
        stoppedAll = true
        let silent = lease.lastRenewal.map { now - $0 } ?? 0
        return [.stopAll(reason: "cut off from the task store for \(Self.seconds(silent)) s and from the other nodes "
                         + "(\(reached) of \(of) nodes reachable, this one included): stopping every task here before "
                         + "another node may take them over")]
    }

    /// Whether `node`'s tasks, orphaned in the store, may be claimed now (nil: tasks that never
    /// had a node, or whose node left the cluster cleanly).
    public func mayClaim(from node: String?, at now: Double) -> Bool {
        if inGrace(at: now) { return false }
        guard let node, node != nodeId, knownNodes.contains(where: { $0.nodeId == node }) else { return true }
        guard let since = silentSince[node] else { return false }
        return now - since >= silenceBeforeClaimSeconds
    }

    /// Whether `node` answered a probe lately (its tasks run there, whatever its heartbeat says).
    public func answered(_ node: String, at now: Double) -> Bool {
        answeredAt[node].map { now - $0 <= freshSeconds } ?? false
    }

    public func readiness(at now: Double) -> Readiness {
        if !storeDown && lease.isHealthy(at: now) { return .ready }
        if lease.lastRenewal == nil && !storeDown { return .notReady("the task store has not answered yet") }
        let (reached, of) = majority(at: now)
        guard reached * 2 > of else {
            return .notReady("the task store cannot be reached, nor a majority of the nodes (\(reached) of \(of))")
        }
        let cutOffAlone = peers.keys.contains { answered($0, at: now) && peerSeesStore[$0] == true }
        return cutOffAlone ? .notReady("the task store cannot be reached from this node (other nodes reach it)") : .storeUnreachable
    }

    // MARK: Private

    private func inGrace(at now: Double) -> Bool {
        storeBackAt.map { now - $0 < timeoutSeconds } ?? false
    }

    /// Nodes reached (this one included) of the nodes last seen alive.
    private func majority(at now: Double) -> (reached: Int, of: Int) {
        (1 + peers.keys.filter { answered($0, at: now) }.count, 1 + peers.count)
    }

    private static func seconds(_ value: Double) -> String { String(Int(value.rounded())) }
}
