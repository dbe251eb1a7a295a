import Hummingbird
import Logging
import TesseraService

/// Turns every failure into the error body of SPEC §3; nothing escapes as a crash or as
/// Hummingbird's own error format. Unexpected errors are logged in full and answered with a
/// generic 500 `InternalError`.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let failure as ServiceError {
            return refused(APIError(failure), context: context)
        } catch let failure as APIError {
            return refused(failure, context: context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            return unroutable(request)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            // Hummingbird's own 4xx (a malformed request it caught before us).
            let failure = APIError(code: "BadRequest", httpStatus: error.status.code,
                                   message: error.status.reasonPhrase.isEmpty ? "bad request" : error.status.reasonPhrase)
            return failure.response()
        } catch {
            context.logger.error("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            return APIError.internalError.response()
        }
    }

    private func refused(_ failure: APIError, context: Context) -> Response {
        let level: Logger.Level = failure.httpStatus >= 500 ? .warning : .debug
        context.logger.log(level: level, "request refused", metadata: ["error": "\(failure)"])
        return failure.response()
    }

    /// 405 with `Allow` when the path exists under other methods, else 404.
    private func unroutable(_ request: Request) -> Response {
        let allowed = routes.methods(forPath: request.uri.path)
        if allowed.isEmpty { return APIError.notFound(request.uri.path).response() }
        var headers = HTTPFields()
        headers[.allow] = allowed.joined(separator: ", ")
        return APIError.methodNotAllowed(request.method.rawValue, allowed: allowed).response(headers: headers)
    }
}
