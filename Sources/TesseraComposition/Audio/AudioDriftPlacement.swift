/// Places one participant's resampled audio block after block without gaps or overlaps, while
/// its sender's clock is followed by a stretch ratio, and tunes that ratio so that the audio stays
/// on its timestamps.
///
/// The resampler stretches by the clock's ratio, but only to whole samples and only
/// approximately, so a block rarely ends exactly where the next one's timestamp puts it. Written
/// at their timestamps, the blocks would leave gaps of a sample or two (filled as "loss") or
/// overlaps (cut); written end to end, the audio would creep away from its timestamps. So blocks
/// are written end to end, and the distance to where the timestamp puts them (`error`) is fed
/// back into the ratio, to be made up over `catchUpSamples` (about a second: 1 sample late per
/// 20 ms block is 50 ppm, far below what the ear hears). A distance beyond `toleranceSamples` is
/// not rounding but a real gap or jump: the block goes where its timestamp says.
public struct AudioDriftPlacement: Sendable {
    public let toleranceSamples: Int64
    public let catchUpSamples: Double
    /// The largest share of the ratio spent on catching up (0.5 %).
    public let maxCatchUp = 0.005
    /// Where the previous block ended; nil before the first.
    private var nextPosition: Int64?

    public init(sampleRate: Int) {
        toleranceSamples = Int64(max(1, sampleRate / 50))
        catchUpSamples = Double(max(1, sampleRate))
    }

    /// For a block whose first sample belongs at `target` (from its timestamp) and a clock ratio
    /// `ratio`: the position to write it at, and the ratio to stretch it by.
    public mutating func place(target: Int64, ratio: Double) -> (position: Int64, ratio: Double) {
        guard let next = nextPosition, abs(target - next) <= toleranceSamples else { return (target, ratio) }
        // Late audio (target after next) needs more samples: a larger ratio.
        let catchUp = min(max(Double(target - next) / catchUpSamples, -maxCatchUp), maxCatchUp)
        return (next, ratio * (1 + catchUp))
    }

    /// The block just placed ended at `position` (one past its last sample).
    public mutating func ended(at position: Int64) {
        nextPosition = position
    }

    /// The stream starts afresh (a new sender).
    public mutating func reset() {
        nextPosition = nil
    }
}
