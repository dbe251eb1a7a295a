/// Keeps one stream's timestamps strictly increasing within a file, in the stream's time base: a
/// packet placed before the previous one (a placement pulled earlier, a sender's clock stepping
/// back) is moved just after it, never reordered; `pts` never falls below `dts`.
public struct MonotonicStamps: Sendable, Equatable {
    public private(set) var lastDTS: Int64?
    /// Packets moved forward so far.
    public private(set) var clamped: Int64 = 0

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
}
