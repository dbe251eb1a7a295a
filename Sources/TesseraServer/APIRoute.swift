import Hummingbird

/// One route of the API: method, path pattern (`/v1/tasks/{taskId}`, OpenAPI's syntax, which the
/// router also reads) and handler. Controllers list theirs; the router, the 405 answers and the
/// OpenAPI test all read the same list, so they cannot drift apart.
struct APIRoute<Context: RequestContext>: Sendable {
    typealias Handler = @Sendable (Request, Context) async throws -> Response

    var method: HTTPRequest.Method
    var path: String
    /// False only for `/healthz`: reachable without the bearer token.
    var requiresAuth: Bool
    var handler: Handler

    init(_ method: HTTPRequest.Method, _ path: String, requiresAuth: Bool = true, _ handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.requiresAuth = requiresAuth
        self.handler = handler
    }

    var signature: RouteSignature { RouteSignature(method: method.rawValue, path: path, requiresAuth: requiresAuth) }
}

/// A route without its handler: what the rest of the server needs to know about it.
public struct RouteSignature: Sendable, Hashable, CustomStringConvertible {
    public var method: String
    public var path: String
    public var requiresAuth: Bool

    public var description: String { "\(method) \(path)" }
}
