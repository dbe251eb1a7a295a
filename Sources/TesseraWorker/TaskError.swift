import TesseraTask

/// Why a task could not run, naming the input or output at fault.
public enum TaskError: Error, CustomStringConvertible, Sendable {
    case input(id: String, url: String, reason: String)
    case image(path: String, reason: String)
    case output(reason: String)
    case cancelled

    public var description: String {
        switch self {
        case .input(let id, let url, let reason): return "input \"\(id)\" (\(URLRedaction.redact(url))): \(reason)"
        case .image(let path, let reason): return "image \(path): \(reason)"
        case .output(let reason): return reason
        case .cancelled: return "cancelled"
        }
    }
}

extension ResolvedInput {
    /// The input's URL or path as shown in messages.
    var displayURL: String {
        switch source {
        case .file(let path): return path
        case .network(let url): return url
        case .rtpSDP: return "rtp (sdp)"
        case .rtpAllocate: return "rtp (allocated ports)"
        case .sequence(let files): return files.first.map { "\($0.path) (+\(files.count - 1) more)" } ?? "sequence"
        }
    }
}
