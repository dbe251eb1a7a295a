import Hummingbird
import TesseraService

/// The routes around the tasks: liveness, Prometheus metrics, the OpenAPI document.
struct OperationsController<Context: RequestContext>: Sendable {
    let service: any TaskService
    let metrics: TesseraMetrics
    let taskMetrics: TaskMetricsCollector

    var routes: [APIRoute<Context>] {
        [
            APIRoute(.get, "/healthz", requiresAuth: false, healthz),
            APIRoute(.get, "/readyz", requiresAuth: false, readyz),
            APIRoute(.get, "/metrics", metricsText),
            APIRoute(.get, "/openapi.yaml", openAPI),
        ]
    }

    struct Health: Encodable {
        var status = "ok"
        /// `/readyz` only: `reachable` or `unreachable` (what other nodes probe for).
        var store: String?
        var reason: String?
        /// `/readyz` only: free bytes of the output directory (below `--min-free-bytes`, `reason` says
        /// that this node takes no new recording task).
        var outputDirFreeBytes: Int64?
    }

    /// Answers as long as the HTTP server runs: it asks the registry nothing, so a busy registry
    /// never makes the service look dead.
    @Sendable func healthz(_ request: Request, context: Context) async throws -> Response {
        try Responses.json(Health())
    }

    /// For orchestrators: 200 while this node takes API traffic; 503 while it drains (SIGTERM)
    /// or is cut off from its task store alone. While every node it reaches sees the store down,
    /// 200 with `"status": "store unreachable"`: any node then serves reads as well as another.
    @Sendable func readyz(_ request: Request, context: Context) async throws -> Response {
        let readiness = await service.readiness()
        let body = Health(status: readiness.status, store: readiness.storeReachable ? "reachable" : "unreachable",
                          reason: readiness.reason, outputDirFreeBytes: readiness.outputDirFreeBytes)
        return try Responses.json(body, status: readiness.ready ? .ok : .serviceUnavailable)
    }

    /// The registry's metrics, then the per-task series (`TaskSeries`).
    @Sendable func metricsText(_ request: Request, context: Context) async throws -> Response {
        let statuses = await service.list()
        let storeReachable = await service.readiness().storeReachable
        let perTask = await taskMetrics.collect(statuses, storeReachable: storeReachable)
        return Responses.bytes(metrics.exposition() + Array(perTask.utf8), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    @Sendable func openAPI(_ request: Request, context: Context) async throws -> Response {
        guard let document = OpenAPIDocument.bytes else { throw APIError.internalError }
        return Responses.bytes(document, contentType: "application/yaml; charset=utf-8")
    }
}
