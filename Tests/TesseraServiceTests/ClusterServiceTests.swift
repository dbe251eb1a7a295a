import Foundation
import Testing
import TesseraService
import TesseraStore
import TesseraWorkerProtocol

/// Two nodes in-process on one temporary SQLite store, with scripted workers and a peer client
/// the test controls: a lost node's task moves only when its lease is out *and* it is silent at
/// its URL, and a placement goes where the store says there is room — in a second or two, with
/// no process, no network and no FFmpeg.
@Suite struct ClusterServiceTests {
    /// Answers `/readyz` for the node URLs the test marks alive; every other request fails as an
    /// unreachable node's would.
    final class ScriptedPeers: PeerClient, @unchecked Sendable {
        private let lock = NSLock()
        private var alive: Set<String> = []
        private(set) var probes = 0

        func set(_ url: String, answering: Bool) {
            lock.withLock { if answering { alive.insert(url) } else { alive.remove(url) } }
        }

        func send(_ request: PeerRequest, to baseURL: String) async throws -> PeerResponse {
            let answers = lock.withLock { () -> Bool in
                if request.path == "/readyz" { probes += 1 }
                return alive.contains(baseURL)
            }
            guard answers, request.path == "/readyz" else { throw URLError(.cannotConnectToHost) }
            return PeerResponse(status: 200, body: Data(#"{"status": "ready", "store": "reachable"}"#.utf8))
        }
    }

    struct Node {
        let cluster: ClusterService
        let launcher: ScriptedWorkerLauncher
        var url: String { "http://\(id).test:8080" }
        let id: String
    }

    static let timeout = 0.6

    static func node(_ id: String, store: SQLiteTaskStore, peers: ScriptedPeers, directory: URL) -> Node {
        let launcher = ScriptedWorkerLauncher()
        var configuration = RegistryConfiguration(
            mediaRoot: directory.path, outputDirectory: directory.path, maxTasks: 4, workerExecutable: "/nonexistent",
            logLevel: "error", udpPorts: UDPPortChecker(firstBusy: { _, _ in nil }, isLocalAddress: { _ in true }),
            maxWorkerRestarts: 2, workerHangSeconds: 15, outputGiveUpSeconds: 60,
            rtpPortRange: 20000...20999, rtpAnnounceAddress: "127.0.0.1")
        configuration.workerLauncher = launcher
        configuration.nodeId = id
        let registry = TaskRegistry(configuration: configuration, store: store)
        let cluster = ClusterService(
            registry: registry, store: store, peers: peers,
            cluster: ClusterConfiguration(nodeId: id, advertiseURL: "http://\(id).test:8080", nodeTimeoutSeconds: timeout,
                                          capacity: 4, shared: true, reconcileIntervalSeconds: 0.05))
        return Node(cluster: cluster, launcher: launcher, id: id)
    }

    /// Node b runs t1 and then stops heartbeating (as a node that died or froze would).
    static func twoNodesWithATaskOnB() async throws -> (a: Node, b: Node, peers: ScriptedPeers) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteTaskStore(path: directory.appendingPathComponent("tasks.sqlite").path)
        try await store.prepare()
        let peers = ScriptedPeers()
        let b = node("b", store: store, peers: peers, directory: directory)
        let a = node("a", store: store, peers: peers, directory: directory)
        await b.cluster.reconcile()
        _ = try await b.cluster.create(Data(TaskRegistryTests.document.utf8))
        try await TaskRegistryTests.until { await b.cluster.registry.localStatus("t1")?.state == .running }
        #expect(b.launcher.workers.count == 1)
        await a.cluster.reconcile()
        return (a, b, peers)
    }

    /// Runs node a's control loop (reconcile and liveness probes) for `seconds`.
    static func runLoop(_ node: Node, seconds: Double, until done: @Sendable () async -> Bool = { false }) async throws {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < end {
            await node.cluster.reconcile()
            await node.cluster.checkLiveness()
            if await done() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func aNodeSilentInTheStoreAndAtItsURLLosesItsTask() async throws {
        let (a, _, _) = try await Self.twoNodesWithATaskOnB()
        try await Self.runLoop(a, seconds: 6) { a.launcher.workers.count == 1 }
        #expect(a.launcher.workers.count == 1, "node a never took the lost node's task")
        let status = try await a.cluster.status("t1")
        #expect(status.node == "a")
        #expect(status.state == .running || status.state == .starting)
    }

    @Test func aNodeThatStillAnswersAtItsURLKeepsItsTask() async throws {
        let (a, b, peers) = try await Self.twoNodesWithATaskOnB()
        // b's heartbeats stop (cut off from the store), but b answers its peers: it may still run
        // t1, so moving it would run it twice.
        peers.set(b.url, answering: true)
        try await Self.runLoop(a, seconds: Self.timeout * 5)
        #expect(a.launcher.workers.isEmpty, "node a started a task its owner still answers for")
        #expect(peers.probes > 0, "node a never asked b")
        // Once b stops answering too, the task moves.
        peers.set(b.url, answering: false)
        try await Self.runLoop(a, seconds: 6) { a.launcher.workers.count == 1 }
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
}
