/// One encoded frame (video access unit / audio frame) ready for a decoder.
public struct EncodedMediaFrame: Sendable, Equatable {
    public var data: [UInt8]
    public var rtpTimestamp: UInt32
    /// Audio frames: always true.
    public var isKeyframe: Bool
    /// Arrival of the frame's last packet.
    public var arrivalMicroseconds: Int64

    public init(data: [UInt8], rtpTimestamp: UInt32, isKeyframe: Bool, arrivalMicroseconds: Int64) {
        self.data = data; self.rtpTimestamp = rtpTimestamp
        self.isKeyframe = isKeyframe; self.arrivalMicroseconds = arrivalMicroseconds
    }
}

/// Counters a depacketizer keeps for its whole life; `reset()` does not clear them, so they can
/// feed per-participant metrics across sender changes.
public struct DepacketizerStatistics: Sendable, Equatable {
    /// Frames handed out.
    public var frames: Int64 = 0
    /// Packets refused as malformed (counted, dropped).
    public var malformedPackets: Int64 = 0
    /// Incomplete frames dropped (loss, malformed packet, reset mid-frame), or frames dropped while
    /// waiting for a keyframe.
    public var droppedFrames: Int64 = 0

    public init(frames: Int64 = 0, malformedPackets: Int64 = 0, droppedFrames: Int64 = 0) {
        self.frames = frames; self.malformedPackets = malformedPackets; self.droppedFrames = droppedFrames
    }
}

/// Turns one RTP stream's payloads back into encoded frames.
///
/// Packets must arrive in sequence order (the reorder buffer runs first); gaps are announced with
/// `packetsLost()` rather than detected here, so the depacketizer never has to guess about
/// sequence-number wraparound or reordering.
public protocol RTPDepacketizer {
    mutating func push(_ packet: RTPPacket, arrivalMicroseconds: Int64) -> [EncodedMediaFrame]
    /// Packets were lost just before the next one: drop the frame being assembled; video then waits for a keyframe.
    mutating func packetsLost()
    /// The stream restarted (new sender): forget everything; video waits for a keyframe.
    mutating func reset()
    var statistics: DepacketizerStatistics { get }
}
