import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraServer

/// With a token configured, every route the router lists (not a hand-kept copy, so a new route
/// is covered the day it is added) refuses a missing token, a wrong one and another scheme with
/// the SPEC's 401, and only `/healthz` stays open.
@Suite struct AuthEveryRouteTests {
    static let token = "correct-horse-battery"

    /// Every route of the router, with `{taskId}` filled in.
    static let routes: [(method: HTTPRequest.Method, path: String, open: Bool)] = {
        let server = TestServer()
        let table = TesseraRouter(service: server.service, configuration: server.configuration, metrics: server.metrics).routes
        return table.routes.map { route in
            (HTTPRequest.Method(route.method)!, route.path.replacingOccurrences(of: "{taskId}", with: "room-1"),
             !route.requiresAuth)
        }
    }()

    static let refusedHeaders: [(what: String, value: String?)] = [
        ("no Authorization header", nil),
        ("wrong token", "Bearer wrong-horse-battery"),
        ("token with a character missing", "Bearer " + String(token.dropLast())),
        ("token with a character more", "Bearer \(token)x"),
        ("Basic scheme with the right token", "Basic \(token)"),
        ("Token scheme with the right token", "Token \(token)"),
        ("the token without a scheme", token),
        ("scheme without a token", "Bearer"),
    ]

    @Test func theRouterListsTheRoutesOfSpec3() {
        #expect(Self.routes.count == 18)
        // The orchestrator's probes need no token, nor do the HLS origin's viewers (their key admits them).
        #expect(Self.routes.filter(\.open).map(\.path) == ["/healthz", "/readyz", "/v1/tasks/room-1/hls/{viewerKey}/{fileName}",
                                                             "/v1/tasks/room-1/hls/{viewerKey}/{fileName}"])
    }

    @Test(arguments: routes.filter { !$0.open }.map { "\($0.method.rawValue) \($0.path)" })
    func everyProtectedRouteRefusesWithoutTheRightToken(route: String) async throws {
        let (method, path) = Self.split(route)
        let server = TestServer(apiToken: Self.token)
        try await server.test { client in
            for (what, value) in Self.refusedHeaders {
                var headers = jsonHeaders()
                if let value { headers[.authorization] = value }
                let response = try await client.execute(uri: path, method: method, headers: headers, body: buffer(taskBody))
                #expect(response.status == .unauthorized, "\(route) with \(what): \(response.status)")
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "\(route) with \(what)")
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, "\(route) with \(what)")
                let error = response.errorBody
                #expect(error?.code == "Unauthorized", "\(route) with \(what): \(response.text)")
                #expect(error?.message.isEmpty == false, "\(route) with \(what)")
            }
        }
        #expect(await server.service.createCalls == 0, "a refused request reached the service")
        #expect(await server.service.tasks.isEmpty)
    }

    /// The same requests with the right token are not 401: the refusals above are the token's doing.
    @Test(arguments: routes.map { "\($0.method.rawValue) \($0.path)" })
    func everyRouteAnswersWithTheRightToken(route: String) async throws {
        let (method, path) = Self.split(route)
        try await TestServer(apiToken: Self.token).test { client in
            let response = try await client.execute(uri: path, method: method, headers: jsonHeaders(bearer(Self.token)),
                                                    body: buffer(taskBody))
            #expect(response.status != .unauthorized, "\(route): \(response.text)")
        }
    }

    @Test func healthzIsOpenWithAnyOrNoHeader() async throws {
        try await TestServer(apiToken: Self.token).test { client in
            for (what, value) in Self.refusedHeaders {
                var headers = HTTPFields()
                if let value { headers[.authorization] = value }
                let response = try await client.execute(uri: "/healthz", method: .get, headers: headers)
                #expect(response.status == .ok, "/healthz with \(what)")
            }
        }
    }

    private static func split(_ route: String) -> (HTTPRequest.Method, String) {
        let parts = route.split(separator: " ", maxSplits: 1)
        return (HTTPRequest.Method(String(parts[0]))!, String(parts[1]))
    }
}
