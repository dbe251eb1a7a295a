import Foundation
import Logging
import PostgresNIO

/// The task store of a cluster: PostgreSQL shared by every node. The database's clock stamps
/// heartbeats and judges `alive`, so the nodes' clocks need not agree. Every compare-and-set
/// (creation, claim, fenced write) is one statement, atomic on the server.
///
/// Its connection pool works while `run()` runs (`PostgresClient.run()`): under `tessera serve`
/// that is a service of the group; a call made before it starts waits for it (within `timeout`).
public final class PostgresTaskStore: TaskStore, Sendable {
    private let client: PostgresClient
    private let logger: Logger
    private let timeout: Duration

    /// - Parameters:
    ///   - url: `postgres://USER[:PASSWORD]@HOST:PORT/DB` (or `postgresql://`); TLS is not used.
    ///   - timeout: the longest any one call may take, connecting included; past it the call throws
    ///     a `TaskStoreError` (an unreachable database must not hang the node).
    public init(url: String, logger: Logger, timeout: Duration = .seconds(5)) throws {
        let parsed = try PostgresURL(parsing: url)
        var configuration = PostgresClient.Configuration(
            host: parsed.host, port: parsed.port, username: parsed.user, password: parsed.password,
            database: parsed.database, tls: .disable)
        // Well under `timeout`, so a refused or black-holed connection is retried at least once.
        configuration.options.connectTimeout = .seconds(2)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.timeout = timeout
    }

    /// Drives the connection pool until graceful shutdown or cancellation, then closes its
    /// connections. Once.
    public func run() async {
        await client.run()
    }

    public func prepare() async throws {
        try await bounded("prepare") { client, logger in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.migrate(connection, logger: logger)
            }
        }
    }

    // MARK: Tasks

    public func createTask(_ task: NewTask) async throws -> CreateOutcome {
        // ON CONFLICT ... WHERE: of two nodes creating the same id at once, the second waits for
        // the first's row and then finds it running, so exactly one sees a row returned.
        let rows = try await count("createTask \(task.taskId)", """
            INSERT INTO tessera_tasks (task_id, document, sequence, desired, node, generation, status, files,
                                       webhook_sequence, created_at, updated_at, created_order)
            VALUES (\(task.taskId), \(task.document), NULL, 'running', \(task.node), 1, \(task.status), '{}', 0,
                    clock_timestamp(), clock_timestamp(), nextval('tessera_task_order'))
            ON CONFLICT (task_id) DO UPDATE SET
                document = EXCLUDED.document, sequence = NULL, desired = 'running', node = EXCLUDED.node,
                generation = tessera_tasks.generation + 1, status = EXCLUDED.status, files = '{}', webhook_sequence = 0,
                created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,
                created_order = EXCLUDED.created_order
            WHERE tessera_tasks.desired = 'stopped'
            RETURNING task_id
            """)
        return rows > 0 ? .created : .exists
    }

    // MARK: Output claims

    public func claimOutputs(_ keys: [String], taskId: String) async throws -> OutputClaimConflict? {
        guard !keys.isEmpty else { return nil }
        // One transaction holding a transaction-scoped advisory lock per key, taken in one order
        // (no deadlock between two claimers): once a claimer has the locks, every earlier claim of
        // those keys has committed, so its reads see them and two nodes cannot both win a key.
        let sorted = Array(Set(keys)).sorted()
        return try await bounded("claimOutputs \(taskId)") { client, logger in
            try await client.withTransaction(logger: logger) { connection -> OutputClaimConflict? in
                for key in sorted {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.claimLockSpace), hashtext(\(key)))", logger: logger)
                }
                for key in keys {
                    let rows = try await connection.query("""
                        SELECT c.task_id FROM tessera_output_claims c JOIN tessera_tasks t ON t.task_id = c.task_id
                        WHERE c.key = \(key) AND c.task_id <> \(taskId) AND t.desired = 'running'
                        """, logger: logger)
                    for try await holder in rows.decode(String.self) {
                        return OutputClaimConflict(key: key, holder: holder)
                    }
                }
                for key in keys {
                    try await connection.query("""
                        INSERT INTO tessera_output_claims (key, task_id, claimed_at) VALUES (\(key), \(taskId), clock_timestamp())
                        ON CONFLICT (key) DO UPDATE SET task_id = EXCLUDED.task_id, claimed_at = EXCLUDED.claimed_at
                        """, logger: logger)
                }
                return nil
            }
        }
    }

    public func lastHolders(of keys: [String]) async throws -> [String: String] {
        guard !keys.isEmpty else { return [:] }
        return try await bounded("lastHolders") { client, logger in
            let rows = try await client.query("SELECT key, task_id FROM tessera_output_claims WHERE key = ANY(\(keys))",
                                              logger: logger)
            var holders: [String: String] = [:]
            for try await (key, holder) in rows.decode((String, String).self) { holders[key] = holder }
            return holders
        }
    }

    /// The first key of the two-key advisory locks that serialise output claims (the second is
    /// the key's hash): apart from the schema lock's space.
    static let claimLockSpace: Int32 = 0x7E55

    public func task(_ taskId: String) async throws -> StoredTask? {
        try await fetchTasks("task \(taskId)", "SELECT \(unescaped: Self.taskColumns) FROM tessera_tasks WHERE task_id = \(taskId)").first
    }

    public func allTasks() async throws -> [StoredTask] {
        try await fetchTasks("allTasks", "SELECT \(unescaped: Self.taskColumns) FROM tessera_tasks ORDER BY created_order")
    }

    public func tasks(onNode node: String) async throws -> [StoredTask] {
        try await fetchTasks("tasks(onNode: \(node))", """
            SELECT \(unescaped: Self.taskColumns) FROM tessera_tasks WHERE node = \(node) ORDER BY created_order
            """)
    }

    public func orphanedTasks() async throws -> [StoredTask] {
        try await fetchTasks("orphanedTasks", """
            SELECT \(unescaped: Self.taskColumns) FROM tessera_tasks t
            WHERE t.desired = 'running' AND (t.node IS NULL OR NOT EXISTS (
                SELECT 1 FROM tessera_nodes n
                WHERE n.node_id = t.node AND n.heartbeat_at + n.lease_seconds * interval '1 second' > clock_timestamp()))
            ORDER BY t.created_order
            """)
    }

    public func updateDocument(taskId: String, document: String, sequence: Int64?, node: String, generation: Int64) async throws -> Bool {
        try await count("updateDocument \(taskId)", """
            UPDATE tessera_tasks SET document = \(document), sequence = \(sequence), updated_at = clock_timestamp()
            WHERE task_id = \(taskId) AND node = \(node) AND generation = \(generation)
            RETURNING 1
            """) > 0
    }

    @discardableResult
    public func setDesired(taskId: String, _ desired: DesiredState) async throws -> Bool {
        try await count("setDesired \(taskId)", """
            UPDATE tessera_tasks SET desired = \(desired.rawValue), updated_at = clock_timestamp()
            WHERE task_id = \(taskId)
            RETURNING 1
            """) > 0
    }

    public func saveStatus(taskId: String, _ report: StatusReport, node: String, generation: Int64) async throws -> Bool {
        let files = try FilesCoding.encode(report.files)
        return try await count("saveStatus \(taskId)", """
            UPDATE tessera_tasks SET status = \(report.status), files = \(files),
                webhook_sequence = \(report.webhookSequence), updated_at = clock_timestamp()
            WHERE task_id = \(taskId) AND node = \(node) AND generation = \(generation)
            RETURNING 1
            """) > 0
    }

    public func claim(taskId: String, node: String?, expectedGeneration: Int64) async throws -> Int64? {
        try await count("claim \(taskId)", """
            UPDATE tessera_tasks SET node = \(node), generation = generation + 1, updated_at = clock_timestamp()
            WHERE task_id = \(taskId) AND generation = \(expectedGeneration)
            RETURNING 1
            """) > 0 ? expectedGeneration + 1 : nil
    }

    @discardableResult
    public func forgetStoppedTasks(before date: Date) async throws -> Int {
        try await count("forgetStoppedTasks", """
            DELETE FROM tessera_tasks WHERE desired = 'stopped' AND updated_at < \(date) RETURNING 1
            """)
    }

    // MARK: Nodes

    public func heartbeat(_ node: NodeHeartbeat) async throws {
        _ = try await count("heartbeat \(node.nodeId)", """
            INSERT INTO tessera_nodes (node_id, advertise_url, capacity, running, draining, lease_seconds, heartbeat_at)
            VALUES (\(node.nodeId), \(node.advertiseURL), \(node.capacity), \(node.running), \(node.draining),
                    \(node.leaseSeconds), clock_timestamp())
            ON CONFLICT (node_id) DO UPDATE SET
                advertise_url = EXCLUDED.advertise_url, capacity = EXCLUDED.capacity, running = EXCLUDED.running,
                draining = EXCLUDED.draining, lease_seconds = EXCLUDED.lease_seconds, heartbeat_at = EXCLUDED.heartbeat_at
            """)
    }

    public func nodes() async throws -> [NodeInfo] {
        try await bounded("nodes") { client, logger in
            let rows = try await client.query("""
                SELECT node_id, advertise_url, capacity, running, draining, lease_seconds, heartbeat_at,
                       heartbeat_at + lease_seconds * interval '1 second' > clock_timestamp()
                FROM tessera_nodes ORDER BY node_id
                """, logger: logger)
            var nodes: [NodeInfo] = []
            for try await (id, url, capacity, running, draining, lease, heartbeatAt, alive)
                in rows.decode((String, String, Int, Int, Bool, Double, Date, Bool).self) {
                nodes.append(NodeInfo(nodeId: id, advertiseURL: url, capacity: capacity, running: running,
                                      draining: draining, leaseSeconds: lease, heartbeatAt: heartbeatAt, alive: alive))
            }
            return nodes
        }
    }

    public func removeNode(_ nodeId: String) async throws {
        _ = try await count("removeNode \(nodeId)", "DELETE FROM tessera_nodes WHERE node_id = \(nodeId)")
    }

    /// Runs one statement of the caller's own, bounded like every call (`CREATE DATABASE` for the
    /// tests' throw-away databases). Never with text from a request.
    public func execute(unsafeSQL sql: String) async throws {
        _ = try await count("execute", PostgresQuery(unsafeSQL: sql))
    }

    // MARK: Plumbing

    private static let taskColumns = """
        task_id, document, sequence, desired, node, generation, status, files, webhook_sequence, created_at, updated_at
        """

    private func fetchTasks(_ what: String, _ query: PostgresQuery) async throws -> [StoredTask] {
        try await bounded(what) { client, logger in
            let rows = try await client.query(query, logger: logger)
            var tasks: [StoredTask] = []
            for try await (taskId, document, sequence, desired, node, generation, status, files, webhookSequence, createdAt, updatedAt)
                in rows.decode((String, String, Int64?, String, String?, Int64, String?, String, Int64, Date, Date).self) {
                guard let desiredState = DesiredState(rawValue: desired) else {
                    throw TaskStoreError("store: task \(taskId) has unknown desired state \"\(desired)\"")
                }
                tasks.append(StoredTask(taskId: taskId, document: document, sequence: sequence, desired: desiredState,
                                        node: node, generation: generation, status: status,
                                        files: try FilesCoding.decode(files, taskId: taskId),
                                        webhookSequence: webhookSequence, createdAt: createdAt, updatedAt: updatedAt))
            }
            return tasks
        }
    }

    /// Runs a statement and counts the rows it returns (`RETURNING`), which is how each
    /// compare-and-set tells whether it won.
    private func count(_ what: String, _ query: PostgresQuery) async throws -> Int {
        try await bounded(what) { client, logger in
            var count = 0
            for try await _ in try await client.query(query, logger: logger) { count += 1 }
            return count
        }
    }

    /// Every call goes through here: bounded by `timeout`, and any failure becomes a
    /// `TaskStoreError` naming the operation (PSQLError's own description is deliberately vague).
    private func bounded<T: Sendable>(_ what: String,
                                      _ body: @escaping @Sendable (PostgresClient, Logger) async throws -> T) async throws -> T {
        let client = self.client, logger = self.logger
        do {
            return try await withDeadline(timeout, what) { try await body(client, logger) }
        } catch let error as TaskStoreError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw TaskStoreError("store: \(what) failed: \(Self.describe(error))")
        }
    }

    /// The server's message and SQLSTATE, or the connection problem; never the query's bound
    /// values (documents) nor the connection's password.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        var text = "\(error.code)"
        if let info = error.serverInfo {
            if let message = info[.message] { text += ": \(message)" }
            if let state = info[.sqlState] { text += " (SQLSTATE \(state))" }
        }
        if let underlying = error.underlying { text += ": \(underlying)" }
        return text
    }
}
