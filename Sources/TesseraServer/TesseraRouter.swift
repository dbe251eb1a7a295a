import Hummingbird
import TesseraService

/// The request context of every route.
public typealias TesseraRequestContext = BasicRequestContext

/// The whole HTTP API of SPEC §3 on one Hummingbird router, and the table of its routes.
///
/// Middleware order, outermost first: observation (log line with `task_id`, request metrics),
/// errors (every failure → the SPEC error body), bearer auth (when a token is configured).
/// Middleware goes on before the routes: Hummingbird wraps only routes added after it.
public struct TesseraRouter {
    public let router: Router<TesseraRequestContext>
    /// Every route, in the order the controllers list them.
    public let routes: RouteTable

    public init(service: any TaskService, configuration: ServerConfiguration, metrics: TesseraMetrics,
                support: APISupport = APISupport()) {
        let tasks = TasksController<TesseraRequestContext>(service: service, maxBodyBytes: configuration.maxBodyBytes)
        let operations = OperationsController<TesseraRequestContext>(
            service: service, metrics: metrics, taskMetrics: TaskMetricsCollector(registry: metrics.registry, nodeId: support.nodeId,
                                                                         outputDirectory: support.validationOptions.outputDirectory))
        let checker = DocumentChecker(options: support.validationOptions)
        let all = tasks.routes + TaskDocumentController(service: service, checker: checker).routes
            + DocumentCheckController(checker: checker, maxBodyBytes: configuration.maxBodyBytes).routes
            + ClusterController(service: service, nodeId: support.nodeId).routes + operations.routes
            + HLSOriginController<TesseraRequestContext>(service: service, metrics: metrics).routes
        let table = RouteTable(all.map(\.signature))

        let router = Router(context: TesseraRequestContext.self)
        // Before any middleware, which then does not wrap them: the console's files ask no token
        // (the page asks the operator for it) and answer their own errors with its headers.
        if configuration.console {
            for route in ConsoleController<TesseraRequestContext>(files: .loaded).routes {
                router.on(RouterPath(route.path), method: .get, use: route.handler)
            }
        }
        router.add(middleware: RequestObservationMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(routes: table))
        if let token = configuration.apiToken {
            router.add(middleware: BearerAuthMiddleware(token: token, routes: table))
        }
        router.add(middleware: ForwardedRequestMiddleware())
        for route in all {
            router.on(RouterPath(route.path), method: route.method, use: route.handler)
        }
        self.router = router
        self.routes = table
    }
}
