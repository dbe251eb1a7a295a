import Hummingbird
import Logging
import TesseraService

/// The HTTP server of `tessera serve`, as a Hummingbird application (a `Service`). Tests drive it
/// in-process with `app.test(.router)`; `runTesseraServer` runs it beside the task shutdown.
///
/// - Parameters:
///   - service: the task registry.
///   - metrics: where `/metrics` reads from; a private registry unless given
///     (`TesseraMetrics.bootstrapped` also collects what other code records through swift-metrics).
///   - onListening: called with the bound port once the server accepts connections (port 0 binds
///     a free one).
public func makeTesseraApplication(
    service: any TaskService,
    configuration: ServerConfiguration,
    logger: Logger,
    metrics: TesseraMetrics = TesseraMetrics(),
    support: APISupport = APISupport(),
    onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = TesseraRouter(service: service, configuration: configuration, metrics: metrics, support: support)
    return Application(
        router: router.router,
        // Every connection gets its own lingering close, so an early answer (413 on a body past
        // the limit) reaches clients that send the whole body before reading.
        server: .http1(configuration: .init(additionalChannelHandlers: [LingeringCloseHandler()])),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "tessera"
        ),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}
