/// One file of an output as it goes up to object storage, as the status reports it
/// (`outputs[].uploads[]`).
public struct ObjectUploadStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable, Equatable, CaseIterable {
        /// Recording or catching up: parts or segments are being sent.
        case uploading
        /// Complete in the bucket.
        case uploaded
        /// Given up, for `reason`; what reached the store stays there.
        case failed
    }

    /// `s3://BUCKET/KEY`.
    public var file: String
    public var state: State
    /// Bytes in the store.
    public var bytes: Int64
    /// Bytes recorded but not yet in the store (in the local spool).
    public var waitingBytes: Int64
    /// Multipart uploads: parts sent so far; HLS: segments sent.
    public var parts: Int
    /// `failed`: why; `uploading`: the last error, being retried (nil once a request succeeds).
    public var reason: String?
    /// True for a multipart upload a dead worker left open, completed from its parts.
    public var recovered: Bool?
    /// A per-participant output's file: the input it records.
    public var input: String?

    public init(file: String, state: State = .uploading, bytes: Int64 = 0, waitingBytes: Int64 = 0, parts: Int = 0,
                reason: String? = nil, recovered: Bool? = nil) {
        self.file = file; self.state = state; self.bytes = bytes; self.waitingBytes = waitingBytes; self.parts = parts
        self.reason = reason; self.recovered = recovered
    }
}
