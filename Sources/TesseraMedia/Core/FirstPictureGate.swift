import TesseraComposition

/// When a live task's first output frame may go, and which instant of the task clock it shows.
///
/// A live input's first picture is placed its latency ahead of the moment it arrives (a file or
/// a pull URL takes a moment to open as well), so a task whose output started at once sent only
/// its background for the first frames: a waiting player, a snapshot right after `POST` and every
/// viewer after a worker restart or a failover got a black keyframe first. Instead the output
/// waits for the first picture of every input a region draws — at most `boundMicroseconds` after
/// the task started (an input with no picture by then is drawn as it is, its placeholder or
/// nothing) — and then starts on the first frame instant that shows all the pictures there are.
///
/// Pure: the output clock asks it while it waits.
public struct FirstPictureGate: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        /// Look again shortly.
        case wait
        /// Start the output at this frame of the task clock's frame instants.
        case start(frame: Int64)
    }

    /// How long after the task's start the first frame waits for pictures at most.
    public let boundMicroseconds: Int64
    /// How far past the moment it decides the first frame may lie (a picture placed further
    /// ahead is not waited for).
    public let maximumLeadMicroseconds: Int64

    public init(boundMicroseconds: Int64 = 500_000, maximumLeadMicroseconds: Int64 = 1_000_000) {
        self.boundMicroseconds = boundMicroseconds
        self.maximumLeadMicroseconds = maximumLeadMicroseconds
    }

    /// - `awaited`: the inputs a region draws that may still bring a picture (their source has
    ///   video, or is not open yet), by index.
    /// - `firstPictures`: the first picture's time (task clock, µs) of each input that has one.
    /// - `now`: the task clock (µs since the task started).
    public func decide(awaited: Set<Int>, firstPictures: [Int: Int64], now: Int64, instants: OutputInstants) -> Decision {
        let missing = awaited.subtracting(firstPictures.keys)
        guard missing.isEmpty || now >= boundMicroseconds else { return .wait }
        // The latest first picture among those drawn, not too far ahead.
        let drawn = awaited.compactMap { firstPictures[$0] }
        let target = min(max(drawn.max() ?? now, now), now + maximumLeadMicroseconds)
        return .start(frame: Self.firstFrame(atOrAfter: target, instants: instants))
    }

    /// The first frame whose instant (with the inputs' tolerance) is not before `time`.
    static func firstFrame(atOrAfter time: Int64, instants: OutputInstants) -> Int64 {
        guard time > 0 else { return 0 }
        var frame = time * Int64(instants.fps) / 1_000_000
        while frame > 0 && instants.time(ofFrame: frame - 1) + instants.toleranceMicroseconds >= time { frame -= 1 }
        while instants.time(ofFrame: frame) + instants.toleranceMicroseconds < time { frame += 1 }
        return frame
    }
}
