import Foundation

extension TaskRegistry {
    /// The HLS outputs of a task this node runs or ran (a stopped task's files are still served
    /// while the registry remembers it); nil for a task it does not know.
    public func hlsOrigin(_ taskId: String) -> HLSOriginTask? { tasks[taskId]?.hlsOrigin }
}
