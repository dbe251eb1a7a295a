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

    /// How far ahead of the output a paced input (a file, a pull URL) is, at least, when it reads
    /// on after holding back: the smallest lead its media has while it plays.
    public var pacedWakeLeadMicroseconds: Int64 { self == .low ? 60_000 : 200_000 }

    /// How much media a paced input then reads in one go, so it is read at most
    /// `pacedWakeLeadMicroseconds + readBatchMicroseconds` ahead. Its decoder runs those frames
    /// back to back while its reference pictures are still in cache, instead of waking for every
    /// frame and packet, each time after the other decoders and the encoder have evicted its
    /// working set. `normal`: 100 ms, about three frames, read from 200 to 300 ms ahead (perf over
    /// 20 s of the 2x2 benchmark task: 1.5–4 % less CPU in the decoders). `low`: one frame at
    /// 30 fps beyond its 60 ms lead. A file has no live origin, so reading it 93 ms ahead delays
    /// nothing a viewer sees, and a live pull source is placed 60 ms ahead and never runs further
    /// (perf, `low`, 2x2 benchmark task: 5 % less in the decoders, 25 % less in the kernel).
    public var readBatchMicroseconds: Int64 { self == .low ? 33_000 : 100_000 }

    /// How long an RTP stream waits for a missing packet before giving up on it.
    public var reorderWaitMicroseconds: Int64 { self == .low ? 20_000 : 50_000 }
}
