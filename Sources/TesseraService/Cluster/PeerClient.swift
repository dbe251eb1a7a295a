import Foundation

/// How one node passes an API request on to the node that runs the task (`ClusterService`).
/// The HTTP layer implements it; requests it sends carry `ForwardedRequest.header`, so the node
/// that gets one answers it itself and never passes it on again.
public protocol PeerClient: Sendable {
    func send(_ request: PeerRequest, to baseURL: String) async throws -> PeerResponse
}

public struct PeerRequest: Sendable, Equatable {
    public var method: String
    /// Path and query (`/v1/tasks/room42`).
    public var path: String
    public var body: Data?
    /// The longest the answer may take (the client's default when nil): probes of other nodes are short.
    public var timeoutSeconds: Double?
    public init(method: String, path: String, body: Data? = nil, timeoutSeconds: Double? = nil) {
        self.method = method; self.path = path; self.body = body; self.timeoutSeconds = timeoutSeconds
    }
}

public struct PeerResponse: Sendable, Equatable {
    public var status: Int
    public var body: Data
    public var retryAfterSeconds: Int?
    public init(status: Int, body: Data, retryAfterSeconds: Int? = nil) {
        self.status = status; self.body = body; self.retryAfterSeconds = retryAfterSeconds
    }

    /// The error a non-2xx answer carries (`{"error": {"code", "message", "path"}}`).
    public var serviceError: ServiceError {
        struct Body: Decodable {
            struct Detail: Decodable { var code: String; var message: String; var path: String?; var issues: [ServiceError.Issue]? }
            var error: Detail
        }
        guard let decoded = try? JSONDecoder().decode(Body.self, from: body) else {
            return ServiceError(.peerError, message: "node answered \(status) without an error body")
        }
        return ServiceError(ServiceError.Kind(code: decoded.error.code) ?? .relayed(code: decoded.error.code, httpStatus: status),
                            message: decoded.error.message, path: decoded.error.path,
                            issues: decoded.error.issues ?? [], retryAfterSeconds: retryAfterSeconds)
    }
}

/// Marks a request that another node passed on (task-local, set by the HTTP layer).
public enum ForwardedRequest {
    /// The header a forwarded request carries; its value names the node that sent it.
    public static let header = "X-Tessera-Forwarded-By"
    @TaskLocal public static var fromNode: String?
}
