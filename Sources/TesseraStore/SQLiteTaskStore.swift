import Foundation
import GRDB
import ServiceLifecycle

/// The task store of a single node: one SQLite file (WAL mode, so reads never wait for a write)
/// in the state directory. Its clock is this machine's, which is the only clock there is.
public final class SQLiteTaskStore: TaskStore, Sendable {
    // DatabasePool is Sendable and serialises writes itself: every compare-and-set below is one
    // statement, or one write transaction, so no lock of our own is needed.
    private let pool: DatabasePool
    private let path: String

    /// Opens (creating it and its directory if needed) the database at `path`. Call `prepare()`
    /// before anything else.
    public init(path: String) throws {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            var configuration = Configuration()
            // Another process (e.g. `tessera` CLI inspecting the file) may hold the write lock
            // briefly; wait for it rather than failing at once.
            configuration.busyMode = .timeout(5)
            configuration.label = "tessera-store"
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw TaskStoreError("store: cannot open the SQLite database \(path): \(error)")
        }
    }

    public func prepare() async throws {
        // The migrator takes the pool and runs its own write transaction; it is synchronous, but runs
        // once at start-up and only blocks for the few statements of a migration.
        do {
            try Self.migrator.migrate(pool)
        } catch {
            throw TaskStoreError("store: cannot create or migrate the schema of \(path): \(error)")
        }
    }

    /// Nothing runs in the background of an SQLite file: waits for graceful shutdown or
    /// cancellation, then closes it.
    public func run() async {
        try? await gracefulShutdown()
        await close()
    }

    /// Closes the file; the store is not used afterwards (for a store nobody runs).
    public func close() async {
        try? pool.close()
    }

    // MARK: Tasks

    public func createTask(_ task: NewTask) async throws -> CreateOutcome {
        let now = Date().timeIntervalSince1970
        return try await write("createTask \(task.taskId)") { db in
            // One upsert: a running task of that id stays as it is (no change counted), a stopped
            // one is replaced as a new task. Writes are serialised, so two creations cannot both win.
            try db.execute(sql: """
                INSERT INTO tasks (task_id, document, sequence, desired, node, generation, status, files,
                                   webhook_sequence, created_at, updated_at, created_order)
                VALUES (?, ?, NULL, 'running', ?, 1, ?, '{}', 0, ?, ?,
                        (SELECT COALESCE(MAX(created_order), 0) + 1 FROM tasks))
                ON CONFLICT (task_id) DO UPDATE SET
                    document = excluded.document, sequence = NULL, desired = 'running', node = excluded.node,
                    generation = tasks.generation + 1, status = excluded.status, files = '{}', webhook_sequence = 0,
                    created_at = excluded.created_at, updated_at = excluded.updated_at,
                    created_order = excluded.created_order
                WHERE tasks.desired = 'stopped'
                """, arguments: [task.taskId, task.document, task.node, task.status, now, now])
            return db.changesCount > 0 ? .created : .exists
        }
    }

    // MARK: Output claims

    public func claimOutputs(_ keys: [String], taskId: String) async throws -> OutputClaimConflict? {
        guard !keys.isEmpty else { return nil }
        let now = Date().timeIntervalSince1970
        // One write transaction: SQLite serialises writers, so two claims of a key cannot both win.
        return try await write("claimOutputs \(taskId)") { db in
            for key in keys {
                let holder = try String.fetchOne(db, sql: """
                    SELECT c.task_id FROM output_claims c JOIN tasks t ON t.task_id = c.task_id
                    WHERE c.key = ? AND c.task_id <> ? AND t.desired = 'running'
                    """, arguments: [key, taskId])
                if let holder { return OutputClaimConflict(key: key, holder: holder) }
            }
            for key in keys {
                try db.execute(sql: """
                    INSERT INTO output_claims (key, task_id, claimed_at) VALUES (?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET task_id = excluded.task_id, claimed_at = excluded.claimed_at
                    """, arguments: [key, taskId, now])
            }
            return nil
        }
    }

    public func lastHolders(of keys: [String]) async throws -> [String: String] {
        guard !keys.isEmpty else { return [:] }
        return try await read("lastHolders") { db in
            var holders: [String: String] = [:]
            for key in keys {
                if let holder = try String.fetchOne(db, sql: "SELECT task_id FROM output_claims WHERE key = ?", arguments: [key]) {
                    holders[key] = holder
                }
            }
            return holders
        }
    }

    public func task(_ taskId: String) async throws -> StoredTask? {
        try await read("task \(taskId)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM tasks WHERE task_id = ?", arguments: [taskId])
                .map(Self.storedTask)
        }
    }

    public func allTasks() async throws -> [StoredTask] {
        try await read("allTasks") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM tasks ORDER BY created_order").map(Self.storedTask)
        }
    }

    public func tasks(onNode node: String) async throws -> [StoredTask] {
        try await read("tasks(onNode: \(node))") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM tasks WHERE node = ? ORDER BY created_order", arguments: [node])
                .map(Self.storedTask)
        }
    }

    public func orphanedTasks() async throws -> [StoredTask] {
        let now = Date().timeIntervalSince1970
        return try await read("orphanedTasks") { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM tasks t
                WHERE t.desired = 'running' AND (t.node IS NULL OR NOT EXISTS (
                    SELECT 1 FROM nodes n WHERE n.node_id = t.node AND n.heartbeat_at + n.lease_seconds > ?))
                ORDER BY t.created_order
                """, arguments: [now]).map(Self.storedTask)
        }
    }

    public func updateDocument(taskId: String, document: String, sequence: Int64?, node: String, generation: Int64) async throws -> Bool {
        let now = Date().timeIntervalSince1970
        return try await write("updateDocument \(taskId)") { db in
            try db.execute(sql: """
                UPDATE tasks SET document = ?, sequence = ?, updated_at = ?
                WHERE task_id = ? AND node = ? AND generation = ?
                """, arguments: [document, sequence, now, taskId, node, generation])
            return db.changesCount > 0
        }
    }

    @discardableResult
    public func setDesired(taskId: String, _ desired: DesiredState) async throws -> Bool {
        let now = Date().timeIntervalSince1970
        return try await write("setDesired \(taskId)") { db in
            try db.execute(sql: "UPDATE tasks SET desired = ?, updated_at = ? WHERE task_id = ?",
                           arguments: [desired.rawValue, now, taskId])
            return db.changesCount > 0
        }
    }

    public func saveStatus(taskId: String, _ report: StatusReport, node: String, generation: Int64) async throws -> Bool {
        let now = Date().timeIntervalSince1970
        let files = try FilesCoding.encode(report.files)
        return try await write("saveStatus \(taskId)") { db in
            try db.execute(sql: """
                UPDATE tasks SET status = ?, files = ?, webhook_sequence = ?, updated_at = ?
                WHERE task_id = ? AND node = ? AND generation = ?
                """, arguments: [report.status, files, report.webhookSequence, now, taskId, node, generation])
            return db.changesCount > 0
        }
    }

    public func claim(taskId: String, node: String?, expectedGeneration: Int64) async throws -> Int64? {
        let now = Date().timeIntervalSince1970
        return try await write("claim \(taskId)") { db in
            try db.execute(sql: """
                UPDATE tasks SET node = ?, generation = generation + 1, updated_at = ?
                WHERE task_id = ? AND generation = ?
                """, arguments: [node, now, taskId, expectedGeneration])
            return db.changesCount > 0 ? expectedGeneration + 1 : nil
        }
    }

    @discardableResult
    public func forgetStoppedTasks(before date: Date) async throws -> Int {
        try await write("forgetStoppedTasks") { db in
            try db.execute(sql: "DELETE FROM tasks WHERE desired = 'stopped' AND updated_at < ?",
                           arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }

    // MARK: Nodes

    public func heartbeat(_ node: NodeHeartbeat) async throws {
        let now = Date().timeIntervalSince1970
        try await write("heartbeat \(node.nodeId)") { db in
            try db.execute(sql: """
                INSERT INTO nodes (node_id, advertise_url, capacity, running, draining, lease_seconds, heartbeat_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (node_id) DO UPDATE SET
                    advertise_url = excluded.advertise_url, capacity = excluded.capacity,
                    running = excluded.running, draining = excluded.draining,
                    lease_seconds = excluded.lease_seconds, heartbeat_at = excluded.heartbeat_at
                """, arguments: [node.nodeId, node.advertiseURL, node.capacity, node.running, node.draining,
                                 node.leaseSeconds, now])
        }
    }

    public func nodes() async throws -> [NodeInfo] {
        try await read("nodes") { db in
            let now = Date().timeIntervalSince1970
            return try Row.fetchAll(db, sql: "SELECT * FROM nodes ORDER BY node_id").map { row in
                let heartbeatAt: Double = row["heartbeat_at"]
                let lease: Double = row["lease_seconds"]
                return NodeInfo(nodeId: row["node_id"], advertiseURL: row["advertise_url"], capacity: row["capacity"],
                                running: row["running"], draining: row["draining"], leaseSeconds: lease,
                                heartbeatAt: Date(timeIntervalSince1970: heartbeatAt), alive: now < heartbeatAt + lease)
            }
        }
    }

    public func removeNode(_ nodeId: String) async throws {
        try await write("removeNode \(nodeId)") { db in
            try db.execute(sql: "DELETE FROM nodes WHERE node_id = ?", arguments: [nodeId])
        }
    }

    // MARK: Plumbing

    private static func storedTask(_ row: Row) throws -> StoredTask {
        let taskId: String = row["task_id"]
        let desiredText: String = row["desired"]
        guard let desired = DesiredState(rawValue: desiredText) else {
            throw TaskStoreError("store: task \(taskId) has unknown desired state \"\(desiredText)\"")
        }
        let createdAt: Double = row["created_at"]
        let updatedAt: Double = row["updated_at"]
        return StoredTask(taskId: taskId, document: row["document"], sequence: row["sequence"], desired: desired,
                          node: row["node"], generation: row["generation"], status: row["status"],
                          files: try FilesCoding.decode(row["files"], taskId: taskId),
                          webhookSequence: row["webhook_sequence"],
                          createdAt: Date(timeIntervalSince1970: createdAt),
                          updatedAt: Date(timeIntervalSince1970: updatedAt))
    }

    /// GRDB errors become `TaskStoreError`s naming the operation and the file, so callers handle
    /// one error type for both stores.
    private func write<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(body)
        } catch let error as TaskStoreError {
            throw error
        } catch {
            throw TaskStoreError("store: \(what) failed on \(path): \(error)")
        }
    }

    private func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as TaskStoreError {
            throw error
        } catch {
            throw TaskStoreError("store: \(what) failed on \(path): \(error)")
        }
    }
}
