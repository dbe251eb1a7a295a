import Foundation
import Hummingbird
import TesseraService

/// The origin's answers: files with their type, `Cache-Control` and CORS headers, refusals in
/// the API's error body (with CORS too, so a web player can read them), and the preflight. Web
/// players fetch from other origins: every answer allows any origin (the viewer key, not the
/// origin, is what admits a viewer).
enum HLSOriginResponses {
    /// Headers a player's script may read besides the CORS-safelisted ones.
    static let exposedHeaders = "Age, Date, Content-Length, Cache-Control, Location"

    static func cors(_ headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = "*"
        headers[.accessControlExposeHeaders] = exposedHeaders
    }

    static func file(_ bytes: Data, _ file: HLSOriginFile, cacheControl: String) -> Response {
        var headers = HTTPFields()
        cors(&headers)
        headers[.cacheControl] = cacheControl
        return Responses.bytes(bytes, contentType: file.contentType, headers: headers)
    }

    /// Not found, not served, or a wrong key: one answer for all, so a key cannot be told from a
    /// file name by what comes back. Never cached: the file may appear in a moment.
    static func notFound() -> Response { refusal(APIError(code: "NotFound", httpStatus: 404, message: "not found")) }

    static func refusal(_ error: APIError) -> Response {
        var headers = HTTPFields()
        cors(&headers)
        headers[.cacheControl] = "no-store"
        return error.response(headers: headers)
    }

    /// The answer to a CORS preflight (`OPTIONS`): GET from anywhere, with the headers asked for.
    static func preflight(_ request: Request) -> Response {
        var headers = HTTPFields()
        cors(&headers)
        headers[.accessControlAllowMethods] = "GET, OPTIONS"
        headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? "Range"
        headers[.accessControlMaxAge] = "86400"
        headers[.contentLength] = "0"
        return Response(status: .noContent, headers: headers)
    }
}
