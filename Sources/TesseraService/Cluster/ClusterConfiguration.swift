/// This node's place in the cluster (`--node-id`, `--advertise-url`, `--node-timeout-seconds`).
public struct ClusterConfiguration: Sendable, Equatable {
    public var nodeId: String
    /// How the other nodes reach this node's API.
    public var advertiseURL: String
    /// A node that has not renewed its lease for this long is lost; its tasks start elsewhere.
    public var nodeTimeoutSeconds: Double
    /// `--max-tasks`.
    public var capacity: Int
    /// A shared store (PostgreSQL): on SIGTERM the node hands its tasks to the others. With the
    /// embedded store it keeps them, to resume on its next start.
    public var shared: Bool
    /// Seconds between two rounds of the control loop.
    public var reconcileIntervalSeconds: Double

    public init(nodeId: String, advertiseURL: String, nodeTimeoutSeconds: Double, capacity: Int, shared: Bool,
                reconcileIntervalSeconds: Double = 1) {
        self.nodeId = nodeId; self.advertiseURL = advertiseURL; self.nodeTimeoutSeconds = nodeTimeoutSeconds
        self.capacity = capacity; self.shared = shared; self.reconcileIntervalSeconds = reconcileIntervalSeconds
    }
}
