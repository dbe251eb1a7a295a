import Foundation

/// The console's static files (`Resources/console`) and the example task documents
/// (`Resources/examples`, also at `Layouts/examples`), read once at start-up into memory. Only
/// the files found there are ever served: a request names a file of this table, never a path
/// on disk, so `..` and encoded slashes reach nothing.
struct ConsoleFiles: Sendable {
    struct File: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    /// By name (`app.js`), the console's own files.
    let files: [String: File]
    /// By name (`pk-side-by-side.json`), the example task documents.
    let examples: [String: File]

    static let loaded = ConsoleFiles(directory: ServerResources.directory)

    init(directory: URL?) {
        files = Self.read(directory?.appendingPathComponent("console"))
        examples = Self.read(directory?.appendingPathComponent("examples")).filter { $0.key.hasSuffix(".json") }
    }

    init(files: [String: File], examples: [String: File] = [:]) {
        self.files = files
        self.examples = examples
    }

    /// The plain files of one directory with a known type; sub-directories are not served.
    private static func read(_ directory: URL?) -> [String: File] {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        var found: [String: File] = [:]
        for name in names {
            guard let type = contentType(of: name),
                  let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
            found[name] = File(bytes: Array(data), contentType: type)
        }
        return found
    }

    static func contentType(of name: String) -> String? {
        switch (name as NSString).pathExtension {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        // Module scripts must come with a JavaScript type, or the browser refuses them (nosniff).
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        default: return nil
        }
    }
}
