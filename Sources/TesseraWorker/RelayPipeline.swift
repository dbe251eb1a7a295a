import Foundation
import Synchronization
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// A `mode: relay` task: its one input copied to the outputs (see `RelaySession`).
///
/// Threads: `run` on one thread; `requestStop`, `cancel` and `status` from any other.
public final class RelayPipeline: Sendable {
    let task: ResolvedTask
    private let interrupt = InterruptFlag()
    /// Raised by a stop request (or the maximum duration): wakes the session's pacing sleep.
    private let stopSignal = InterruptFlag()

    private struct State {
        var stopRequested = false
        /// Why the relay ended by itself (see `WorkerStatus.reason`).
        var endReason: String?
        var session: RunningRelay?
        var inputState: InputStatus.State = .waiting
        var lastError: String?
        /// Set when `run` has returned: the status then shows every output in a final state.
        var ended = false
        /// Why the relay ends `failed`: every output gave up.
        var givenUpReason: String?
        var lastGiveUpCheck: UInt64 = 0
    }

    private let state = Mutex(State())
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
        state.withLock { if $0.givenUpReason == nil { $0.givenUpReason = reason } }
        stopSignal.cancel()
    }

    public func requestStop() {
        state.withLock { $0.stopRequested = true }
        stopSignal.cancel()
    }

    public func cancel() {
        requestStop()
        interrupt.cancel()
    }

    public func run() throws {
        defer {
            state.withLock { state in
                state.ended = true
                // An input never opened failed (the error says why); one that ran has ended.
                if state.inputState == .live { state.inputState = .ended }
                if state.inputState == .waiting { state.inputState = state.session == nil ? .failed : .ended }
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
        state.withLock { state in
            state.session = RunningRelay(session)
            state.inputState = .live
        }
        statusChanged.notify()
        if let maximum = task.maxDurationSeconds {
            // Ends the relay at its maximum even while it waits for a packet's time; the sleep
            // itself ends early when the relay stops for another reason.
            let stopSignal = self.stopSignal
            Thread.detachNewThread { [weak self] in
                guard stopSignal.sleep(seconds: maximum), let self else { return }
                state.withLock { $0.endReason = TaskEndReason.maxDuration(maximum) }
                requestStop()
            }
        }
        defer { stopSignal.cancel() }
        do {
            try session.run(stop: stopSignal) { [self] in state.withLock { $0.stopRequested } || outputsGaveUp(session) }
            state.withLock { state in
                state.inputState = .ended
                if !state.stopRequested, state.endReason == nil { state.endReason = TaskEndReason.inputEnded(input.id) }
            }
            statusChanged.notify()
        } catch {
            state.withLock { state in
                state.inputState = .failed
                state.lastError = "\(error)"
            }
            statusChanged.notify()
            throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
        }
        if let reason = state.withLock({ $0.givenUpReason }) { throw TaskError.output(reason: reason) }
    }

    /// True once every output has failed (`givenUpReason` then names them); looked at five times
    /// a second at most, though asked for every packet.
    private func outputsGaveUp(_ session: RelaySession) -> Bool {
        let now = MonotonicClock.nanoseconds
        let due = state.withLock { state -> Bool in
            guard state.givenUpReason == nil, now &- state.lastGiveUpCheck >= 200_000_000 else { return false }
            state.lastGiveUpCheck = now
            return true
        }
        if due, let reason = OutputFault.allOutputsFailedReason(session.outputStates.map {
            ($0.output.url, $0.snapshot.state, $0.snapshot.lastError)
        }) {
            state.withLock { $0.givenUpReason = reason }
        }
        return state.withLock { $0.givenUpReason != nil }
    }

    /// `running` once the session is open; `reason` says why the relay ended by itself, if it did.
    public var status: WorkerStatus {
        let (session, input, error, ended, endReason) = state.withLock {
            ($0.session, $0.inputState, $0.lastError, $0.ended, $0.endReason)
        }
        let outputs = OutputStatus.list(session?.session.outputStates, planned: task.outputs, taskEnded: ended)
        let relayed = session?.session.packetsRelayed ?? 0
        let inputs = task.inputs.map { InputStatus(id: $0.id, state: input, frames: relayed, lastError: error) }
        return WorkerStatus(state: session != nil ? .running : .starting, reason: endReason, frames: relayed, fps: 0,
                            bitrateKbps: 0, lateFrames: 0, inputs: inputs, outputs: outputs)
    }
}

/// The relay's session as the status reads it from other threads while `run` drives it: each
/// publisher's snapshot is taken under its own lock, and the packet count is read as a counter
/// that may be one packet behind.
private final class RunningRelay: @unchecked Sendable {
    let session: RelaySession
    init(_ session: RelaySession) { self.session = session }
}
