/// Where an LL-HLS output cuts its video into parts and segments, from each frame's time and
/// keyframe flag (RFC 8216bis §4.4.4.9): a part every `partMicroseconds` (a whole number of
/// frames, so no part is longer than `EXT-X-PART-INF:PART-TARGET`), a segment at the first
/// keyframe once `segmentMicroseconds` have passed, so every segment starts independent.
///
/// Pure: the packager asks before writing each video frame and flushes a fragment on a cut.
public struct LLHLSSegmenter: Sendable {
    /// What to do with the frame about to be written.
    public enum Action: Sendable, Equatable {
        /// Before the first keyframe: nothing can be decoded from it; not written.
        case drop
        /// Written into the part being built (the first frame of the run starts part 0).
        case append
        /// The part being built ends before this frame (its fragment flushed), and this frame
        /// starts the next part, of the next segment when `closed.endsSegment`.
        case cut(ClosedPart)
    }

    /// A part that is complete.
    public struct ClosedPart: Sendable, Equatable {
        public var segment: Int
        public var part: Int
        public var startMicroseconds: Int64
        public var durationMicroseconds: Int64
        /// Starts with a keyframe (`INDEPENDENT=YES`).
        public var independent: Bool
        /// The last part of its segment.
        public var endsSegment: Bool
        /// The segment's length when `endsSegment`.
        public var segmentDurationMicroseconds: Int64?
        public var segmentStartMicroseconds: Int64
    }

    public let partMicroseconds: Int64
    public let segmentMicroseconds: Int64
    public let frameMicroseconds: Int64

    private var segment: Int
    private var part = 0
    private var segmentStart: Int64?
    private var partStart: Int64 = 0
    private var partIndependent = false
    private var lastFrame: Int64?

    /// `firstSegment`: the media sequence number of the run's first segment.
    public init(partMicroseconds: Int64, segmentMicroseconds: Int64, frameMicroseconds: Int64, firstSegment: Int = 0) {
        self.partMicroseconds = max(partMicroseconds, frameMicroseconds)
        self.segmentMicroseconds = segmentMicroseconds
        self.frameMicroseconds = max(frameMicroseconds, 1)
        segment = firstSegment
    }

    /// The segment the next part belongs to, and that part's index.
    public var next: (segment: Int, part: Int) { (segment, part) }
    public var hasStarted: Bool { segmentStart != nil }

    /// The frame at `pts` (µs), a keyframe or not, is about to be written.
    public mutating func frame(at pts: Int64, keyframe: Bool) -> Action {
        guard let segmentStart else {
            guard keyframe else { return .drop }
            start(at: pts, independent: true)
            self.segmentStart = pts
            lastFrame = pts
            return .append
        }
        let half = frameMicroseconds / 2
        lastFrame = max(lastFrame ?? pts, pts)
        if keyframe, pts - segmentStart >= segmentMicroseconds - half {
            let closed = close(at: pts, endsSegment: true, segmentStart: segmentStart)
            segment += 1
            part = 0
            self.segmentStart = pts
            start(at: pts, independent: true)
            return .cut(closed)
        }
        if pts - partStart >= partMicroseconds - half {
            let closed = close(at: pts, endsSegment: false, segmentStart: segmentStart)
            part += 1
            start(at: pts, independent: keyframe)
            return .cut(closed)
        }
        return .append
    }

    /// The end of the run: the part being built closes one frame after the last frame written,
    /// and ends its segment. Nil when nothing was written.
    public mutating func finish() -> ClosedPart? {
        guard let segmentStart, let lastFrame else { return nil }
        let closed = close(at: lastFrame + frameMicroseconds, endsSegment: true, segmentStart: segmentStart)
        self.segmentStart = nil
        self.lastFrame = nil
        segment += 1
        part = 0
        return closed
    }

    private mutating func start(at pts: Int64, independent: Bool) {
        partStart = pts
        partIndependent = independent
    }

    private func close(at end: Int64, endsSegment: Bool, segmentStart: Int64) -> ClosedPart {
        ClosedPart(segment: segment, part: part, startMicroseconds: partStart, durationMicroseconds: end - partStart,
                   independent: partIndependent, endsSegment: endsSegment,
                   segmentDurationMicroseconds: endsSegment ? end - segmentStart : nil, segmentStartMicroseconds: segmentStart)
    }

    /// The part length every variant of a ladder uses: the most whole frames of the task's rate
    /// within `partSeconds`, rounded down to a multiple of every rendition's frame step, so the
    /// variants cut their parts on the same composite frames and none exceeds `PART-TARGET`.
    public static func partMicroseconds(partSeconds: Double, fps: Int, frameSteps: [Int] = [1]) -> Int64 {
        let step = frameSteps.reduce(1) { lcm($0, max($1, 1)) }
        let frames = Int((partSeconds * Double(fps) + 1e-6).rounded(.down))
        let aligned = max(step, frames / step * step)
        return Int64(aligned) * 1_000_000 / Int64(max(fps, 1))
    }

    private static func lcm(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return a / x * b
    }
}
