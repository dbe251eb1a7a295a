import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraTask
import TesseraServer

/// `POST /v1/validate` and `POST /v1/preview`: the offline commands' checks over HTTP, with the
/// error shapes of `POST /v1/tasks`, starting nothing.
@Suite struct DocumentCheckRoutesTests {
    /// Media files count as present: these tests have none.
    static func server(apiToken: String? = nil) -> TestServer {
        var server = TestServer(apiToken: apiToken)
        server.support = APISupport(validationOptions: ValidationOptions(
            mediaRoot: "/media", fileExists: { _ in true }, inspectFile: { _ in nil }))
        return server
    }

    static let twoInputs = #"""
        {"taskId": "pk", "inputs": [{"id": "a", "url": "a.mp4"}, {"id": "b", "url": "b.mp4"}],
         "encoder": {"video": {"width": 640, "height": 360}},
         "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 320, "height": 360},
                                {"input": "b", "units": "relative", "x": 0.5, "y": 0, "width": 0.5, "height": 1, "alpha": 0.5}]},
         "outputs": [{"url": "out.mp4"}]}
        """#

    struct Summary: Decodable {
        struct Layout: Decodable {
            struct Region: Decodable { var documentIndex: Int; var kind: String; var input: String?; var x, y, width, height: Int; var alpha: Double }
            var canvasWidth, canvasHeight: Int
            var regions: [Region]
            var template: Bool
        }
        var valid: Bool
        var taskId: String
        var inputs: [String]
        var layout: Layout?
    }

    @Test func aValidDocumentIsSummarisedWithItsRegionsInPixels() async throws {
        let server = Self.server()
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/validate", method: .post, headers: jsonHeaders(), body: buffer(Self.twoInputs))
            #expect(response.status == .ok)
            let summary = try JSONDecoder().decode(Summary.self, from: Data(response.body.readableBytesView))
            #expect(summary.valid && summary.taskId == "pk" && summary.inputs == ["a", "b"])
            let regions = try #require(summary.layout).regions
            #expect(regions.map(\.input) == ["a", "b"])
            #expect(regions[1].x == 320 && regions[1].width == 320 && regions[1].height == 360 && regions[1].documentIndex == 1)
            #expect(abs(regions[1].alpha - 0.5) < 0.01)
            #expect(summary.layout?.template == false)
        }
        #expect(await server.service.order.isEmpty, "validating started a task")
    }

    @Test func everyIssueComesBackWithItsPathAsPostTasksAnswers() async throws {
        try await Self.server().test { client in
            let response = try await client.execute(uri: "/v1/validate", method: .post, body: buffer(#"{"taskId": "x"}"#))
            #expect(response.status == .badRequest)
            let error = try #require(response.errorBody)
            #expect(error.code == "InvalidTask" && error.path == "inputs")
            #expect(error.issues?.map(\.path) == ["inputs", "outputs"])

            let field = Self.twoInputs.replacingOccurrences(of: #""alpha": 0.5"#, with: #""alpha": 5"#)
            let bad = try await client.execute(uri: "/v1/validate", method: .post, body: buffer(field))
            #expect(bad.errorBody?.path == "layout.regions[1].alpha")

            let malformed = try await client.execute(uri: "/v1/validate", method: .post, body: buffer("{"))
            #expect(malformed.status == .badRequest && malformed.errorBody?.code == "InvalidTask")
        }
    }

    @Test func aTemplateLayoutIsMarkedAsSuch() async throws {
        let body = #"""
            {"inputs": [{"id": "a", "url": "a.mp4"}], "encoder": {"video": {"width": 640, "height": 360}},
             "layout": {"template": "grid"}, "outputs": [{"url": "o.mp4"}]}
            """#
        try await Self.server().test { client in
            let response = try await client.execute(uri: "/v1/validate", method: .post, body: buffer(body))
            let summary = try JSONDecoder().decode(Summary.self, from: Data(response.body.readableBytesView))
            #expect(summary.layout?.template == true && summary.layout?.regions.count == 1)
        }
    }

    @Test func previewDrawsThePNGAtTheCanvasSize() async throws {
        try await Self.server().test { client in
            let response = try await client.execute(uri: "/v1/preview", method: .post, body: buffer(Self.twoInputs))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/png")
            let bytes = Array(response.body.readableBytesView)
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            // IHDR: width and height, big-endian, at bytes 16 and 20.
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 640 && height == 360)
        }
    }

    @Test func previewOfAnAudioOnlyTaskNamesEncoderVideo() async throws {
        let body = #"{"inputs": [{"id": "a", "url": "a.mp4"}], "encoder": {"audio": {}}, "outputs": [{"url": "o.mp4"}]}"#
        try await Self.server().test { client in
            let response = try await client.execute(uri: "/v1/preview", method: .post, body: buffer(body))
            #expect(response.status == .badRequest)
            #expect(response.errorBody?.path == "encoder.video")
        }
    }

    @Test func bothAskTheToken() async throws {
        try await Self.server(apiToken: "s3cret").test { client in
            for uri in ["/v1/validate", "/v1/preview"] {
                let response = try await client.execute(uri: uri, method: .post, body: buffer(Self.twoInputs))
                #expect(response.status == .unauthorized)
                let allowed = try await client.execute(uri: uri, method: .post, headers: bearer("s3cret"), body: buffer(Self.twoInputs))
                #expect(allowed.status == .ok)
            }
        }
    }
}
