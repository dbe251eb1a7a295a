import Foundation
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
/// any other. Shared state is guarded by `lock`.
public final class MixPipeline: @unchecked Sendable {
    public struct Progress: Sendable {
        /// Output time written so far.
        public var seconds: Double
        /// Expected length of the output, when it can be known in advance.
        public var expectedSeconds: Double?
        public var frames: Int64
    }

    /// What the pipeline reports about itself for the task status.
    public struct Status: Sendable {
        public var running: Bool
        public var frames: Int64
        public var fps: Double
        public var bitrateKbps: Double
        public var lateFrames: Int64
        public var inputs: [InputStatus]
        public var outputs: [OutputStatus]
        /// The encodes running (`h264-high`, `aac`, `opus`, …): each once, whatever the outputs.
        public var encodes: [String]? = nil
        /// Why the task ended by itself (its maximum duration, no live input for its idle timeout,
        /// its inputs' end); nil while it runs or when it was asked to stop.
        public var endReason: String? = nil
    }

    let task: ResolvedTask
    let live: Bool
    /// `encoder.video.latency` (normal for audio-only tasks): input placement and RTP jitter allowance.
    let latency: EncoderLatency
    private let interrupt = InterruptFlag()
    /// Raised by a stop request or `cancel`: wakes the output clock's wait for a frame's time.
    let wake = InterruptFlag()
    /// Where inputs and outputs removed by an update are ended, off the output thread.
    let retirement = Retirement()
    let layoutState: LayoutState
    let clock = TaskClock()
    /// Raised when an input, an output or the task changes state: the worker reports at once.
    let statusChanged = ChangeSignal()
    /// Messages from `POST /v1/tasks/{taskId}/sei`, for the next output frames.
    let injectedSEI = SEIInjectionQueue()
    private let lock = NSLock()
    private var isCancelled = false
    private var stopRequested = false
    /// Set when `run` has returned: the status then shows every input and output in a final state.
    private var ended = false
    /// Live: why the task ends `failed` — every output gave up (see `outputsGaveUp`).
    private var givenUpReason: String?
    /// When the outputs were last asked whether they all gave up (`MonotonicClock` nanoseconds).
    private var lastGiveUpCheck: UInt64 = 0
    private var pendingUpdate: PendingUpdate?
    private var snapshotWaiters: [(YUVImage?) -> Void] = []
    var workers: [InputWorker] = []
    var outputs: OutputSet?
    var stats = Stats()

    struct Stats {
        var running = false
        var frames: Int64 = 0
        var lateFrames: Int64 = 0
        var fps: Double = 0
        var bitrateKbps: Double = 0
        /// Each input's audio level, by id, as the output clock last measured it.
        var audioLevels: [String: AudioLevel] = [:]
        /// See `Status.endReason`.
        var endReason: String?
    }

    /// Live: seconds a dropped output keeps reconnecting before it is `failed`.
    private let outputGiveUpSeconds: Double
    /// Live: seconds a network output may take no bytes before it is taken as lost (a stall).
    let outputStallSeconds: Double

    /// Live: `--rtp-bind-address`, for RTP inputs' sockets (nil: none; see `RTPBindAddress`).
    private let rtpBindAddress: String?

    /// Held while the upload spool is full (`s3://` outputs skip packets).
    private let outputHold: OutputHold?

    public init(task: ResolvedTask, outputGiveUpSeconds: Double, outputStallSeconds: Double = 10, rtpBindAddress: String? = nil,
                outputHold: OutputHold? = nil) {
        self.outputHold = outputHold
        self.task = task
        self.outputGiveUpSeconds = outputGiveUpSeconds
        self.outputStallSeconds = outputStallSeconds
        self.rtpBindAddress = rtpBindAddress
        live = task.pace == .realtime
        latency = task.video?.latency ?? .normal
        layoutState = LayoutState(task.layout, inputIDs: task.inputs.map(\.id))
    }

    // MARK: Control (any thread)

    /// Aborts a running pipeline; `run` then throws `TaskError.cancelled` and (offline) removes
    /// its outputs.
    public func cancel() {
        lock.withLock { isCancelled = true }
        interrupt.cancel()
        wake.cancel()
    }

    /// Live: ends the task properly at the next frame (encoders flushed, trailers written).
    public func requestStop() {
        lock.withLock { stopRequested = true }
        wake.cancel()
    }

    /// Live: ends the task `failed` with `reason`, for outputs that failed where the pipeline
    /// cannot see it (an object store refusing every upload of the task's only recordings).
    public func giveUp(reason: String) {
        guard live else { return }
        lock.withLock { if givenUpReason == nil { givenUpReason = reason } }
        wake.cancel()
    }

    /// Live: swaps in an updated task (layout, audio, inputs, outputs) at the next output frame.
    /// The still images its layout names are decoded here, on the caller's thread, before the
    /// update is handed over: the output thread never waits on a file being decoded. (An image
    /// that cannot be decoded fails the task when the update is applied, as it always has.)
    public func update(_ updated: ResolvedTask) {
        let stills = Result { try PictureSource.decodeImages(of: updated.layout) }
        lock.withLock { pendingUpdate = PendingUpdate(task: updated, stills: stills) }
    }

    /// Puts a message into the next `repeatCount` output frames (ignored by an audio-only task).
    public func injectSEI(_ injection: SEIInjection) { injectedSEI.add(injection) }

    /// The composite of the next output frame (nil for an audio-only task or after `timeout`).
    public func snapshot(timeoutSeconds: Double = 2) -> YUVImage? {
        guard task.video != nil else { return nil }
        let ready = DispatchSemaphore(value: 0)
        let box = SnapshotBox()
        lock.withLock { snapshotWaiters.append { image in box.image = image; ready.signal() } }
        guard ready.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        return box.image
    }

    public var status: Status {
        let (current, outputs, stats, ended) = lock.withLock { (workers, self.outputs, self.stats, self.ended) }
        let outputStates = outputs?.outputStates.map { entry in
            OutputStatus(output: entry.output, snapshot: entry.snapshot, taskEnded: ended)
        } ?? task.outputs.map { OutputStatus(url: URLRedaction.redact($0.url), state: ended ? .failed : .connecting) }
        var inputStates = current.isEmpty
            ? task.inputs.map { InputStatus(id: $0.id, state: .waiting) }
            : current.map { worker in worker.status.withAudioLevel(stats.audioLevels[worker.input.id]) }
        if ended { inputStates = inputStates.map { $0.ended() } }
        return Status(running: stats.running, frames: stats.frames, fps: stats.fps, bitrateKbps: stats.bitrateKbps,
                      lateFrames: stats.lateFrames, inputs: inputStates, outputs: outputStates, encodes: outputs?.encodes,
                      endReason: stats.endReason)
    }

    // MARK: Run

    /// Runs the task to its end on the calling thread. Offline, a failure removes the files it
    /// started; the error names the input or output at fault.
    public func run(progress: (Progress) -> Void = { _ in }) throws {
        defer {
            lock.withLock { ended = true }
            statusChanged.notify()
        }
        var sources: [(any OpenedInput)?] = Array(repeating: nil, count: task.inputs.count)
        let decoderThreads = SourceOpener.decoderThreads(inputCount: task.inputs.count)
        if !live {
            for (index, input) in task.inputs.enumerated() {
                sources[index] = try SourceOpener.openInput(input, interrupt: interrupt, decoderThreads: decoderThreads,
                                                            rtpBindAddress: rtpBindAddress)
                if wasCancelled { throw TaskError.cancelled }
            }
        }
        let pictures = PictureSource()
        if let layout = task.layout { try pictures.load(layout) }

        let outputs: OutputSet
        do {
            outputs = try OutputSet(outputs: task.outputs, video: task.video, audio: task.audio, interrupt: interrupt,
                                    live: live, giveUpSeconds: outputGiveUpSeconds, stallSeconds: outputStallSeconds,
                                    retirement: retirement,
                                    stateChanged: statusChanged, hold: outputHold)
        } catch {
            throw TaskError.output(reason: "\(error)")
        }
        let initialWorkers = task.inputs.enumerated().map { index, input in
            makeWorker(input, source: sources[index], decoderThreads: decoderThreads)
        }
        lock.withLock {
            workers = initialWorkers
            self.outputs = outputs
        }
        initialWorkers.forEach { $0.start() }
        defer {
            let finalWorkers = lock.withLock { workers }
            finalWorkers.forEach { $0.channel.cancel() }
            finalWorkers.forEach { $0.stop() }
            // Inputs removed by an update end within moments (their sleeps and reads are
            // interrupted); outputs removed late may still be writing their trailers.
            retirement.wait(timeoutSeconds: 5)
        }

        do {
            let outputClock = OutputClock(pipeline: self, outputs: outputs, pictures: pictures,
                                          expectedSeconds: Self.expectedLength(task: task, sources: sources))
            try outputClock.run(progress: progress)
            try outputs.finish()
        } catch {
            if live {
                // A live task keeps whatever it wrote, playable up to the last fragment.
                try? outputs.finish()
            } else {
                outputs.abandon()
            }
            if wasCancelled { throw TaskError.cancelled }
            if let error = error as? TaskError { throw error }
            throw TaskError.output(reason: "\(error)")
        }
        if let reason = lock.withLock({ givenUpReason }) { throw TaskError.output(reason: reason) }
    }

    // MARK: Used by the output clock (its thread)

    var wasCancelled: Bool { lock.withLock { isCancelled } }
    /// Live: a stop was asked for, or every output gave up (the task then ends `failed`).
    var wasStopRequested: Bool { lock.withLock { stopRequested } || outputsGaveUp }

    /// Live: true once every output has failed (given up reconnecting, or a file that cannot be
    /// written); `givenUpReason` then names them. Asked on every frame, so the outputs are looked
    /// at five times a second at most.
    private var outputsGaveUp: Bool {
        guard live else { return false }
        let now = MonotonicClock.nanoseconds
        let outputs = lock.withLock { () -> OutputSet? in
            if givenUpReason != nil { return nil }
            guard now &- lastGiveUpCheck >= 200_000_000 else { return nil }
            lastGiveUpCheck = now
            return self.outputs
        }
        if let reason = outputs?.allOutputsFailedReason { lock.withLock { givenUpReason = reason } }
        return lock.withLock { givenUpReason != nil }
    }

    /// An update with its still images already decoded (or the error decoding them gave).
    struct PendingUpdate {
        var task: ResolvedTask
        var stills: Result<[String: StillImage], Error>
    }

    func takePendingUpdate() -> PendingUpdate? {
        lock.withLock {
            defer { pendingUpdate = nil }
            return pendingUpdate
        }
    }

    func setWorkers(_ new: [InputWorker]) { lock.withLock { workers = new } }

    func updateStats(_ change: (inout Stats) -> Void) {
        let started = lock.withLock { () -> Bool in
            let wasRunning = stats.running
            change(&stats)
            return stats.running != wasRunning
        }
        if started { statusChanged.notify() }
    }

    /// Hands a copy of `canvas` to everyone waiting for a snapshot.
    func deliverSnapshotIfRequested(_ canvas: YUVImage) {
        let waiters = lock.withLock {
            defer { snapshotWaiters.removeAll() }
            return snapshotWaiters
        }
        guard !waiters.isEmpty else { return }
        let copy = YUVImage(width: canvas.width, height: canvas.height)
        copy.draw(canvas, x: 0, y: 0)
        waiters.forEach { $0(copy) }
    }

    func makeWorker(_ input: ResolvedInput, source: (any OpenedInput)?, decoderThreads: Int) -> InputWorker {
        // Live media is read at most the input latency ahead, so 3 s is ample; offline, a badly
        // interleaved file may run audio far ahead of its video.
        let audio = InputAudioBuffer(channels: task.audio.channels, sampleRate: task.audio.sampleRate,
                                     capacitySeconds: live ? 3 : 10)
        let channel = InputChannel(audio: audio, realtime: live)
        return InputWorker(input: input, source: source,
                           open: { [latency, rtpBindAddress] interrupt in
                               try SourceOpener.openInput(input, interrupt: interrupt, decoderThreads: decoderThreads, latency: latency,
                                                          rtpBindAddress: rtpBindAddress)
                           },
                           channel: channel, layout: layoutState, audio: task.audio, video: task.video,
                           clock: live ? clock : nil, stateChanged: statusChanged)
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
private final class SnapshotBox: @unchecked Sendable {
    var image: YUVImage?
}
