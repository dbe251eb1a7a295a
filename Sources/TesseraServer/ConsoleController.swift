import Foundation
import Hummingbird
import TesseraService

/// `/console`: the operator console, static files only. The pages ask the operator for the API
/// token and call the public API (`/v1/...`) with it like any client, so these routes hold no
/// secret and ask no token: the files are the same for everyone. They are not API routes (not in
/// the route table nor the OpenAPI document) and answer their own errors, so every response
/// here carries `ConsoleHeaders`.
struct ConsoleController<Context: RequestContext>: Sendable {
    let files: ConsoleFiles

    /// Method, path and handler of each route, for the router.
    var routes: [(path: String, handler: @Sendable (Request, Context) async throws -> Response)] {
        [
            // The router ignores a trailing slash: this answers `/console/` too.
            ("/console", index),
            ("/console/examples", exampleList),
            ("/console/examples/{file}", example),
            ("/console/{file}", file),
        ]
    }

    @Sendable func index(_ request: Request, context: Context) async throws -> Response {
        serve(files.files["index.html"], name: "index.html")
    }

    @Sendable func file(_ request: Request, context: Context) async throws -> Response {
        let name = context.parameters.get("file") ?? ""
        return serve(files.files[name], name: name)
    }

    struct ExampleList: Encodable {
        var examples: [String]
    }

    /// `{"examples": ["pk-side-by-side.json", …]}`, sorted.
    @Sendable func exampleList(_ request: Request, context: Context) async throws -> Response {
        try Responses.json(ExampleList(examples: files.examples.keys.sorted()), headers: ConsoleHeaders.fields)
    }

    @Sendable func example(_ request: Request, context: Context) async throws -> Response {
        let name = context.parameters.get("file") ?? ""
        return serve(files.examples[name], name: name)
    }

    private func serve(_ file: ConsoleFiles.File?, name: String) -> Response {
        guard let file else { return APIError.notFound("/console/\(name)").response(headers: ConsoleHeaders.fields) }
        return Responses.bytes(file.bytes, contentType: file.contentType, headers: ConsoleHeaders.fields)
    }
}
