import Foundation
import Logging
import Testing
import TesseraStore

/// The implementations every conformance test runs against.
enum StoreKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL unless skipped (see `PostgresTestServer.shouldRun`).
    static var underTest: [StoreKind] { PostgresTestServer.shouldRun ? [.sqlite, .postgres] : [.sqlite] }

    /// A fresh, empty database of this kind; `open()` gives another store on the same one (as a
    /// second node would have).
    func makeDatabase() async throws -> TestDatabase {
        switch self {
        case .sqlite:
            let directory = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("tessera-store-\(UUID().uuidString)")
            let path = directory.appendingPathComponent("state/tasks.sqlite").path
            return TestDatabase(open: { try SQLiteTaskStore(path: path) },
                                remove: { try? FileManager.default.removeItem(at: directory) })
        case .postgres:
            let url = try await PostgresTestServer.shared.createDatabase()
            let logger = quietLogger
            return TestDatabase(open: { try PostgresTaskStore(url: url, logger: logger) },
                                remove: { await PostgresTestServer.shared.dropDatabase(url) })
        }
    }
}

/// Warnings and worse only: postgres-nio logs every failed connection attempt at info level,
/// which the unreachable-server tests provoke on purpose.
let quietLogger: Logger = {
    var logger = Logger(label: "tessera-store-tests")
    logger.logLevel = .warning
    return logger
}()

struct TestDatabase: Sendable {
    let open: @Sendable () throws -> any TaskStore
    let remove: @Sendable () async -> Void
}

/// Runs `body` with a prepared store on a fresh database, the store running beside it (as the
/// service group runs a node's), then stops it and removes the database.
func withStore(_ kind: StoreKind, _ body: (any TaskStore, TestDatabase) async throws -> Void) async throws {
    let database = try await kind.makeDatabase()
    do {
        let store = try database.open()
        try await withRunning([store]) {
            try await store.prepare()
            try await body(store, database)
        }
    } catch {
        await database.remove()
        throw error
    }
    await database.remove()
}

/// A task document as the API would store it.
func document(_ id: String, _ note: String = "v1") -> String {
    #"{"taskId":"\#(id)","note":"\#(note)"}"#
}

func heartbeat(_ id: String, capacity: Int = 10, running: Int = 0, draining: Bool = false,
               lease: Double = 30) -> NodeHeartbeat {
    NodeHeartbeat(nodeId: id, advertiseURL: "http://\(id).local:8080", capacity: capacity, running: running,
                  draining: draining, leaseSeconds: lease)
}
