import CFFmpeg
import TesseraComposition
import TesseraTask

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
