import TesseraComposition
import TesseraTask

/// A command from `tessera serve` to a task's worker process (one JSON object per line on the
/// worker's standard input). Each case carries exactly what it needs, so a command that lacks
/// its plan or its request id cannot be written, only a line that is not a command at all.
public enum WorkerCommand: Sendable, Equatable {
    /// The first command: run this task.
    case start(WorkerStart)
    /// Swap in a new resolved plan at the next frame boundary (an accepted `PATCH`).
    case update(ResolvedTask)
    /// End the task properly: encoders flushed, trailers written, connections closed.
    case stop
    /// Answer with a `snapshot` event carrying this request id and the next composed picture.
    case snapshot(requestId: Int)
    /// Run this many seconds more without hearing from the server (fencing: a paused or cut-off
    /// server's worker stops before another node may take the task over).
    case lease(seconds: Double)
    /// Put this SEI message into the next output frames.
    case sei(SEIInjection)
}

/// What a worker is started with.
public struct WorkerStart: Codable, Sendable, Equatable {
    /// The resolved plan, validated once by the server that took the request (with its limits);
    /// the worker trusts it as given and reads no limits of its own.
    public var plan: ResolvedTask
    /// Seconds a live output keeps reconnecting before it is `failed`.
    public var outputGiveUpSeconds: Double
    /// The worker may run this many seconds without hearing from its server; nil: no lease.
    public var leaseSeconds: Double?
    /// `--rtp-bind-address` as the server resolved it (nil: none; see `RTPBindAddress`).
    public var rtpBindAddress: String?
    /// The node's object store, for `s3://` outputs (credentials included: this pipe is the only
    /// place they travel; never in a plan or a status).
    public var storage: StorageSettings?
    /// Seconds a network output may take no bytes before it is taken as lost (a stall).
    public var outputStallSeconds: Double
    /// How the worker writes its log lines (and FFmpeg's): as the server does.
    public var logFormat: LogFormat

    public init(plan: ResolvedTask, outputGiveUpSeconds: Double, leaseSeconds: Double?, rtpBindAddress: String?,
                storage: StorageSettings? = nil, outputStallSeconds: Double = 10, logFormat: LogFormat = .text) {
        self.plan = plan; self.outputGiveUpSeconds = outputGiveUpSeconds
        self.outputStallSeconds = outputStallSeconds; self.logFormat = logFormat
        self.leaseSeconds = leaseSeconds; self.rtpBindAddress = rtpBindAddress; self.storage = storage
    }
}

// MARK: - Wire form

/// `{"type": "start", "plan": …, "outputGiveUpSeconds": …}`, `{"type": "lease", "leaseSeconds": …}`,
/// `{"type": "stop"}`…: the `type` names the case and the case's values sit beside it.
extension WorkerCommand: Codable {
    private enum Kind: String, Codable { case start, update, stop, snapshot, lease, sei }
    private enum CodingKeys: String, CodingKey { case type, plan, requestId, leaseSeconds, sei }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        switch try values.decode(Kind.self, forKey: .type) {
        case .start: self = .start(try WorkerStart(from: decoder))
        case .update: self = .update(try values.decode(ResolvedTask.self, forKey: .plan))
        case .stop: self = .stop
        case .snapshot: self = .snapshot(requestId: try values.decode(Int.self, forKey: .requestId))
        case .lease: self = .lease(seconds: try values.decode(Double.self, forKey: .leaseSeconds))
        case .sei: self = .sei(try values.decode(SEIInjection.self, forKey: .sei))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .start(let start):
            try values.encode(Kind.start, forKey: .type)
            try start.encode(to: encoder)
        case .update(let plan):
            try values.encode(Kind.update, forKey: .type)
            try values.encode(plan, forKey: .plan)
        case .stop:
            try values.encode(Kind.stop, forKey: .type)
        case .snapshot(let requestId):
            try values.encode(Kind.snapshot, forKey: .type)
            try values.encode(requestId, forKey: .requestId)
        case .lease(let seconds):
            try values.encode(Kind.lease, forKey: .type)
            try values.encode(seconds, forKey: .leaseSeconds)
        case .sei(let injection):
            try values.encode(Kind.sei, forKey: .type)
            try values.encode(injection, forKey: .sei)
        }
    }
}

extension WorkerStart {
    private enum CodingKeys: String, CodingKey {
        case plan, outputGiveUpSeconds, leaseSeconds, rtpBindAddress, storage, outputStallSeconds, logFormat
    }

    /// Lines written before `outputStallSeconds` and `logFormat` existed still start a worker.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        self.init(plan: try values.decode(ResolvedTask.self, forKey: .plan),
                  outputGiveUpSeconds: try values.decode(Double.self, forKey: .outputGiveUpSeconds),
                  leaseSeconds: try values.decodeIfPresent(Double.self, forKey: .leaseSeconds),
                  rtpBindAddress: try values.decodeIfPresent(String.self, forKey: .rtpBindAddress),
                  storage: try values.decodeIfPresent(StorageSettings.self, forKey: .storage),
                  outputStallSeconds: try values.decodeIfPresent(Double.self, forKey: .outputStallSeconds) ?? 10,
                  logFormat: try values.decodeIfPresent(LogFormat.self, forKey: .logFormat) ?? .text)
    }
}

/// `--log-format`: how `tessera serve`, its workers and FFmpeg's messages are logged.
public enum LogFormat: String, Codable, Sendable, Equatable, CaseIterable {
    /// One human-readable line a message (swift-log's stream format).
    case text
    /// One JSON object a line: time, level, label, message and the metadata (`task_id`, `node`…).
    case json
}
