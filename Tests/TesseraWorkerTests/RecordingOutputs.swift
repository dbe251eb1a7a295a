import Synchronization
import TesseraComposition
import TesseraTask
import TesseraWorker
import TesseraWorkerProtocol

/// Outputs that keep what the pipeline writes: each frame's index and a copy of its picture, each
/// audio block's position and samples, and the calls that end or change the outputs.
final class RecordingOutputs: MixOutputs {
    struct Frame {
        var index: Int64
        var picture: YUVImage
        var sei: [SEIMessage]
    }

    struct Block {
        var position: Int64
        /// Channel 0's samples.
        var samples: [Float]
    }

    struct Record {
        var frames: [Frame] = []
        var blocks: [Block] = []
        var outputUpdates: [[ResolvedOutput]] = []
        var finished = 0
        var abandoned = 0
    }

    private let record = Mutex(Record())
    /// Called on the output thread after each frame is written (its index).
    private let onFrame = Mutex<(@Sendable (Int64) -> Void)?>(nil)

    var recorded: Record { record.withLock { $0 } }

    func onEachFrame(_ action: @escaping @Sendable (Int64) -> Void) { onFrame.withLock { $0 = action } }

    var audioFrameSize: Int { 1024 }
    var encodes: [String] { ["memory"] }
    var encodedBytes: Int64 { 0 }
    var allOutputsFailedReason: String? { nil }

    func statuses(taskEnded: Bool) -> [OutputStatus] {
        let finished = record.withLock { $0.finished > 0 }
        return [OutputStatus(url: "memory:", state: finished ? .finished : .live)]
    }

    func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage]) throws {
        let copy = YUVImage(width: picture.width, height: picture.height)
        copy.draw(picture, x: 0, y: 0)
        record.withLock { $0.frames.append(Frame(index: frameIndex, picture: copy, sei: sei)) }
        onFrame.withLock { $0 }?(frameIndex)
    }

    func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        let samples = Array(UnsafeBufferPointer(start: planes[0], count: count))
        record.withLock { $0.blocks.append(Block(position: position, samples: samples)) }
    }

    func setOutputs(_ outputs: [ResolvedOutput]) throws { record.withLock { $0.outputUpdates.append(outputs) } }
    func finish() throws { record.withLock { $0.finished += 1 } }
    func abandon() { record.withLock { $0.abandoned += 1 } }
}

extension YUVImage {
    /// The colour at (x, y).
    func color(x: Int, y: Int) -> YUVColor {
        YUVColor(y: self.y[y * lumaStride + x], u: u[y / 2 * chromaStride + x / 2], v: v[y / 2 * chromaStride + x / 2])
    }
}

extension YUVColor {
    /// Equal within `tolerance` code values on each plane (scaling rounds).
    func isClose(to other: YUVColor, tolerance: Int = 3) -> Bool {
        abs(Int(y) - Int(other.y)) <= tolerance && abs(Int(u) - Int(other.u)) <= tolerance
            && abs(Int(v) - Int(other.v)) <= tolerance
    }
}
