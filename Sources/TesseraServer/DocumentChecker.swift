import Foundation
import TesseraTask
import TesseraService

/// Validates task documents with this server's options as `POST /v1/tasks` does
/// (`DocumentValidation`), a refusal being the same `InvalidTask` error, every issue with its path.
struct DocumentChecker: Sendable {
    let options: ValidationOptions

    /// - Parameter drawingOnly: every file counts as present, as in `tessera preview`: a drawing
    ///   needs no media, and a running task's document still draws after a file is gone.
    func check(_ body: Data, drawingOnly: Bool = false) async throws -> ResolvedTask {
        var options = self.options
        if drawingOnly { options.fileExists = { _ in true } }
        return try await DocumentValidation.validate(json: body, options: options, kind: .invalidTask)
    }

    /// Whether the document's layout names a `template` (its slots then have no `layout.regions` entry).
    static func usesTemplate(_ body: Data) -> Bool {
        guard case .object(let fields)? = try? JSONValue.parse(body), case .object(let layout)? = fields["layout"] else {
            return false
        }
        return layout["template"].map { $0 != .null } ?? false
    }
}
