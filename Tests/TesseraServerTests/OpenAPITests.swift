import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraServer

@Suite struct OpenAPITests {
    func document(apiToken: String? = nil) async throws -> (String, String?) {
        let server = TestServer(apiToken: apiToken)
        return try await server.app().test(.router) { client in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get, headers: bearer(apiToken ?? ""))
            #expect(response.status == .ok)
            return (response.text, response.headers[.contentType])
        }
    }

    @Test func isServedAsYAML() async throws {
        let (text, contentType) = try await document()
        #expect(contentType?.hasPrefix("application/yaml") == true)
        #expect(text.hasPrefix("openapi: 3.0."))
    }

    @Test(arguments: [nil, "token"])
    func isWellFormedYAML(apiToken: String?) async throws {
        let (text, _) = try await document(apiToken: apiToken)
        let problems = YAMLShape.problems(text)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// The bearer requirement is documented exactly when the server asks for a token.
    @Test func securityFollowsTheConfiguration() async throws {
        let (open, _) = try await document()
        #expect(!open.contains("\nsecurity:"))
        let (guarded, _) = try await document(apiToken: "token")
        #expect(guarded.contains("\nsecurity:\n  - bearerAuth: []\n"))
        // /healthz is open either way.
        #expect(guarded.contains("operationId: healthz\n      summary: Liveness\n      description: Needs no token.\n      security: []"))
    }

    @Test func listsEveryRouteOfTheRouter() async throws {
        let (text, _) = try await document()
        let documented = YAMLShape.operations(text)
        let server = TestServer()
        let routes = TesseraRouter(service: server.service, configuration: server.configuration, metrics: server.metrics).routes
        #expect(routes.routes.count == 10)
        for route in routes.routes {
            #expect(documented.contains("\(route.method.lowercased()) \(route.path)"), "\(route) missing from openapi.yaml")
        }
        #expect(documented.count == routes.routes.count, "\(documented)")
    }

    @Test func describesTheTaskDocumentStatusAndError() async throws {
        let (text, _) = try await document()
        for schema in ["TaskDocument", "TaskUpdate", "TaskStatus", "InputStatus", "OutputStatus", "Error", "Region",
                       "VideoEncoder", "AudioEncoder"] {
            #expect(text.contains("\n    \(schema):\n"), "\(schema)")
        }
        // Every field of SPEC §1, by name.
        for field in ["taskId", "mode", "pace", "maxDurationSeconds", "idleTimeoutSeconds", "callbackUrl", "inputs",
                      "url", "rtp", "sdp", "allocate", "loop", "startAtMs", "encoder", "width", "height", "fps",
                      "bitrateKbps", "gopSeconds", "codec", "preset", "sampleRate", "channels", "backgroundColor",
                      "backgroundImage", "template", "regions", "input", "image", "units", "x", "y", "zOrder",
                      "alpha", "renderMode", "placeholderImage", "volumes", "outputs", "sequence"] {
            #expect(text.contains("\n        \(field):\n") || text.contains("\n            \(field):\n")
                    || text.contains("\n          \(field):\n"), "\(field)")
        }
    }
}

/// Enough of YAML's block structure to catch a broken hand-written document: no tabs, even
/// indentation, every line a `key:`, `key: value`, `- item` or a continuation of a folded
/// scalar, no key twice in one mapping, and balanced quotes and brackets.
enum YAMLShape {
    static func problems(_ text: String) -> [String] {
        var problems: [String] = []
        // Keys seen per open mapping, by indentation.
        var keysByIndent: [Int: Set<String>] = [:]
        var foldedIndent: Int?
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if line.contains("\t") { problems.append("\(number + 1): tab"); continue }
            let indent = line.prefix { $0 == " " }.count
            if let folded = foldedIndent, indent > folded { continue }
            foldedIndent = nil
            if indent % 2 != 0 { problems.append("\(number + 1): odd indentation") }
            for key in keysByIndent.keys where key > indent { keysByIndent[key] = nil }
            var content = line.dropFirst(indent)
            if content.hasPrefix("- ") {
                // A list item opens a new mapping.
                keysByIndent[indent + 2] = []
                content = content.dropFirst(2)
                if !content.contains(":") || content.hasPrefix("{") { continue }   // a scalar item
            }
            guard let colon = content.firstIndex(of: ":") else {
                problems.append("\(number + 1): not a key: \(line)")
                continue
            }
            let key = String(content[..<colon])
            let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let keyIndent = line.count - content.count
            if keysByIndent[keyIndent, default: []].contains(key) { problems.append("\(number + 1): duplicate key \(key)") }
            keysByIndent[keyIndent, default: []].insert(key)
            if value == ">-" || value == "|" || value == ">" { foldedIndent = keyIndent }
            for (open, close) in [("[", "]"), ("{", "}")] where value.filter({ String($0) == open }).count
                != value.filter({ String($0) == close }).count {
                problems.append("\(number + 1): unbalanced \(open)\(close)")
            }
            if value.hasPrefix("'") && !value.hasSuffix("'") { problems.append("\(number + 1): unclosed quote") }
            if !value.hasPrefix("'") && !value.hasPrefix("\"") && value.contains(": ") {
                problems.append("\(number + 1): unquoted \": \" in a value")
            }
        }
        return problems
    }

    /// `method path` for every operation under `paths:`.
    static func operations(_ text: String) -> Set<String> {
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n") {
            if !line.hasPrefix(" ") { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path {
                let key = String(line.dropFirst(4).prefix { $0 != ":" })
                if methods.contains(key) { operations.insert("\(key) \(path)") }
            }
        }
        return operations
    }
}
