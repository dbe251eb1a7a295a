import Foundation
import TesseraObjectStorage

/// The messages between `tessera serve` and a task's worker process: one JSON object per line,
/// commands (`WorkerCommand`) on the worker's standard input, events on its standard output.
public struct WorkerEvent: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case status, snapshot, exit }
    public var type: Kind
    /// `status` and `exit`: the task as the worker sees it.
    public var status: WorkerStatus?
    /// `snapshot`: the request answered, and the PNG (base64) or why there is none.
    public var requestId: Int?
    public var png: String?
    public var error: String?
    /// `exit`: the task ended because the server stopped renewing the worker's lease.
    public var leaseExpired: Bool?

    public init(type: Kind, status: WorkerStatus? = nil, requestId: Int? = nil, png: String? = nil, error: String? = nil,
                leaseExpired: Bool? = nil) {
        self.type = type; self.status = status; self.requestId = requestId; self.png = png; self.error = error
        self.leaseExpired = leaseExpired
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
    public var encodes: [String]? = nil
    /// CPU seconds this worker process has used (user + system) since it started.
    public var cpuSeconds: Double? = nil

    public init(state: TaskState, reason: String?, frames: Int64, fps: Double, bitrateKbps: Double, lateFrames: Int64,
                inputs: [InputStatus], outputs: [OutputStatus], encodes: [String]? = nil) {
        self.state = state; self.reason = reason; self.frames = frames; self.fps = fps; self.bitrateKbps = bitrateKbps
        self.lateFrames = lateFrames; self.inputs = inputs; self.outputs = outputs; self.encodes = encodes
    }
}

/// Writes whole lines to a file descriptor from any thread (one lock, one `write` loop per line).
package final class LineWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private let encoder = JSONEncoder()

    package init(descriptor: Int32) { self.descriptor = descriptor }

    package func send<T: Encodable>(_ value: T) {
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
package struct LineReader {
    private let descriptor: Int32
    private var buffer = Data()

    package init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line, or nil at end of file.
    package mutating func next() -> Data? {
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
