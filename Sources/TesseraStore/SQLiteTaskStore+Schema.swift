import GRDB

extension SQLiteTaskStore {
    /// Every schema change is a new registered migration, never an edit of an old one: GRDB records
    /// which ran in `grdb_migrations`, so a file from an older release is brought up to date.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: tasks and nodes") { db in
            // Times are seconds since 1970 (REAL) from the store's clock. `created_order` keeps
            // creation order exact when two tasks are created within one clock tick, and moves a
            // replaced stopped task to the end, as a new creation.
            try db.execute(sql: """
                CREATE TABLE tasks (
                    task_id TEXT PRIMARY KEY NOT NULL,
                    document TEXT NOT NULL,
                    sequence INTEGER,
                    desired TEXT NOT NULL CHECK (desired IN ('running', 'stopped')),
                    node TEXT,
                    generation INTEGER NOT NULL,
                    status TEXT,
                    files TEXT NOT NULL DEFAULT '{}',
                    webhook_sequence INTEGER NOT NULL DEFAULT 0,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    created_order INTEGER NOT NULL
                );
                CREATE INDEX tasks_by_node ON tasks(node);
                CREATE INDEX tasks_by_order ON tasks(created_order);
                CREATE TABLE nodes (
                    node_id TEXT PRIMARY KEY NOT NULL,
                    advertise_url TEXT NOT NULL,
                    capacity INTEGER NOT NULL,
                    running INTEGER NOT NULL,
                    draining INTEGER NOT NULL,
                    lease_seconds REAL NOT NULL,
                    heartbeat_at REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2: output claims") { db in
            // One row per output key (a file, playlist or object a task writes): the task that
            // holds it, or last held it. Held only while that task's desired state is running.
            try db.execute(sql: """
                CREATE TABLE output_claims (
                    key TEXT PRIMARY KEY NOT NULL,
                    task_id TEXT NOT NULL,
                    claimed_at REAL NOT NULL
                );
                """)
        }
        return migrator
    }
}
