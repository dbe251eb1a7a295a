import Foundation
import Hummingbird
import TesseraService
import TesseraStore

/// `GET /v1/nodes`: the cluster as the task store sees it, for operators (the console's cluster
/// view), read through `TaskService`. Each task's own status names its node; this adds the nodes
/// that run nothing.
struct ClusterController<Context: RequestContext>: Sendable {
    let service: any TaskService
    /// This node's id, marked in the list.
    let nodeId: String?

    var routes: [APIRoute<Context>] {
        [APIRoute(.get, "/v1/nodes", nodes)]
    }

    struct NodeList: Encodable {
        var nodes: [Node]
    }

    struct Node: Encodable {
        var nodeId: String
        /// `ready`, `draining` or `lost` (its lease ran out).
        var state: String
        /// Its `--max-tasks`.
        var maxTasks: Int
        /// Tasks it ran at its last heartbeat.
        var running: Int
        var advertiseUrl: String
        /// ISO 8601, UTC, by the store's clock.
        var heartbeatAt: String
        /// True for the node that answered.
        var this: Bool
    }

    @Sendable func nodes(_ request: Request, context: Context) async throws -> Response {
        let found = try await service.nodes()
        let formatter = ISO8601DateFormatter()
        let nodes = found.sorted { $0.nodeId < $1.nodeId }.map { node in
            Node(nodeId: node.nodeId, state: !node.alive ? "lost" : node.draining ? "draining" : "ready",
                 maxTasks: node.capacity, running: node.running, advertiseUrl: node.advertiseURL,
                 heartbeatAt: formatter.string(from: node.heartbeatAt), this: node.nodeId == nodeId)
        }
        return try Responses.json(NodeList(nodes: nodes))
    }
}
