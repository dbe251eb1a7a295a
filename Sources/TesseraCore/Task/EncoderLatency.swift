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

    /// How much of that lead a paced input (a file, a pull URL) may use up before it reads on: it
    /// then decodes this much media back to back — about three frames while the decoder's
    /// reference pictures are still in cache — instead of waking for every frame and packet, each
    /// time after three other decoders and the encoder have evicted its working set
    /// (perf over 20 s of the 2x2 benchmark task: 1.5–4 % less CPU in the decoders). None in
    /// `low`, whose lead is small.
    public var readBatchMicroseconds: Int64 { self == .low ? 0 : 100_000 }

    /// How long an RTP stream waits for a missing packet before giving up on it.
    public var reorderWaitMicroseconds: Int64 { self == .low ? 20_000 : 50_000 }
}
