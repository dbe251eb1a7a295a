import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TesseraService
import TesseraWorkerProtocol

/// The cluster's `PeerClient` over HTTP (AsyncHTTPClient): each call is the API route it names,
/// sent with this node's bearer token and the `X-Tessera-Forwarded-By` mark; the answer's status
/// code and error body become a `PeerOutcome`. A node that does not answer within the deadline
/// counts as unreachable.
public final class HTTPPeerClient: PeerClient {
    private let client: HTTPClient
    private let nodeId: String
    private let token: String?
    private let timeout: TimeAmount

    public init(nodeId: String, token: String?, timeoutSeconds: Int64 = 20) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(timeoutSeconds))
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.nodeId = nodeId
        self.token = token
        timeout = .seconds(timeoutSeconds)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    // MARK: PeerClient

    public func create(document: Data, on node: String) async -> PeerOutcome<TaskStatus> {
        await call(.POST, "/v1/tasks", body: document, on: node).decoded(TaskStatus.self, unreadable: Self.unreadableStatus)
    }

    public func status(of taskId: String, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<TaskStatus> {
        await call(.GET, Self.path(taskId), on: node, timeoutSeconds: timeoutSeconds)
            .decoded(TaskStatus.self, unreadable: Self.unreadableStatus)
    }

    public func update(_ taskId: String, body: Data, on node: String) async -> PeerOutcome<TaskStatus> {
        await call(.PATCH, Self.path(taskId), body: body, on: node).decoded(TaskStatus.self, unreadable: Self.unreadableStatus)
    }

    public func stop(_ taskId: String, on node: String) async -> PeerOutcome<TaskStatus> {
        await call(.DELETE, Self.path(taskId), on: node).decoded(TaskStatus.self, unreadable: Self.unreadableStatus)
    }

    public func snapshot(of taskId: String, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<Data> {
        await call(.GET, Self.path(taskId) + "/snapshot.png", on: node, timeoutSeconds: timeoutSeconds)
    }

    public func injectSEI(into taskId: String, body: Data, on node: String, timeoutSeconds: Double?) async -> PeerOutcome<SEIAccepted> {
        await call(.POST, Self.path(taskId) + "/sei", body: body, on: node, timeoutSeconds: timeoutSeconds)
            .decoded(SEIAccepted.self, unreadable: "a node answered an SEI request unreadably")
    }

    public func tasks(on node: String, timeoutSeconds: Double) async -> PeerOutcome<[TaskStatus]> {
        struct Body: Decodable { var tasks: [TaskStatus] }
        return await call(.GET, "/v1/tasks", on: node, timeoutSeconds: timeoutSeconds)
            .decoded(Body.self, unreadable: "a node answered its task list unreadably").map(\.tasks)
    }

    /// `GET /readyz`: its body says whether the node reaches the store; without one, a 200 says so.
    public func probe(_ node: String, timeoutSeconds: Double) async -> PeerProbe {
        guard let response = try? await send(.GET, "/readyz", body: nil, on: node, timeoutSeconds: timeoutSeconds) else {
            return .silent
        }
        struct Body: Decodable { var store: String? }
        let body = try? JSONDecoder().decode(Body.self, from: response.body)
        return .answered(seesStore: body?.store.map { $0 == "reachable" } ?? (response.status == 200))
    }

    // MARK: HTTP

    private struct Answer {
        var status: Int
        var body: Data
        var retryAfterSeconds: Int?
    }

    private static let unreadableStatus = "a node answered with an unreadable status"

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, on node: String,
                      timeoutSeconds: Double?) async throws -> Answer {
        var outgoing = HTTPClientRequest(url: node + path)
        outgoing.method = method
        outgoing.headers.add(name: ForwardedRequest.header, value: nodeId)
        if let token { outgoing.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            outgoing.headers.add(name: "Content-Type", value: "application/json")
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(outgoing, timeout: timeoutSeconds.map { .milliseconds(Int64($0 * 1000)) } ?? timeout)
        let received = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), body: Data(received.readableBytesView),
                      retryAfterSeconds: response.headers.first(name: "Retry-After").flatMap(Int.init))
    }

    /// The answer's body, or what its status code and error body say.
    private func call(_ method: HTTPMethod, _ path: String, body: Data? = nil, on node: String,
                      timeoutSeconds: Double? = nil) async -> PeerOutcome<Data> {
        let answer: Answer
        do {
            answer = try await send(method, path, body: body, on: node, timeoutSeconds: timeoutSeconds)
        } catch {
            return .unavailable("\(error)")
        }
        if (200..<300).contains(answer.status) { return .accepted(answer.body) }
        let error = Self.error(of: answer)
        switch answer.status {
        // Full by now (429, 507), or going away (503): another node may take a new task.
        case 429, 503, 507:
            return .full(error as? ServiceError ?? ServiceError(.nodeUnavailable, message: "\(error)",
                                                               retryAfterSeconds: answer.retryAfterSeconds))
        default:
            return .refused(error)
        }
    }

    /// The error a non-2xx answer carries (`{"error": {"code", "message", "path"}}`): a service
    /// error when its code names one, else the other node's HTTP layer's own refusal, answered
    /// here as it came.
    private static func error(of answer: Answer) -> any Error {
        struct Body: Decodable {
            struct Detail: Decodable { var code: String; var message: String; var path: String?; var issues: [ServiceError.Issue]? }
            var error: Detail
        }
        guard let decoded = try? JSONDecoder().decode(Body.self, from: answer.body) else {
            return ServiceError(.peerError, message: "node answered \(answer.status) without an error body",
                                retryAfterSeconds: answer.retryAfterSeconds)
        }
        guard let kind = ServiceError.Kind(code: decoded.error.code) else {
            var relayed = APIError(code: decoded.error.code, httpStatus: answer.status, message: decoded.error.message)
            relayed.path = decoded.error.path
            relayed.issues = decoded.error.issues ?? []
            relayed.retryAfterSeconds = answer.retryAfterSeconds
            return relayed
        }
        return ServiceError(kind, message: decoded.error.message, path: decoded.error.path,
                            issues: decoded.error.issues ?? [], retryAfterSeconds: answer.retryAfterSeconds)
    }

    private static func path(_ taskId: String) -> String {
        "/v1/tasks/" + (taskId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? taskId)
    }
}

extension PeerOutcome where Value == Data {
    /// A 2xx body read as `T`; an unreadable one is the other node's fault (`PeerError`).
    fileprivate func decoded<T: Decodable & Sendable>(_ type: T.Type, unreadable: String) -> PeerOutcome<T> {
        do {
            return try map { try JSONDecoder().decode(T.self, from: $0) }
        } catch {
            return .refused(ServiceError(.peerError, message: unreadable))
        }
    }
}
