import Foundation
import Testing
import TesseraStore

/// One suite, every implementation: what the rest of Tessera may rely on from any `TaskStore`.
/// Each test opens a fresh database, so the tests run in parallel.
@Suite(.postgresServer)
struct TaskStoreConformance {
    @Test(arguments: StoreKind.underTest)
    func createReportsExistsAndReplacesStopped(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let before = Date().addingTimeInterval(-60)
            #expect(try await store.createTask(NewTask(taskId: "a", document: document("a"), node: "n1", status: #"{"state":"starting"}"#)) == .created)
            let created = try #require(try await store.task("a"))
            #expect(created.document == document("a"))
            #expect(created.node == "n1")
            #expect(created.generation == 1)
            #expect(created.desired == .running)
            #expect(created.sequence == nil)
            #expect(created.status == #"{"state":"starting"}"#)
            #expect(created.files.isEmpty)
            #expect(created.webhookSequence == 0)
            #expect(created.createdAt > before && created.createdAt < Date().addingTimeInterval(60))
            #expect(try await store.task("missing") == nil)

            // A running task of that id: untouched.
            #expect(try await store.createTask(NewTask(taskId: "a", document: document("a", "v2"), node: "n2")) == .exists)
            #expect(try await store.task("a") == created)

            // A stopped one: replaced, as a new task on the new node.
            try await store.setDesired(taskId: "a", .stopped)
            #expect(try await store.createTask(NewTask(taskId: "a", document: document("a", "v3"), node: "n2")) == .created)
            let replaced = try #require(try await store.task("a"))
            #expect(replaced.document == document("a", "v3"))
            #expect(replaced.node == "n2")
            // One past the old run's, so a straggler of that run stays fenced off.
            #expect(replaced.generation == 2)
            #expect(replaced.desired == .running)
            #expect(replaced.status == nil)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func tasksComeInCreationOrder(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for id in ["m", "c", "x", "a"] {
                #expect(try await store.createTask(NewTask(taskId: id, document: document(id), node: id == "x" ? "n2" : "n1")) == .created)
            }
            #expect(try await store.allTasks().map(\.taskId) == ["m", "c", "x", "a"])
            // A replaced stopped task counts as created anew.
            try await store.setDesired(taskId: "c", .stopped)
            #expect(try await store.createTask(NewTask(taskId: "c", document: document("c"), node: "n1")) == .created)
            #expect(try await store.allTasks().map(\.taskId) == ["m", "x", "a", "c"])
        }
    }

    @Test(arguments: StoreKind.underTest)
    func tasksOnNodeIncludeStoppedInCreationOrder(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for (id, node) in [("t1", "n1"), ("t2", "n2"), ("t3", "n1"), ("t4", "n1")] {
                _ = try await store.createTask(NewTask(taskId: id, document: document(id), node: node))
            }
            try await store.setDesired(taskId: "t3", .stopped)
            #expect(try await store.tasks(onNode: "n1").map(\.taskId) == ["t1", "t3", "t4"])
            #expect(try await store.tasks(onNode: "n2").map(\.taskId) == ["t2"])
            #expect(try await store.tasks(onNode: "n3").isEmpty)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func orphanedTasksAreThoseWithoutALiveNode(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await store.heartbeat(heartbeat("alive", lease: 30))
            _ = try await store.createTask(NewTask(taskId: "on-alive", document: document("1"), node: "alive"))
            _ = try await store.createTask(NewTask(taskId: "on-unknown", document: document("2"), node: "ghost"))
            _ = try await store.createTask(NewTask(taskId: "unassigned", document: document("3"), node: "alive"))
            _ = try await store.createTask(NewTask(taskId: "on-short", document: document("4"), node: "short"))
            _ = try await store.createTask(NewTask(taskId: "stopped-on-ghost", document: document("5"), node: "ghost"))
            #expect(try await store.claim(taskId: "unassigned", node: nil, expectedGeneration: 1) == 2)
            try await store.setDesired(taskId: "stopped-on-ghost", .stopped)

            // A short lease, but long enough for the next call even on a busy machine.
            try await store.heartbeat(heartbeat("short", lease: 2))
            #expect(try await store.orphanedTasks().map(\.taskId) == ["on-unknown", "unassigned"])

            // The short lease passes without a heartbeat: its node's tasks are orphaned too.
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try await store.orphanedTasks().map(\.taskId) == ["on-unknown", "unassigned", "on-short"])

            // A heartbeat brings it back.
            try await store.heartbeat(heartbeat("short", lease: 30))
            #expect(try await store.orphanedTasks().map(\.taskId) == ["on-unknown", "unassigned"])
        }
    }

    @Test(arguments: StoreKind.underTest)
    func updateDocumentIsFencedByNodeAndGeneration(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await store.createTask(NewTask(taskId: "t", document: document("t"), node: "n1"))
            #expect(try await store.updateDocument(taskId: "t", document: document("t", "v2"), sequence: 7, node: "n1", generation: 1))
            var stored = try #require(try await store.task("t"))
            #expect(stored.document == document("t", "v2"))
            #expect(stored.sequence == 7)

            #expect(try await !store.updateDocument(taskId: "t", document: "wrong generation", sequence: 8, node: "n1", generation: 2))
            #expect(try await !store.updateDocument(taskId: "t", document: "wrong node", sequence: 8, node: "n2", generation: 1))
            #expect(try await !store.updateDocument(taskId: "missing", document: "x", sequence: nil, node: "n1", generation: 1))

            // Claimed away: the old holder's writes are refused, the new holder's accepted.
            #expect(try await store.claim(taskId: "t", node: "n2", expectedGeneration: 1) == 2)
            #expect(try await !store.updateDocument(taskId: "t", document: "stale", sequence: 9, node: "n1", generation: 1))
            #expect(try await store.updateDocument(taskId: "t", document: document("t", "v3"), sequence: nil, node: "n2", generation: 2))
            stored = try #require(try await store.task("t"))
            #expect(stored.document == document("t", "v3"))
            #expect(stored.sequence == nil)
            #expect(stored.node == "n2")
        }
    }

    @Test(arguments: StoreKind.underTest)
    func setDesiredIsNotFenced(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await store.createTask(NewTask(taskId: "t", document: document("t"), node: "n1"))
            let created = try #require(try await store.task("t"))
            try await Task.sleep(for: .milliseconds(20))
            #expect(try await store.setDesired(taskId: "t", .stopped))
            var stored = try #require(try await store.task("t"))
            #expect(stored.desired == .stopped)
            #expect(stored.generation == 1)
            #expect(stored.updatedAt > created.updatedAt)
            #expect(try await store.setDesired(taskId: "t", .running))
            stored = try #require(try await store.task("t"))
            #expect(stored.desired == .running)
            #expect(try await !store.setDesired(taskId: "missing", .stopped))
        }
    }

    @Test(arguments: StoreKind.underTest)
    func saveStatusIsFencedAndRoundTrips(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await store.createTask(NewTask(taskId: "t", document: document("t"), node: "n1"))
            let report = StatusReport(
                status: #"{"state":"running","outputs":[{"id":"rec","state":"writing"}]}"#,
                files: ["file:///out/rec-%03d.mp4": ["/out/rec-001.mp4", "/out/rec-002.mp4"],
                        "file:///out/späť \"quoted\".flv": ["/out/späť \"quoted\".flv"],
                        "file:///out/none.mkv": []],
                webhookSequence: 42)
            #expect(try await store.saveStatus(taskId: "t", report, node: "n1", generation: 1))
            let stored = try #require(try await store.task("t"))
            #expect(stored.status == report.status)
            #expect(stored.files == report.files)
            #expect(stored.webhookSequence == 42)

            let stale = StatusReport(status: "{}", files: [:], webhookSequence: 99)
            #expect(try await !store.saveStatus(taskId: "t", stale, node: "n1", generation: 2))
            #expect(try await !store.saveStatus(taskId: "t", stale, node: "n2", generation: 1))
            #expect(try await !store.saveStatus(taskId: "missing", stale, node: "n1", generation: 1))
            #expect(try await store.claim(taskId: "t", node: "n2", expectedGeneration: 1) == 2)
            #expect(try await !store.saveStatus(taskId: "t", stale, node: "n1", generation: 1))
            let after = try #require(try await store.task("t"))
            #expect(after.files == report.files)
            #expect(after.webhookSequence == 42)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func claimIsACompareAndSet(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await store.createTask(NewTask(taskId: "t", document: document("t"), node: "n1"))
            #expect(try await store.claim(taskId: "t", node: "n2", expectedGeneration: 1) == 2)
            #expect(try await store.claim(taskId: "t", node: "n3", expectedGeneration: 1) == nil)
            #expect(try await store.claim(taskId: "missing", node: "n3", expectedGeneration: 1) == nil)
            #expect(try await store.claim(taskId: "t", node: nil, expectedGeneration: 2) == 3)
            var stored = try #require(try await store.task("t"))
            #expect(stored.node == nil)
            #expect(stored.generation == 3)

            // Many nodes claim the same generation at once: exactly one wins, and holds it.
            let winners = try await withThrowingTaskGroup(of: (String, Int64?).self) { group in
                for i in 0..<10 {
                    group.addTask { ("c\(i)", try await store.claim(taskId: "t", node: "c\(i)", expectedGeneration: 3)) }
                }
                var winners: [String] = []
                for try await (node, generation) in group where generation != nil {
                    #expect(generation == 4)
                    winners.append(node)
                }
                return winners
            }
            #expect(winners.count == 1)
            stored = try #require(try await store.task("t"))
            #expect(stored.node == winners.first)
            #expect(stored.generation == 4)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func forgetStoppedTasksRemovesOnlyOldStoppedOnes(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for id in ["stopped1", "stopped2", "running"] {
                _ = try await store.createTask(NewTask(taskId: id, document: document(id), node: "n1"))
            }
            try await store.setDesired(taskId: "stopped1", .stopped)
            try await store.setDesired(taskId: "stopped2", .stopped)
            #expect(try await store.forgetStoppedTasks(before: Date().addingTimeInterval(-3600)) == 0)
            #expect(try await store.forgetStoppedTasks(before: Date().addingTimeInterval(60)) == 2)
            #expect(try await store.allTasks().map(\.taskId) == ["running"])
            #expect(try await store.task("stopped1") == nil)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func heartbeatsUpsertNodes(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            #expect(try await store.nodes().isEmpty)
            try await store.heartbeat(heartbeat("n2", capacity: 4, running: 1))
            try await store.heartbeat(heartbeat("n1", capacity: 8, running: 0, draining: false))
            var nodes = try await store.nodes()
            #expect(nodes.map(\.nodeId).sorted() == ["n1", "n2"])
            let first = try #require(nodes.first { $0.nodeId == "n2" })
            #expect(first.advertiseURL == "http://n2.local:8080")
            #expect(first.capacity == 4)
            #expect(first.running == 1)
            #expect(!first.draining)
            #expect(first.leaseSeconds == 30)
            #expect(first.alive)
            #expect(abs(first.heartbeatAt.timeIntervalSinceNow) < 60)

            try await Task.sleep(for: .milliseconds(20))
            try await store.heartbeat(heartbeat("n2", capacity: 6, running: 3, draining: true, lease: 0.5))
            nodes = try await store.nodes()
            #expect(nodes.count == 2)
            let updated = try #require(nodes.first { $0.nodeId == "n2" })
            #expect(updated.capacity == 6)
            #expect(updated.running == 3)
            #expect(updated.draining)
            #expect(updated.leaseSeconds == 0.5)
            #expect(updated.heartbeatAt > first.heartbeatAt)

            // Its lease passes: known, but not alive; the other stays alive.
            try await Task.sleep(for: .milliseconds(1200))
            nodes = try await store.nodes()
            #expect(nodes.first { $0.nodeId == "n2" }?.alive == false)
            #expect(nodes.first { $0.nodeId == "n1" }?.alive == true)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func removeNodeForgetsIt(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await store.heartbeat(heartbeat("n1"))
            try await store.heartbeat(heartbeat("n2"))
            _ = try await store.createTask(NewTask(taskId: "t", document: document("t"), node: "n1"))
            #expect(try await store.orphanedTasks().isEmpty)
            try await store.removeNode("n1")
            try await store.removeNode("never-seen")
            #expect(try await store.nodes().map(\.nodeId) == ["n2"])
            #expect(try await store.orphanedTasks().map(\.taskId) == ["t"])
        }
    }

    @Test(arguments: StoreKind.underTest)
    func concurrentCreationsOfOneIdCreateItOnce(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let outcomes = try await withThrowingTaskGroup(of: CreateOutcome.self) { group in
                for i in 0..<20 {
                    group.addTask { try await store.createTask(NewTask(taskId: "same", document: document("same", "\(i)"), node: "n\(i)")) }
                }
                return try await group.reduce(into: [CreateOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .created }.count == 1)
            #expect(outcomes.filter { $0 == .exists }.count == 19)
            let stored = try #require(try await store.task("same"))
            #expect(stored.generation == 1)

            // And many different ids at once all land.
            let distinct = try await withThrowingTaskGroup(of: CreateOutcome.self) { group in
                for i in 0..<20 {
                    group.addTask { try await store.createTask(NewTask(taskId: "d\(i)", document: document("d\(i)"), node: "n1")) }
                }
                return try await group.reduce(into: [CreateOutcome]()) { $0.append($1) }
            }
            #expect(distinct.allSatisfy { $0 == .created })
            #expect(try await store.allTasks().count == 21)
        }
    }

    @Test(arguments: StoreKind.underTest)
    func prepareIsIdempotentAndSafeFromSeveralNodesAtOnce(kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            try await store.prepare()
            _ = try await store.createTask(NewTask(taskId: "kept", document: document("kept"), node: "n1"))
            let others = try (0..<4).map { _ in try database.open() }
            try await withRunning(others) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for other in others { group.addTask { try await other.prepare() } }
                    try await group.waitForAll()
                }
                for other in others {
                    #expect(try await other.task("kept")?.document == document("kept"))
                }
            }
        }
    }

    @Test(arguments: StoreKind.underTest)
    func aSecondNodeSeesTheFirstNodesWrites(kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let other = try database.open()
            try await withRunning([other]) {
                try await other.prepare()
                _ = try await store.createTask(NewTask(taskId: "t", document: document("t"), node: "n1"))
                #expect(try await other.createTask(NewTask(taskId: "t", document: document("t"), node: "n2")) == .exists)
                #expect(try await other.claim(taskId: "t", node: "n2", expectedGeneration: 1) == 2)
                #expect(try await !store.updateDocument(taskId: "t", document: "stale", sequence: 1, node: "n1", generation: 1))
            }
        }
    }
}
