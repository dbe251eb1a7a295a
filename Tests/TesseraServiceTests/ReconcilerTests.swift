import Foundation
import TesseraService
import TesseraStore
import Testing

@Suite struct ReconcilerTests {
    private func task(_ id: String, node: String?, generation: Int64 = 1, desired: DesiredState = .running) -> StoredTask {
        StoredTask(taskId: id, document: "{}", sequence: nil, desired: desired, node: node, generation: generation, status: nil,
                   files: [:], webhookSequence: 1, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    private func node(_ id: String, capacity: Int = 4, running: Int = 0, alive: Bool = true, draining: Bool = false) -> NodeInfo {
        NodeInfo(nodeId: id, advertiseURL: "http://\(id)", capacity: capacity, running: running, draining: draining,
                 leaseSeconds: 10, heartbeatAt: Date(), alive: alive)
    }

    @Test func aRestartedNodeResumesItsRunningTasksOnly() {
        let input = Reconciler.Input(nodeId: "a", leaving: false, freeSlots: 4,
                                     mine: [task("t1", node: "a"), task("t2", node: "a", desired: .stopped)],
                                     orphans: [], nodes: [node("a")], local: [:])
        #expect(Reconciler.plan(input) == [.resume(task("t1", node: "a"), note: "resumed on node a after it restarted")])
    }

    @Test func aTaskHandedOverNamesTheNodeItCameFrom() {
        let input = Reconciler.Input(nodeId: "b", leaving: false, freeSlots: 4, mine: [task("t1", node: "b", generation: 3)],
                                     orphans: [], nodes: [node("b")], local: [:], lastRunBy: ["t1": "a"])
        #expect(Reconciler.plan(input) == [.resume(task("t1", node: "b", generation: 3), note: "moved to node b from node a")])
    }

    @Test func whatRunsHereButIsNoLongerHeldHereIsFenced() {
        let input = Reconciler.Input(nodeId: "a", leaving: false, freeSlots: 4,
                                     mine: [task("t1", node: "a", generation: 2), task("t3", node: "a", desired: .stopped)],
                                     orphans: [], nodes: [node("a")], local: ["t1": 1, "t2": 1, "t3": 1])
        #expect(Reconciler.plan(input) == [.fence(taskId: "t1"), .fence(taskId: "t2"), .stop(taskId: "t3")])
    }

    @Test func orphansOfALostNodeSpreadAsPlacementPicks() {
        let orphans = (1...4).map { task("t\($0)", node: "dead") }
        let nodes = [node("a"), node("b"), node("dead", alive: false)]
        let forA = Reconciler.plan(.init(nodeId: "a", leaving: false, freeSlots: 4, mine: [], orphans: orphans, nodes: nodes, local: [:]))
        let forB = Reconciler.plan(.init(nodeId: "b", leaving: false, freeSlots: 4, mine: [], orphans: orphans, nodes: nodes, local: [:]))
        #expect(forA == [.claim(orphans[0], note: "moved to node a: node dead was lost"),
                         .claim(orphans[2], note: "moved to node a: node dead was lost")])
        #expect(forB == [.claim(orphans[1], note: "moved to node b: node dead was lost"),
                         .claim(orphans[3], note: "moved to node b: node dead was lost")])
    }

    @Test func aFullOrLeavingNodeClaimsNothing() {
        let orphans = [task("t1", node: nil)]
        let full = Reconciler.plan(.init(nodeId: "a", leaving: false, freeSlots: 0, mine: [], orphans: orphans,
                                         nodes: [node("a", capacity: 1, running: 1)], local: [:]))
        #expect(full.isEmpty)
        let leaving = Reconciler.plan(.init(nodeId: "a", leaving: true, freeSlots: 4, mine: [task("t2", node: "a")],
                                            orphans: orphans, nodes: [node("a", draining: true)], local: [:]))
        #expect(leaving.isEmpty)
    }

    @Test func aTaskBeingCreatedHereIsNeitherResumedNorFenced() {
        // The POST that records a task starts it: the loop, seeing it in the store first, leaves it alone.
        let input = Reconciler.Input(nodeId: "a", leaving: false, freeSlots: 4, mine: [task("t1", node: "a", generation: 2)],
                                     orphans: [], nodes: [node("a")], local: ["t1": 1], creating: ["t1"])
        #expect(Reconciler.plan(input).isEmpty)
        var notCreating = input
        notCreating.creating = []
        #expect(Reconciler.plan(notCreating) == [.fence(taskId: "t1")])
    }
}
