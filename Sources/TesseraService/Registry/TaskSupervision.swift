import TesseraStore
import TesseraWorkerProtocol

/// The life of one task on its node as a pure state machine: what to do when its worker exits,
/// when a stop is asked for and why, and what the task store should then hold. No processes,
/// clocks or sockets: `ManagedTask` performs the actions this returns.
public struct TaskSupervision: Sendable, Equatable {
    /// Why a task is being stopped on this node; it decides what the store keeps.
    public enum StopCause: Sendable, Equatable {
        /// `DELETE`: the task ends for good.
        case deleted
        /// This node is shutting down with nowhere to hand the task to: it resumes on the next start.
        case shutdown
        /// This node is shutting down with `--on-shutdown stop`: the task ends for good.
        case shutdownForGood
        /// The task moves to another node (drain).
        case handover
        /// Another node holds the task's lease now, or this node could not renew its own.
        case fenced
    }

    public enum ExitAction: Sendable, Equatable {
        /// Start a new worker; the note goes into the status reason.
        case restart(note: String)
        /// The task is over on this node.
        case finish(state: TaskState, reason: String?)
    }

    public let maxRestarts: Int
    public private(set) var restarts = 0
    public private(set) var stopCause: StopCause?
    public private(set) var finalState: TaskState?
    public private(set) var finalReason: String?
    /// Why the worker was last restarted.
    public private(set) var restartNote: String?

    public init(maxRestarts: Int, restarts: Int = 0) { self.maxRestarts = maxRestarts; self.restarts = restarts }

    public var isStopping: Bool { stopCause != nil }
    public var isFinal: Bool { finalState != nil }

    /// A stop is asked for: true when the worker should be told (the first ask only wins the cause).
    public mutating func stop(_ cause: StopCause) -> Bool {
        guard finalState == nil else { return false }
        if stopCause == nil { stopCause = cause }
        return true
    }

    /// The worker told us how it ended (its last status) before exiting.
    public mutating func workerReportedExit(state: TaskState, reason: String?) {
        guard finalState == nil else { return }
        finalState = state
        finalReason = reason ?? stopReason(state)
    }

    /// What a stop the server chose says in the final status, when the worker said nothing: a
    /// task that ended always says why.
    private func stopReason(_ state: TaskState) -> String? {
        guard state == .stopped, let stopCause else { return nil }
        switch stopCause {
        case .deleted: return Self.stoppedByRequestReason
        case .shutdownForGood: return Self.serverShutDownReason
        case .shutdown: return "server shut down; the task resumes when a server starts on this task store"
        case .handover: return "drained: the task moved to another node"
        case .fenced: return "another node runs the task now (this node lost its lease)"
        }
    }

    /// The final reason of a task ended by `DELETE`.
    public static let stoppedByRequestReason = "stopped by request (DELETE)"

    /// The final reason of a task `--on-shutdown stop` ended.
    public static let serverShutDownReason = "server shut down"

    /// The worker process ended.
    public mutating func workerExited(status: Int32, signalled: Bool) -> ExitAction? {
        if let finalState { return .finish(state: finalState, reason: finalReason) }
        let how = signalled ? "was killed by signal \(status)" : "exited with status \(status)"
        if stopCause == nil && restarts < maxRestarts {
            restarts += 1
            let note = "worker process \(how); restarted (\(restarts) of \(maxRestarts))"
            restartNote = note
            return .restart(note: note)
        }
        finalState = stopCause == nil ? .failed : .stopped
        if stopCause == nil {
            finalReason = restarts > 0 ? "worker process \(how), after \(restarts) restart\(restarts == 1 ? "" : "s") (--max-worker-restarts \(maxRestarts))"
                : "worker process \(how)"
        } else {
            finalReason = finalReason ?? stopReason(.stopped)
        }
        return .finish(state: finalState!, reason: finalReason)
    }

    /// A restart could not start a worker.
    public mutating func restartFailed(_ reason: String) {
        finalState = .failed
        finalReason = reason
    }

    /// What the store should hold once the task is final here: `stopped` when it ended for good
    /// (deleted, finished by itself, failed); nil when it must run again (here after a restart,
    /// or on another node).
    public var desiredAfterFinal: DesiredState? {
        guard finalState != nil else { return nil }
        switch stopCause {
        case .deleted?, .shutdownForGood?, nil: return .stopped
        case .shutdown?, .handover?, .fenced?: return nil
        }
    }
}
