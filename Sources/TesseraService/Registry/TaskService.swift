import Foundation
import TesseraStore
import TesseraWorkerProtocol

/// What the HTTP API asks of a node, whatever node runs the task: `ClusterService` answers it for
/// the whole cluster, passing what runs here to its `TaskRegistry`. The HTTP layer reaches tasks
/// and nodes only through this. Bodies are raw JSON: `TaskRegistry` reads and validates them
/// (with `TaskValidator`) on the node that runs the task, not the HTTP layer.
public protocol TaskService: Sendable {
    /// Starts a task from a task document (`POST /v1/tasks`). Throws `ServiceError`
    /// (`InvalidTask` 400, `TaskExists` 409, `TooManyTasks` 429, `ShuttingDown` 503).
    func create(_ body: Data) async throws -> TaskStatus
    /// Every task the registry knows, finished ones included until they are forgotten.
    func list() async -> [TaskStatus]
    /// `list()`, marked when it may lack tasks (`GET /v1/tasks`).
    func listing() async -> TaskListing
    /// `TaskNotFound` 404.
    func status(_ taskId: String) async throws -> TaskStatus
    /// Applies an update (`PATCH`): `layout`, `audio`, `inputs`, `outputs`, optional `sequence`.
    /// `InvalidUpdate` 400, `TaskNotFound` 404, `InvalidState` / `StaleSequence` 409.
    func update(_ taskId: String, _ body: Data) async throws -> TaskStatus
    /// Stops a task and returns its final status (`DELETE`).
    func stop(_ taskId: String) async throws -> TaskStatus
    /// The current composite frame as PNG. `TaskNotFound` 404, `InvalidState` 409 (audio-only or ended).
    func snapshot(_ taskId: String) async throws -> Data
    /// Puts an SEI message into the task's next output frames (`POST /v1/tasks/{taskId}/sei`).
    /// `TaskNotFound` 404, `InvalidSEI` 400 (a field of the body, or an audio-only or relay task),
    /// `InvalidState` 409 (ended).
    func injectSEI(_ taskId: String, _ body: Data) async throws -> SEIAccepted
    /// The task's document as last accepted, with its sequence (`GET /v1/tasks/{taskId}/document`).
    /// `TaskNotFound` 404, `StoreUnavailable` 503.
    func document(_ taskId: String) async throws -> AcceptedDocument
    /// Refuses new tasks from now on (`ShuttingDown` 503) and ends every running task properly
    /// (encoders flushed, trailers written, connections closed), waiting at most `seconds`.
    func shutdown(deadlineSeconds seconds: Double) async
    /// `shutdown`, saying what becomes of the tasks (`--on-shutdown`): `forGood` ends them for
    /// good (final status `stopped`, reason "server shut down"; a server started on this task
    /// store does not run them again); otherwise as `shutdown`: they resume with the next server.
    func shutdown(deadlineSeconds seconds: Double, forGood: Bool) async
    /// `/readyz`: this node takes API traffic (its task store answers, it is not draining).
    func isReady() async -> Bool
    /// `/readyz` with its body: also what this node says of its task store (other nodes probe it).
    func readiness() async -> Readiness
    /// The cluster's nodes as the task store sees them (`GET /v1/nodes`). `StoreUnavailable` 503.
    func nodes() async throws -> [NodeInfo]
    /// Where the HLS origin (`/v1/tasks/{taskId}/hls/…`) finds the task's files: on this node,
    /// or the node to pass the request on to. `TaskNotFound` 404.
    func hlsOrigin(_ taskId: String) async throws -> HLSOriginRoute
}

extension TaskService {
    public func shutdown(deadlineSeconds seconds: Double, forGood: Bool) async { await shutdown(deadlineSeconds: seconds) }
    public func isReady() async -> Bool { true }
    public func listing() async -> TaskListing { TaskListing(tasks: await list()) }
    public func readiness() async -> Readiness { await isReady() ? .ready : Readiness(ready: false, status: "not ready") }
    public func nodes() async throws -> [NodeInfo] { [] }
    /// A service that runs no tasks serves no HLS.
    public func hlsOrigin(_ taskId: String) async throws -> HLSOriginRoute { throw ServiceError.taskNotFound(taskId) }
    /// A service without a task store keeps no documents.
    public func document(_ taskId: String) async throws -> AcceptedDocument { throw ServiceError.taskNotFound(taskId) }
}

/// What `/readyz` answers: 200 when `ready`, else 503; `status` is its body's word.
public struct Readiness: Sendable, Equatable {
    public var ready: Bool
    /// `ready`, `store unreachable` (200 while every node sees the store's outage) or `not ready`.
    public var status: String
    /// Whether this node reaches its task store.
    public var storeReachable: Bool
    public var reason: String?
    /// Free bytes of the output directory (nil when it cannot be read).
    public var outputDirFreeBytes: Int64?

    public init(ready: Bool, status: String, storeReachable: Bool = true, reason: String? = nil) {
        self.ready = ready; self.status = status; self.storeReachable = storeReachable; self.reason = reason
    }

    public static let ready = Readiness(ready: true, status: "ready")
}

/// An error of the task service, the same whatever carries the request: `kind` says what went
/// wrong (see `ServiceError+Kind.swift`); the HTTP layer answers it with
/// `{"error": {"code", "message", "path"}}` and the status code it gives that kind.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var kind: Kind
    public var message: String
    /// The field at fault (`layout.regions[2].width`), for `InvalidTask` / `InvalidUpdate`.
    public var path: String?
    /// Every problem found, when there were several (the first is `message` / `path`).
    public var issues: [Issue]
    /// Seconds after which a retry may succeed (no room, shutting down, store unreachable).
    public var retryAfterSeconds: Int?

    public struct Issue: Sendable, Equatable, Codable {
        public var path: String
        public var message: String
        public init(path: String, message: String) { self.path = path; self.message = message }
    }

    /// The API's name of the error (`TaskNotFound`…).
    public var code: String { kind.code }

    public init(_ kind: Kind, message: String, path: String? = nil, issues: [Issue] = [],
                retryAfterSeconds: Int? = nil) {
        self.kind = kind; self.message = message; self.path = path
        self.issues = issues; self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { path.map { "\(code): \($0): \(message)" } ?? "\(code): \(message)" }

    public static func taskNotFound(_ id: String) -> ServiceError {
        ServiceError(.taskNotFound, message: "no task \"\(id)\"")
    }
    public static func taskExists(_ id: String) -> ServiceError {
        ServiceError(.taskExists, message: "a task \"\(id)\" already exists")
    }
    public static func invalidState(_ message: String) -> ServiceError {
        ServiceError(.invalidState, message: message)
    }
    public static func staleSequence(got: Int64, last: Int64) -> ServiceError {
        ServiceError(.staleSequence,
                     message: "sequence \(got) is not greater than the last applied (\(last))", path: "sequence")
    }
    /// `outputs[index].url` names what `holder` is writing.
    public static func outputInUse(index: Int, url: String, holder: String) -> ServiceError {
        ServiceError(.outputInUse,
                     message: "\(url) is being written by task \"\(holder)\": one recording has one writer; stop that task or choose another name",
                     path: "outputs[\(index)].url")
    }
    public static func tooManyTasks(limit: Int) -> ServiceError {
        ServiceError(.tooManyTasks, message: "this server runs at most \(limit) tasks",
                     retryAfterSeconds: 10)
    }
    public static let shuttingDown = ServiceError(.shuttingDown, message: "the server is shutting down",
                                                  retryAfterSeconds: 30)
}

/// The answer to an accepted SEI injection (202).
public struct SEIAccepted: Codable, Sendable, Equatable {
    public var taskId: String
    /// The message's UUID as 32 hex digits.
    public var uuid: String
    /// Payload bytes after the UUID.
    public var bytes: Int
    /// Output frames that will carry it.
    public var `repeat`: Int

    public init(taskId: String, uuid: String, bytes: Int, repeat count: Int) {
        self.taskId = taskId; self.uuid = uuid; self.bytes = bytes; self.repeat = count
    }
}

/// `GET /v1/tasks`: every task; `partial` says why the list may lack some (the task store is down
/// and it holds what the reachable nodes run).
public struct TaskListing: Sendable, Equatable {
    public var tasks: [TaskStatus]
    public var partial: String?
    public init(tasks: [TaskStatus], partial: String? = nil) { self.tasks = tasks; self.partial = partial }
}
