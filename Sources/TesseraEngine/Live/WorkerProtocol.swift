import Foundation
import TesseraCore

/// The messages between `tessera serve` and a task's worker process: one JSON object per line,
/// commands on the worker's standard input, events on its standard output.
public struct WorkerCommand: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case start, update, stop, snapshot }
    public var type: Kind
    /// `start` and `update`: the whole task document as it now stands.
    public var document: JSONValue?
    public var mediaRoot: String?
    public var outputDirectory: String?
    public var requestId: Int?
    /// `start`: seconds a live output keeps reconnecting before it is `failed`.
    public var outputGiveUpSeconds: Double?

    public init(type: Kind, document: JSONValue? = nil, mediaRoot: String? = nil, outputDirectory: String? = nil,
                requestId: Int? = nil, outputGiveUpSeconds: Double? = nil) {
        self.outputGiveUpSeconds = outputGiveUpSeconds
        self.type = type; self.document = document; self.mediaRoot = mediaRoot
        self.outputDirectory = outputDirectory; self.requestId = requestId
    }
}

public struct WorkerEvent: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case status, snapshot, exit }
    public var type: Kind
    /// `status` and `exit`: the task as the worker sees it.
    public var status: WorkerStatus?
    /// `snapshot`: the request answered, and the PNG (base64) or why there is none.
    public var requestId: Int?
    public var png: String?
    public var error: String?

    public init(type: Kind, status: WorkerStatus? = nil, requestId: Int? = nil, png: String? = nil, error: String? = nil) {
        self.type = type; self.status = status; self.requestId = requestId; self.png = png; self.error = error
    }
}

/// The part of the task status only the worker knows.
public struct WorkerStatus: Codable, Sendable, Equatable {
    public var state: TaskState
    public var reason: String?
    public var frames: Int64
    public var fps: Double
    public var bitrateKbps: Double
    public var lateFrames: Int64
    public var inputs: [InputStatus]
    public var outputs: [OutputStatus]
}

/// Writes whole lines to a file descriptor from any thread (one lock, one `write` loop per line).
final class LineWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private let encoder = JSONEncoder()

    init(descriptor: Int32) { self.descriptor = descriptor }

    func send<T: Encodable>(_ value: T) {
        lock.withLock {
            guard var data = try? encoder.encode(value) else { return }
            data.append(0x0A)
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}

/// Reads newline-separated JSON objects from a file descriptor (blocking; its own thread).
struct LineReader {
    private let descriptor: Int32
    private var buffer = Data()

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line, or nil at end of file.
    mutating func next() -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return Data(line)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 {
                if buffer.isEmpty { return nil }
                defer { buffer.removeAll() }
                return buffer
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
