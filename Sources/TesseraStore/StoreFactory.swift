import Foundation
import Logging

/// The store a node uses, from `--store` (or `TESSERA_STORE`): nothing for the embedded SQLite file
/// in the state directory (one node), a `postgres://` URL for a cluster.
public func makeTaskStore(url: String?, stateDirectory: String, logger: Logger) throws -> any TaskStore {
    let trimmed = url?.trimmingCharacters(in: .whitespaces) ?? ""
    if trimmed.isEmpty {
        let directory = stateDirectory.isEmpty ? "." : stateDirectory
        return try SQLiteTaskStore(path: (directory as NSString).appendingPathComponent("tasks.sqlite"))
    }
    let scheme = trimmed.range(of: "://").map { String(trimmed[..<$0.lowerBound]) } ?? ""
    switch scheme.lowercased() {
    case "postgres", "postgresql":
        return try PostgresTaskStore(url: trimmed, logger: logger)
    default:
        // Only the scheme is echoed: the rest of an unexpected URL may hold a password.
        throw TaskStoreError("store: expected postgres://USER[:PASSWORD]@HOST:PORT/DB, got scheme \"\(scheme)\"")
    }
}
