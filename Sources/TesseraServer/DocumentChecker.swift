import Foundation
import TesseraTask
import TesseraService

/// Validates task documents with this server's options, off the cooperative pool (validation
/// reads files and may resolve host names), and turns a refusal into the `InvalidTask` error
/// `POST /v1/tasks` answers, every issue with its path.
struct DocumentChecker: Sendable {
    let options: ValidationOptions

    /// - Parameter drawingOnly: every file counts as present, as in `tessera preview`: a drawing
    ///   needs no media, and a running task's document still draws after a file is gone.
    func check(_ body: Data, drawingOnly: Bool = false) async throws -> ResolvedTask {
        var options = self.options
        if drawingOnly { options.fileExists = { _ in true } }
        let chosen = options
        return try await BlockingWork.run {
            switch TaskValidator.validate(json: body, options: chosen) {
            case .success(let resolved): return resolved
            case .failure(let failure): throw ServiceError.invalid(failure, kind: .invalidTask)
            }
        }
    }

    /// Whether the document's layout names a `template` (its slots then have no `layout.regions` entry).
    static func usesTemplate(_ body: Data) -> Bool {
        guard case .object(let fields)? = try? JSONValue.parse(body), case .object(let layout)? = fields["layout"] else {
            return false
        }
        return layout["template"].map { $0 != .null } ?? false
    }
}
