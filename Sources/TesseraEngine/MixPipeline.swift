import Foundation
import TesseraCore
import TesseraMedia

/// One task's media path: inputs on their own threads, and on the calling thread the output clock
/// that, for frame N at N / fps, picks each input's latest picture not after that time, composes
/// the layout, mixes the audio up to the same instant, encodes once and writes every output.
///
/// Offline (`tessera mix`) it runs as fast as the inputs can be read (pace `asap`: the output waits
/// for the inputs, the inputs wait when they are ahead) and ends with the last non-looping input
/// or at `maxDurationSeconds`.
public final class MixPipeline: @unchecked Sendable {
    public struct Progress: Sendable {
        /// Output time written so far.
        public var seconds: Double
        /// Expected length of the output, when it can be known in advance.
        public var expectedSeconds: Double?
        public var frames: Int64
    }

    private let task: ResolvedTask
    private let interrupt = InterruptFlag()
    private let layoutState: LayoutState
    private let cancelled = NSLock()
    private var isCancelled = false

    public init(task: ResolvedTask) {
        self.task = task
        layoutState = LayoutState(task.layout)
    }

    /// Stops a running pipeline from another thread; `run` then throws `TaskError.cancelled`
    /// and (offline) removes its outputs.
    public func cancel() {
        cancelled.withLock { isCancelled = true }
        interrupt.cancel()
    }

    private var wasCancelled: Bool { cancelled.withLock { isCancelled } }

    /// Runs the task to its end on the calling thread. On failure the files it started are removed
    /// and the error names the input or output at fault.
    public func run(progress: (Progress) -> Void = { _ in }) throws {
        var sources: [MediaSource] = []
        let decoderThreads = SourceOpener.decoderThreads(inputCount: task.inputs.count)
        for input in task.inputs {
            sources.append(try SourceOpener.open(input, interrupt: interrupt, decoderThreads: decoderThreads))
            if wasCancelled { throw TaskError.cancelled }
        }
        let pictures = PictureSource()
        if let layout = task.layout { try pictures.load(layout) }

        let outputs: OutputSet
        do {
            outputs = try OutputSet(outputs: task.outputs, video: task.video, audio: task.audio, interrupt: interrupt)
        } catch {
            throw TaskError.output(reason: "\(error)")
        }

        let workers = task.inputs.enumerated().map { index, input in
            InputWorker(index: index, input: input, source: sources[index],
                        channel: InputChannel(audio: InputAudioBuffer(channels: task.audio.channels,
                                                                      sampleRate: task.audio.sampleRate)),
                        layout: layoutState, audio: task.audio)
        }
        workers.forEach { $0.start() }
        defer {
            workers.forEach { $0.channel.cancel() }
            workers.forEach { $0.join() }
        }

        do {
            let clock = OutputClock(task: task, workers: workers, sources: sources, outputs: outputs,
                                    pictures: pictures, layoutState: layoutState, isCancelled: { [unowned self] in wasCancelled })
            try clock.run(progress: progress)
            try outputs.finish()
        } catch {
            outputs.abandon()
            if wasCancelled { throw TaskError.cancelled }
            if let error = error as? TaskError { throw error }
            throw TaskError.output(reason: "\(error)")
        }
    }
}
