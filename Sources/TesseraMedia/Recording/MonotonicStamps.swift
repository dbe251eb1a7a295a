/// Keeps one stream's timestamps strictly increasing within a file, in the stream's time base.
///
/// Video (`stamp`): a packet placed before the previous one (a placement pulled earlier, a
/// sender's clock stepping back) is moved one tick after it, never reordered or dropped — a
/// P-frame needs the pictures before it; `pts` never falls below `dts`.
///
/// Audio (`stampAudio`): a packet that would start before the previous packet's end is dropped,
/// never squeezed: a player plays audio back to back, so packets stamped a tick apart would put
/// all the sound after them early (a burst after a stall once put a participant ~100 ms ahead of
/// the picture).
public struct MonotonicStamps: Sendable, Equatable {
    public private(set) var lastDTS: Int64?
    /// Video packets moved forward so far.
    public private(set) var clamped: Int64 = 0
    /// Audio: where the last packet written ends (its start plus its duration).
    public private(set) var lastEnd: Int64?
    /// Audio packets dropped because they would have overlapped the one before.
    public private(set) var droppedOverlap: Int64 = 0

    public init() {}

    public mutating func stamp(pts: Int64, dts: Int64) -> (pts: Int64, dts: Int64) {
        var dts = dts
        if let lastDTS, dts <= lastDTS {
            dts = lastDTS + 1
            clamped += 1
        }
        lastDTS = dts
        return (max(pts, dts), dts)
    }

    /// The start to write an audio packet at, or nil to drop it. A start within `tolerance` before
    /// the previous end (rounding, placement jitter) is moved to that end rather than dropped.
    public mutating func stampAudio(pts: Int64, duration: Int64, tolerance: Int64 = 0) -> Int64? {
        var start = pts
        if let lastEnd, start < lastEnd {
            guard start >= lastEnd - tolerance else {
                droppedOverlap += 1
                return nil
            }
            start = lastEnd
        }
        if let lastDTS, start <= lastDTS { start = lastDTS + 1 }
        lastDTS = start
        lastEnd = start + max(duration, 0)
        return start
    }
}
