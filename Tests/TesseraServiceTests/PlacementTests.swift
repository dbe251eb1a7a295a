import Foundation
import Testing
import TesseraService
import TesseraStore

struct PlacementTests {
    private func node(_ id: String, capacity: Int = 10, running: Int = 0, draining: Bool = false, alive: Bool = true) -> NodeInfo {
        NodeInfo(nodeId: id, advertiseURL: "http://\(id)", capacity: capacity, running: running, draining: draining,
                 leaseSeconds: 10, heartbeatAt: Date(), alive: alive)
    }

    @Test func picksTheNodeWithTheMostFreeSlots() {
        let nodes = [node("a", capacity: 10, running: 8), node("b", capacity: 4, running: 0), node("c", capacity: 10, running: 7)]
        #expect(Placement.choose(among: nodes)?.nodeId == "b")
    }

    @Test func breaksTiesByNodeIdWhateverTheOrder() {
        let nodes = [node("n3", running: 5), node("n1", running: 5), node("n2", running: 5)]
        #expect(Placement.choose(among: nodes)?.nodeId == "n1")
        #expect(Placement.choose(among: nodes.reversed())?.nodeId == "n1")
        #expect(Placement.choose(among: nodes.shuffled())?.nodeId == "n1")
    }

    @Test func skipsDeadDrainingExcludedAndFullNodes() {
        let nodes = [node("dead", alive: false), node("draining", draining: true), node("excluded"),
                     node("full", capacity: 3, running: 3), node("over", capacity: 3, running: 5),
                     node("ok", capacity: 2, running: 1)]
        #expect(Placement.choose(among: nodes, excluding: ["excluded"])?.nodeId == "ok")
        #expect(Placement.choose(among: nodes, excluding: ["excluded", "ok"]) == nil)
        #expect(Placement.choose(among: []) == nil)
    }

    @Test func countsPendingPlacements() {
        let nodes = [node("a", capacity: 4), node("b", capacity: 4)]
        #expect(Placement.choose(among: nodes, pending: ["a": 1])?.nodeId == "b")
        #expect(Placement.choose(among: nodes, pending: ["a": 1, "b": 2])?.nodeId == "a")
        #expect(Placement.choose(among: nodes, pending: ["a": 4, "b": 4]) == nil)
    }

    @Test func spreadsARoundEvenlyWithPending() {
        let nodes = (1...4).map { node("n\($0)", capacity: 3) }
        var pending: [String: Int] = [:]
        var order: [String] = []
        while let chosen = Placement.choose(among: nodes, pending: pending) {
            order.append(chosen.nodeId)
            pending[chosen.nodeId, default: 0] += 1
        }
        #expect(order.count == 12)
        #expect(Array(order.prefix(4)) == ["n1", "n2", "n3", "n4"])
        #expect(Set(pending.values) == [3])
    }
}
