import Hummingbird
import TesseraService

/// Marks a request another node of the cluster passed on (`X-Tessera-Forwarded-By`), so this
/// node answers it itself instead of passing it on again. It sits inside the bearer check: only
/// a caller with the token can set it, and nodes share one token.
struct ForwardedRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let name = ForwardedRequest.header.lowercased()
        guard let node = request.headers.first(where: { $0.name.canonicalName == name })?.value, !node.isEmpty else {
            return try await next(request, context)
        }
        return try await ForwardedRequest.$fromNode.withValue(node) { try await next(request, context) }
    }
}
