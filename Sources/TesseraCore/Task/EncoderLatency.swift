/// `encoder.video.latency`: how much delay a live task may add for smoothness.
///
/// `normal` is what Tessera always did: x264 looks ahead and pipelines frames across threads (a
/// better picture for the bitrate), and live inputs are placed 300 ms ahead of the output, room
/// for network jitter. `low` is for interactive streams where the host talks with viewers: x264's
/// zero-latency tuning (no look-ahead, no frame-thread delay: a frame leaves the encoder as it
/// enters), inputs 60 ms ahead and a shorter wait for reordered RTP packets.
public enum EncoderLatency: String, Codable, Sendable, CaseIterable {
    case normal, low

    /// How far ahead of the output clock a live input's media is placed when it starts flowing.
    public var inputLatencyMicroseconds: Int64 { self == .low ? 60_000 : 300_000 }

    /// How long an RTP stream waits for a missing packet before giving up on it.
    public var reorderWaitMicroseconds: Int64 { self == .low ? 20_000 : 50_000 }
}
