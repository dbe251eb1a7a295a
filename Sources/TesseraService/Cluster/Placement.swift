import TesseraStore

/// Which node a new or orphaned task goes to. Pure and deterministic: every node that looks at the
/// same `nodes()` answer picks the same node, so two nodes placing at once tend to agree instead of
/// scattering the load.
public enum Placement {
    /// The alive, non-draining node not in `excluding` with the most free slots
    /// (`capacity - running - pending[nodeId]`), ties broken by the smallest `nodeId`; nil when no
    /// node has a free slot.
    ///
    /// - Parameter pending: tasks already sent to a node in this round that its `running` (as of
    ///   its last heartbeat) does not count yet, e.g. while reassigning the tasks of a lost node.
    public static func choose(among nodes: [NodeInfo], excluding: Set<String> = [],
                              pending: [String: Int] = [:]) -> NodeInfo? {
        var best: NodeInfo?
        var bestFree = 0
        for node in nodes where node.alive && !node.draining && !excluding.contains(node.nodeId) {
            let free = node.capacity - node.running - pending[node.nodeId, default: 0]
            guard free > 0 else { continue }
            if let current = best {
                if free > bestFree || (free == bestFree && node.nodeId < current.nodeId) {
                    best = node; bestFree = free
                }
            } else {
                best = node; bestFree = free
            }
        }
        return best
    }
}
