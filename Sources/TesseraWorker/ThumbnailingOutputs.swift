import Logging
import TesseraComposition
import TesseraMedia
import TesseraTask
import TesseraWorkerProtocol

/// The task's outputs with their thumbnails beside them: every composed frame goes to the
/// encoders first and then, unchanged, to the `ThumbnailSet`, which scales it once for each
/// output whose thumbnail falls on it. No second decode, no second composite.
///
/// `@unchecked Sendable` as `EncodedOutputs`: the thumbnails are touched by the output thread only.
final class ThumbnailingOutputs: MixOutputs, @unchecked Sendable {
    private let inner: any MixOutputs
    private let thumbnails: ThumbnailSet

    /// `inner` with thumbnails when the task has video and may have them: an output that takes
    /// them, or a live task (an update may add one). Otherwise `inner` as it is.
    static func wrap(_ inner: any MixOutputs, task: ResolvedTask) -> any MixOutputs {
        guard let video = task.video else { return inner }
        let live = task.pace == .realtime
        guard live || task.outputs.contains(where: { $0.thumbnails != nil }) else { return inner }
        let logger = Logger(label: "tessera.thumbnails")
        let taskId = task.taskId
        let set = ThumbnailSet(outputs: task.outputs, canvas: PixelSize(width: video.width, height: video.height),
                               fps: video.fps, live: live,
                               log: { logger.warning("tessera worker \(taskId): \($0)") })
        return ThumbnailingOutputs(inner, thumbnails: set)
    }

    private init(_ inner: any MixOutputs, thumbnails: ThumbnailSet) {
        self.inner = inner
        self.thumbnails = thumbnails
    }

    var audioFrameSize: Int { inner.audioFrameSize }
    var encodes: [String] { inner.encodes }
    var encodedBytes: Int64 { inner.encodedBytes }
    var allOutputsFailedReason: String? { inner.allOutputsFailedReason }
    func statuses(taskEnded: Bool) -> [OutputStatus] { inner.statuses(taskEnded: taskEnded) }

    func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage]) throws {
        try inner.writeVideo(picture, frameIndex: frameIndex, sei: sei)
        thumbnails.take(picture)
    }

    func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        try inner.writeAudio(planes, count: count, position: position)
    }

    func setOutputs(_ outputs: [ResolvedOutput]) throws {
        try inner.setOutputs(outputs)
        thumbnails.setOutputs(outputs)
    }

    func finish() throws {
        defer { thumbnails.finish() }
        try inner.finish()
    }

    func abandon() {
        inner.abandon()
        thumbnails.abandon()
    }
}
