import TesseraRTP

/// An output's state as the worker reports it: the same for a live publisher, an RTP output, an
/// HLS ladder (its variants together) and an offline file.
extension Publisher {
    public enum State: String, Sendable { case connecting, live, reconnecting, failed, finished, paused }

    public struct Snapshot: Sendable {
        public var state: State
        public var bytes: Int64
        public var reconnects: Int64
        public var droppedPackets: Int64
        public var lastError: String?
        /// RTP outputs: what was sent and what the receiver reported, and the SDP sent by.
        public var rtp: RTPOutputStatus?
        public var sessionDescription: String?

        public init(state: State, bytes: Int64, reconnects: Int64, droppedPackets: Int64, lastError: String?) {
            self.state = state; self.bytes = bytes; self.reconnects = reconnects
            self.droppedPackets = droppedPackets; self.lastError = lastError
        }
    }
}

extension Publisher.Snapshot {
    /// Several outputs as one (an HLS ladder's variants): the least healthy state, bytes,
    /// reconnects and drops summed, the first error any of them has.
    public static func combined(_ snapshots: [Publisher.Snapshot]) -> Publisher.Snapshot {
        let rank: [Publisher.State] = [.failed, .reconnecting, .connecting, .paused, .live, .finished]
        let state = rank.first { state in snapshots.contains { $0.state == state } } ?? .live
        return Publisher.Snapshot(state: state, bytes: snapshots.reduce(0) { $0 + $1.bytes },
                                  reconnects: snapshots.reduce(0) { $0 + $1.reconnects },
                                  droppedPackets: snapshots.reduce(0) { $0 + $1.droppedPackets },
                                  lastError: snapshots.lazy.compactMap(\.lastError).first)
    }
}
