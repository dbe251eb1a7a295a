import Foundation
import Synchronization
import TesseraComposition
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// One task's media path: inputs on their own threads, and on the calling thread the output clock
/// that, for frame N at N / fps, picks each input's latest picture not after that time, composes
/// the layout, mixes the audio up to the same instant, encodes once and writes every output.
///
/// Offline (pace `asap`, `tessera mix`) it runs as fast as the inputs can be read — the output waits
/// for the inputs, the inputs wait when they are ahead — and ends with the last non-looping input
/// or at `maxDurationSeconds`; a failure removes the files it started. Live (pace `realtime`) frames
/// leave on the wall clock whatever the inputs do, outputs reconnect on their own threads, updates
/// take effect at the next frame, and files written so far are always kept.
///
/// Threads: `run` on one thread; `cancel`, `requestStop`, `update`, `status` and `snapshot` from
/// any other, through the `MixControl` the output clock also holds.
public final class MixPipeline: Sendable {
    public struct Progress: Sendable {
        /// Output time written so far.
        public var seconds: Double
        /// Expected length of the output, when it can be known in advance.
        public var expectedSeconds: Double?
        public var frames: Int64
    }

    let task: ResolvedTask
    private let control: MixControl
    private let media: MixMedia
    /// Where inputs and outputs removed by an update are ended, off the output thread.
    private let retirement = Retirement()
    private let layoutState: LayoutState
    let clock: TaskClock
    /// Live with per-participant outputs: the show's timeline and its manifest.
    let timeline: ShowTimelineRecorder?
    /// Live: seconds a dropped output keeps reconnecting before it is `failed`.
    private let outputGiveUpSeconds: Double
    /// Live: seconds a network output may take no bytes before it is taken as lost (a stall).
    private let outputStallSeconds: Double
    /// Held while the upload spool is full (`s3://` outputs skip packets).
    private let outputHold: OutputHold?
    /// Told after each LL-HLS part is published.
    private let hlsParts: HLSPartPublished?

    /// `rtpBindAddress`: `--rtp-bind-address`, for RTP inputs' sockets (nil: none). `media`: where
    /// inputs come from and outputs go (FFmpeg unless a test hands in its own).
    public init(task: ResolvedTask, outputGiveUpSeconds: Double, outputStallSeconds: Double = 10, rtpBindAddress: String? = nil,
                outputHold: OutputHold? = nil, media: MixMedia? = nil, hlsParts: HLSPartPublished? = nil,
                recordedFiles: (@Sendable (RecordedFile) -> Void)? = nil) {
        self.hlsParts = hlsParts
        self.task = task
        self.outputGiveUpSeconds = outputGiveUpSeconds
        self.outputStallSeconds = outputStallSeconds
        self.outputHold = outputHold
        self.media = media ?? .ffmpeg(rtpBindAddress: rtpBindAddress)
        clock = TaskClock()
        let timeline = ShowTimelineRecorder(task: task, clock: clock)
        self.timeline = timeline
        // `recordedFiles`: each per-participant file as it is opened and finished (the uploads);
        // the show's timeline hears of it first.
        var sink = recordedFiles
        if let timeline {
            sink = { @Sendable file in
                timeline.recorded(file)
                recordedFiles?(file)
            }
        }
        control = MixControl(task: task, recordedFiles: sink)
        layoutState = LayoutState(task.layout, inputIDs: task.inputs.map(\.id))
    }

    // MARK: Control (any thread)

    /// Aborts a running pipeline; `run` then throws `TaskError.cancelled` and (offline) removes
    /// its outputs.
    public func cancel() { control.cancel() }

    /// Live: ends the task properly at the next frame (encoders flushed, trailers written).
    public func requestStop() { control.requestStop() }

    /// Live: ends the task `failed` with `reason`, for outputs that failed where the pipeline
    /// cannot see it (an object store refusing every upload of the task's only recordings).
    public func giveUp(reason: String) { control.giveUp(reason: reason) }

    /// The per-participant outputs' shared state (a restarted run learns of earlier runs' files).
    var perInputRecordings: PerInputRecordings { control.perInput }

    /// Live: swaps in an updated task (layout, audio, inputs, outputs) at the next output frame.
    /// The still images its layout names are decoded here, on the caller's thread, before the
    /// update is handed over: the output thread never waits on a file being decoded. (An image
    /// that cannot be decoded fails the task when the update is applied, as it always has.)
    public func update(_ updated: ResolvedTask) {
        let stills = Result { try PictureSource.decodeImages(of: updated.layout) }
        control.perInput.setOutputs(updated.outputs)
        control.submit(MixControl.PendingUpdate(task: updated, stills: stills))
    }

    /// Puts a message into the next `repeatCount` output frames (ignored by an audio-only task).
    public func injectSEI(_ injection: SEIInjection) { control.injectedSEI.add(injection) }

    /// The composite of the next output frame (nil for an audio-only task or after `timeout`).
    public func snapshot(timeoutSeconds: Double = 2) -> YUVImage? {
        guard task.video != nil else { return nil }
        let ready = DispatchSemaphore(value: 0)
        let box = SnapshotBox()
        control.requestSnapshot { image in
            box.image.withLock { $0 = image }
            ready.signal()
        }
        guard ready.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        return box.image.withLock { $0 }
    }

    /// The task's status as the pipeline sees it: `running` once the output clock runs (else
    /// `starting`), with `reason` saying why it ended by itself, if it did.
    public var status: WorkerStatus { control.status }

    /// Raised when an input, an output or the task changes state: the worker reports at once.
    public var statusChanged: ChangeSignal { control.statusChanged }

    // MARK: Run

    /// Runs the task to its end on the calling thread. Offline, a failure removes the files it
    /// started; the error names the input or output at fault.
    public func run(progress: (Progress) -> Void = { _ in }) throws {
        defer { control.markEnded() }
        let live = control.live
        var sources: [(any OpenedInput)?] = Array(repeating: nil, count: task.inputs.count)
        let decoderThreads = SourceOpener.decoderThreads(inputCount: task.inputs.count)
        if !live {
            for (index, input) in task.inputs.enumerated() {
                sources[index] = try media.openInput(input, control.interrupt, decoderThreads, .normal)
                if control.isCancelled { throw TaskError.cancelled }
            }
        }
        let pictures = PictureSource()
        if let layout = task.layout { try pictures.load(layout) }

        let outputs = try media.openOutputs(task, MixOutputContext(
            interrupt: control.interrupt, giveUpSeconds: outputGiveUpSeconds, stallSeconds: outputStallSeconds,
            retirement: retirement, stateChanged: control.statusChanged, hold: outputHold, hlsParts: hlsParts))
        let factory = InputWorkerFactory(task: task, layout: layoutState, clock: clock, stateChanged: control.statusChanged,
                                         openInput: media.openInput, recordings: control.perInput)
        let initialWorkers = task.inputs.enumerated().map { index, input in
            factory.make(input, source: sources[index], decoderThreads: decoderThreads)
        }
        // The last manifest once every input has stopped (declared first, so run after the
        // inputs' defer below): their recordings' files are finished by then.
        timeline?.start()
        defer { timeline?.finish() }
        control.running(workers: initialWorkers, outputs: outputs)
        initialWorkers.forEach { $0.start() }
        defer {
            let finalWorkers = control.workers
            finalWorkers.forEach { $0.channel.cancel() }
            finalWorkers.forEach { $0.stop() }
            // Inputs removed by an update end within moments (their sleeps and reads are
            // interrupted); outputs removed late may still be writing their trailers.
            retirement.wait(timeoutSeconds: 5)
        }

        do {
            let outputClock = OutputClock(control: control, inputs: factory, outputs: outputs, pictures: pictures,
                                          retirement: retirement, expectedSeconds: Self.expectedLength(task: task, sources: sources),
                                          timeline: timeline)
            try outputClock.run(progress: progress)
            try outputs.finish()
        } catch {
            if live {
                // A live task keeps whatever it wrote, playable up to the last fragment.
                try? outputs.finish()
            } else {
                outputs.abandon()
            }
            if control.isCancelled { throw TaskError.cancelled }
            if let error = error as? TaskError { throw error }
            throw TaskError.output(reason: "\(error)")
        }
        if let reason = control.givenUpReason { throw TaskError.output(reason: reason) }
    }

    /// The output's expected length for progress: the latest end of a non-looping input (or the
    /// maximum duration, when it comes first).
    private static func expectedLength(task: ResolvedTask, sources: [(any OpenedInput)?]) -> Double? {
        var ends: [Double] = []
        for (input, source) in zip(task.inputs, sources) where !input.loop {
            guard let duration = source?.description.durationMicroseconds else { return task.maxDurationSeconds }
            ends.append(Double(input.startAtMicroseconds + duration) / 1_000_000)
        }
        let inputsEnd = ends.max()
        switch (inputsEnd, task.maxDurationSeconds) {
        case let (end?, maximum?): return min(end, maximum)
        case let (end?, nil): return end
        case let (nil, maximum): return maximum
        }
    }
}

/// Carries a snapshot from the output thread to the requesting thread (after a semaphore).
private final class SnapshotBox: Sendable {
    let image = Mutex<YUVImage?>(nil)
}
