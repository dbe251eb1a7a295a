import Metrics
import Prometheus

/// Where the server's metrics live: one Prometheus registry that `/metrics` prints, fed by the
/// swift-metrics API (HTTP requests) and by the task collector at scrape time.
///
/// Thread safety: the registry and factory are `Sendable` and lock internally.
public final class TesseraMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory writing into `registry`.
    public let factory: PrometheusMetricsFactory

    /// A private registry: what tests and embedders use to keep instances apart.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = PrometheusMetricsFactory(registry: registry)
    }

    /// The process-wide instance, which also becomes swift-metrics' backend (`MetricsSystem` is
    /// bootstrapped exactly once, on first use), so metrics that other code records through
    /// swift-metrics appear on `/metrics` too. `tessera serve` uses this one.
    public static let bootstrapped: TesseraMetrics = {
        let metrics = TesseraMetrics()
        MetricsSystem.bootstrap(metrics.factory)
        return metrics
    }()

    /// The Prometheus text exposition of everything registered.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }

    /// `tessera_http_requests_total{method,route,status}` and
    /// `tessera_http_request_duration_seconds{method,route}`. `route` is the route pattern
    /// (`/v1/tasks/{taskId}`), never the raw path, so the label set stays bounded.
    func recordRequest(method: String, route: String, status: Int, durationNanoseconds: Int64) {
        Metrics.Counter(label: "tessera_http_requests_total",
                        dimensions: [("method", method), ("route", route), ("status", String(status))],
                        factory: factory).increment()
        Metrics.Timer(label: "tessera_http_request_duration_seconds",
                      dimensions: [("method", method), ("route", route)],
                      factory: factory).recordNanoseconds(durationNanoseconds)
    }
}
