import Foundation
import Hummingbird
import TesseraTask
import TesseraService
import TesseraStore

/// `GET /v1/tasks/{taskId}/document`: the task document as last accepted (updates merged in) and
/// its layout as drawn, so an editor changes the real current document and sends it back as a
/// `PATCH` with the next `sequence`. Output URLs come whole, stream keys included: `outputs` is
/// replaced whole by an update, so an editor needs them; the token that reads them could start a
/// task pushing anywhere already. Statuses, logs and webhooks keep redacting them.
struct TaskDocumentController<Context: RequestContext>: Sendable {
    let support: APISupport
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
        guard let store = support.store else { throw ServiceError.taskNotFound(taskId) }
        let stored: StoredTask?
        do {
            stored = try await store.task(taskId)
        } catch {
            throw ServiceError.storeUnavailable(error)
        }
        guard let stored else { throw ServiceError.taskNotFound(taskId) }
        let body = Data(stored.document.utf8)
        let document = try JSONValue.parse(body)
        let resolved = try? await checker.check(body, drawingOnly: true)
        let layout = resolved.flatMap { TaskSummary($0, usesTemplate: DocumentChecker.usesTemplate(body)).layout }
        return try Responses.json(Answer(taskId: taskId, sequence: stored.sequence, document: document, layout: layout))
    }
}
