import TesseraComposition
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// What a mix reads from and writes to: the one seam between the pipeline's decisions (timeline,
/// layout, mix, status) and FFmpeg. `MixMedia.ffmpeg` opens files, pull URLs and RTP ports and
/// encodes to the task's outputs; a test opens inputs that hand over pictures and PCM it made in
/// memory (`DecodedPicture(image:…)`) and records what the pipeline writes.
public struct MixMedia: Sendable {
    /// Opens one input (on the pipeline's thread offline, on the input's own thread live).
    public typealias OpenInput = @Sendable (_ input: ResolvedInput, _ interrupt: InterruptFlag, _ decoderThreads: Int,
                                            _ latency: EncoderLatency) throws -> any OpenedInput
    /// Opens the task's outputs once, before the first frame.
    public typealias OpenOutputs = @Sendable (_ task: ResolvedTask, _ context: MixOutputContext) throws -> any MixOutputs

    public var openInput: OpenInput
    public var openOutputs: OpenOutputs

    public init(openInput: @escaping OpenInput, openOutputs: @escaping OpenOutputs) {
        self.openInput = openInput
        self.openOutputs = openOutputs
    }

    /// The real media: FFmpeg demuxers and decoders, RTP on `rtpBindAddress` (`--rtp-bind-address`;
    /// nil: none, as in `tessera mix`), FFmpeg encoders and muxers behind an `OutputSet`.
    public static func ffmpeg(rtpBindAddress: String? = nil) -> MixMedia {
        MixMedia(
            openInput: { input, interrupt, threads, latency in
                try SourceOpener.openInput(input, interrupt: interrupt, decoderThreads: threads, latency: latency,
                                           rtpBindAddress: rtpBindAddress)
            },
            openOutputs: { task, context in
                do {
                    return ThumbnailingOutputs.wrap(EncodedOutputs(try OutputSet(
                        outputs: task.outputs, video: task.video, audio: task.audio, interrupt: context.interrupt,
                        live: task.pace == .realtime, giveUpSeconds: context.giveUpSeconds,
                        stallSeconds: context.stallSeconds, retirement: context.retirement,
                        stateChanged: context.stateChanged, hold: context.hold, hlsParts: context.hlsParts)), task: task)
                } catch {
                    throw TaskError.output(reason: "\(error)")
                }
            })
    }
}

/// What the pipeline hands the outputs it opens: where to stop, how long to retry, whom to tell.
public struct MixOutputContext: Sendable {
    public let interrupt: InterruptFlag
    /// Live: seconds a dropped output keeps reconnecting before it is `failed`.
    public let giveUpSeconds: Double
    /// Live: seconds a network output may take no bytes before it is taken as lost.
    public let stallSeconds: Double
    /// Where outputs removed by an update end, off the output thread.
    public let retirement: Retirement
    /// Told when an output changes state: the worker reports at once.
    public let stateChanged: ChangeSignal
    /// Held while the upload spool is full (`s3://` outputs skip packets).
    public let hold: OutputHold?
    /// Told after each LL-HLS part is published (the worker's `hls` event).
    public var hlsParts: HLSPartPublished? = nil
}

/// Where the output clock writes each composed frame and mixed block, and what it asks of them
/// for the status. Used by the output thread, except `statuses`, `encodes` and
/// `allOutputsFailedReason`, which any thread may ask.
public protocol MixOutputs: AnyObject, Sendable {
    /// Samples per audio frame the audio encoder takes (0: any size).
    var audioFrameSize: Int { get }
    /// The encodes running (`h264-high`, `aac`, …): each once, whatever the outputs.
    var encodes: [String] { get }
    var encodedBytes: Int64 { get }
    /// Each output's status; once the task has ended, every one in a final state.
    func statuses(taskEnded: Bool) -> [OutputStatus]
    /// Live: why the task ends `failed` once every output has given up; nil while one still works.
    var allOutputsFailedReason: String? { get }
    func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage]) throws
    /// `position`: the first sample's index on the output timeline.
    func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws
    /// An update's outputs, matched by URL: new ones opened, removed ones ended.
    func setOutputs(_ outputs: [ResolvedOutput]) throws
    /// Flushes the encoders and writes the trailers.
    func finish() throws
    /// Offline failure: ends and removes every file started.
    func abandon()
}

/// The task's outputs as FFmpeg encodes and writes them.
///
/// `@unchecked Sendable`: `OutputSet` guards what other threads read (its states, encodes) with
/// its own lock; everything else is called from the output thread only.
final class EncodedOutputs: MixOutputs, @unchecked Sendable {
    private let outputSet: OutputSet

    init(_ outputSet: OutputSet) { self.outputSet = outputSet }

    var audioFrameSize: Int { outputSet.audioFrameSize }
    var encodes: [String] { outputSet.encodes }
    var encodedBytes: Int64 { outputSet.encodedBytes }
    var allOutputsFailedReason: String? { outputSet.allOutputsFailedReason }

    func statuses(taskEnded: Bool) -> [OutputStatus] {
        OutputStatus.list(outputSet.outputStates, planned: [], taskEnded: taskEnded)
    }

    func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage]) throws {
        try outputSet.writeVideo(picture, frameIndex: frameIndex, sei: sei)
    }

    func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        try outputSet.writeAudio(planes, count: count, position: position)
    }

    func setOutputs(_ outputs: [ResolvedOutput]) throws { try outputSet.setOutputs(outputs) }
    func finish() throws { try outputSet.finish() }
    func abandon() { outputSet.abandon() }
}
