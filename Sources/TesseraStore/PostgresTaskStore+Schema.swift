import Logging
import PostgresNIO

extension PostgresTaskStore {
    /// Numbered migrations, applied in order and recorded in `tessera_schema_version`. Never edit
    /// one that has shipped: add the next number.
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            // Creation order: a sequence rather than `created_at`, which two nodes can tie on.
            "CREATE SEQUENCE tessera_task_order",
            """
            CREATE TABLE tessera_tasks (
                task_id text PRIMARY KEY,
                document text NOT NULL,
                sequence bigint,
                desired text NOT NULL CHECK (desired IN ('running', 'stopped')),
                node text,
                generation bigint NOT NULL,
                status text,
                files text NOT NULL DEFAULT '{}',
                webhook_sequence bigint NOT NULL DEFAULT 0,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                created_order bigint NOT NULL
            )
            """,
            "CREATE INDEX tessera_tasks_by_node ON tessera_tasks (node)",
            "CREATE INDEX tessera_tasks_by_order ON tessera_tasks (created_order)",
            """
            CREATE TABLE tessera_nodes (
                node_id text PRIMARY KEY,
                advertise_url text NOT NULL,
                capacity bigint NOT NULL,
                running bigint NOT NULL,
                draining boolean NOT NULL,
                lease_seconds double precision NOT NULL,
                heartbeat_at timestamptz NOT NULL
            )
            """,
        ]),
        (2, [
            // One row per output key (a file, playlist or object a task writes): the task that
            // holds it, or last held it. Held only while that task's desired state is running.
            """
            CREATE TABLE tessera_output_claims (
                key text PRIMARY KEY,
                task_id text NOT NULL,
                claimed_at timestamptz NOT NULL
            )
            """,
        ]),
    ]

    /// Any constant both old and new releases agree on; it only has to differ from other advisory
    /// locks taken in the same database.
    static let schemaLockKey: Int64 = 0x7E55_E4A0_5C4E_0001

    /// Creates or migrates the schema in one transaction under a transaction-scoped advisory lock,
    /// so several nodes starting at once apply each migration exactly once and the others then see
    /// it done; a failed migration rolls back whole.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(schemaLockKey))", logger: logger)
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS tessera_schema_version (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
            )
            """, logger: logger)
        var current = 0
        let rows = try await connection.query("SELECT COALESCE(MAX(version), 0)::bigint FROM tessera_schema_version",
                                              logger: logger)
        for try await version in rows.decode(Int.self) { current = version }
        let latest = migrations.last?.version ?? 0
        guard current <= latest else {
            throw TaskStoreError("store: the database schema is version \(current), newer than this build knows (\(latest)); upgrade this node")
        }
        for migration in migrations where migration.version > current {
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("INSERT INTO tessera_schema_version (version) VALUES (\(migration.version))",
                                       logger: logger)
            logger.info("task store: applied schema migration \(migration.version)")
        }
    }
}
