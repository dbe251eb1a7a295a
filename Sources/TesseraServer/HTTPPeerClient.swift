import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TesseraService

/// Passes API requests on to other nodes of the cluster over HTTP (AsyncHTTPClient), with this
/// node's bearer token and the `X-Tessera-Forwarded-By` mark. A node that does not answer within
/// the deadline counts as unreachable.
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

    public func send(_ request: PeerRequest, to baseURL: String) async throws -> PeerResponse {
        var outgoing = HTTPClientRequest(url: baseURL + request.path)
        outgoing.method = HTTPMethod(rawValue: request.method)
        outgoing.headers.add(name: ForwardedRequest.header, value: nodeId)
        if let token { outgoing.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body = request.body {
            outgoing.headers.add(name: "Content-Type", value: "application/json")
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(outgoing, timeout: request.timeoutSeconds.map { .milliseconds(Int64($0 * 1000)) } ?? timeout)
        let body = try await response.body.collect(upTo: 64 << 20)
        return PeerResponse(status: Int(response.status.code), body: Data(body.readableBytesView),
                            retryAfterSeconds: response.headers.first(name: "Retry-After").flatMap(Int.init))
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
