import Foundation

extension TaskRegistry {
    /// The HLS outputs of a task this node runs (or ran, while the registry remembers it); nil
    /// for a task it does not know.
    public func hlsOrigin(_ taskId: String) -> HLSOriginTask? { tasks[taskId]?.hlsOrigin }

    /// The final playlists and files of a task that ended here a short while ago
    /// (`HLSEndedOrigins`): asked only once the cluster says no node runs the task.
    public nonisolated func endedHLSOrigin(_ taskId: String) -> HLSOriginTask? { endedOrigins.origin(taskId) }
}
