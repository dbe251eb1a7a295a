import Foundation
import TesseraTask

/// Reads and validates a task file for the offline commands, printing every problem with its
/// field path.
enum TaskLoading {
    static func options(mediaRoot: String?, outputDirectory: String?) -> ValidationOptions {
        let workingDirectory = FileManager.default.currentDirectoryPath
        return ValidationOptions(mediaRoot: mediaRoot ?? workingDirectory,
                                 outputDirectory: outputDirectory ?? workingDirectory,
                                 defaultPace: .asap, offline: true, confinePaths: false)
    }

    /// The task's JSON, with `--layout` replacing its layout and its updates' layouts
    /// (`LayoutOverride`) and `--output` replacing its outputs, when given.
    static func read(_ path: String, outputOverride: String? = nil, layoutOverride: String? = nil) throws -> Data {
        guard var data = FileManager.default.contents(atPath: path).map({ TimelinePaths.resolved($0, documentPath: path) }) else {
            throw CommandFailure("cannot read task file \(path)")
        }
        if let layoutOverride {
            guard let layout = FileManager.default.contents(atPath: layoutOverride) else {
                throw CommandFailure("--layout: cannot read layout file \(layoutOverride)")
            }
            switch LayoutOverride.apply(layout: layout, to: data) {
            case .success(let merged): data = merged
            case .failure(let failure): throw CommandFailure(failure.description)
            }
        }
        guard let outputOverride else { return data }
        // Replace the outputs at the JSON level so the rest of the document is validated as written.
        guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return data }
        object["outputs"] = [["url": outputOverride]]
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// With `layoutOverridden`, issues in the layout name the `--layout` file.
    static func validate(_ data: Data, options: ValidationOptions, layoutOverridden: Bool = false) -> Result<ResolvedTask, ValidationFailure> {
        TaskValidator.validate(json: data, options: options).mapError { failure in
            layoutOverridden ? ValidationFailure(issues: LayoutOverride.rename(failure.issues)) : failure
        }
    }

    /// What in a valid document only `tessera serve` can run, one `serve only: field.path: why`
    /// line each (empty when `tessera mix` runs it). `validate` prints these lines and still
    /// exits 0 (the document is valid, for the server); `mix` prints the same lines and exits 1
    /// before opening anything, instead of failing on the first such input once started.
    static func serveOnlyLines(_ task: ResolvedTask) -> [String] {
        task.inputs.enumerated().compactMap { index, input in
            guard case .rtpAllocate = input.source else { return nil }
            return "serve only: inputs[\(index)].rtp.allocate: RTP ports are allocated by `tessera serve` (POST /v1/tasks); "
                + "`tessera mix` cannot run this input (give it rtp.sdp or a file instead)"
        }
    }
}

/// A failure the command reports in one line and exits 1 for.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes to standard error without buffering (Swift 6 forbids touching C's `stderr` global).
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Foundation.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }

    static func line(_ text: String) { write(text + "\n") }
    static var isTerminal: Bool { isatty(2) == 1 }
}
