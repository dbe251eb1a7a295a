/// One file of a `sequence` input (`inputs[].sequence[]`): played from its own start on the
/// output timeline, until the next file's start or its own end.
public struct TimedFile: Codable, Sendable, Equatable {
    /// Absolute path (resolved as a file input's `url` is).
    public var path: String
    /// Where the file's own time zero lies on the output timeline, in microseconds.
    public var startAtMicroseconds: Int64

    public init(path: String, startAtMicroseconds: Int64) {
        self.path = path; self.startAtMicroseconds = startAtMicroseconds
    }
}

/// A span of the output timeline (`inputs[].gaps[]`) in which the input is absent, as a live input
/// that stopped sending is: its region shows its placeholder, its audio is silent.
public struct InputGap: Codable, Sendable, Equatable {
    public var fromMicroseconds: Int64
    /// Exclusive: the input is back at this time.
    public var toMicroseconds: Int64

    public init(fromMicroseconds: Int64, toMicroseconds: Int64) {
        self.fromMicroseconds = fromMicroseconds; self.toMicroseconds = toMicroseconds
    }

    public func contains(_ microseconds: Int64) -> Bool {
        microseconds >= fromMicroseconds && microseconds < toMicroseconds
    }
}

extension Array where Element == InputGap {
    /// The gap holding `microseconds`, if any (gaps are sorted and disjoint: a binary search).
    public func gap(at microseconds: Int64) -> InputGap? {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].toMicroseconds <= microseconds { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low].contains(microseconds) ? self[low] : nil
    }
}

extension ResolvedInput.Source {
    /// The files this source reads: a file, or every file of a sequence.
    public var filePaths: [String] {
        switch self {
        case .file(let path): return [path]
        case .sequence(let files): return files.map(\.path)
        case .network, .rtpSDP, .rtpAllocate: return []
        }
    }
}

/// The audio side of `inputs[].gaps`: an input is silent inside its gaps, to the sample.
public enum GapMixPlan {
    /// One stretch of a mixed block with the gains in force over it.
    public struct Segment: Equatable, Sendable {
        /// Samples from the block's start.
        public var offset: Int
        public var count: Int
        /// Each input's gain (0 inside its gap).
        public var gains: [Float]
    }

    /// The block of `count` samples from task-clock sample `start` split where an input's gap
    /// begins or ends, each stretch with the gains in force (an input's is 0 inside its gap).
    /// Without gaps in the block: one segment with `gains` as they are.
    public static func segments(start: Int64, count: Int, sampleRate: Int, gains: [Float], gaps: [[InputGap]]) -> [Segment] {
        let rate = Int64(sampleRate)
        func sample(_ microseconds: Int64) -> Int64 { microseconds * rate / 1_000_000 }
        let end = start + Int64(count)
        var cuts: Set<Int64> = []
        var touched = false
        for input in gaps {
            for gap in input where sample(gap.fromMicroseconds) < end && sample(gap.toMicroseconds) > start {
                touched = true
                for edge in [sample(gap.fromMicroseconds), sample(gap.toMicroseconds)] where edge > start && edge < end { cuts.insert(edge) }
            }
        }
        guard touched else { return [Segment(offset: 0, count: count, gains: gains)] }
        let edges = [start] + cuts.sorted() + [end]
        return zip(edges, edges.dropFirst()).map { from, to in
            let stretchGains = gains.indices.map { index -> Float in
                let absent = index < gaps.count && gaps[index].contains { sample($0.fromMicroseconds) <= from && from < sample($0.toMicroseconds) }
                return absent ? 0 : gains[index]
            }
            return Segment(offset: Int(from - start), count: Int(to - from), gains: stretchGains)
        }
    }
}
