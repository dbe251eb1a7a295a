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

    init(_ failure: APIError) {
        error = Detail(code: failure.code, message: failure.message, path: failure.path,
                       issues: failure.issues.isEmpty ? nil : failure.issues)
    }
}

/// An answer that is not 2xx: a service error with the status code its kind is answered with
/// (the one place that mapping is written), or a refusal of the HTTP layer itself.
struct APIError: Error, Sendable, CustomStringConvertible {
    var code: String
    var httpStatus: Int
    var message: String
    var path: String?
    var issues: [ServiceError.Issue] = []
    var retryAfterSeconds: Int?

    init(code: String, httpStatus: Int, message: String) {
        self.code = code; self.httpStatus = httpStatus; self.message = message
    }

    init(_ failure: ServiceError) {
        code = failure.code
        httpStatus = Self.httpStatus(of: failure.kind)
        message = failure.message
        path = failure.path
        issues = failure.issues
        retryAfterSeconds = failure.retryAfterSeconds
    }

    var description: String { path.map { "\(code): \($0): \(message)" } ?? "\(code): \(message)" }

    /// The status code each kind of service error is answered with.
    static func httpStatus(of kind: ServiceError.Kind) -> Int {
        switch kind {
        case .invalidTask, .invalidUpdate, .invalidSEI: 400
        case .taskNotFound: 404
        case .taskExists, .invalidState, .staleSequence, .portInUse, .outputInUse: 409
        case .tooManyTasks: 429
        case .insufficientStorage: 507
        case .internalError: 500
        case .peerError: 502
        case .shuttingDown, .storeUnavailable, .nodeUnavailable: 503
        }
    }

    // MARK: The HTTP layer's own refusals

    static let unauthorized = APIError(
        code: "Unauthorized", httpStatus: 401,
        message: "missing or wrong bearer token: send \"Authorization: Bearer <token>\"")

    static func notFound(_ path: String) -> APIError {
        APIError(code: "NotFound", httpStatus: 404, message: "no route for \(path)")
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> APIError {
        APIError(code: "MethodNotAllowed", httpStatus: 405,
                 message: "\(method) is not allowed here; allowed: \(allowed.joined(separator: ", "))")
    }

    static func payloadTooLarge(limit: Int) -> APIError {
        APIError(code: "PayloadTooLarge", httpStatus: 413, message: "the request body is larger than \(limit) bytes")
    }

    /// `Retry-After` of a 429 whose error names no time of its own (SPEC §3: 429 always has one).
    static let defaultRetryAfterSeconds = 10

    static let internalError = APIError(
        code: "InternalError", httpStatus: 500, message: "internal error; the server log has the details")

    /// The response for this error, with `Retry-After` on 429 / 503 when the error carries one and
    /// `WWW-Authenticate` on 401.
    func response(headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        if let seconds = retryAfterSeconds ?? (httpStatus == 429 ? Self.defaultRetryAfterSeconds : nil) {
            headers[.retryAfter] = String(seconds)
        }
        if httpStatus == 401 { headers[.wwwAuthenticate] = "Bearer realm=\"tessera\"" }
        // A status outside the error range would be a bug (a peer's odd answer): answer it as the 500 it is.
        guard (400...599).contains(httpStatus) else { return APIError.internalError.response(headers: extra) }
        do {
            return try Responses.json(APIErrorBody(self), status: HTTPResponse.Status(code: httpStatus), headers: headers)
        } catch {
            // Encoding a few strings cannot fail; answer something valid all the same.
            return Responses.bytes(Array(#"{"error":{"code":"InternalError","message":"internal error"}}"#.utf8),
                                   status: .internalServerError, contentType: Responses.jsonContentType)
        }
    }
}

