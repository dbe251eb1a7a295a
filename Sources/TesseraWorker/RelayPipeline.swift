import Foundation
import TesseraCore
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
    private var session: RelaySession?
    private var inputState: InputStatus.State = .waiting
    private var lastError: String?
    /// Raised when the input or an output changes state.
    let statusChanged = ChangeSignal()

    /// How long a dropped output keeps reconnecting before it is `failed` (`--output-give-up-seconds`).
    private let outputGiveUpSeconds: Double

    public init(task: ResolvedTask, outputGiveUpSeconds: Double) {
        self.task = task
        self.outputGiveUpSeconds = outputGiveUpSeconds
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
        guard let input = task.inputs.first else { throw TaskError.output(reason: "relay needs one input") }
        let source = try SourceOpener.open(input, interrupt: interrupt, decoderThreads: 1)
        let session: RelaySession
        do {
            session = try RelaySession(source: source, loop: input.loop, realtime: task.pace == .realtime,
                                       audio: task.audio, outputs: task.outputs, giveUpSeconds: outputGiveUpSeconds,
                                       stateChanged: statusChanged)
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
                if stopSignal.sleep(seconds: maximum) { self?.requestStop() }
            }
        }
        defer { stopSignal.cancel() }
        do {
            try session.run(stop: stopSignal) { [self] in lock.withLock { stopRequested } }
            lock.withLock { inputState = .ended }
            statusChanged.notify()
        } catch {
            lock.withLock {
                inputState = .failed
                lastError = "\(error)"
            }
            statusChanged.notify()
            throw TaskError.input(id: input.id, url: input.displayURL, reason: "\(error)")
        }
    }

    public var status: MixPipeline.Status {
        let (session, state, error) = lock.withLock { (self.session, inputState, lastError) }
        let outputs = session?.outputStates.map { entry in
            OutputStatus(url: URLRedaction.redact(entry.output.url), state: entry.snapshot.state == .failed ? .failed
                         : entry.snapshot.state == .reconnecting ? .reconnecting
                         : entry.snapshot.state == .connecting ? .connecting : .live,
                         bytes: entry.snapshot.bytes, reconnects: entry.snapshot.reconnects, lastError: entry.snapshot.lastError)
        } ?? task.outputs.map { OutputStatus(url: URLRedaction.redact($0.url), state: .connecting) }
        let inputs = task.inputs.map { InputStatus(id: $0.id, state: state, frames: session?.packetsRelayed ?? 0, lastError: error) }
        return MixPipeline.Status(running: session != nil, frames: session?.packetsRelayed ?? 0, fps: 0, bitrateKbps: 0,
                                  lateFrames: 0, inputs: inputs, outputs: outputs)
    }
}
