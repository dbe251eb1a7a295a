import Foundation
import Logging
import Testing
import TesseraStore
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL server the conformance suite runs against: `TESSERA_TEST_POSTGRES_URL` when set
/// (a role allowed to CREATE DATABASE), otherwise one of our own, started from Debian's binaries
/// in a temporary directory on a free loopback port on first use and stopped (by PID) when the
/// suite ends. Each test gets a fresh database of its own, so tests run in parallel.
actor PostgresTestServer {
    static let shared = PostgresTestServer()

    static let skipEnvironment = "TESSERA_SKIP_POSTGRES_TESTS"
    static let urlEnvironment = "TESSERA_TEST_POSTGRES_URL"

    /// Whether the PostgreSQL cases run: skipped only when asked to and nothing to run them on.
    static var shouldRun: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment[skipEnvironment] == "1" {
            return environment[urlEnvironment] != nil || binaryDirectory() != nil
        }
        return true
    }

    struct Server: Sendable {
        /// Where to connect, without a database name: `postgres://tessera@127.0.0.1:PORT`.
        var base: String
        /// The database to connect to for CREATE / DROP DATABASE.
        var adminDatabase: String
    }

    private var starting: Task<Server, any Error>?
    private var process: Process?
    private var directory: URL?
    private let logger = quietLogger

    /// A fresh, empty database; its URL. Dropped by `dropDatabase` (our own server goes whole).
    func createDatabase() async throws -> String {
        let server = try await server()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await adminExecute(server, "CREATE DATABASE \(name)")
        return "\(server.base)/\(name)"
    }

    func dropDatabase(_ url: String) async {
        guard let server = try? await server(), let name = url.split(separator: "/").last else { return }
        try? await adminExecute(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    private func adminExecute(_ server: Server, _ sql: String) async throws {
        let admin = try PostgresTaskStore(url: "\(server.base)/\(server.adminDatabase)", logger: logger, timeout: .seconds(30))
        try await withRunning([admin]) { try await admin.execute(unsafeSQL: sql) }
    }

    func server() async throws -> Server {
        if let starting { return try await starting.value }
        let task = Task { try await self.start() }
        starting = task
        return try await task.value
    }

    private func start() async throws -> Server {
        if let url = ProcessInfo.processInfo.environment[Self.urlEnvironment], !url.isEmpty {
            let parsed = try PostgresURL(parsing: url)
            let base = url.hasSuffix("/\(parsed.database)") ? String(url.dropLast(parsed.database.count + 1)) : url
            return Server(base: base, adminDatabase: parsed.database)
        }
        guard let bin = Self.binaryDirectory() else {
            throw TaskStoreError("""
                PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb and postgres): \
                install the Debian package `postgresql` (scripts/install.sh installs it), point \
                \(Self.urlEnvironment) at a server, or set \(Self.skipEnvironment)=1 to skip the PostgreSQL cases
                """)
        }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("tessera-store-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let data = directory.appendingPathComponent("data").path
        // initdb and postgres refuse to run as root: run them as Debian's `postgres` user.
        let asUser = try Self.dropPrivilegesPrefix(owning: directory.path)

        let initdb = try Self.runToEnd(asUser + ["\(bin)/initdb", "-D", data, "-A", "trust", "-U", "tessera",
                                                 "-E", "UTF8", "--no-sync"], in: directory)
        guard initdb.status == 0 else {
            throw TaskStoreError("initdb failed (\(initdb.status)): \(initdb.output)")
        }
        let port = try LoopbackSockets.freePort()
        let log = directory.appendingPathComponent("postgres.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: log)
        let process = Process()
        let command = asUser + ["\(bin)/postgres", "-D", data, "-p", "\(port)", "-k", directory.path,
                                "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                                "-c", "synchronous_commit=off", "-c", "max_connections=400"]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = directory
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        self.process = process

        let deadline = Date().addingTimeInterval(30)
        while true {
            let ready = try Self.runToEnd(["\(bin)/pg_isready", "-h", "127.0.0.1", "-p", "\(port)", "-t", "1"], in: directory)
            if ready.status == 0 { break }
            if !process.isRunning || Date() > deadline {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                stop()
                throw TaskStoreError("the test PostgreSQL server did not start: \(text)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return Server(base: "postgres://tessera@127.0.0.1:\(port)", adminDatabase: "postgres")
    }

    /// Stops our own server: SIGTERM (smart shutdown), SIGKILL after 10 s; removes its directory.
    func stop() {
        if let process, process.isRunning {
            let pid = process.processIdentifier
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
            }
        }
        process = nil
        if let directory { try? FileManager.default.removeItem(at: directory) }
        directory = nil
        starting = nil
    }

    /// The newest `/usr/lib/postgresql/N/bin` holding `initdb` and `postgres`.
    static func binaryDirectory() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            .map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
                && FileManager.default.isExecutableFile(atPath: "\($0)/postgres") }
    }

    /// As root: `setpriv` to the `postgres` user (it execs, so the PID we hold is the server's),
    /// after giving that user the directory.
    private static func dropPrivilegesPrefix(owning path: String) throws -> [String] {
        guard getuid() == 0 else { return [] }
        guard let user = getpwnam("postgres") else {
            throw TaskStoreError("running as root, but there is no `postgres` user to run the test server as (install the `postgresql` package)")
        }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw TaskStoreError("cannot chown \(path) to postgres")
        }
        return ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
    }

    private static func runToEnd(_ command: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// Scopes the suite: the server (if one was started) is stopped when the suite's last test ends.
struct PostgresServerScope: SuiteTrait, TestScoping {
    /// Once around the whole suite, never around a single test (they share the server).
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? self : nil
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        do {
            try await function()
        } catch {
            await PostgresTestServer.shared.stop()
            throw error
        }
        await PostgresTestServer.shared.stop()
    }
}

extension Trait where Self == PostgresServerScope {
    static var postgresServer: Self { PostgresServerScope() }
}
