import Foundation
import TesseraStore

/// Store records and nodes for the cluster's pure decisions.
enum ClusterFixtures {
    static func task(_ id: String = "t1", node: String?, generation: Int64 = 1, desired: DesiredState = .running,
                     status: String? = nil) -> StoredTask {
        StoredTask(taskId: id, document: "{}", sequence: nil, desired: desired, node: node, generation: generation, status: status,
                   files: [:], webhookSequence: 1, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    static func node(_ id: String, capacity: Int = 4, running: Int = 0, alive: Bool = true, draining: Bool = false) -> NodeInfo {
        NodeInfo(nodeId: id, advertiseURL: "http://\(id)", capacity: capacity, running: running, draining: draining,
                 leaseSeconds: 10, heartbeatAt: Date(timeIntervalSince1970: 0), alive: alive)
    }
}
