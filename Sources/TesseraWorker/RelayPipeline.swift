import Foundation
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// A `mode: relay` task: its one input copied to the outputs (see `RelaySession`).
///
/// Threads: `run` on one thread; `requestStop`, `cancel` and `status` from any other.
public final class RelayPipeline: @unchecked Sendable {
    let task: ResolvedTask
    private let interrupt = InterruptFlag()
    /// Raised by a stop request (or the maximum duration): wakes the session's pacing sleep.
    private let stopSignal = InterruptFlag()
    private let lock = NSLock()
    private var stopRequested = false
    /// Why the relay ended by itself (see `MixPipeline.Status.endReason`).
    private var endReason: String?
    private var session: RelaySession?
    private var inputState: InputStatus.State = .waiting
    private var lastError: String?
    /// Set when `run` has returned: the status then shows every output in a final state.
    private var ended = false
    /// Why the relay ends `failed`: every output gave up.
    private var givenUpReason: String?
    private var lastGiveUpCheck: UInt64 = 0
    /// Raised when the input or an output changes state.
    let statusChanged = ChangeSignal()

    /// How long a dropped output keeps reconnecting before it is `failed` (`--output-give-up-seconds`).
    private let outputGiveUpSeconds: Double
    /// Seconds a network output may take no bytes before it is taken as lost (`--output-stall-seconds`).
    let outputStallSeconds: Double

    public init(task: ResolvedTask, outputGiveUpSeconds: Double, outputStallSeconds: Double = 10) {
        self.task = task
        self.outputGiveUpSeconds = outputGiveUpSeconds
        self.outputStallSeconds = outputStallSeconds
    }

    /// Ends the relay `failed` with `reason` (see `MixPipeline.giveUp(reason:)`).
    public func giveUp(reason: String) {
        lock.withLock { if givenUpReason == nil { givenUpReason = reason } }
        stopSignal.cancel()
    }

    public func requestStop() {
        lock.withLock { stopRequested = true }
        stopSignal.cancel()
    }

    public func cancel() {
        requestStop()
        interrupt.cancel()
    }

    public func run() throws {
        defer {
            lock.withLock {
                ended = true
                // An input never opened failed (the error says why); one that ran has ended.
                if inputState == .live { inputState = .ended }
                if inputState == .waiting { inputState = self.session == nil ? .failed : .ended }
            }
            statusChanged.notify()
        }
        guard let input = task.inputs.first else { throw TaskError.output(reason: "relay needs one input") }
        let source = try SourceOpener.open(input, interrupt: interrupt, decoderThreads: 1)
        let session: RelaySession
        do {
            session = try RelaySession(source: source, loop: input.loop, realtime: task.pace == .realtime,
                                       audio: task.audio, outputs: task.outputs, giveUpSeconds: outputGiveUpSeconds,
                                       stallSeconds: outputStallSeconds, stateChanged: statusChanged)
        } catch {
            throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
        }
        lock.withLock {
            self.session = session
            inputState = .live
        }
        statusChanged.notify()
        if let maximum = task.maxDurationSeconds {
            // Ends the relay at its maximum even while it waits for a packet's time; the sleep
            // itself ends early when the relay stops for another reason.
            let stopSignal = self.stopSignal
            Thread.detachNewThread { [weak self] in
                guard stopSignal.sleep(seconds: maximum), let self else { return }
                lock.withLock { endReason = TaskEndReason.maxDuration(maximum) }
                requestStop()
            }
        }
        defer { stopSignal.cancel() }
        do {
            try session.run(stop: stopSignal) { [self] in lock.withLock { stopRequested } || outputsGaveUp(session) }
            lock.withLock {
                inputState = .ended
                if !stopRequested, endReason == nil { endReason = TaskEndReason.inputEnded(input.id) }
            }
            statusChanged.notify()
        } catch {
            lock.withLock {
                inputState = .failed
                lastError = "\(error)"
            }
            statusChanged.notify()
            throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
        }
        if let reason = lock.withLock({ givenUpReason }) { throw TaskError.output(reason: reason) }
    }

    /// True once every output has failed (`givenUpReason` then names them); looked at five times
    /// a second at most, though asked for every packet.
    private func outputsGaveUp(_ session: RelaySession) -> Bool {
        let now = MonotonicClock.nanoseconds
        let due = lock.withLock { () -> Bool in
            guard givenUpReason == nil, now &- lastGiveUpCheck >= 200_000_000 else { return false }
            lastGiveUpCheck = now
            return true
        }
        if due, let reason = OutputFault.allOutputsFailedReason(session.outputStates.map {
            ($0.output.url, $0.snapshot.state, $0.snapshot.lastError)
        }) {
            lock.withLock { givenUpReason = reason }
        }
        return lock.withLock { givenUpReason != nil }
    }

    public var status: MixPipeline.Status {
        let (session, state, error, ended, endReason) = lock.withLock { (self.session, inputState, lastError, self.ended, self.endReason) }
        let outputs = session?.outputStates.map { entry in
            OutputStatus(output: entry.output, snapshot: entry.snapshot, taskEnded: ended)
        } ?? task.outputs.map { OutputStatus(url: URLRedaction.redact($0.url), state: ended ? .failed : .connecting) }
        let inputs = task.inputs.map { InputStatus(id: $0.id, state: state, frames: session?.packetsRelayed ?? 0, lastError: error) }
        return MixPipeline.Status(running: session != nil, frames: session?.packetsRelayed ?? 0, fps: 0, bitrateKbps: 0,
                                  lateFrames: 0, inputs: inputs, outputs: outputs, endReason: endReason)
    }
}
