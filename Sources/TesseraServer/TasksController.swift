import Foundation
import Hummingbird
import Logging
import TesseraService
import TesseraWorkerProtocol

/// `/v1/tasks`: start, list, read, update, stop, snapshot. Bodies go to the registry as raw bytes:
/// it reads and validates them, so malformed JSON and bad fields come back from one place with
/// their field paths.
struct TasksController<Context: RequestContext>: Sendable {
    let service: any TaskService
    let maxBodyBytes: Int

    var routes: [APIRoute<Context>] {
        [
            APIRoute(.post, "/v1/tasks", create),
            APIRoute(.get, "/v1/tasks", list),
            APIRoute(.get, "/v1/tasks/{taskId}", status),
            APIRoute(.patch, "/v1/tasks/{taskId}", update),
            APIRoute(.delete, "/v1/tasks/{taskId}", stop),
            APIRoute(.get, "/v1/tasks/{taskId}/snapshot.png", snapshot),
            APIRoute(.post, "/v1/tasks/{taskId}/sei", injectSEI),
        ]
    }

    /// `GET /v1/tasks` answers `{"tasks": [...]}`, with `partial` (why) when the list may lack
    /// tasks: the task store is down and it holds what the reachable nodes run.
    struct TaskList: Encodable {
        var tasks: [TaskStatus]
        var partial: String?
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.collectBody(limit: maxBodyBytes)
        let status = try await service.create(body)
        context.logger.info("task started", metadata: ["task_id": .string(status.taskId)])
        var headers = HTTPFields()
        headers[.location] = "/v1/tasks/\(status.taskId)"
        return try Responses.json(status, status: .created, headers: headers)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        let listing = await service.listing()
        return try Responses.json(TaskList(tasks: listing.tasks, partial: listing.partial))
    }

    @Sendable func status(_ request: Request, context: Context) async throws -> Response {
        try Responses.json(try await service.status(try taskId(context)))
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> Response {
        let id = try taskId(context)
        var request = request
        let body = try await request.collectBody(limit: maxBodyBytes)
        let status = try await service.update(id, body)
        context.logger.info("task updated", metadata: ["sequence": .string(status.sequence.map(String.init) ?? "none")])
        return try Responses.json(status)
    }

    @Sendable func stop(_ request: Request, context: Context) async throws -> Response {
        let status = try await service.stop(try taskId(context))
        context.logger.info("task stopped", metadata: ["state": .string(status.state.rawValue)])
        return try Responses.json(status)
    }

    @Sendable func snapshot(_ request: Request, context: Context) async throws -> Response {
        let png = try await service.snapshot(try taskId(context))
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return Responses.bytes(png, contentType: "image/png", headers: headers)
    }

    @Sendable func injectSEI(_ request: Request, context: Context) async throws -> Response {
        let id = try taskId(context)
        var request = request
        let body = try await request.collectBody(limit: maxBodyBytes)
        let accepted = try await service.injectSEI(id, body)
        return try Responses.json(accepted, status: .accepted)
    }

    /// The `{taskId}` path parameter, percent-decoded.
    private func taskId(_ context: Context) throws -> String {
        guard let raw = context.parameters.get("taskId") else { throw APIError.internalError }
        return raw.removingPercentEncoding ?? raw
    }
}
