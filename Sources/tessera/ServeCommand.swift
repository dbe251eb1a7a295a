import ArgumentParser
import Dispatch
import Foundation
import Logging
import TesseraServer
import TesseraService
import TesseraStore

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the live service: the JSON HTTP API that starts, updates and stops mixing tasks.",
        discussion: """
            Every setting can come from a flag, an environment variable or a JSON config file \
            (--config FILE or TESSERA_CONFIG: an object whose keys are the setting names below, e.g. \
            {"port": 8080, "rtpPorts": "20000-20999", "maxInputs": 16}); a flag wins over the \
            variable, the variable over the file, the file over the default. Relative paths in the \
            file resolve against the file's directory. Prefer TESSERA_API_TOKEN or --api-token-file \
            to --api-token: command lines are visible to other users of the machine.

            SIGTERM or SIGINT shuts down gracefully: new tasks are refused (503), running tasks end \
            properly within --shutdown-seconds, then the server stops and the process exits 0.
            """
    )

    @Option(help: ArgumentHelp("JSON config file, the lowest layer under flags and environment (env \(ServeSettings.configVariable)) [default: none].",
                               valueName: "file"))
    var config: String?
    @Option(help: help(.host, "address")) var host: String?
    @Option(help: help(.port, "port")) var port: String?
    @Option(help: help(.mediaRoot, "dir")) var mediaRoot: String?
    @Option(name: .customLong("output-dir"), help: help(.outputDir, "dir")) var outputDirectory: String?
    @Option(help: help(.rtpPorts, "first-last")) var rtpPorts: String?
    @Option(help: help(.rtpAddress, "address")) var rtpAddress: String?
    @Option(help: help(.rtpBindAddress, "address")) var rtpBindAddress: String?
    @Option(help: help(.apiToken, "token")) var apiToken: String?
    @Option(help: help(.apiTokenFile, "file")) var apiTokenFile: String?
    @Option(help: help(.maxTasks, "n")) var maxTasks: String?
    @Option(help: help(.maxInputs, "n")) var maxInputs: String?
    @Option(help: help(.maxRegions, "n")) var maxRegions: String?
    @Option(help: help(.maxOutputs, "n")) var maxOutputs: String?
    @Option(help: help(.maxBodyBytes, "bytes")) var maxBodyBytes: String?
    @Option(help: help(.maxDurationSeconds, "seconds")) var maxDurationSeconds: String?
    @Option(help: help(.maxWorkerRestarts, "n")) var maxWorkerRestarts: String?
    @Option(help: help(.workerHangSeconds, "seconds")) var workerHangSeconds: String?
    @Option(help: help(.outputGiveUpSeconds, "seconds")) var outputGiveUpSeconds: String?
    @Option(help: help(.outputStallSeconds, "seconds")) var outputStallSeconds: String?
    @Option(help: help(.minFreeBytes, "bytes")) var minFreeBytes: String?
    @Option(help: help(.webhookSecret, "secret")) var webhookSecret: String?
    @Option(help: help(.webhookSecretFile, "file")) var webhookSecretFile: String?
    @Option(help: help(.denyHosts, "list")) var denyHosts: String?
    @Option(help: help(.shutdownSeconds, "seconds")) var shutdownSeconds: String?
    @Option(help: help(.logLevel, "level")) var logLevel: String?
    @Option(help: help(.logFormat, "text|json")) var logFormat: String?
    @Option(help: help(.onShutdown, "resume|stop")) var onShutdown: String?
    @Option(help: help(.stateDir, "dir")) var stateDir: String?
    @Option(help: help(.store, "url")) var store: String?
    @Option(help: help(.nodeId, "name")) var nodeId: String?
    @Option(help: help(.advertiseUrl, "url")) var advertiseUrl: String?
    @Option(help: help(.nodeTimeoutSeconds, "seconds")) var nodeTimeoutSeconds: String?
    @Option(help: help(.console, "bool")) var console: String?
    @Option(help: help(.storageEndpoint, "url")) var storageEndpoint: String?
    @Option(help: help(.storageRegion, "region")) var storageRegion: String?
    @Option(help: help(.storageSpoolBytes, "bytes")) var storageSpoolBytes: String?

    private static func help(_ setting: ServeSetting, _ valueName: String) -> ArgumentHelp {
        ArgumentHelp(setting.help, valueName: valueName)
    }

    /// The flags given, by setting; values are parsed by `ServeSettings`, like the environment's.
    private var flagValues: [ServeSetting: String] {
        let all: [ServeSetting: String?] = [
            .host: host, .port: port, .mediaRoot: mediaRoot, .outputDir: outputDirectory, .rtpPorts: rtpPorts,
            .rtpAddress: rtpAddress, .rtpBindAddress: rtpBindAddress, .apiToken: apiToken, .apiTokenFile: apiTokenFile, .maxTasks: maxTasks,
            .maxInputs: maxInputs, .maxRegions: maxRegions, .maxOutputs: maxOutputs, .maxBodyBytes: maxBodyBytes,
            .maxDurationSeconds: maxDurationSeconds, .maxWorkerRestarts: maxWorkerRestarts,
            .workerHangSeconds: workerHangSeconds, .outputGiveUpSeconds: outputGiveUpSeconds,
            .outputStallSeconds: outputStallSeconds, .minFreeBytes: minFreeBytes, .logFormat: logFormat, .onShutdown: onShutdown,
            .webhookSecret: webhookSecret, .webhookSecretFile: webhookSecretFile, .denyHosts: denyHosts,
            .shutdownSeconds: shutdownSeconds, .logLevel: logLevel, .stateDir: stateDir, .store: store,
            .nodeId: nodeId, .advertiseUrl: advertiseUrl, .nodeTimeoutSeconds: nodeTimeoutSeconds, .console: console,
            .storageEndpoint: storageEndpoint, .storageRegion: storageRegion, .storageSpoolBytes: storageSpoolBytes,
        ]
        return all.compactMapValues { $0 }
    }

    func run() async throws {
        let settings: ServeSettings
        do {
            settings = try ServeSettings(flags: .init(flagValues, config: config),
                                         environment: ProcessInfo.processInfo.environment,
                                         workingDirectory: FileManager.default.currentDirectoryPath,
                                         isLocalAddress: UDPPortChecker.host.isLocalAddress)
        } catch {
            throw ValidationError(error.description)
        }
        try Self.prepareDirectories(settings)

        LoggingSetup.serve(format: settings.logFormat, level: settings.logLevel, nodeId: settings.nodeId)
        let logger = Logger(label: "tessera")
        let taskStore: any TaskStore
        do {
            taskStore = try makeTaskStore(url: settings.storeURL, stateDirectory: settings.stateDirectory, logger: logger)
        } catch {
            throw ValidationError("task store: \(error)")
        }
        let registryConfiguration = settings.registryConfiguration(workerExecutable: Self.executablePath(), udpPorts: .host)
        let registry = TaskRegistry(configuration: registryConfiguration, store: taskStore)
        let peers = HTTPPeerClient(nodeId: settings.nodeId, token: settings.server.apiToken)
        let cluster = ClusterService(
            registry: registry, store: taskStore, peers: peers,
            cluster: ClusterConfiguration(nodeId: settings.nodeId, advertiseURL: settings.advertiseURL,
                                          nodeTimeoutSeconds: settings.nodeTimeoutSeconds, capacity: settings.maxTasks,
                                          shared: settings.storeURL != nil))
        logger.info("tessera serve", metadata: [
            "media_root": .string(settings.mediaRoot), "output_dir": .string(settings.outputDirectory),
            "max_tasks": .stringConvertible(settings.maxTasks), "auth": .string(settings.server.apiToken == nil ? "off" : "bearer"),
            "rtp_ports": .string("\(settings.rtpPortRange.lowerBound)-\(settings.rtpPortRange.upperBound)"),
            "rtp_address": .string(settings.rtpAnnounceAddress),
            // "every interface" when the RTP address is not this host's (NAT): say so, since
            // the ports are then reachable from every network the host is on.
            "rtp_bind_address": .string(settings.rtpBindAddress ?? "every interface"),
            "deny_hosts": .stringConvertible(settings.deniedHosts.count),
            "config": .string(settings.configFile ?? "none"),
            "node_id": .string(settings.nodeId), "advertise_url": .string(settings.advertiseURL),
            "store": .string(settings.storeURL == nil ? "sqlite:\(settings.stateDirectory)" : "postgres"),
        ])
        do {
            // The store is the group's first service (its connection pool runs there), so the last to stop.
            try await runTesseraServer(service: cluster, configuration: settings.server, logger: logger,
                                       support: APISupport(validationOptions: registryConfiguration.validationOptions,
                                                           store: taskStore, nodeId: settings.nodeId),
                                       startup: {
                                           do { try await taskStore.prepare() } catch { throw ValidationError("task store: \(error)") }
                                           // The first round before the server listens: tasks this node held resume at once.
                                           await cluster.reconcile()
                                       },
                                       background: [ClusterLoopService(cluster: cluster), WatchdogService(registry: registry)],
                                       lastToStop: [taskStore, WebhookDeliveryService(notifier: registry.webhookNotifier)])
            await peers.shutdown()
        } catch let error as ValidationError {
            throw error
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
