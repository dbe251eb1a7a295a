import Foundation
import TesseraStore
import TesseraWorkerProtocol

/// While the task store is down (`TaskRoute.reachable`): reads are answered by the nodes this one
/// reaches, each asked with a short timeout. A request passed on is never passed on again, so a
/// node that does not run the task answers 404 without acting.
extension ClusterService {
    /// The tasks running here and on every node that answers, marked partial.
    func reachableListing() async -> TaskListing {
        var statuses = await localStatuses()
        let peers = self.peers
        let timeout = max(1, outage.probeTimeoutSeconds * 2)
        let lists = await withTaskGroup(of: [TaskStatus]?.self) { group in
            for url in reachablePeers() {
                group.addTask { await peers.tasks(on: url, timeoutSeconds: timeout).value }
            }
            var lists: [[TaskStatus]] = []
            for await list in group { if let list { lists.append(list) } }
            return lists
        }
        let seen = Set(statuses.map(\.taskId))
        statuses += lists.joined().filter { !seen.contains($0.taskId) }
        let answered = lists.count
        return TaskListing(tasks: statuses.sorted { $0.taskId < $1.taskId },
                           partial: "the task store cannot be reached: these are the tasks running on this node and on "
                               + "the \(answered) other node\(answered == 1 ? "" : "s") that answered")
    }

    /// `ask` (about a task this node does not run) of every node this one reaches, with short
    /// timeouts unless `timeoutSeconds` names a longer one; the first answer is that of the node
    /// that runs it.
    func askReachable<Value: Sendable>(
        _ taskId: String, timeoutSeconds: Double? = nil,
        _ ask: @escaping @Sendable (any PeerClient, String, Double) async -> PeerOutcome<Value>
    ) async throws -> Value {
        let peers = self.peers
        let timeout = timeoutSeconds ?? max(1, outage.probeTimeoutSeconds * 2)
        let found = await withTaskGroup(of: Value?.self) { group -> Value? in
            for url in reachablePeers() {
                group.addTask { await ask(peers, url, timeout).value }
            }
            for await value in group { if let value { group.cancelAll(); return value } }
            return nil
        }
        if let found { return found }
        throw ServiceError.storeUnavailable(TaskStoreError("no node this one reaches runs task \"\(taskId)\""))
    }

    /// The URLs of the other nodes that answered a probe lately.
    private func reachablePeers() -> [String] {
        let time = now
        return outage.peers.filter { outage.answered($0.key, at: time) }.map(\.value)
    }
}
