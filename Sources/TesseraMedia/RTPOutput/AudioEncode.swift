import CFFmpeg
import Foundation
import TesseraComposition

/// One audio encoder with the chunker that cuts the mix into its frame size (1024 samples for
/// AAC, 20 ms for Opus), so that any number of audio encodes run off one mix.
final class AudioEncode {
    let encoder: Encoder
    private var chunker: AudioFrameChunker
    /// One frame per channel, owned: what the chunker fills and the encoder reads.
    private let planes: [UnsafeMutablePointer<Float>]

    init(_ encoder: Encoder, channels: Int) {
        self.encoder = encoder
        let frameSize = max(1, encoder.frameSize)
        chunker = AudioFrameChunker(frameSize: frameSize, channels: channels)
        planes = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frameSize) }
    }

    deinit { planes.forEach { $0.deallocate() } }

    /// Takes `count` mixed samples per channel from output sample `position` on, encodes every
    /// whole frame they complete and hands each packet to `emit`.
    func encode(_ mix: [UnsafeMutablePointer<Float>], count: Int, position: Int64, emit: (Packet) throws -> Void) throws {
        chunker.append(mix.map { UnsafePointer($0) }, count: count, start: position)
        while let start = chunker.nextFrame(into: planes) {
            try encoder.encode(audio: planes, count: chunker.frameSize, pts: start, emit: emit)
        }
    }
}

/// Keyframe wishes for the video encodes, from any thread: an RTP receiver's PLI arrives on its
/// publisher's RTCP thread, and the pipeline's thread takes the wish at the next frame.
///
/// The ladder (the main H.264 and every rendition) is asked as one: a keyframe out of cadence in
/// one rendition alone would shift its GOPs against the others', and HLS variants would no
/// longer switch at segment boundaries.
final class KeyframeRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var wanted = Set<VideoEncodeFormat>()
    private let ladder: Set<VideoEncodeFormat>

    init(ladder: Set<VideoEncodeFormat> = []) { self.ladder = ladder }

    func request(_ format: VideoEncodeFormat) {
        lock.withLock { wanted.formUnion(ladder.contains(format) ? ladder : [format]) }
    }

    /// Whether `format` is one of the ladder's encodes (asked for keyframes together).
    func isLadder(_ format: VideoEncodeFormat) -> Bool { ladder.contains(format) }

    /// Whether `format`'s next frame should be a keyframe (and forgets the wish).
    func take(_ format: VideoEncodeFormat) -> Bool { lock.withLock { wanted.remove(format) != nil } }
}
