import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import TesseraService

/// Passes an origin request (a viewer's HLS file, the API's latest thumbnail) to the node that
/// runs the task and answers with what it answered: status, body and the headers a player and a
/// CDN read. Forwarded, not redirected: behind a load balancer or a CDN the nodes' advertised
/// URLs are the cluster's inside addresses, which a viewer cannot reach (and a 307 would send
/// every viewer around the CDN to that node); a redirect also drops the `Authorization` header
/// at another host in curl, browsers and most HTTP libraries, which the thumbnail route needs.
///
/// The request carries `X-Tessera-Forwarded-By`, so the owner answers it itself; a node that gets
/// a forwarded request for a task it does not run answers 404 rather than pass it on again (the
/// mark grants nothing on these routes, so a viewer setting it gains nothing). A held blocking
/// reload is held on the owner; the relay waits for it.
enum HLSOriginRelay {
    /// One client for the process (never shut down: it lives as long as `serve`). Redirects are
    /// not followed: the owner answers itself.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(45))
        configuration.redirectConfiguration = .disallow
        // Every viewer of a task another node runs holds a blocking reload there about all the
        // time: AsyncHTTPClient's default of 8 connections per host would queue the ninth
        // viewer's reload behind others' holds (seconds late). Idle ones close after a minute.
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1024)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Longer than any hold the owner makes (three target durations) plus the transfer.
    static let deadlineSeconds: Int64 = 45
    /// A part, a segment, a thumbnail: never near this.
    static let maxBodyBytes = 64 << 20

    /// Headers of the owner's answer passed back as they came.
    static let passed: [HTTPFields.Element.Name] = [.contentType, .cacheControl, .accessControlAllowOrigin,
                                                    .accessControlExposeHeaders, .retryAfter, .lastModified, .eTag,
                                                    .contentRange, .acceptRanges]

    /// Whether this request was passed on by another node already.
    static func isForwarded(_ request: Request) -> Bool {
        let name = ForwardedRequest.header.lowercased()
        return request.headers.contains { $0.name.canonicalName == name }
    }

    /// The owner's answer to the same path and query on `baseURL`; nil when it cannot be reached.
    static func forward(_ request: Request, to baseURL: String, nodeId: String) async -> Response? {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        var url = base + request.uri.path
        if let query = request.uri.query, !query.isEmpty { url += "?" + query }
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = .GET
        outgoing.headers.add(name: ForwardedRequest.header, value: nodeId)
        if let authorization = request.headers[.authorization] { outgoing.headers.add(name: "Authorization", value: authorization) }
        if let range = request.headers[.range] { outgoing.headers.add(name: "Range", value: range) }
        do {
            let answer = try await client.execute(outgoing, timeout: .seconds(deadlineSeconds))
            let body = try await answer.body.collect(upTo: maxBodyBytes)
            var headers = HTTPFields()
            for name in passed {
                if let value = answer.headers.first(name: name.rawName) { headers[name] = value }
            }
            headers[.contentLength] = String(body.readableBytes)
            return Response(status: HTTPResponse.Status(code: Int(answer.status.code)), headers: headers,
                            body: ResponseBody(byteBuffer: body))
        } catch {
            return nil
        }
    }
}
