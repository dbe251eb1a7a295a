import Foundation
import TesseraStore

/// One round of a node's control loop as a pure function: from what the task store says (this
/// node's tasks, the orphaned ones, the nodes) and what runs here, the actions that make them
/// agree; and on a drain, where each of its tasks goes. No I/O: `ClusterService` fetches the
/// inputs and performs the actions.
public enum Reconciler {
    public struct Input: Sendable {
        public var nodeId: String
        /// Draining or shutting down: start nothing new here.
        public var leaving: Bool
        /// Tasks this node can still take (`--max-tasks` minus what runs here).
        public var freeSlots: Int
        /// The store's tasks held by this node.
        public var mine: [StoredTask]
        /// The store's tasks that wait for a node (none, or a lost one).
        public var orphans: [StoredTask]
        public var nodes: [NodeInfo]
        /// What runs here, by task id: the generation it runs at.
        public var local: [String: Int64]
        /// The node that last reported each task's status, where known (for the notes).
        public var lastRunBy: [String: String]
        /// Tasks a `POST` on this node is creating right now: that request starts them (one
        /// launch path), so the loop neither resumes nor fences them.
        public var creating: Set<String>

        public init(nodeId: String, leaving: Bool, freeSlots: Int, mine: [StoredTask], orphans: [StoredTask],
                    nodes: [NodeInfo], local: [String: Int64], lastRunBy: [String: String] = [:], creating: Set<String> = []) {
            self.nodeId = nodeId; self.leaving = leaving; self.freeSlots = freeSlots; self.mine = mine
            self.orphans = orphans; self.nodes = nodes; self.local = local; self.lastRunBy = lastRunBy
            self.creating = creating
        }
    }

    public enum Action: Sendable, Equatable {
        /// A task this node holds but does not run (this node restarted, or the task was handed
        /// over to it): start it.
        case resume(StoredTask, note: String)
        /// A task that was stopped elsewhere (a DELETE answered by another node): stop it here.
        case stop(taskId: String)
        /// Another node holds the task now: stop it here at once.
        case fence(taskId: String)
        /// Take an orphaned task (compare-and-set on its generation), then start it.
        case claim(StoredTask, note: String)
    }

    public static func plan(_ input: Input) -> [Action] {
        var actions: [Action] = []
        let mine = Dictionary(input.mine.map { ($0.taskId, $0) }, uniquingKeysWith: { first, _ in first })
        // What runs here but is no longer this node's at that generation.
        for (taskId, generation) in input.local.sorted(by: { $0.key < $1.key }) where !input.creating.contains(taskId) {
            guard let record = mine[taskId], record.generation == generation else {
                actions.append(.fence(taskId: taskId))
                continue
            }
            if record.desired == .stopped { actions.append(.stop(taskId: taskId)) }
        }
        if input.leaving { return actions }
        for record in input.mine where record.desired == .running && input.local[record.taskId] == nil
            && !input.creating.contains(record.taskId) {
            let note = input.lastRunBy[record.taskId].flatMap { $0 == input.nodeId ? nil : $0 }
                .map { "moved to node \(input.nodeId) from node \($0)" } ?? "resumed on node \(input.nodeId) after it restarted"
            actions.append(.resume(record, note: note))
        }
        // Orphans: each goes to the node placement picks, as every node computes alike from the
        // same view; this node claims the ones that fall to it.
        var pending: [String: Int] = [:]
        var free = input.freeSlots
        let lostNodes = Set(input.nodes.filter { !$0.alive }.map(\.nodeId))
        for record in input.orphans where free > 0 {
            guard let target = Placement.choose(among: input.nodes, pending: pending) else { break }
            pending[target.nodeId, default: 0] += 1
            guard target.nodeId == input.nodeId else { continue }
            free -= 1
            let note: String
            if let previous = record.node, previous != input.nodeId {
                note = lostNodes.contains(previous) || !input.nodes.contains(where: { $0.nodeId == previous })
                    ? "moved to node \(input.nodeId): node \(previous) was lost"
                    : "moved to node \(input.nodeId) from node \(previous)"
            } else if record.node == input.nodeId {
                note = "resumed on node \(input.nodeId) after it restarted"
            } else {
                note = "moved to node \(input.nodeId)"
            }
            actions.append(.claim(record, note: note))
        }
        return actions
    }

    /// One task handed over on a drain: stopped here properly, then given to `target`
    /// (compare-and-set on `generation`).
    public struct HandOver: Sendable, Equatable {
        public var taskId: String
        public var generation: Int64
        public var target: String
        public init(taskId: String, generation: Int64, target: String) {
            self.taskId = taskId; self.generation = generation; self.target = target
        }
    }

    /// Drain: each task running here (`local`, by id: its generation) goes to the node placement
    /// picks among the others, in task id order, as far as they have room; the rest stop here
    /// and resume on this node's next start.
    public static func handOver(local: [String: Int64], nodes: [NodeInfo], nodeId: String) -> [HandOver] {
        let others = nodes.filter { $0.nodeId != nodeId }
        var pending: [String: Int] = [:]
        var moves: [HandOver] = []
        for (taskId, generation) in local.sorted(by: { $0.key < $1.key }) {
            guard let target = Placement.choose(among: others, pending: pending) else { break }
            pending[target.nodeId, default: 0] += 1
            moves.append(HandOver(taskId: taskId, generation: generation, target: target.nodeId))
        }
        return moves
    }
}
