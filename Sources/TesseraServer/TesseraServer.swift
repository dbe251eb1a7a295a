import Logging
import ServiceLifecycle
import TesseraEngine

/// Runs the service until SIGTERM or SIGINT: the HTTP server, the task shutdown and the
/// `background` services (the cluster's control loop, which stops first) in one `ServiceGroup`. On a signal the tasks end first (bounded by `shutdownSeconds`), then the HTTP
/// server stops, and this returns normally (so the process exits 0). Throws when the server
/// cannot start (address in use, say).
public func runTesseraServer(
    service: any TaskService,
    configuration: ServerConfiguration,
    logger: Logger,
    metrics: TesseraMetrics = .bootstrapped,
    background: [any Service] = [],
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) async throws {
    let app = makeTesseraApplication(service: service, configuration: configuration, logger: logger, metrics: metrics,
                                     onListening: onListening)
    let shutdown = TaskShutdownService(service: service, deadlineSeconds: configuration.shutdownSeconds, logger: logger)
    var groupConfiguration = ServiceGroupConfiguration(
        services: [
            .init(service: app),
            .init(service: shutdown),
        ] + background.map { .init(service: $0) },
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
    // The registry bounds its own wait; this only keeps a stuck shutdown from hanging the process.
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(configuration.shutdownSeconds + 10)
    try await ServiceGroup(configuration: groupConfiguration).run()
}
