import Foundation

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
