import Foundation
import TesseraStore
import TesseraWorkerProtocol

/// Where a new task goes, as a pure state machine over the nodes' typed answers: the nodes are
/// asked in `Placement` order until one accepts. A node that is full or cannot be reached is
/// passed over; one that refuses the task itself ends the round with its error. `ClusterService`
/// asks the nodes (this one through its registry, the others through `PeerClient`).
public struct PlacementRound: Sendable {
    public enum Step: Sendable {
        /// The task runs there: the answer.
        case placed(TaskStatus)
        /// Ask the next node (`next()`).
        case tryNext
        /// The request fails with this error.
        case fail(any Error)
    }

    private let nodes: [NodeInfo]
    private let pending: [String: Int]
    private var tried: Set<String> = []
    /// A node low on disk space refuses a recording; another node may take it. Said if none does.
    private var storageRefusal: ServiceError?

    /// - Parameters:
    ///   - nodes: the cluster as the store sees it, this node as it is now (`view(of:with:)`).
    ///   - pending: tasks this node placed on others lately that their heartbeats may not count yet.
    public init(nodes: [NodeInfo], pending: [String: Int] = [:]) {
        self.nodes = nodes
        self.pending = pending
    }

    /// The store's nodes with this node's entry replaced by what it knows of itself now.
    public static func view(of stored: [NodeInfo], with this: NodeInfo) -> [NodeInfo] {
        var view = stored.map { node -> NodeInfo in
            guard node.nodeId == this.nodeId else { return node }
            var node = node
            node.running = this.running; node.draining = this.draining; node.alive = true
            return node
        }
        if !view.contains(where: { $0.nodeId == this.nodeId }) { view.append(this) }
        return view
    }

    /// The next node to ask, nil when every node with room was asked. Pending placements may be
    /// counted twice once a heartbeat includes them: without them, a node with room is never
    /// passed over for that.
    public mutating func next() -> NodeInfo? {
        guard let target = Placement.choose(among: nodes, excluding: tried, pending: pending)
                ?? Placement.choose(among: nodes, excluding: tried) else { return nil }
        tried.insert(target.nodeId)
        return target
    }

    /// What to do with the answer of the node `next()` named.
    public mutating func answer(_ outcome: PeerOutcome<TaskStatus>) -> Step {
        switch outcome {
        case .accepted(let status): return .placed(status)
        case .full(let error):
            if error.kind == .insufficientStorage { storageRefusal = error }
            return .tryNext
        case .unavailable: return .tryNext
        case .refused(let error): return .fail(error)
        }
    }

    /// Why no node took the task.
    public var refusal: ServiceError {
        storageRefusal ?? ServiceError(.tooManyTasks,
                                       message: "no node of the cluster has room for another task (each runs at most its --max-tasks)",
                                       retryAfterSeconds: 10)
    }
}
