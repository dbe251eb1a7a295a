import Foundation
import TesseraTask
import TesseraService
import TesseraWorkerProtocol

/// Plays a worker instead of running one (livekit/egress's controller tests inject their sources
/// the same way): each worker reports `running` as soon as it is started and ends properly when
/// told to stop; the test makes one crash or fall silent. Events arrive on a queue of the
/// worker's own, as a real worker's arrive on the event loop.
final class ScriptedWorkerLauncher: WorkerLauncher, @unchecked Sendable {
    private let lock = NSLock()
    private var started: [ScriptedWorker] = []

    /// Every worker started so far, oldest first.
    var workers: [ScriptedWorker] { lock.withLock { started } }

    func launch(onEvent: @escaping @Sendable (WorkerEvent) -> Void,
                onExit: @escaping @Sendable (Int32, Bool) -> Void) throws -> any WorkerHandle {
        lock.withLock {
            let worker = ScriptedWorker(pid: Int32(90_000 + started.count), onEvent: onEvent, onExit: onExit)
            started.append(worker)
            return worker
        }
    }
}

final class ScriptedWorker: WorkerHandle, @unchecked Sendable {
    let pid: Int32
    private let queue: DispatchQueue
    private let lock = NSLock()
    private let onEvent: @Sendable (WorkerEvent) -> Void
    private let onExit: @Sendable (Int32, Bool) -> Void
    private var received: [WorkerCommand] = []
    private var plan: ResolvedTask?
    private var silent = false
    private var ended = false

    init(pid: Int32, onEvent: @escaping @Sendable (WorkerEvent) -> Void, onExit: @escaping @Sendable (Int32, Bool) -> Void) {
        self.pid = pid
        self.onEvent = onEvent
        self.onExit = onExit
        queue = DispatchQueue(label: "scripted-worker-\(pid)")
    }

    /// The commands this worker was sent, in order.
    var commands: [WorkerCommand] { lock.withLock { received } }

    func send(_ command: WorkerCommand) {
        let silent: Bool = lock.withLock {
            received.append(command)
            if case .start(let start) = command { plan = start.plan }
            return self.silent
        }
        guard !silent else { return }
        switch command {
        case .start:
            report(.status, state: .running)
        case .stop:
            report(.exit, state: .stopped)
            end(status: 0, signalled: false)
        case .update(let plan):
            lock.withLock { self.plan = plan }
            report(.status, state: .running)
        case .snapshot, .lease, .sei:
            break
        }
    }

    func kill() { end(status: 9, signalled: true) }

    /// Dies without a word, as a worker that crashed inside FFmpeg.
    func crash() { end(status: 11, signalled: true) }

    /// Stops reporting and answering, as a worker stuck inside a call that never returns.
    func hang() { lock.withLock { silent = true } }

    private func report(_ type: WorkerEvent.Kind, state: TaskState) {
        let plan = lock.withLock { self.plan }
        let status = WorkerStatus(state: state, reason: nil, frames: 0, fps: 0, bitrateKbps: 0, lateFrames: 0,
                                  inputs: (plan?.inputs ?? []).map { input in
                                      // An RTP input's sockets are bound once it starts, as a real worker's.
                                      var status = InputStatus(id: input.id, state: .live)
                                      if case .rtpSDP = input.source { status.ready = true }
                                      return status
                                  },
                                  outputs: (plan?.outputs ?? []).map { OutputStatus(url: URLRedaction.redact($0.url), state: .live) })
        queue.async { self.onEvent(WorkerEvent(type: type, status: status)) }
    }

    private func end(status: Int32, signalled: Bool) {
        let first: Bool = lock.withLock { defer { ended = true }; return !ended }
        guard first else { return }
        queue.async { self.onExit(status, signalled) }
    }
}
