import Foundation
import Testing
import TesseraService
import TesseraTask
import TesseraStore
import TesseraWorkerProtocol

/// The registry in-process: real validation, a temporary SQLite store and scripted workers
/// (`ScriptedWorkerLauncher`), so a create, a crash, a hang, a stale update and a delete are each
/// played in milliseconds with no process and no FFmpeg.
@Suite struct TaskRegistryTests {
    static let document = """
        {"taskId": "t1", "inputs": [{"id": "a", "url": "rtmp://origin.example/live/a"}],
         "encoder": {"video": {"width": 640, "height": 360}},
         "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 640, "height": 360}]},
         "outputs": [{"url": "rtmp://sink.example/live/mix"}]}
        """

    struct Fixture {
        let registry: TaskRegistry
        let store: SQLiteTaskStore
        let launcher: ScriptedWorkerLauncher
    }

    static func fixture(maxRestarts: Int = 2, hangSeconds: Double = 15) async throws -> Fixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-registry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteTaskStore(path: directory.appendingPathComponent("tasks.sqlite").path)
        try await store.prepare()
        let launcher = ScriptedWorkerLauncher()
        var configuration = RegistryConfiguration(
            mediaRoot: directory.path, outputDirectory: directory.path, maxTasks: 4, workerExecutable: "/nonexistent",
            logLevel: "error", udpPorts: UDPPortChecker(firstBusy: { _, _ in nil }, isLocalAddress: { _ in true }),
            maxWorkerRestarts: maxRestarts, workerHangSeconds: hangSeconds, outputGiveUpSeconds: 60,
            rtpPortRange: 20000...20999, rtpAnnounceAddress: "127.0.0.1")
        configuration.workerLauncher = launcher
        return Fixture(registry: TaskRegistry(configuration: configuration, store: store), store: store, launcher: launcher)
    }

    /// Creates the task and waits for its scripted worker to report.
    static func start(_ fixture: Fixture) async throws {
        let prepared = try await fixture.registry.prepare(Data(document.utf8))
        _ = try await fixture.registry.create(prepared)
        try await until { await fixture.registry.localStatus("t1")?.state == .running }
    }

    /// Polls every millisecond for up to two seconds (events arrive on the workers' queues).
    static func until(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<2000 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("condition not met within 2 s")
    }

    @Test func aCreatedTaskRunsInOneWorkerWithItsPlanAndTheStoreHoldsIt() async throws {
        let fixture = try await Self.fixture()
        try await Self.start(fixture)
        let workers = fixture.launcher.workers
        #expect(workers.count == 1)
        guard case .start(let start)? = workers.first?.commands.first else { Issue.record("no start command"); return }
        #expect(start.plan.taskId == "t1")
        #expect(start.outputGiveUpSeconds == 60)
        let record = try #require(try await fixture.store.task("t1"))
        #expect(record.node == "local" && record.desired == .running)
        #expect(await fixture.registry.localStatus("t1")?.workerPid == workers[0].pid)
    }

    @Test func aCrashedWorkerIsStartedAgainUntilTheBudgetIsSpent() async throws {
        let fixture = try await Self.fixture(maxRestarts: 1)
        try await Self.start(fixture)
        fixture.launcher.workers[0].crash()
        try await Self.until { fixture.launcher.workers.count == 2 }
        try await Self.until { await fixture.registry.localStatus("t1")?.state == .running }
        #expect(await fixture.registry.localStatus("t1")?.workerRestarts == 1)
        fixture.launcher.workers[1].crash()
        try await Self.until { await fixture.registry.localStatus("t1")?.state == .failed }
        #expect(fixture.launcher.workers.count == 2)
        let status = await fixture.registry.localStatus("t1")
        #expect(status?.reason == "worker process was killed by signal 11, after 1 restart (--max-worker-restarts 1)")
    }

    @Test func aSilentWorkerIsKilledAsHungAndStartedAgain() async throws {
        let fixture = try await Self.fixture(hangSeconds: 0.05)
        try await Self.start(fixture)
        fixture.launcher.workers[0].hang()
        try await Task.sleep(for: .milliseconds(80))
        await fixture.registry.checkHangs()
        try await Self.until { fixture.launcher.workers.count == 2 }
        try await Self.until { await fixture.registry.localStatus("t1")?.state == .running }
    }

    @Test func aStaleSequenceIsRefusedAndChangesNothing() async throws {
        let fixture = try await Self.fixture()
        try await Self.start(fixture)
        let accepted = try await fixture.registry.update("t1", Data(#"{"sequence": 5}"#.utf8))
        #expect(accepted.sequence == 5)
        let before = try await fixture.store.task("t1")?.document
        // An older sequence carrying a change: refused, and neither the store nor the worker sees it.
        await #expect(throws: ServiceError.staleSequence(got: 4, last: 5)) {
            _ = try await fixture.registry.update("t1", Data(#"{"sequence": 4, "outputs": [{"url": "rtmp://sink.example/live/other"}]}"#.utf8))
        }
        await #expect(throws: ServiceError.staleSequence(got: 5, last: 5)) {
            _ = try await fixture.registry.update("t1", Data(#"{"sequence": 5}"#.utf8))
        }
        #expect(try await fixture.store.task("t1")?.sequence == 5)
        #expect(try await fixture.store.task("t1")?.document == before)
        #expect(before?.contains("live/other") == false)
        // The worker got the first update only.
        #expect(fixture.launcher.workers[0].commands.filter { if case .update = $0 { true } else { false } }.count == 1)
    }

    @Test func aSecondPOSTOfTheSameTaskWaitsForTheFirstAndGetsTheSameTask() async throws {
        let fixture = try await Self.fixture()
        let prepared = try await fixture.registry.prepare(Data(Self.document.utf8))
        async let first = fixture.registry.create(prepared)
        async let second = fixture.registry.create(prepared)
        let (a, b) = try await (first, second)
        #expect(a.taskId == "t1" && b.taskId == "t1")
        #expect(fixture.launcher.workers.count == 1)
        #expect(await fixture.registry.creatingTaskIds.isEmpty)
    }

    @Test func anUpdateAddingAnAllocatedRTPInputSendsTheWorkerItsSDP() async throws {
        let fixture = try await Self.fixture()
        try await Self.start(fixture)
        let body = #"""
            {"sequence": 1, "inputs": [{"id": "a", "url": "rtmp://origin.example/live/a"},
                                       {"id": "sfu", "rtp": {"allocate": {"audio": "opus"}}}]}
            """#
        let status = try await fixture.registry.update("t1", Data(body.utf8))
        let port = try #require(status.inputs.first { $0.id == "sfu" }?.rtp?.audioPort)
        #expect((20000...20999).contains(port))
        let plans = fixture.launcher.workers[0].commands.compactMap { command -> ResolvedTask? in
            if case .update(let plan) = command { return plan } else { return nil }
        }
        guard case .rtpSDP(let sdp, _)? = plans.last?.inputs.last?.source else { Issue.record("\(plans)"); return }
        #expect(sdp.contains("m=audio \(port) "))
        // The store keeps the request for ports, so another node allocates its own.
        #expect(try await fixture.store.task("t1")?.document.contains("allocate") == true)
    }

    @Test func anUpdateRefusedByItsRulesChangesNothing() async throws {
        let fixture = try await Self.fixture()
        try await Self.start(fixture)
        await #expect(throws: ServiceError(.invalidUpdate, message: "encoder cannot be changed while a task runs", path: "encoder")) {
            _ = try await fixture.registry.update("t1", Data(#"{"encoder": {"video": {"width": 320, "height": 240}}}"#.utf8))
        }
        await #expect(throws: ServiceError(.invalidUpdate, message: "sequence must be an integer", path: "sequence")) {
            _ = try await fixture.registry.update("t1", Data(#"{"sequence": 1.5}"#.utf8))
        }
        #expect(fixture.launcher.workers[0].commands.filter { if case .update = $0 { true } else { false } }.isEmpty)
    }

    @Test func aDeleteEndsTheWorkerProperlyAndTheTaskStaysStopped() async throws {
        let fixture = try await Self.fixture()
        try await Self.start(fixture)
        let final = try await fixture.registry.stop("t1")
        #expect(final.state == .stopped)
        #expect(fixture.launcher.workers[0].commands.last == .stop)
        #expect(try await fixture.store.task("t1")?.desired == .stopped)
        await #expect(throws: ServiceError.taskNotFound("t1")) {
            _ = try await fixture.registry.update("t1", Data(#"{"sequence": 9}"#.utf8))
        }
    }
}
