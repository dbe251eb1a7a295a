import Foundation

extension ClusterService {
    /// Where the origin finds a task's HLS files: here when this node runs (or ran) it, without
    /// asking the store (several requests a second per viewer); else the live node that runs it,
    /// found as a snapshot's route is (`TaskRoute`). A task no node runs any more that ended here
    /// a short while ago: its final files here (`HLSEndedOrigins`; a task moved to another node
    /// is that node's, never this node's earlier run). Unknown, or ended elsewhere: `TaskNotFound`.
    public func hlsOrigin(_ taskId: String) async throws -> HLSOriginRoute {
        if let local = await registry.hlsOrigin(taskId) { return .here(local) }
        var facts = await facts(for: .snapshot, taskId)
        // The origin's route asks no token, so its `X-Tessera-Forwarded-By` proves nothing: a
        // viewer's request always goes to the node that runs the task.
        facts.forwarded = false
        switch TaskRoute.decide(.snapshot, taskId: taskId, facts) {
        case .local:
            guard let local = await registry.hlsOrigin(taskId) ?? registry.endedHLSOrigin(taskId) else {
                throw ServiceError.taskNotFound(taskId)
            }
            return .here(local)
        case .owner(let owner), .ownerElseStore(let owner):
            return .elsewhere(baseURL: owner.advertiseURL)
        case .refuse(let error) where error.kind == .storeUnavailable || error.kind == .nodeUnavailable:
            throw error
        default:
            guard let ended = registry.endedHLSOrigin(taskId) else { throw ServiceError.taskNotFound(taskId) }
            return .here(ended)
        }
    }
}
