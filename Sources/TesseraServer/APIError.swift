import Foundation
import Hummingbird
import TesseraService

/// The error body of SPEC §3: `{"error": {"code", "message", "path"?, "issues"?}}`.
struct APIErrorBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
        var path: String?
        var issues: [ServiceError.Issue]?
    }
    var error: Detail

    init(_ failure: ServiceError) {
        error = Detail(code: failure.code, message: failure.message, path: failure.path,
                       issues: failure.issues.isEmpty ? nil : failure.issues)
    }
}

/// The failures the HTTP layer itself answers with; the registry's own come as `ServiceError` too,
/// so every error takes one path to the wire.
extension ServiceError {
    static let unauthorized = ServiceError(
        code: "Unauthorized", httpStatus: 401,
        message: "missing or wrong bearer token: send \"Authorization: Bearer <token>\"")

    static func notFound(_ path: String) -> ServiceError {
        ServiceError(code: "NotFound", httpStatus: 404, message: "no route for \(path)")
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> ServiceError {
        ServiceError(code: "MethodNotAllowed", httpStatus: 405,
                     message: "\(method) is not allowed here; allowed: \(allowed.joined(separator: ", "))")
    }

    static func payloadTooLarge(limit: Int) -> ServiceError {
        ServiceError(code: "PayloadTooLarge", httpStatus: 413, message: "the request body is larger than \(limit) bytes")
    }

    /// `Retry-After` of a 429 whose error names no time of its own (SPEC §3: 429 always has one).
    static let defaultRetryAfterSeconds = 10

    static let internalError = ServiceError(
        code: "InternalError", httpStatus: 500, message: "internal error; the server log has the details")

    /// The response for this error, with `Retry-After` on 429 / 503 when the error carries one and
    /// `WWW-Authenticate` on 401.
    func response(headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        if let seconds = retryAfterSeconds ?? (httpStatus == 429 ? Self.defaultRetryAfterSeconds : nil) {
            headers[.retryAfter] = String(seconds)
        }
        if httpStatus == 401 { headers[.wwwAuthenticate] = "Bearer realm=\"tessera\"" }
        // A status outside the error range would be a registry bug: answer it as the 500 it is.
        guard (400...599).contains(httpStatus) else { return ServiceError.internalError.response(headers: extra) }
        do {
            return try Responses.json(APIErrorBody(self), status: HTTPResponse.Status(code: httpStatus), headers: headers)
        } catch {
            // Encoding a few strings cannot fail; answer something valid all the same.
            return Responses.bytes(Array(#"{"error":{"code":"InternalError","message":"internal error"}}"#.utf8),
                                   status: .internalServerError, contentType: Responses.jsonContentType)
        }
    }
}
