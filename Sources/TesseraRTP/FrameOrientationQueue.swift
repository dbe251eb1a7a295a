import TesseraComposition
/// Carries each encoded video frame's orientation across the decoder, which may hold frames back
/// (frame threads, reordering) and drops broken ones without saying so.
///
/// The receiver notes the orientation of every frame it sends to the decoder, by presentation
/// time; for each decoded picture it takes the newest noted at or before that picture's time, so
/// a change signalled with frame N turns frame N and everything after it, and a frame the decoder
/// dropped only leaves its entry to be skipped over.
public struct FrameOrientationQueue: Sendable {
    private var pending: [(ptsMicroseconds: Int64, orientation: PictureOrientation)] = []
    /// What the last decoded picture was shown with: for a picture older than every entry.
    private var current = PictureOrientation.upright
    /// A decoder holds a few frames at most; more entries than this mean they will never come out.
    public static let capacity = 64

    public init() {}

    /// A frame with `ptsMicroseconds` goes to the decoder, to be shown as `orientation`.
    public mutating func note(_ orientation: PictureOrientation, ptsMicroseconds: Int64) {
        if pending.count >= Self.capacity { current = pending.removeFirst().orientation }
        pending.append((ptsMicroseconds, orientation))
    }

    /// The orientation of a decoded picture at `ptsMicroseconds`; entries up to it are used up.
    public mutating func take(ptsMicroseconds: Int64) -> PictureOrientation {
        var used = 0
        while used < pending.count && pending[used].ptsMicroseconds <= ptsMicroseconds {
            current = pending[used].orientation
            used += 1
        }
        pending.removeFirst(used)
        return current
    }

    /// A new sender: nothing of the old one applies; its pictures are drawn as coded until told otherwise.
    public mutating func reset() {
        pending.removeAll()
        current = .upright
    }
}
