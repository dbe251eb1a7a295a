import Foundation

/// The messages between `tessera serve` and a task's worker process: one JSON object per line,
/// commands (`WorkerCommand`) on the worker's standard input, events on its standard output.
public struct WorkerEvent: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case status, snapshot, exit, hls }
    public var type: Kind
    /// `status` and `exit`: the task as the worker sees it.
    public var status: WorkerStatus?
    /// `snapshot`: the request answered, and the PNG (base64) or why there is none.
    public var requestId: Int?
    public var png: String?
    public var error: String?
    /// `exit`: the task ended because the server stopped renewing the worker's lease.
    public var leaseExpired: Bool?
    /// `hls`: an LL-HLS part was written and its playlist lists it (about three a second per
    /// playlist, each sent: `serve` answers the blocking playlist requests waiting for it).
    public var hls: HLSPartEvent?

    public init(type: Kind, status: WorkerStatus? = nil, requestId: Int? = nil, png: String? = nil, error: String? = nil,
                leaseExpired: Bool? = nil, hls: HLSPartEvent? = nil) {
        self.type = type; self.status = status; self.requestId = requestId; self.png = png; self.error = error
        self.leaseExpired = leaseExpired; self.hls = hls
    }
}

/// Part `part` (from 0) of the segment with media sequence number `msn` of the playlist at
/// `playlist` (the path the worker writes) is on disk and listed.
public struct HLSPartEvent: Codable, Sendable, Equatable {
    public var playlist: String
    public var msn: Int
    public var part: Int

    public init(playlist: String, msn: Int, part: Int) { self.playlist = playlist; self.msn = msn; self.part = part }
}
