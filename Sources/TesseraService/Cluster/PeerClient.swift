import Foundation
import TesseraWorkerProtocol

/// How this node asks another node of the cluster about a task (`ClusterService`), in the
/// service's terms. The transport is TesseraServer's `HTTPPeerClient`: it builds the API's paths,
/// reads its error bodies and maps status codes to `PeerOutcome`s, and marks each request with
/// `ForwardedRequest.header` so the node that gets one answers it itself and never passes it on.
/// `node` is the other node's advertised base URL.
public protocol PeerClient: Sendable {
    /// Run this task (`POST /v1/tasks` with the prepared document).
    func create(document: Data, on node: String) async -> PeerOutcome<TaskStatus>
    func status(of taskId: String, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<TaskStatus>
    func update(_ taskId: String, body: Data, on node: String) async -> PeerOutcome<TaskStatus>
    func stop(_ taskId: String, on node: String) async -> PeerOutcome<TaskStatus>
    /// The task's current composite as PNG.
    func snapshot(of taskId: String, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<Data>
    func injectSEI(into taskId: String, body: Data, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<SEIAccepted>
    /// The tasks that node runs (a list passed on is answered with the node's own tasks).
    func tasks(on node: String, timeoutSeconds: Double) async -> PeerOutcome<[TaskStatus]>
    /// Whether the node answers, and whether it reaches the task store (its `/readyz`).
    func probe(_ node: String, timeoutSeconds: Double) async -> PeerProbe
}

/// What another node answered a request with.
public enum PeerOutcome<Value: Sendable>: Sendable {
    case accepted(Value)
    /// It has no room for this now (its task limit, its disk, or it is going away): another node
    /// may take a new task; a request about one of its tasks fails with this error.
    case full(ServiceError)
    /// It could not be reached, or did not answer in time.
    case unavailable(String)
    /// It refused the request: the error is the answer, passed back as it came (a `ServiceError`,
    /// or a refusal of that node's HTTP layer, which this node's HTTP layer answers alike).
    case refused(any Error)

    public var value: Value? {
        if case .accepted(let value) = self { return value }
        return nil
    }

    /// The same answer with its value transformed.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> PeerOutcome<T> {
        switch self {
        case .accepted(let value): return .accepted(try transform(value))
        case .full(let error): return .full(error)
        case .unavailable(let reason): return .unavailable(reason)
        case .refused(let error): return .refused(error)
        }
    }

    /// The value, or the error the caller gets for a request passed on to node `nodeId`.
    public func get(fromNode nodeId: String) throws -> Value {
        switch self {
        case .accepted(let value): return value
        case .full(let error): throw error
        case .refused(let error): throw error
        case .unavailable(let reason):
            throw ServiceError(.nodeUnavailable, message: "node \(nodeId), which runs the task, cannot be reached: \(reason)",
                               retryAfterSeconds: 5)
        }
    }
}

/// What a probe of another node found.
public enum PeerProbe: Sendable, Equatable {
    /// No answer (refused, timed out, or unreadable).
    case silent
    case answered(seesStore: Bool)
}

/// Marks a request that another node passed on (task-local, set by the HTTP layer).
public enum ForwardedRequest {
    /// The header a forwarded request carries; its value names the node that sent it.
    public static let header = "X-Tessera-Forwarded-By"
    @TaskLocal public static var fromNode: String?
}
