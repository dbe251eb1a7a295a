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
