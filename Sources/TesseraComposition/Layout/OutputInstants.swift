/// The instants a video output draws frames at: frame `k` at `k / fps` seconds, rounded to the
/// microsecond the way the output clock rounds it, and which input pictures those instants show.
///
/// An input picture is shown at instant `t` when it is the latest picture whose timestamp is not
/// after `t` (with `toleranceMicroseconds` for millisecond containers). So a picture that starts
/// at `start` and is followed by the next at `end` is shown exactly when some `t` has
/// `start <= t + tolerance < end`. A picture no instant falls in is never drawn: a 60 fps camera
/// into a 30 fps mix has every other picture so, and scaling those would be work for nothing.
public struct OutputInstants: Sendable, Equatable {
    public let fps: Int
    public let toleranceMicroseconds: Int64

    public init(fps: Int, toleranceMicroseconds: Int64) {
        precondition(fps > 0, "OutputInstants needs a positive frame rate")
        self.fps = fps
        self.toleranceMicroseconds = toleranceMicroseconds
    }

    /// The time of frame `index`, in microseconds: rounded to nearest like input timestamps are
    /// (`av_rescale_q`), so an input at the output's own rate lands exactly on its frame, not one
    /// before.
    public func time(ofFrame index: Int64) -> Int64 {
        (index * 1_000_000 + Int64(fps) / 2) / Int64(fps)
    }

    /// Microseconds between two frames, rounded down.
    public var frameMicroseconds: Int64 { 1_000_000 / Int64(fps) }

    /// Whether some frame instant shows a picture that starts at `start` and gives way at `end`.
    public func showsPicture(from start: Int64, until end: Int64) -> Bool {
        guard end > start else { return false }
        // The first frame whose instant (plus tolerance) is not before `start`.
        let threshold = start - toleranceMicroseconds
        var index = threshold <= 0 ? 0 : threshold * Int64(fps) / 1_000_000
        while index > 0 && time(ofFrame: index - 1) >= threshold { index -= 1 }
        while time(ofFrame: index) < threshold { index += 1 }
        return time(ofFrame: index) + toleranceMicroseconds < end
    }
}
