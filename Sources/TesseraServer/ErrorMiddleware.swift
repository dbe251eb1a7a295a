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
            return refused(APIError(failure), request: request, context: context)
        } catch let failure as APIError {
            return refused(failure, request: request, context: context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            return unroutable(request)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            // Hummingbird's own 4xx (a malformed request it caught before us).
            let failure = APIError(code: "BadRequest", httpStatus: error.status.code,
                                   message: error.status.reasonPhrase.isEmpty ? "bad request" : error.status.reasonPhrase)
            return refused(failure, request: request, context: context)
        } catch {
            context.logger.error("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            return APIError.internalError.response()
        }
    }

    /// One line says why: `POST /v1/tasks 400 InvalidField layout.regions[2].width` with the
    /// code, the field and the message as fields of their own (the access line of a refused
    /// request, in `RequestObservationMiddleware`, is then only at debug).
    private func refused(_ failure: APIError, request: Request, context: Context) -> Response {
        let line = RefusalLine(failure, method: request.method.rawValue, path: request.uri.path)
        context.logger.log(level: line.level, "\(line.message)", metadata: line.metadata.mapValues { .string($0) })
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

/// The log line of a refused request (pure): 5xx at warning, 4xx at info.
public struct RefusalLine: Equatable, Sendable {
    public var level: Logger.Level
    public var message: String
    public var metadata: [String: String]

    init(_ failure: APIError, method: String, path: String) {
        self.init(code: failure.code, httpStatus: failure.httpStatus, message: failure.message, field: failure.path,
                  issues: failure.issues, method: method, path: path)
    }

    public init(code: String, httpStatus: Int, message errorMessage: String, field: String?, issues: [ServiceError.Issue],
                method: String, path: String) {
        level = httpStatus >= 500 ? .warning : .info
        // The field the refusal names: the error's own, else its first issue's.
        let field = field ?? issues.first?.path
        message = ["\(method) \(path) \(httpStatus) \(code)", field].compactMap { $0 }.joined(separator: " ")
        metadata = ["code": code, "status": String(httpStatus), "error_message": errorMessage]
        if let field { metadata["field"] = field }
        if issues.count > 1 { metadata["issues"] = issues.map { "\($0.path): \($0.message)" }.joined(separator: "; ") }
    }
}
