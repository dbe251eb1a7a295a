import Foundation
import Hummingbird
import TesseraTask
import TesseraService

/// `GET /v1/tasks/{taskId}/document`: the task document as last accepted (updates merged in) and
/// its layout as drawn, so an editor changes the real current document and sends it back as a
/// `PATCH` with the next `sequence`. Output URLs come whole, stream keys included: `outputs` is
/// replaced whole by an update, so an editor needs them; the token that reads them could start a
/// task pushing anywhere already. Statuses, logs and webhooks keep redacting them.
///
/// The document comes through `TaskService`, like every task route, under its outage rules.
struct TaskDocumentController<Context: RequestContext>: Sendable {
    let service: any TaskService
    let checker: DocumentChecker

    var routes: [APIRoute<Context>] {
        [APIRoute(.get, "/v1/tasks/{taskId}/document", document)]
    }

    struct Answer: Encodable {
        var taskId: String
        var sequence: Int64?
        var document: JSONValue
        /// Nil for an audio-only task, or a document this server's options no longer accept.
        var layout: TaskSummary.Layout?
    }

    @Sendable func document(_ request: Request, context: Context) async throws -> Response {
        guard let raw = context.parameters.get("taskId") else { throw APIError.internalError }
        let taskId = raw.removingPercentEncoding ?? raw
        let accepted = try await service.document(taskId)
        let body = Data(accepted.document.utf8)
        let document = try JSONValue.parse(body)
        // Drawn as `POST /v1/preview` draws (`DocumentChecker`, every file present).
        let resolved = try? await checker.check(body, drawingOnly: true)
        let layout = resolved.flatMap { TaskSummary($0, usesTemplate: DocumentChecker.usesTemplate(body)).layout }
        return try Responses.json(Answer(taskId: taskId, sequence: accepted.sequence, document: document, layout: layout))
    }
}
