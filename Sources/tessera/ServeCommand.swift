import ArgumentParser
import Dispatch
import Foundation
import Logging
import TesseraEngine
import TesseraServer

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the live service: the JSON HTTP API that starts, updates and stops mixing tasks.",
        discussion: """
            Each option can also come from the environment variable named in its help; a flag wins over \
            the variable, the variable over the default. Prefer TESSERA_API_TOKEN to --api-token: \
            command lines are visible to other users of the machine.

            SIGTERM or SIGINT shuts down gracefully: new tasks are refused (503), running tasks end \
            properly within --shutdown-seconds, then the server stops and the process exits 0.
            """
    )

    @Option(help: "Address to listen on (env TESSERA_HOST) [default: 127.0.0.1; 0.0.0.0 for every interface].")
    var host: String?
    @Option(help: "Port to listen on (env TESSERA_PORT) [default: 8080].")
    var port: Int?
    @Option(help: "Directory relative input and image paths resolve against, and that file inputs must stay under (env TESSERA_MEDIA_ROOT) [default: working directory].")
    var mediaRoot: String?
    @Option(name: .customLong("output-dir"),
            help: "Directory relative output paths resolve against, and that file outputs must stay under (env TESSERA_OUTPUT_DIR) [default: the media root].")
    var outputDirectory: String?
    @Option(help: "Bearer token every route but /healthz then requires (env TESSERA_API_TOKEN) [default: none, the API is open].")
    var apiToken: String?
    @Option(help: "Most tasks running at once; more is 429 (env TESSERA_MAX_TASKS) [default: 16].")
    var maxTasks: Int?
    @Option(help: "Largest request body in bytes; larger is 413 (env TESSERA_MAX_BODY_BYTES) [default: 1048576].")
    var maxBodyBytes: Int?
    @Option(help: "Seconds a graceful shutdown gives running tasks to end (env TESSERA_SHUTDOWN_SECONDS) [default: 10].")
    var shutdownSeconds: Double?
    @Option(help: "trace, debug, info, notice, warning, error or critical (env TESSERA_LOG_LEVEL) [default: info].")
    var logLevel: String?
    @Option(help: "Seconds a dropped output keeps reconnecting before it is failed; the task goes on for the others (env TESSERA_OUTPUT_GIVE_UP_SECONDS) [default: 60].")
    var outputGiveUpSeconds: Double?

    func run() throws {
        let settings: ServeSettings
        do {
            settings = try ServeSettings(
                flags: .init(host: host, port: port, mediaRoot: mediaRoot, outputDirectory: outputDirectory,
                             apiToken: apiToken, maxTasks: maxTasks, maxBodyBytes: maxBodyBytes,
                             shutdownSeconds: shutdownSeconds, logLevel: logLevel,
                             outputGiveUpSeconds: outputGiveUpSeconds),
                environment: ProcessInfo.processInfo.environment,
                workingDirectory: FileManager.default.currentDirectoryPath)
        } catch let invalid as ServeSettings.Invalid {
            throw ValidationError(invalid.description)
        }
        try Self.prepareDirectories(settings)

        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tessera")
        let registry = TaskRegistry(configuration: RegistryConfiguration(
            mediaRoot: settings.mediaRoot,
            outputDirectory: settings.outputDirectory,
            maxTasks: settings.maxTasks,
            workerExecutable: Self.executablePath(),
            logLevel: level.rawValue,
            outputGiveUpSeconds: settings.outputGiveUpSeconds))
        logger.info("tessera serve", metadata: [
            "media_root": .string(settings.mediaRoot), "output_dir": .string(settings.outputDirectory),
            "max_tasks": .stringConvertible(settings.maxTasks), "auth": .string(settings.server.apiToken == nil ? "off" : "bearer"),
        ])
        do {
            try AsyncBridge.run {
                try await runTesseraServer(service: registry, configuration: settings.server, logger: logger)
            }
        } catch {
            StandardError.line("error: tessera serve on \(settings.server.host):\(settings.server.port): \(error)")
            throw ExitCode(1)
        }
    }

    /// The media root must exist; the output directory is made when missing, as `mix` does.
    static func prepareDirectories(_ settings: ServeSettings) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: settings.mediaRoot, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("media root \(settings.mediaRoot) is not a directory")
        }
        do {
            try FileManager.default.createDirectory(atPath: settings.outputDirectory, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("cannot create the output directory \(settings.outputDirectory): \(error.localizedDescription)")
        }
    }

    /// This binary, which the registry starts again as each task's worker: `/proc/self/exe` on
    /// Linux, else `argv[0]` made absolute.
    static func executablePath() -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        if let path = Bundle.main.executablePath { return path }
        let argument = CommandLine.arguments[0]
        return URL(fileURLWithPath: argument, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath,
                                                             isDirectory: true)).standardizedFileURL.path
    }
}

/// The root command is synchronous, and ArgumentParser runs an async subcommand only under an
/// async root: this waits on a semaphore for an async body instead. The main thread only waits;
/// the body runs on the cooperative pool, and signals reach ServiceLifecycle through Dispatch.
enum AsyncBridge {
    private final class Outcome: @unchecked Sendable {
        // Written once by the body's task before `done.signal()`, read after `done.wait()`.
        var error: (any Error)?
        let done = DispatchSemaphore(value: 0)
    }

    static func run(_ body: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Outcome()
        Task.detached {
            do { try await body() } catch { outcome.error = error }
            outcome.done.signal()
        }
        outcome.done.wait()
        if let error = outcome.error { throw error }
    }
}
