import Foundation
import Testing
import TesseraService
import TesseraStore
import TesseraWorkerProtocol

/// A new task's round over the nodes' typed answers.
@Suite struct PlacementRoundTests {
    typealias F = ClusterFixtures
    let status = TaskStatus(taskId: "t1", state: .starting, startedAt: "2026-01-01T00:00:00Z")

    @Test func theNodesAreAskedByRoomAndTheFirstToAcceptPlacesIt() {
        var round = PlacementRound(nodes: [F.node("a", capacity: 2), F.node("b", capacity: 8), F.node("c", capacity: 4)])
        #expect(round.next()?.nodeId == "b")
        guard case .tryNext = round.answer(.full(.tooManyTasks(limit: 8))) else { Issue.record("a full node ended the round"); return }
        #expect(round.next()?.nodeId == "c")
        guard case .tryNext = round.answer(.unavailable("connection refused")) else { Issue.record("an unreachable node ended the round"); return }
        #expect(round.next()?.nodeId == "a")
        guard case .placed(let placed) = round.answer(.accepted(status)) else { Issue.record("not placed"); return }
        #expect(placed == status)
    }

    @Test func aRefusalEndsTheRoundWithItsError() {
        var round = PlacementRound(nodes: [F.node("a")])
        _ = round.next()
        let refusal = ServiceError(.invalidTask, message: "bad", path: "inputs")
        guard case .fail(let error) = round.answer(.refused(refusal)) else { Issue.record("a refusal was passed over"); return }
        #expect(error as? ServiceError == refusal)
    }

    @Test func withNoRoomAnywhereTheDiskIsSaidIfANodeLackedItElseTheTaskLimit() {
        var round = PlacementRound(nodes: [F.node("a"), F.node("b", capacity: 1, running: 1), F.node("c", alive: false)])
        _ = round.next()
        _ = round.answer(.full(.tooManyTasks(limit: 4)))
        #expect(round.next() == nil)
        #expect(round.refusal.kind == .tooManyTasks)
        let disk = ServiceError(.insufficientStorage, message: "low")
        var lowOnDisk = PlacementRound(nodes: [F.node("a")])
        _ = lowOnDisk.next()
        _ = lowOnDisk.answer(.full(disk))
        #expect(lowOnDisk.next() == nil)
        #expect(lowOnDisk.refusal == disk)
    }

    @Test func recentPlacementsCountUntilNoNodeIsLeftWithoutThem() {
        var round = PlacementRound(nodes: [F.node("a", capacity: 4), F.node("b", capacity: 3)], pending: ["a": 2, "b": 3])
        #expect(round.next()?.nodeId == "a")
        // b is full counting what was sent to it lately; it is still asked (its heartbeat may count those already).
        #expect(round.next()?.nodeId == "b")
        #expect(round.next() == nil)
    }

    @Test func thisNodeIsCountedAsItIsNow() {
        let this = F.node("a", capacity: 4, running: 3)
        let view = PlacementRound.view(of: [F.node("a", capacity: 4, running: 0, alive: false), F.node("b")], with: this)
        #expect(view.first { $0.nodeId == "a" }?.running == 3)
        #expect(view.first { $0.nodeId == "a" }?.alive == true)
        #expect(PlacementRound.view(of: [F.node("b")], with: this).map(\.nodeId) == ["b", "a"])
    }
}

/// The status a store record answers with when no live node answers for its task.
@Suite struct StoredStatusTests {
    typealias F = ClusterFixtures
    /// What node b wrote: running, with its worker's pid.
    var written: String {
        var status = TaskStatus(taskId: "t1", state: .running, startedAt: "2026-01-01T00:00:00Z")
        status.workerPid = 4242
        status.node = "b"
        return String(decoding: (try? JSONEncoder().encode(status)) ?? Data(), as: UTF8.self)
    }

    @Test func aLiveNodesStatusIsAsWrittenWithoutItsPid() {
        let status = StoredStatus.of(F.task(node: "b", status: written), aliveNodes: ["b"])
        #expect(status.state == .running && status.node == "b" && status.workerPid == nil)
    }

    @Test func aTaskOfALostNodeWaitsForAnother() {
        let status = StoredStatus.of(F.task(node: "b", status: written), aliveNodes: ["a"])
        #expect(status.state == .starting)
        #expect(status.reason == "node b was lost; the task waits for another node")
        #expect(StoredStatus.of(F.task(node: nil, status: written), aliveNodes: ["a"]).reason == "the task waits for a node with room")
    }

    @Test func aStoppedTaskIsStoppedAndARecordWithoutStatusIsStarting() {
        #expect(StoredStatus.of(F.task(node: "b", desired: .stopped, status: written), aliveNodes: ["b"]).state == .stopped)
        #expect(StoredStatus.of(F.task(node: "b"), aliveNodes: ["b"]).state == .starting)
        #expect(StoredStatus.of(F.task(node: "b", desired: .stopped), aliveNodes: []).state == .stopped)
        #expect(StoredStatus.lastNode(of: F.task(node: "a", status: written)) == "b")
    }
}

/// A drain's hand-over plan (`Reconciler.handOver`).
@Suite struct HandOverTests {
    typealias F = ClusterFixtures

    @Test func eachTaskGoesToTheOtherNodeWithMostRoomAsFarAsThereIsRoom() {
        let moves = Reconciler.handOver(local: ["t3": 1, "t1": 5, "t2": 2, "t4": 1],
                                        nodes: [F.node("a"), F.node("b", capacity: 2), F.node("c", capacity: 3, running: 2),
                                                F.node("d", draining: true), F.node("e", alive: false)],
                                        nodeId: "a")
        #expect(moves == [Reconciler.HandOver(taskId: "t1", generation: 5, target: "b"),
                          Reconciler.HandOver(taskId: "t2", generation: 2, target: "b"),
                          Reconciler.HandOver(taskId: "t3", generation: 1, target: "c")])
    }
}
