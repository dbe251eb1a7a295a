import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraServer

/// `/console`: static files, no token, strict headers on every answer, off with `console: false`.
@Suite struct ConsoleRoutesTests {
    static func server(apiToken: String? = "s3cret", console: Bool = true) -> TestServer {
        var server = TestServer(apiToken: apiToken)
        server.configuration.console = console
        return server
    }

    static func expectSecurityHeaders(_ response: TestResponse, _ uri: String) {
        let policy = response.headers[.contentSecurityPolicy] ?? ""
        #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'")
                && policy.contains("default-src 'none'"), "\(uri): \(policy)")
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(uri): \(policy)")
        #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
    }

    @Test func thePageAndItsFilesNeedNoTokenAndCarryTheHeaders() async throws {
        try await Self.server().test { client in
            for (uri, type) in [("/console", "text/html"), ("/console/", "text/html"), ("/console/app.js", "text/javascript"),
                                ("/console/console.css", "text/css"), ("/console/examples", "application/json"),
                                ("/console/examples/pk-side-by-side.json", "application/json")] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(uri): \(response.headers[.contentType] ?? "")")
                Self.expectSecurityHeaders(response, uri)
            }
        }
    }

    @Test func unknownFilesAre404WithTheHeadersAndReachNothingElse() async throws {
        try await Self.server().test { client in
            for uri in ["/console/nope.js", "/console/..%2Fopenapi.yaml", "/console/examples/..%2F..%2Fopenapi.yaml"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                Self.expectSecurityHeaders(response, uri)
            }
        }
    }

    @Test func theAPIStillAsksTheToken() async throws {
        try await Self.server().test { client in
            let response = try await client.execute(uri: "/v1/tasks", method: .get)
            #expect(response.status == .unauthorized)
        }
    }

    @Test func consoleFalseTurnsItOff() async throws {
        try await Self.server(apiToken: nil, console: false).test { client in
            for uri in ["/console", "/console/app.js"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
            }
        }
    }

    /// What the pages are made of, read as files: no inline script, no HTML from strings, and
    /// requests only to the public API and the console's own examples.
    @Test func theScriptsInsertTextOnlyAndCallOnlyThePublicAPI() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/TesseraServer/Resources/console")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains("index.html") && names.filter { $0.hasSuffix(".js") }.count >= 5)
        for name in names {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                              "localStorage", "document.cookie", "javascript:"] {
                #expect(!text.contains(forbidden), "\(name) uses \(forbidden)")
            }
            if name.hasSuffix(".html") {
                #expect(!text.contains("<script>") && text.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil,
                        "\(name): inline script or handler")
            }
            // Every request goes through api.js's `call(method, path…)`, whose paths are /v1/ or /console/examples.
            if name != "api.js" { #expect(!text.contains("fetch("), "\(name) fetches on its own") }
        }
        let api = try String(contentsOf: directory.appendingPathComponent("api.js"), encoding: .utf8)
        let paths = api.split(separator: "\n").filter { $0.contains("call('") }
        #expect(paths.count >= 10)
        for line in paths {
            #expect(line.contains("'/v1/") || line.contains("task(") || line.contains("/console/examples"), "\(line)")
        }
    }
}
