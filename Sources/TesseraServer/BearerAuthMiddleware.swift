import Foundation
import Hummingbird
import TesseraService

/// With a token configured, every route but the open ones (`/healthz`, `/readyz`, the HLS
/// origin's `/v1/tasks/{taskId}/hls/{viewerKey}/{fileName}`, whose key admits viewers) needs
/// `Authorization: Bearer <token>`; anything else is 401 `Unauthorized`, unknown paths included,
/// so a caller without the token learns nothing about the API. Runs before any body is read.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String
    let routes: RouteTable

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        if routes.isOpen(path: request.uri.path) || Self.authorizes(request.headers[.authorization], token: token) {
            return try await next(request, context)
        }
        throw APIError.unauthorized
    }

    /// The auth scheme is case-insensitive (RFC 7235); the token is compared in constant time.
    static func authorizes(_ header: String?, token: String) -> Bool {
        guard let header else { return false }
        let scheme = "bearer "
        guard header.count > scheme.count, header.prefix(scheme.count).lowercased() == scheme else { return false }
        let presented = header.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
        return ConstantTime.equals(presented, token)
    }
}
