import Foundation
import TesseraCore
import TesseraObjectStorage

/// The messages between `tessera serve` and a task's worker process: one JSON object per line,
/// commands on the worker's standard input, events on its standard output.
public struct WorkerCommand: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case start, update, stop, snapshot, lease, sei }
    public var type: Kind
    /// `start` and `update`: the resolved plan, validated once by the server that took the
    /// request (with its limits); the worker trusts it as given and reads no limits of its own.
    public var plan: ResolvedTask?
    public var requestId: Int?
    /// `start`: seconds a live output keeps reconnecting before it is `failed`.
    public var outputGiveUpSeconds: Double?
    /// `start` and `lease`: the worker may run this many seconds more without hearing from its
    /// server; past that it ends its task (fencing: a paused or cut-off server's worker stops
    /// before another node may take the task over). nil: no lease.
    public var leaseSeconds: Double?
    /// `sei`: a message for the next output frames.
    public var sei: SEIInjection?
    /// `start`: `--rtp-bind-address` as the server resolved it (nil: none; see `RTPBindAddress`).
    public var rtpBindAddress: String?
    /// `start`: the node's object store, for `s3://` outputs (credentials included: this pipe is
    /// the only place they travel; never in a plan or a status).
    public var storage: StorageSettings?

    public init(type: Kind, plan: ResolvedTask? = nil, requestId: Int? = nil, outputGiveUpSeconds: Double? = nil,
                leaseSeconds: Double? = nil, sei: SEIInjection? = nil, rtpBindAddress: String? = nil,
                storage: StorageSettings? = nil) {
        self.storage = storage
        self.type = type; self.plan = plan; self.requestId = requestId
        self.outputGiveUpSeconds = outputGiveUpSeconds; self.leaseSeconds = leaseSeconds; self.sei = sei
        self.rtpBindAddress = rtpBindAddress
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
