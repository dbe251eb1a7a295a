import Synchronization
import TesseraTask

/// Keyframe wishes for the video encodes, from any thread: an RTP receiver's PLI arrives on its
/// publisher's RTCP thread, and the pipeline's thread takes the wish at the next frame.
///
/// The ladder (the main H.264 and every rendition) is asked as one: a keyframe out of cadence in
/// one rendition alone would shift its GOPs against the others', and HLS variants would no
/// longer switch at segment boundaries.
final class KeyframeRequests: Sendable {
    private let wanted = Mutex(Set<VideoEncodeFormat>())
    private let ladder: Set<VideoEncodeFormat>

    init(ladder: Set<VideoEncodeFormat> = []) { self.ladder = ladder }

    func request(_ format: VideoEncodeFormat) {
        wanted.withLock { $0.formUnion(ladder.contains(format) ? ladder : [format]) }
    }

    /// Whether `format` is one of the ladder's encodes (asked for keyframes together).
    func isLadder(_ format: VideoEncodeFormat) -> Bool { ladder.contains(format) }

    /// Whether `format`'s next frame should be a keyframe (and forgets the wish).
    func take(_ format: VideoEncodeFormat) -> Bool { wanted.withLock { $0.remove(format) != nil } }
}
