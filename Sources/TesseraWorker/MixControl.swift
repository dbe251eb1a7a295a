import Synchronization
import TesseraComposition
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// The control state of one running mix, in one place: what the control side asks of the output
/// clock (cancel, stop, give up, an update, a snapshot) and what the output clock reports back
/// (its inputs, outputs and counters, for the status). `MixPipeline` (any thread) and
/// `OutputClock` (the output thread) both hold this; neither reads the other.
final class MixControl: Sendable {
    /// What the output clock measured, for the status.
    struct Stats: Sendable {
        var running = false
        var frames: Int64 = 0
        var lateFrames: Int64 = 0
        var fps: Double = 0
        var bitrateKbps: Double = 0
        /// Each input's audio level, by id, as the output clock last measured it.
        var audioLevels: [String: AudioLevel] = [:]
        /// Why the task ended by itself (its maximum duration, no live input for its idle
        /// timeout); nil while it runs or when it was asked to stop.
        var endReason: String?
    }

    /// An update with its still images already decoded (or the error decoding them gave).
    /// `@unchecked Sendable`: the images are decoded on the updating thread and handed over whole;
    /// only the output thread touches them afterwards.
    struct PendingUpdate: @unchecked Sendable {
        var task: ResolvedTask
        var stills: Result<[String: StillImage], Error>
    }

    private struct State {
        var cancelled = false
        var stopRequested = false
        /// Set when `run` has returned: the status then shows every input and output in a final state.
        var ended = false
        /// Live: why the task ends `failed` — every output gave up.
        var givenUpReason: String?
        /// When the outputs were last asked whether they all gave up (`MonotonicClock` nanoseconds).
        var lastGiveUpCheck: UInt64 = 0
        var pendingUpdate: PendingUpdate?
        var snapshotWaiters: [@Sendable (YUVImage?) -> Void] = []
        var workers: [InputWorker] = []
        var outputs: (any MixOutputs)?
        var stats = Stats()
    }

    /// The task as started: what the status lists before the inputs and outputs are open.
    let task: ResolvedTask
    let live: Bool
    private let state = Mutex(State())
    /// Raised by a stop request, a give-up or a cancel: wakes the output clock's waits.
    let wake = InterruptFlag()
    /// Raised by a cancel: ends the inputs' and outputs' blocking I/O.
    let interrupt = InterruptFlag()
    /// Raised when an input, an output or the task changes state: the worker reports at once.
    let statusChanged: ChangeSignal
    /// Messages from `POST /v1/tasks/{taskId}/sei`, for the next output frames.
    let injectedSEI = SEIInjectionQueue()
    /// The per-participant outputs (`{input}`), recorded by the inputs' threads.
    let perInput: PerInputRecordings

    init(task: ResolvedTask, recordedFiles: PerInputRecordings.FileSink? = nil) {
        self.task = task
        live = task.pace == .realtime
        let statusChanged = ChangeSignal()
        self.statusChanged = statusChanged
        perInput = PerInputRecordings(task: task, onFile: recordedFiles, stateChanged: statusChanged)
    }

    // MARK: Control side (any thread)

    func cancel() {
        state.withLock { $0.cancelled = true }
        interrupt.cancel()
        wake.cancel()
    }

    func requestStop() {
        state.withLock { $0.stopRequested = true }
        wake.cancel()
    }

    /// Live: the task ends `failed` with `reason` at the next frame (the first reason stays).
    func giveUp(reason: String) {
        guard live else { return }
        state.withLock { if $0.givenUpReason == nil { $0.givenUpReason = reason } }
        wake.cancel()
    }

    /// Replaces an update not yet applied: only the newest counts.
    func submit(_ update: PendingUpdate) { state.withLock { $0.pendingUpdate = update } }

    /// `deliver` gets a copy of the next composed frame.
    func requestSnapshot(_ deliver: @escaping @Sendable (YUVImage?) -> Void) {
        state.withLock { $0.snapshotWaiters.append(deliver) }
    }

    func markEnded() {
        state.withLock { $0.ended = true }
        statusChanged.notify()
    }

    var givenUpReason: String? { state.withLock { $0.givenUpReason } }

    var status: WorkerStatus {
        let (workers, outputs, stats, ended) = state.withLock { ($0.workers, $0.outputs, $0.stats, $0.ended) }
        let outputStates = (outputs?.statuses(taskEnded: ended)
            ?? OutputStatus.list(nil, planned: task.outputs.filter { !$0.isPerInput }, taskEnded: ended))
            + perInput.statuses(taskEnded: ended)
        var inputStates = workers.isEmpty
            ? task.inputs.map { InputStatus(id: $0.id, state: .waiting) }
            : workers.map { worker in worker.status.withAudioLevel(stats.audioLevels[worker.input.id]) }
        if ended { inputStates = inputStates.map { $0.ended() } }
        return WorkerStatus(state: stats.running ? .running : .starting, reason: stats.endReason, frames: stats.frames,
                            fps: stats.fps, bitrateKbps: stats.bitrateKbps, lateFrames: stats.lateFrames,
                            inputs: inputStates, outputs: outputStates, encodes: outputs?.encodes)
    }

    // MARK: Output side (the output thread)

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Live: a stop was asked for, or every output gave up (the task then ends `failed`). Asked on
    /// every frame, so the outputs are looked at five times a second at most.
    var isStopRequested: Bool {
        let now = MonotonicClock.nanoseconds
        let (stop, outputs) = state.withLock { state -> (Bool, (any MixOutputs)?) in
            if state.stopRequested || state.givenUpReason != nil { return (true, nil) }
            guard live, now &- state.lastGiveUpCheck >= 200_000_000 else { return (false, nil) }
            state.lastGiveUpCheck = now
            return (false, state.outputs)
        }
        if stop { return true }
        guard let reason = outputs?.allOutputsFailedReason else { return false }
        state.withLock { if $0.givenUpReason == nil { $0.givenUpReason = reason } }
        return true
    }

    func takePendingUpdate() -> PendingUpdate? {
        state.withLock { state in
            defer { state.pendingUpdate = nil }
            return state.pendingUpdate
        }
    }

    /// The inputs and outputs now running, for the status.
    func running(workers: [InputWorker], outputs: (any MixOutputs)? = nil) {
        state.withLock { state in
            state.workers = workers
            if let outputs { state.outputs = outputs }
        }
    }

    var workers: [InputWorker] { state.withLock { $0.workers } }

    func updateStats(_ change: (inout Stats) -> Void) {
        let started = state.withLock { state -> Bool in
            let wasRunning = state.stats.running
            change(&state.stats)
            return state.stats.running != wasRunning
        }
        if started { statusChanged.notify() }
    }

    /// Hands a copy of `canvas` to everyone waiting for a snapshot.
    func deliverSnapshotIfRequested(_ canvas: YUVImage) {
        let waiters = state.withLock { state in
            defer { state.snapshotWaiters.removeAll() }
            return state.snapshotWaiters
        }
        guard !waiters.isEmpty else { return }
        let copy = YUVImage(width: canvas.width, height: canvas.height)
        copy.draw(canvas, x: 0, y: 0)
        waiters.forEach { $0(copy) }
    }
}
