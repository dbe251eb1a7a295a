import Logging
import ServiceLifecycle
import TesseraService
import UnixSignals

/// Runs the service until SIGTERM or SIGINT (`gracefulShutdownSignals`), every part of it a service
/// of one `ServiceGroup`, which starts them in layers and stops them in the reverse order:
///
/// 1. the `lastToStop` services (the task store, then the webhook deliveries) start first;
/// 2. `startup` runs (the store's schema, the node's first reconcile round), and only once it has
///    returned do the HTTP server, the task shutdown and the `background` services (the cluster's
///    control loop, the hang watchdog) start.
///
/// On a signal the background services stop, the tasks end (bounded by `shutdownSeconds`), the
/// HTTP server stops, then the deliveries, then the store; and this returns normally (so the
/// process exits 0). Throws what `startup` throws, or when the server cannot start (address in
/// use, say).
///
/// A signal goes to the whole process, so an in-process test that stops this server by one must
/// use a signal nothing else in the process shuts down on: Hummingbird's live test servers stop
/// on SIGTERM too, and would drop the connections of tests running beside it.
public func runTesseraServer(
    service: any TaskService,
    configuration: ServerConfiguration,
    logger: Logger,
    metrics: TesseraMetrics = .bootstrapped,
    support: APISupport = APISupport(),
    startup: @escaping @Sendable () async throws -> Void = {},
    background: [any Service] = [],
    lastToStop: [any Service] = [],
    gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) async throws {
    let app = makeTesseraApplication(service: service, configuration: configuration, logger: logger, metrics: metrics,
                                     support: support, onListening: onListening)
    let shutdown = TaskShutdownService(service: service, deadlineSeconds: configuration.shutdownSeconds,
                                       action: configuration.onShutdown, logger: logger)
    // A group inside the group: it takes the outer group's graceful shutdown as its own.
    let node = ServiceGroup(configuration: ServiceGroupConfiguration(
        services: [.init(service: app), .init(service: shutdown)] + background.map { .init(service: $0) },
        logger: logger
    ))
    var groupConfiguration = ServiceGroupConfiguration(
        services: lastToStop.map { .init(service: $0) } + [.init(service: AfterStartup(startup: startup, service: node))],
        gracefulShutdownSignals: gracefulShutdownSignals,
        logger: logger
    )
    // The registry bounds its own wait; this only keeps a stuck shutdown from hanging the process.
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(configuration.shutdownSeconds + 10)
    try await ServiceGroup(configuration: groupConfiguration).run()
}

/// Runs `startup`, then `service`: what serves starts only once the node is ready.
private struct AfterStartup: Service {
    let startup: @Sendable () async throws -> Void
    let service: any Service

    func run() async throws {
        try await startup()
        try await service.run()
    }
}
