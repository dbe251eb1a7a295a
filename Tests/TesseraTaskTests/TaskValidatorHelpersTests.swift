import Foundation
import Testing
import TesseraTask

/// Shared fixtures for the reader, validator and template tests: a small valid document, options
/// with an injected file list, and a way to change one field by its path.
enum TaskFixtures {
    static let mediaRoot = "/media"
    static let outputDirectory = "/out"
    static let files: Set<String> = ["/media/anchor.mp4", "/media/late.mkv", "/media/bg.png", "/media/logo.png",
                                     "/media/ph.jpg", "/media/c.mp4", "/media/d.mp4", "/media/e.mp4"]

    static func options(files: Set<String> = files, offline: Bool = false, confine: Bool = true,
                        pace: Pace = .realtime) -> ValidationOptions {
        ValidationOptions(mediaRoot: mediaRoot, outputDirectory: outputDirectory, defaultPace: pace, offline: offline,
                          confinePaths: confine, fileExists: { files.contains($0) })
    }

    /// A valid two-input mix: a file and an RTMP pull side by side into one MP4.
    static let base = """
        {
          "taskId": "t1",
          "inputs": [
            {"id": "anchor", "url": "anchor.mp4"},
            {"id": "guest", "url": "rtmp://origin.local/live/guest"}
          ],
          "encoder": {"video": {"width": 1280, "height": 720}},
          "layout": {"regions": [
            {"input": "anchor", "x": 0, "y": 0, "width": 640, "height": 720},
            {"input": "guest", "x": 640, "y": 0, "width": 640, "height": 720}
          ]},
          "outputs": [{"url": "out.mp4"}]
        }
        """

    static func value(_ json: String) -> JSONValue {
        try! JSONValue.parse(Data(json.utf8))
    }

    static func data(_ value: JSONValue) -> Data {
        try! JSONEncoder().encode(value)
    }

    static func validate(_ json: String, options: ValidationOptions = options()) -> Result<ResolvedTask, ValidationFailure> {
        TaskValidator.validate(json: Data(json.utf8), options: options)
    }

    static func validate(_ value: JSONValue, options: ValidationOptions = options()) -> Result<ResolvedTask, ValidationFailure> {
        TaskValidator.validate(json: data(value), options: options)
    }

    /// The base document with one field set (a JSON text) or removed (nil).
    static func base(setting path: String, to json: String?) -> JSONValue {
        value(base).setting(path, to: json.map(value))
    }

    static func issues(_ result: Result<ResolvedTask, ValidationFailure>) -> [ValidationIssue] {
        if case .failure(let failure) = result { return failure.issues }
        return []
    }

    static func task(_ result: Result<ResolvedTask, ValidationFailure>,
                     sourceLocation: SourceLocation = #_sourceLocation) -> ResolvedTask? {
        switch result {
        case .success(let task): return task
        case .failure(let failure):
            Issue.record("unexpected issues:\n\(failure)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

extension JSONValue {
    /// A copy with the value at `path` (`a.b[2].c`) replaced, added, or removed when nil.
    func setting(_ path: String, to newValue: JSONValue?) -> JSONValue {
        var components: [Either] = []
        for part in path.split(separator: ".") {
            var name = Substring(part)
            var indices: [Int] = []
            while let open = name.lastIndex(of: "[") {
                indices.insert(Int(name[name.index(after: open)..<name.index(before: name.endIndex)])!, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { components.append(.key(String(name))) }
            components += indices.map(Either.index)
        }
        return setting(components[...], to: newValue) ?? .null
    }

    private enum Either { case key(String), index(Int) }

    private func setting(_ path: ArraySlice<Either>, to newValue: JSONValue?) -> JSONValue? {
        guard let first = path.first else { return newValue }
        switch (self, first) {
        case (.object(var fields), .key(let key)):
            fields[key] = (fields[key] ?? .object([:])).setting(path.dropFirst(), to: newValue)
            return .object(fields)
        case (.array(var elements), .index(let index)):
            if let value = elements[index].setting(path.dropFirst(), to: newValue) { elements[index] = value } else {
                elements.remove(at: index)
            }
            return .array(elements)
        default:
            fatalError("path does not fit the document")
        }
    }
}
