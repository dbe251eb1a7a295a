import Foundation
import Hummingbird
import Metrics
import TesseraTask
import TesseraService

/// Tessera's HLS origin: `GET /v1/tasks/{taskId}/hls/{viewerKey}/{fileName}` serves the files of
/// the task's HLS output that the key selects (no API token: viewers never hold it), with
/// LL-HLS blocking playlist reloads (`HLSBlockingRequest`), delta updates and the preload-hinted
/// part held until it is written; `GET /v1/tasks/{taskId}/thumbnail.jpg` (API token) the latest
/// thumbnail. A task another node runs is answered by that node, through this one (`HLSOriginRelay`).
///
/// What is served is decided by pure types (`HLSOriginFile`, `HLSBlockingRequest`,
/// `HLSPlaylistSummary`); this reads files off the cooperative pool and waits on the task's
/// `HLSProgressBoard` (continuations resumed by the worker's `hls` events).
struct HLSOriginController<Context: RequestContext>: Sendable {
    let service: any TaskService
    let metrics: TesseraMetrics
    /// Names this node in the `X-Tessera-Forwarded-By` of requests it passes on.
    var nodeId = ProcessInfo.processInfo.hostName

    static var filePath: String { "/v1/tasks/{taskId}/hls/{viewerKey}/{fileName}" }

    var routes: [APIRoute<Context>] {
        [
            APIRoute(.get, Self.filePath, requiresAuth: false, serve),
            APIRoute(.options, Self.filePath, requiresAuth: false, preflight),
            APIRoute(.get, "/v1/tasks/{taskId}/thumbnail.jpg", thumbnail),
        ]
    }

    @Sendable func preflight(_ request: Request, context: Context) async throws -> Response {
        HLSOriginResponses.preflight(request)
    }

    @Sendable func serve(_ request: Request, context: Context) async throws -> Response {
        guard let taskId = context.parameters.get("taskId").map({ $0.removingPercentEncoding ?? $0 }),
              let key = context.parameters.get("viewerKey"), let fileName = context.parameters.get("fileName") else {
            return HLSOriginResponses.notFound()
        }
        let task: HLSOriginTask
        do {
            switch try await service.hlsOrigin(taskId) {
            case .here(let local): task = local
            case .elsewhere(let baseURL): return await relay(request, to: baseURL, context: context)
            }
        } catch let error as ServiceError {
            if error.kind == .taskNotFound || error.kind == .invalidState { return refused("task", context: context) }
            return HLSOriginResponses.refusal(APIError(error))
        }
        // Every key is compared whole, whichever matches: the time says nothing of the key.
        var selected: HLSOriginOutput?
        for output in task.outputs where ConstantTime.equals(output.viewerKey, key) && selected == nil { selected = output }
        guard let output = selected else { return refused("key", context: context) }
        guard let file = HLSOriginFile.classify(fileName, of: output, among: task.outputs) else {
            return refused("file", context: context)
        }
        if file.kind == .playlist { return await playlist(file, of: output, task: task, request: request, context: context) }
        let path = output.path(of: fileName)
        if let bytes = await Self.read(path) {
            return media(bytes, file, request: request)
        }
        return await hintedPart(file, of: output, task: task, request: request, context: context)
    }

    /// A playlist: at once, or held until the part the request names is published.
    private func playlist(_ file: HLSOriginFile, of output: HLSOriginOutput, task: HLSOriginTask, request: Request,
                          context: Context) async -> Response {
        let query = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
        let directives: HLSBlockingRequest
        switch HLSBlockingRequest.parse(query) {
        case .success(let parsed): directives = parsed
        case .failure(let refusal): return badRequest(refusal.message, context: context)
        }
        let path = output.path(of: file.name)
        guard let first = await Self.read(path) else { return refused("file", context: context) }
        var text = first
        let summary = HLSPlaylistSummary(text: String(decoding: first, as: UTF8.self))
        let delta: Bool, blocking: Bool
        switch directives.decide(summary) {
        case .refuse(let message):
            return badRequest(message, context: context)
        case .answer(let wantsDelta, let isBlocking):
            delta = wantsDelta; blocking = isBlocking
        case .hold(let awaited, let timeout, let wantsDelta):
            let started = MonotonicClock.nanoseconds
            let reached = await task.wait(playlistPath: path, for: awaited, timeoutSeconds: timeout)
            recordHold(reached ? "answered" : "timeout", seconds: Double(MonotonicClock.nanoseconds &- started) / 1e9)
            guard reached else {
                context.logger.info("blocking playlist request timed out", metadata: [
                    "task_id": .string(task.taskId), "playlist": .string(file.name), "awaited": .string("\(awaited)")])
                return HLSOriginResponses.refusal(APIError(
                    code: "Unavailable", httpStatus: 503,
                    message: "the part asked for did not appear within \(timeout) s (three target durations)"))
            }
            guard let fresh = await Self.read(path) else { return refused("file", context: context) }
            text = fresh
            delta = wantsDelta; blocking = true
        }
        if delta, let deltaText = await Self.read(output.path(of: HLSOriginFile.deltaName(of: file.name))) { text = deltaText }
        return HLSOriginResponses.file(text, file, cacheControl: HLSOriginFile.cacheControl(.playlist, blocking: blocking,
                                                                                             targetDuration: summary.targetDuration))
    }

    /// A part not on disk yet: held until written when its playlist's preload hint names it
    /// (a player asks for it before it exists); any other missing file is a 404. The part is
    /// sent whole once the worker publishes it (parts are written aside and renamed, so a file
    /// that exists is complete).
    private func hintedPart(_ file: HLSOriginFile, of output: HLSOriginOutput, task: HLSOriginTask, request: Request,
                            context: Context) async -> Response {
        guard let position = file.position, let playlistName = file.mediaPlaylistName,
              HLSOriginFile.classify(playlistName, of: output, among: task.outputs)?.kind == .playlist else {
            return refused("file", context: context)
        }
        let playlistPath = output.path(of: playlistName)
        guard let text = await Self.read(playlistPath) else { return refused("file", context: context) }
        let summary = HLSPlaylistSummary(text: String(decoding: text, as: UTF8.self))
        let awaited: HLSBlockingRequest.Awaited = position.part.map { .part(HLSPartPosition(msn: position.msn, part: $0)) }
            ?? .segment(position.msn)
        // Written since the first look (the playlist now lists it, its hint names the next part).
        if awaited.isListed(in: summary) || task.newestPart(playlistPath: playlistPath).map(awaited.isReached(by:)) == true {
            guard let bytes = await Self.read(output.path(of: file.name)) else { return refused("file", context: context) }
            return media(bytes, file, request: request)
        }
        guard summary.preloadHint == file.name, !summary.ended else { return refused("file", context: context) }
        let started = MonotonicClock.nanoseconds
        let reached = await task.wait(playlistPath: playlistPath, for: awaited,
                                      timeoutSeconds: HLSBlockingRequest.timeoutSeconds(summary))
        recordHold(reached ? "answered" : "timeout", seconds: Double(MonotonicClock.nanoseconds &- started) / 1e9)
        guard reached, let bytes = await Self.read(output.path(of: file.name)) else { return refused("file", context: context) }
        return media(bytes, file, request: request)
    }

    /// A media file (never a playlist), whole or the one byte range the request asks
    /// (`HLSByteRange`: 206 with `Content-Range`, 416 past the end).
    private func media(_ bytes: Data, _ file: HLSOriginFile, request: Request) -> Response {
        let range = HLSByteRange.decide(request.headers[.range], length: bytes.count)
        var response: Response
        switch range {
        case .whole:
            response = HLSOriginResponses.file(bytes, file, cacheControl: HLSOriginFile.cacheControl(file.kind))
        case .part(let first, let last):
            response = HLSOriginResponses.file(bytes.subdata(in: first..<(last + 1)), file,
                                               cacheControl: HLSOriginFile.cacheControl(file.kind))
            response.status = .partialContent
        case .unsatisfiable:
            response = HLSOriginResponses.refusal(APIError(code: "RangeNotSatisfiable", httpStatus: 416,
                                                           message: "the range asked for starts past the file's \(bytes.count) bytes"))
        }
        response.headers[.contentRange] = range.contentRange(length: bytes.count)
        response.headers[.acceptRanges] = "bytes"
        return response
    }

    /// `GET /v1/tasks/{taskId}/thumbnail.jpg`: the newest thumbnail any output of the task wrote.
    @Sendable func thumbnail(_ request: Request, context: Context) async throws -> Response {
        guard let raw = context.parameters.get("taskId") else { throw APIError.internalError }
        let taskId = raw.removingPercentEncoding ?? raw
        switch try await service.hlsOrigin(taskId) {
        case .elsewhere(let baseURL):
            return await relay(request, to: baseURL, context: context)
        case .here(let task):
            for path in task.latestThumbnails {
                if let bytes = await Self.read(path) {
                    var headers = HTTPFields()
                    headers[.cacheControl] = "no-store"
                    return Responses.bytes(bytes, contentType: "image/jpeg", headers: headers)
                }
            }
            throw APIError(code: "NotFound", httpStatus: 404,
                           message: "task \"\(taskId)\" has no thumbnail yet (an output with `thumbnails` writes one every interval)")
        }
    }

    /// The node that runs the task answers (`HLSOriginRelay`); a request passed on already is not
    /// passed on again (404, as for a task unknown here); an owner that cannot be reached is a 503.
    private func relay(_ request: Request, to baseURL: String, context: Context) async -> Response {
        guard !HLSOriginRelay.isForwarded(request) else { return refused("task", context: context) }
        if let answer = await HLSOriginRelay.forward(request, to: baseURL, nodeId: nodeId) { return answer }
        Metrics.Counter(label: "tessera_hls_origin_refused_total", dimensions: [("reason", "owner_unreachable")],
                        factory: metrics.factory).increment()
        context.logger.warning("HLS origin could not reach the node that runs the task", metadata: [
            "node": .string(baseURL), "path": .string(request.uri.path)])
        var error = APIError(code: "NodeUnavailable", httpStatus: 503, message: "the node that runs the task cannot be reached")
        error.retryAfterSeconds = 2
        return HLSOriginResponses.refusal(error)
    }

    /// A refusal counted by why (`tessera_hls_origin_refused_total{reason}`: `task`, `key`,
    /// `file`; `directive` is a 400, `badRequest`): a run of wrong keys shows there; the answer
    /// itself is the same 404 for all.
    private func refused(_ reason: String, context: Context) -> Response {
        Metrics.Counter(label: "tessera_hls_origin_refused_total", dimensions: [("reason", reason)], factory: metrics.factory).increment()
        context.logger.debug("HLS origin refused a request", metadata: ["reason": .string(reason)])
        return HLSOriginResponses.notFound()
    }

    /// A playlist request whose delivery directives are malformed or ask too far ahead: 400 with
    /// the message naming the parameter, counted as `tessera_hls_origin_refused_total{reason="directive"}`.
    private func badRequest(_ message: String, context: Context) -> Response {
        Metrics.Counter(label: "tessera_hls_origin_refused_total", dimensions: [("reason", "directive")], factory: metrics.factory)
            .increment()
        context.logger.debug("HLS origin refused a playlist request", metadata: ["reason": .string(message)])
        return HLSOriginResponses.refusal(APIError(code: "BadRequest", httpStatus: 400, message: message))
    }

    /// `tessera_hls_origin_holds_total{outcome}` and how long held requests waited.
    private func recordHold(_ outcome: String, seconds: Double) {
        Metrics.Counter(label: "tessera_hls_origin_holds_total", dimensions: [("outcome", outcome)], factory: metrics.factory).increment()
        Metrics.Timer(label: "tessera_hls_origin_hold_seconds", dimensions: [], factory: metrics.factory)
            .recordSeconds(seconds)
    }

    /// A whole file, read off the cooperative pool; nil when it is not there (or not a file).
    static func read(_ path: String) async -> Data? {
        try? await BlockingWork.run {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
            return FileManager.default.contents(atPath: path)
        }
    }
}
