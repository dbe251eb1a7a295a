import Foundation
import TesseraStore
import TesseraWorkerProtocol

/// The status a task's store record answers with when no live node answers for it: the status
/// its node last wrote, corrected by what the store knows better. Pure.
public enum StoredStatus {
    /// A stopped task is stopped; one whose node is lost (or that never had one) waits for a node;
    /// a record with no status yet is `starting` (or `stopped`). The worker's pid is another
    /// machine's, so it is left out.
    public static func of(_ record: StoredTask, aliveNodes alive: Set<String>) -> TaskStatus {
        guard let text = record.status, var status = try? JSONDecoder().decode(TaskStatus.self, from: Data(text.utf8)) else {
            return TaskStatus(taskId: record.taskId, state: record.desired == .stopped ? .stopped : .starting,
                              startedAt: ISO8601DateFormatter().string(from: record.createdAt))
        }
        status.workerPid = nil
        status.node = record.node
        if record.desired == .stopped {
            if !status.state.isFinal { status.state = .stopped }
        } else if record.node.map({ !alive.contains($0) }) ?? true {
            status.state = .starting
            status.reason = record.node.map { "node \($0) was lost; the task waits for another node" }
                ?? "the task waits for a node with room"
        }
        return status
    }

    /// The node that last wrote the task's status, where known.
    public static func lastNode(of record: StoredTask) -> String? {
        struct NodeOnly: Decodable { var node: String? }
        return record.status.flatMap { try? JSONDecoder().decode(NodeOnly.self, from: Data($0.utf8)).node }
    }
}
