import Foundation
import ServiceLifecycle

/// Where every accepted task lives, so that a task outlives the process and the machine that ran
/// it: an embedded SQLite file for one node (`SQLiteTaskStore`), PostgreSQL shared by a cluster
/// (`PostgresTaskStore`). Both pass the same conformance suite (`TaskStoreConformance`).
///
/// Leases: a node holds its tasks while its own heartbeat is fresh (`NodeInfo.alive`, judged by
/// the store's clock, so nodes need not agree on the time). Each task carries a `generation` that
/// grows by one at every claim; every write a node makes for a task it runs names the generation
/// it holds, and is refused once another node has claimed the task (fencing).
///
/// A store is a `Service`: its `run()` drives its connections (PostgreSQL's pool) until graceful
/// shutdown or cancellation, then closes them, and a PostgreSQL store answers only while it runs.
/// Under `tessera serve` it is the service group's first service, so the last to stop; a program
/// or a test without a group runs it beside its work with `withRunning`.
public protocol TaskStore: Service {
    /// Creates the schema, or migrates an older one; safe to call on every start, from every node.
    func prepare() async throws

    // MARK: Tasks

    /// Records a new task run by `task.node`, generation 1. `.exists` when the id names a task
    /// whose desired state is `running`; a stopped task of that id is replaced, its generation one
    /// past the old one's (so a straggler of the old run is still fenced off: read it back).
    func createTask(_ task: NewTask) async throws -> CreateOutcome
    func task(_ taskId: String) async throws -> StoredTask?
    /// Every task, in creation order.
    func allTasks() async throws -> [StoredTask]
    /// The tasks a node holds (any desired state), in creation order.
    func tasks(onNode node: String) async throws -> [StoredTask]
    /// Tasks whose desired state is `running` and whose node is nil, unknown or not alive: the
    /// ones another node should claim. In creation order.
    func orphanedTasks() async throws -> [StoredTask]
    /// Stores an accepted update. Fenced: false (nothing written) unless the task is still held
    /// by `node` at `generation`.
    func updateDocument(taskId: String, document: String, sequence: Int64?, node: String, generation: Int64) async throws -> Bool
    /// `running` or `stopped` (a DELETE, or a task that ended by itself). Not fenced: any node may
    /// stop any task. False when there is no such task.
    @discardableResult
    func setDesired(taskId: String, _ desired: DesiredState) async throws -> Bool
    /// The latest status as the running node sees it. Fenced like `updateDocument`.
    func saveStatus(taskId: String, _ report: StatusReport, node: String, generation: Int64) async throws -> Bool
    /// Moves the task to `node` (nil: to no node, for someone to claim) if its record still has
    /// `expectedGeneration`; returns the new generation (`expectedGeneration + 1`), or nil when
    /// another write came first.
    func claim(taskId: String, node: String?, expectedGeneration: Int64) async throws -> Int64?
    /// Removes tasks whose desired state is `stopped` and which were last written before `date`.
    /// Returns how many.
    @discardableResult
    func forgetStoppedTasks(before date: Date) async throws -> Int

    // MARK: Output claims

    /// Holds every one of `keys` (an output's file, playlist or object: `OutputClaimKey`) for
    /// `taskId`, unless a running task other than it holds one: then nothing is written and the
    /// first such key and its holder are returned. A key is held only while its holder's desired
    /// state is `running`, so a stopped or ended task frees its keys on every node at once, and a
    /// key claimed by a task that is not (or not yet) recorded as running holds nothing. Each row
    /// remembers the last task that held the key (see `lastHolders`). Atomic across the cluster.
    func claimOutputs(_ keys: [String], taskId: String) async throws -> OutputClaimConflict?
    /// The task that last held each of `keys`, running or not (keys never claimed are absent):
    /// whether an existing recording was written by this task or another.
    func lastHolders(of keys: [String]) async throws -> [String: String]

    // MARK: Nodes

    /// Records that a node lives (insert or update), stamped with the store's clock.
    func heartbeat(_ node: NodeHeartbeat) async throws
    /// Every node known, with `alive` judged by the store's clock against each node's
    /// `leaseSeconds`.
    func nodes() async throws -> [NodeInfo]
    func removeNode(_ nodeId: String) async throws
}

/// Runs `body` while `stores` run beside it, then stops them (each closes its connections) and
/// waits for them to end.
public func withRunning<T>(_ stores: [any TaskStore], _ body: () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for store in stores { group.addTask { try await store.run() } }
        defer { group.cancelAll() }
        return try await body()
    }
}

public enum DesiredState: String, Sendable, Codable, Equatable { case running, stopped }

public enum CreateOutcome: Sendable, Equatable { case created, exists }

public struct NewTask: Sendable, Equatable {
    public var taskId: String
    /// The task document as accepted (JSON text).
    public var document: String
    public var node: String
    /// The first status (JSON text).
    public var status: String?
    public init(taskId: String, document: String, node: String, status: String? = nil) {
        self.taskId = taskId; self.document = document; self.node = node; self.status = status
    }
}

/// What the node that runs a task writes back as it runs.
public struct StatusReport: Sendable, Equatable {
    /// The task status (JSON text).
    public var status: String
    /// Every file each file output has written so far, by output URL as given in the document.
    public var files: [String: [String]]
    /// The sequence number the task's next webhook event takes.
    public var webhookSequence: Int64
    public init(status: String, files: [String: [String]], webhookSequence: Int64) {
        self.status = status; self.files = files; self.webhookSequence = webhookSequence
    }
}

public struct StoredTask: Sendable, Equatable {
    public var taskId: String
    /// The task document as last accepted (JSON text).
    public var document: String
    /// The last applied update `sequence`.
    public var sequence: Int64?
    public var desired: DesiredState
    /// The node that runs the task (or must start it); nil while it waits for one.
    public var node: String?
    /// Lease generation; grows by one at every claim.
    public var generation: Int64
    /// The latest status (JSON text), as the running node last wrote it.
    public var status: String?
    public var files: [String: [String]]
    public var webhookSequence: Int64
    public var createdAt: Date
    public var updatedAt: Date

    public init(taskId: String, document: String, sequence: Int64?, desired: DesiredState, node: String?,
                generation: Int64, status: String?, files: [String: [String]], webhookSequence: Int64,
                createdAt: Date, updatedAt: Date) {
        self.taskId = taskId; self.document = document; self.sequence = sequence; self.desired = desired
        self.node = node; self.generation = generation; self.status = status; self.files = files
        self.webhookSequence = webhookSequence; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}

public struct NodeHeartbeat: Sendable, Equatable {
    public var nodeId: String
    /// How the other nodes reach this node's API (`http://10.0.0.5:8080`).
    public var advertiseURL: String
    /// `--max-tasks`.
    public var capacity: Int
    /// Tasks it runs now.
    public var running: Int
    public var draining: Bool
    /// The node counts as lost once this long has passed since its last heartbeat.
    public var leaseSeconds: Double
    public init(nodeId: String, advertiseURL: String, capacity: Int, running: Int, draining: Bool, leaseSeconds: Double) {
        self.nodeId = nodeId; self.advertiseURL = advertiseURL; self.capacity = capacity; self.running = running
        self.draining = draining; self.leaseSeconds = leaseSeconds
    }
}

public struct NodeInfo: Sendable, Equatable {
    public var nodeId: String
    public var advertiseURL: String
    public var capacity: Int
    public var running: Int
    public var draining: Bool
    public var leaseSeconds: Double
    /// The store's clock at the last heartbeat.
    public var heartbeatAt: Date
    /// The last heartbeat is younger than `leaseSeconds` by the store's clock.
    public var alive: Bool
    public init(nodeId: String, advertiseURL: String, capacity: Int, running: Int, draining: Bool, leaseSeconds: Double,
                heartbeatAt: Date, alive: Bool) {
        self.nodeId = nodeId; self.advertiseURL = advertiseURL; self.capacity = capacity; self.running = running
        self.draining = draining; self.leaseSeconds = leaseSeconds; self.heartbeatAt = heartbeatAt; self.alive = alive
    }
}

/// A store that could not be reached or refused a statement.
public struct TaskStoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A key another running task holds: the request that wanted it is refused naming both.
public struct OutputClaimConflict: Sendable, Equatable {
    public var key: String
    public var holder: String
    public init(key: String, holder: String) { self.key = key; self.holder = holder }
}
