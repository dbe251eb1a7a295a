import Foundation
import Logging
import Testing
import TesseraStore

struct PostgresURLTests {
    @Test func parsesTheUsualForms() throws {
        #expect(try PostgresURL(parsing: "postgres://tessera:pw@db.internal:6543/tasks")
            == PostgresURL(user: "tessera", password: "pw", host: "db.internal", port: 6543, database: "tasks"))
        #expect(try PostgresURL(parsing: "postgresql://tessera@10.0.0.5/tasks")
            == PostgresURL(user: "tessera", password: nil, host: "10.0.0.5", port: 5432, database: "tasks"))
        #expect(try PostgresURL(parsing: "POSTGRES://u@[::1]:5433/db?sslmode=disable")
            == PostgresURL(user: "u", password: nil, host: "::1", port: 5433, database: "db"))
    }

    @Test func percentDecodesUserAndPassword() throws {
        let url = try PostgresURL(parsing: "postgres://us%40er:p%3Aa%2Fs%40s%20w@h:1/d")
        #expect(url.user == "us@er")
        #expect(url.password == "p:a/s@s w")
        // An unencoded "@" in the password: the last "@" ends the user information.
        #expect(try PostgresURL(parsing: "postgres://u:a@b@h/d").password == "a@b")
    }

    @Test(arguments: [
        ("postgres://u:secretpw@h:0/d", "port"),
        ("postgres://u:secretpw@h:99999/d", "port"),
        ("postgres://u:secretpw@h:abc/d", "port"),
        ("postgres://u:secretpw@h:5432", "database"),
        ("postgres://u:secretpw@h:5432/", "database"),
        ("postgres://h:5432/d", "user"),
        ("postgres://:secretpw@h/d", "user"),
        ("postgres://u:secretpw@/d", "host"),
        ("postgres://u:secretpw@h/d?sslmode=require", "sslmode"),
        ("mysql://u:secretpw@h/d", "scheme \"mysql\""),
    ])
    func namesWhatIsWrongWithoutThePassword(url: String, problem: String) {
        do {
            _ = try PostgresURL(parsing: url)
            Issue.record("\(url) parsed")
        } catch {
            let text = "\(error)"
            #expect(text.contains(problem), "\(text)")
            #expect(!text.contains("secretpw"), "\(text)")
            #expect(text.contains("postgres://USER[:PASSWORD]@HOST:PORT/DB"))
        }
    }
}

struct StoreFactoryTests {
    let logger = quietLogger

    @Test func noURLMeansSQLiteInTheStateDirectory() async throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tessera-factory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        for url in [nil, "", "  "] as [String?] {
            let store = try makeTaskStore(url: url, stateDirectory: directory.path, logger: logger)
            #expect(store is SQLiteTaskStore)
            try await withRunning([store]) { try await store.prepare() }
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("tasks.sqlite").path))
    }

    @Test func postgresURLsMeanPostgres() async throws {
        for url in ["postgres://u@127.0.0.1:1/d", "postgresql://u@127.0.0.1:1/d"] {
            let store = try makeTaskStore(url: url, stateDirectory: "/nonexistent", logger: logger)
            #expect(store is PostgresTaskStore)
            try await withRunning([store]) {}
        }
    }

    @Test func otherSchemesAreRefused() {
        #expect {
            _ = try makeTaskStore(url: "mysql://u:pw@h/d", stateDirectory: "/tmp", logger: logger)
        } throws: { error in
            "\(error)" == #"store: expected postgres://USER[:PASSWORD]@HOST:PORT/DB, got scheme "mysql""#
        }
        #expect(throws: TaskStoreError.self) {
            _ = try makeTaskStore(url: "/var/lib/tessera/tasks.sqlite", stateDirectory: "/tmp", logger: logger)
        }
    }
}

/// A database that cannot be reached must cost a node a few seconds per call, never a hang. The
/// bounds are several times the 2 s deadline: what is checked is that a call ends, not how fast
/// (a loaded CI machine takes longer; speed belongs to bench/).
struct PostgresUnreachableTests {
    let logger = quietLogger

    @Test func refusedConnectionsFailWithinTheTimeout() async throws {
        let port = try LoopbackSockets.freePort() // nothing listens there
        let store = try PostgresTaskStore(url: "postgres://u:secretpw@127.0.0.1:\(port)/d", logger: logger, timeout: .seconds(2))
        let closing = try await withRunning([store]) {
            for _ in 0..<2 {
                let start = ContinuousClock.now
                await #expect(throws: TaskStoreError.self) { try await store.prepare() }
                #expect(ContinuousClock.now - start < .seconds(15))
            }
            do { _ = try await store.nodes() } catch { #expect(!"\(error)".contains("secretpw")) }
            return ContinuousClock.now
        }
        // Stopping its pool is bounded too.
        #expect(ContinuousClock.now - closing < .seconds(15))
    }

    @Test func aServerThatNeverAnswersFailsWithinTheTimeout() async throws {
        let listener = try LoopbackSockets.silentListener()
        defer { close(listener.fd) }
        let store = try PostgresTaskStore(url: "postgres://u@127.0.0.1:\(listener.port)/d", logger: logger, timeout: .seconds(2))
        let closing = try await withRunning([store]) {
            let start = ContinuousClock.now
            await #expect(throws: TaskStoreError.self) { try await store.prepare() }
            #expect(ContinuousClock.now - start < .seconds(15))
            return ContinuousClock.now
        }
        #expect(ContinuousClock.now - closing < .seconds(15))
    }
}
