import Foundation
import Hummingbird
import Logging
import TesseraTask

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
        let level = Self.level(method: request.method.rawValue, status: status)
        context.logger.log(level: level, "\(request.method.rawValue) \(request.uri.path) \(status)", metadata: [
            "route": .string(route),
            "status": .stringConvertible(status),
            "duration_ms": .string(String(format: "%.1f", Double(elapsed) / 1e6)),
        ])
    }
}

extension RequestObservationMiddleware {
    /// Reads — status polls, snapshots, `/metrics`, `/healthz`, `/readyz`, the console — change
    /// nothing and come every second or so: debug, so they do not drown the tasks' lines. A
    /// refused request's line with its code and field is the error middleware's (info); its
    /// access line is debug too. Changes (POST, PATCH, DELETE) at info, server errors at warning.
    static func level(method: String, status: Int) -> Logger.Level {
        if status >= 500 { return .warning }
        if status >= 400 { return .debug }
        return method == "GET" || method == "HEAD" ? .debug : .info
    }
}
