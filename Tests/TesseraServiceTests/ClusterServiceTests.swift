import Foundation
import Synchronization
import Testing
import TesseraService
import TesseraStore
import TesseraWorkerProtocol

/// Nodes in-process on one temporary SQLite store, with scripted workers, a peer client the test
/// controls and a manual clock: a lost node's task moves only when its lease is out *and* it is
/// silent at its URL, a placement goes where the store says there is room and passes over nodes
/// that are full, and a drain hands tasks over — with no process, no network, no FFmpeg and no
/// wait on the wall clock.
@Suite struct ClusterServiceTests {
    /// Answers probes for the node URLs the test marks alive, and a `POST` of a task with what the
    /// test says; every other request finds the node unreachable.
    final class ScriptedPeers: PeerClient {
        private struct State {
            var alive: Set<String> = []
            var probes = 0
            var creations: [String: PeerOutcome<TaskStatus>] = [:]
            var created: [String] = []
        }
        private let state = Mutex(State())

        func set(_ url: String, answering: Bool) {
            state.withLock { if answering { $0.alive.insert(url) } else { $0.alive.remove(url) } }
        }
        func set(_ url: String, creating outcome: PeerOutcome<TaskStatus>) { state.withLock { $0.creations[url] = outcome } }
        var probes: Int { state.withLock { $0.probes } }
        /// The nodes asked to create a task, in order.
        var created: [String] { state.withLock { $0.created } }

        func probe(_ node: String, timeoutSeconds: Double) async -> PeerProbe {
            state.withLock { state in
                state.probes += 1
                return state.alive.contains(node) ? .answered(seesStore: true) : .silent
            }
        }

        func create(document: Data, on node: String) async -> PeerOutcome<TaskStatus> {
            state.withLock { state in
                state.created.append(node)
                return state.creations[node] ?? .unavailable("scripted: unreachable")
            }
        }

        private static let unreachable = "scripted: unreachable"
        func status(of taskId: String, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<TaskStatus> { .unavailable(Self.unreachable) }
        func update(_ taskId: String, body: Data, on node: String) async -> PeerOutcome<TaskStatus> { .unavailable(Self.unreachable) }
        func stop(_ taskId: String, on node: String) async -> PeerOutcome<TaskStatus> { .unavailable(Self.unreachable) }
        func snapshot(of taskId: String, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<Data> { .unavailable(Self.unreachable) }
        func injectSEI(into taskId: String, body: Data, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<SEIAccepted> {
            .unavailable(Self.unreachable)
        }
        func tasks(on node: String, timeoutSeconds: Double) async -> PeerOutcome<[TaskStatus]> { .unavailable(Self.unreachable) }
    }

    struct Node {
        let cluster: ClusterService
        let launcher: ScriptedWorkerLauncher
        var url: String { "http://\(id).test:8080" }
        let id: String
    }

    struct Cluster {
        let store: SQLiteTaskStore
        let peers = ScriptedPeers()
        let clock = ManualClock()
        let directory: URL
    }

    /// Seconds of the manual clock; the store's leases, on the wall clock, outlast any test.
    static let timeout = 30.0
    static let interval = 1.0

    static func cluster() async throws -> Cluster {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteTaskStore(path: directory.appendingPathComponent("tasks.sqlite").path)
        try await store.prepare()
        return Cluster(store: store, directory: directory)
    }

    static func node(_ id: String, in cluster: Cluster, capacity: Int = 4) -> Node {
        let launcher = ScriptedWorkerLauncher()
        var configuration = RegistryConfiguration(
            mediaRoot: cluster.directory.path, outputDirectory: cluster.directory.path, maxTasks: 4, workerExecutable: "/nonexistent",
            logLevel: "error", udpPorts: UDPPortChecker(firstBusy: { _, _ in nil }, isLocalAddress: { _ in true }),
            maxWorkerRestarts: 2, workerHangSeconds: 15, outputGiveUpSeconds: 60,
            rtpPortRange: 20000...20999, rtpAnnounceAddress: "127.0.0.1")
        configuration.workerLauncher = launcher
        configuration.nodeId = id
        let registry = TaskRegistry(configuration: configuration, store: cluster.store)
        let service = ClusterService(
            registry: registry, store: cluster.store, peers: cluster.peers,
            cluster: ClusterConfiguration(nodeId: id, advertiseURL: "http://\(id).test:8080", nodeTimeoutSeconds: timeout,
                                          capacity: capacity, shared: true, reconcileIntervalSeconds: interval),
            clock: cluster.clock)
        return Node(cluster: service, launcher: launcher, id: id)
    }

    /// A node only the store knows of (its heartbeat), which the scripted peers play.
    static func remote(_ id: String, capacity: Int, running: Int = 0, alive: Bool = true, in cluster: Cluster) async throws {
        try await cluster.store.heartbeat(NodeHeartbeat(nodeId: id, advertiseURL: "http://\(id).test:8080", capacity: capacity,
                                                        running: running, draining: false, leaseSeconds: alive ? timeout : 0))
    }

    /// Node b runs t1 and then stops heartbeating (as a node that died or froze would): its lease
    /// in the store is out.
    static func twoNodesWithATaskOnB() async throws -> (a: Node, b: Node, cluster: Cluster) {
        let cluster = try await cluster()
        let b = node("b", in: cluster)
        let a = node("a", in: cluster)
        await b.cluster.reconcile()
        _ = try await b.cluster.create(Data(TaskRegistryTests.document.utf8))
        try await TaskRegistryTests.until { await b.cluster.registry.localStatus("t1")?.state == .running }
        #expect(b.launcher.workers.count == 1)
        await a.cluster.reconcile()
        try await remote("b", capacity: 4, running: 1, alive: false, in: cluster)
        return (a, b, cluster)
    }

    /// Runs node a's control loop (reconcile and liveness probes) for `rounds` intervals of the
    /// manual clock, or until `done`.
    static func runLoop(_ node: Node, _ cluster: Cluster, rounds: Int, until done: @Sendable () async -> Bool = { false }) async {
        for _ in 0..<rounds {
            cluster.clock.advance(by: .seconds(interval))
            await node.cluster.reconcile()
            await node.cluster.checkLiveness()
            if await done() { return }
        }
    }

    @Test func aNodeSilentInTheStoreAndAtItsURLLosesItsTask() async throws {
        let (a, _, cluster) = try await Self.twoNodesWithATaskOnB()
        await Self.runLoop(a, cluster, rounds: 40) { await a.cluster.registry.localStatus("t1") != nil }
        try await TaskRegistryTests.until { a.launcher.workers.count == 1 }
        #expect(a.launcher.workers.count == 1, "node a never took the lost node's task")
        let status = try await a.cluster.status("t1")
        #expect(status.node == "a")
        #expect(status.state == .running || status.state == .starting)
    }

    @Test func aNodeThatStillAnswersAtItsURLKeepsItsTask() async throws {
        let (a, b, cluster) = try await Self.twoNodesWithATaskOnB()
        // b's heartbeats stop (cut off from the store), but b answers its peers: it may still run
        // t1, so moving it would run it twice — for twice the silence a claim needs.
        cluster.peers.set(b.url, answering: true)
        await Self.runLoop(a, cluster, rounds: 40)
        #expect(a.launcher.workers.isEmpty, "node a started a task its owner still answers for")
        #expect(cluster.peers.probes > 0, "node a never asked b")
        // Once b stops answering too, the task moves.
        cluster.peers.set(b.url, answering: false)
        await Self.runLoop(a, cluster, rounds: 40) { await a.cluster.registry.localStatus("t1") != nil }
        try await TaskRegistryTests.until { a.launcher.workers.count == 1 }
        #expect(a.launcher.workers.count == 1)
    }

    @Test func aRepeatedPostIsTheSameTaskAndADifferentDocumentIsAConflict() async throws {
        let (_, b, _) = try await Self.twoNodesWithATaskOnB()
        let again = try await b.cluster.create(Data(TaskRegistryTests.document.utf8))
        #expect(again.taskId == "t1")
        #expect(b.launcher.workers.count == 1, "a repeated POST started a second worker")
        let other = TaskRegistryTests.document.replacingOccurrences(of: "width\": 640, \"height\": 360}}", with: "width\": 320, \"height\": 180}}")
        do {
            _ = try await b.cluster.create(Data(other.utf8))
            Issue.record("a different document under a running id was accepted")
        } catch let error as ServiceError {
            #expect(error.kind == .taskExists)
        }
        #expect(b.launcher.workers.count == 1)
    }

    @Test func aNewTaskGoesToTheNodeWithMostRoomAndItsAnswerIsTheAnswer() async throws {
        let cluster = try await Self.cluster()
        let a = Self.node("a", in: cluster)
        await a.cluster.reconcile()
        try await Self.remote("c", capacity: 10, in: cluster)
        var placed = TaskStatus(taskId: "t1", state: .starting, startedAt: "2026-01-01T00:00:00Z")
        placed.node = "c"
        cluster.peers.set("http://c.test:8080", creating: .accepted(placed))
        let status = try await a.cluster.create(Data(TaskRegistryTests.document.utf8))
        #expect(status == placed)
        #expect(cluster.peers.created == ["http://c.test:8080"])
        #expect(a.launcher.workers.isEmpty)
    }

    @Test func aFullOrUnreachableNodeIsPassedOverAndARefusalIsTheAnswer() async throws {
        let cluster = try await Self.cluster()
        let a = Self.node("a", in: cluster)
        await a.cluster.reconcile()
        try await Self.remote("c", capacity: 10, in: cluster)
        try await Self.remote("d", capacity: 9, in: cluster)
        cluster.peers.set("http://c.test:8080", creating: .full(.tooManyTasks(limit: 10)))
        // d is unreachable: a takes the task itself.
        let status = try await a.cluster.create(Data(TaskRegistryTests.document.utf8))
        #expect(status.taskId == "t1")
        #expect(cluster.peers.created == ["http://c.test:8080", "http://d.test:8080"])
        try await TaskRegistryTests.until { a.launcher.workers.count == 1 }

        let refusal = ServiceError(.invalidTask, message: "inputs[0].url: no such file", path: "inputs[0].url")
        cluster.peers.set("http://c.test:8080", creating: .refused(refusal))
        let second = TaskRegistryTests.document.replacingOccurrences(of: "\"t1\"", with: "\"t2\"")
        do {
            _ = try await a.cluster.create(Data(second.utf8))
            Issue.record("a node's refusal was not the answer")
        } catch let error as ServiceError {
            #expect(error == refusal)
        }
    }

    @Test func aNodeLowOnDiskIsPassedOverAndSaidWhenNoneHasRoom() async throws {
        let cluster = try await Self.cluster()
        // a has no room of its own (capacity 0).
        let a = Self.node("a", in: cluster, capacity: 0)
        await a.cluster.reconcile()
        try await Self.remote("c", capacity: 10, in: cluster)
        let disk = ServiceError(.insufficientStorage, message: "the output directory has 10 bytes free")
        cluster.peers.set("http://c.test:8080", creating: .full(disk))
        await #expect(throws: disk) { _ = try await a.cluster.create(Data(TaskRegistryTests.document.utf8)) }
    }

    @Test func aDrainHandsEachTaskToTheNodePlacementPicks() async throws {
        let cluster = try await Self.cluster()
        let a = Self.node("a", in: cluster)
        await a.cluster.reconcile()
        _ = try await a.cluster.create(Data(TaskRegistryTests.document.utf8))
        try await TaskRegistryTests.until { await a.cluster.registry.localStatus("t1")?.state == .running }
        try await Self.remote("c", capacity: 4, in: cluster)
        await a.cluster.shutdown(deadlineSeconds: 5)
        let record = try await cluster.store.task("t1")
        #expect(record?.node == "c")
        #expect(record?.desired == .running)
    }

    @Test func theNodesComeFromTheStore() async throws {
        let cluster = try await Self.cluster()
        let a = Self.node("a", in: cluster)
        await a.cluster.reconcile()
        try await Self.remote("c", capacity: 10, alive: false, in: cluster)
        let nodes = try await a.cluster.nodes().sorted { $0.nodeId < $1.nodeId }
        #expect(nodes.map(\.nodeId) == ["a", "c"])
        #expect(nodes.map(\.alive) == [true, false])
    }
}
