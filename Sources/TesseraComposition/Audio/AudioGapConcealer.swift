/// Hides the gaps a lost audio packet leaves: instead of a hard cut to silence (a click), the
/// last sound fades out across the gap and the next block fades in.
///
/// The fill repeats the last pitch period of the audio before the gap (as G.711 Appendix I
/// does): a period is chosen by autocorrelation between 2.5 and 10 ms, so where the repetition
/// joins the real audio, and where it joins itself, the waveform continues instead of jumping.
/// It fades linearly to zero over min(gap, maxConceal); the rest of the gap is silence.
///
/// Not thread-safe: one instance per audio stream, used from that stream's thread.
public final class AudioGapConcealer {
    private let channels: Int
    private let sampleRate: Int
    private let fadeSamples: Int
    private let maxConcealSamples: Int
    /// Shorter gaps are rounding in the caller's timeline, not loss.
    private let gapThresholdSamples: Int
    /// Longer gaps are an interruption, not a lost packet: no fill is invented for them.
    private let maxGapSamples: Int
    private let shortestPeriod: Int
    private let longestPeriod: Int
    /// The latest audio per channel, enough for the period search (two longest periods).
    private var history: [[Float]]
    /// Where the previous block ended; nil before the first block.
    private var nextPosition: Int64?
    public private(set) var concealedSamples: Int64 = 0

    public init(channels: Int, sampleRate: Int, fadeMilliseconds: Int = 5, maxConcealMilliseconds: Int = 80) {
        self.channels = max(1, channels)
        self.sampleRate = max(1, sampleRate)
        fadeSamples = max(1, sampleRate * fadeMilliseconds / 1000)
        maxConcealSamples = sampleRate * maxConcealMilliseconds / 1000
        gapThresholdSamples = sampleRate * 2 / 1000
        maxGapSamples = sampleRate
        shortestPeriod = max(1, sampleRate / 400)
        longestPeriod = max(1, sampleRate / 100)
        history = Array(repeating: [], count: max(1, channels))
    }

    /// Passes a block on (planar Float32, `position` = index of its first sample on a continuous
    /// timeline). When it starts after a gap (more than 2 ms after the end of the previous block)
    /// and the gap is at most 1 s, first emits fill for the gap and fades the new block in over
    /// fadeMilliseconds. A longer gap gets the fade-in but no fill. An overlap or a first block
    /// passes through unchanged.
    public func process(_ planes: [UnsafePointer<Float>], count: Int, position: Int64,
                        emit: ([UnsafePointer<Float>], Int, Int64) -> Void) {
        let previousEnd = nextPosition
        nextPosition = max(previousEnd ?? Int64.min, position + Int64(count))
        guard let previousEnd, position - previousEnd > Int64(gapThresholdSamples), count > 0 else {
            remember(planes, count: count)
            emit(planes, count, position)
            return
        }
        let gap = position - previousEnd
        if gap <= Int64(maxGapSamples) {
            emitFill(count: Int(gap), position: previousEnd, emit: emit)
            concealedSamples += gap
        }
        let faded = planes.prefix(channels).map { plane in
            (0..<count).map { index in plane[index] * (index < fadeSamples ? Float(index) / Float(fadeSamples) : 1) }
        }
        Self.withPointers(faded) { pointers in
            remember(pointers, count: count)
            emit(pointers, count, position)
        }
    }

    /// Forgets the previous audio: the next block is treated as the first.
    public func reset() {
        nextPosition = nil
        history = Array(repeating: [], count: channels)
    }

    // MARK: - Fill

    private func emitFill(count: Int, position: Int64, emit: ([UnsafePointer<Float>], Int, Int64) -> Void) {
        let period = pitchPeriod()
        let fadeLength = min(count, maxConcealSamples)
        let fill = history.map { recent -> [Float] in
            guard period > 0, recent.count >= period else { return [Float](repeating: 0, count: count) }
            let cycle = recent.suffix(period)
            return (0..<count).map { index in
                guard index < fadeLength else { return 0 }
                let gain = 1 - Float(index + 1) / Float(fadeLength)
                return cycle[cycle.startIndex + index % period] * gain
            }
        }
        Self.withPointers(fill) { emit($0, count, position) }
    }

    /// The lag in [2.5 ms, 10 ms] at which the latest audio (all channels summed) best matches
    /// itself, by normalised cross-correlation of the newest window against the window one lag
    /// earlier; with too little history, all of it.
    private func pitchPeriod() -> Int {
        let available = history.map(\.count).min() ?? 0
        let mono = (0..<available).map { index in history.reduce(Float(0)) { $0 + $1[$1.count - available + index] } }
        var best = (period: min(available, longestPeriod), score: -Float.infinity)
        guard available > shortestPeriod else { return best.period }
        for period in shortestPeriod...min(longestPeriod, available - 1) {
            let window = min(longestPeriod, available - period)
            var cross: Float = 0, newEnergy: Float = 0, oldEnergy: Float = 0
            for index in (available - window)..<available {
                let new = mono[index], old = mono[index - period]
                cross += new * old; newEnergy += new * new; oldEnergy += old * old
            }
            let score = cross / max((newEnergy * oldEnergy).squareRoot(), .leastNormalMagnitude)
            if score > best.score { best = (period, score) }
        }
        return best.period
    }

    private func remember(_ planes: [UnsafePointer<Float>], count: Int) {
        let keep = 2 * longestPeriod
        for channel in 0..<min(channels, planes.count) {
            let newest = UnsafeBufferPointer(start: planes[channel], count: count).suffix(keep)
            history[channel].append(contentsOf: newest)
            if history[channel].count > keep { history[channel].removeFirst(history[channel].count - keep) }
        }
    }

    private static func withPointers(_ planes: [[Float]], _ body: ([UnsafePointer<Float>]) -> Void) {
        var pointers: [UnsafePointer<Float>] = []
        func nest(_ index: Int) {
            guard index < planes.count else { return body(pointers) }
            planes[index].withUnsafeBufferPointer { buffer in
                pointers.append(buffer.baseAddress!)
                nest(index + 1)
            }
        }
        nest(0)
    }
}
