import Foundation
import Hummingbird
import TesseraComposition
import TesseraPNG
import TesseraService

/// `POST /v1/validate` and `POST /v1/preview`: what `tessera validate` and `tessera preview` do,
/// over HTTP, starting nothing. A designer (the console's, or any client's) checks a document as
/// it is typed and draws it with the server's own renderer.
struct DocumentCheckController<Context: RequestContext>: Sendable {
    let checker: DocumentChecker
    let maxBodyBytes: Int

    var routes: [APIRoute<Context>] {
        [
            APIRoute(.post, "/v1/validate", validate),
            APIRoute(.post, "/v1/preview", preview),
        ]
    }

    /// 200 with the summary, or 400 `InvalidTask` with every issue and its path.
    @Sendable func validate(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.collectBody(limit: maxBodyBytes)
        let resolved = try await checker.check(body)
        return try Responses.json(TaskSummary(resolved, usesTemplate: DocumentChecker.usesTemplate(body)))
    }

    /// 200 `image/png`: numbered, labelled boxes in draw order on the canvas, no media.
    @Sendable func preview(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.collectBody(limit: maxBodyBytes)
        let resolved = try await checker.check(body, drawingOnly: true)
        guard let layout = resolved.layout else {
            throw ServiceError(.invalidTask,
                               message: "an audio-only task has no layout to preview", path: "encoder.video")
        }
        let labels = LayoutPreview.labels(for: layout, inputIDs: resolved.inputs.map(\.id))
        // Drawing a 4K canvas takes a while: off the cooperative pool like the validation.
        let png = try await BlockingWork.run { try PNGEncoder.encode(LayoutPreview.render(layout: layout, labels: labels)) }
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return Responses.bytes(png, contentType: "image/png", headers: headers)
    }
}
