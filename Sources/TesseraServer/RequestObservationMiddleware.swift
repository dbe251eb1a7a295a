import Foundation
import Hummingbird
import Logging
import TesseraCore

/// The outermost middleware: puts `task_id` on the request's logger for task routes, then logs
/// each answered request and counts it in the metrics. It sees the final status, since the error
/// middleware inside it has already turned failures into responses. Only the path is logged,
/// never a query string or a body (task documents carry stream keys).
struct RequestObservationMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: TesseraMetrics


    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = MonotonicClock.nanoseconds
        var context = context
        if let taskId = context.parameters.get("taskId") {
            context.logger[metadataKey: "task_id"] = .string(taskId)
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Only reached if something below the error middleware is misplaced; count it as a 500.
            observe(request, context: context, status: 500, started: started)
            throw error
        }
        observe(request, context: context, status: response.status.code, started: started)
        return response
    }

    private func observe(_ request: Request, context: Context, status: Int, started: UInt64) {
        let elapsed = MonotonicClock.nanoseconds &- started
        // Unrouted requests share one label: raw paths would make the label set unbounded.
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(method: request.method.rawValue, route: route, status: status,
                              durationNanoseconds: Int64(clamping: elapsed))
        let level: Logger.Level = quietRoutes.contains(route) && status < 400 ? .debug : .info
        context.logger.log(level: level, "\(request.method.rawValue) \(request.uri.path) \(status)", metadata: [
            "route": .string(route),
            "status": .stringConvertible(status),
            "duration_ms": .string(String(format: "%.1f", Double(elapsed) / 1e6)),
        ])
    }
}

/// Routes probed by machines: logged at debug so they do not drown the task log.
private let quietRoutes: Set<String> = ["/healthz", "/metrics", "/openapi.yaml"]
