import Logging
import ServiceLifecycle
import TesseraService
import UnixSignals

/// Runs the service until SIGTERM or SIGINT (`gracefulShutdownSignals`): the `lastToStop`
/// services (webhook deliveries), the HTTP server, the task shutdown and the `background`
/// services (the cluster's control loop, the hang watchdog, which stop first) in one
/// `ServiceGroup`, which stops them in the reverse order. On a signal the tasks end first
/// (bounded by `shutdownSeconds`), then the HTTP server stops, then the deliveries, and this
/// returns normally (so the process exits 0). Throws when the server cannot start (address in
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
    background: [any Service] = [],
    lastToStop: [any Service] = [],
    gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) async throws {
    let app = makeTesseraApplication(service: service, configuration: configuration, logger: logger, metrics: metrics,
                                     support: support, onListening: onListening)
    let shutdown = TaskShutdownService(service: service, deadlineSeconds: configuration.shutdownSeconds,
                                       action: configuration.onShutdown, logger: logger)
    var groupConfiguration = ServiceGroupConfiguration(
        services: lastToStop.map { .init(service: $0) } + [
            .init(service: app),
            .init(service: shutdown),
        ] + background.map { .init(service: $0) },
        gracefulShutdownSignals: gracefulShutdownSignals,
        logger: logger
    )
    // The registry bounds its own wait; this only keeps a stuck shutdown from hanging the process.
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(configuration.shutdownSeconds + 10)
    try await ServiceGroup(configuration: groupConfiguration).run()
}
