import TesseraWorkerProtocol

/// Starts a task's worker: a `tessera worker` process of this binary in production
/// (`ProcessWorkerLauncher`), a scripted stand-in in the registry's tests, which then run in
/// milliseconds with no process and no FFmpeg.
public protocol WorkerLauncher: Sendable {
    /// Starts one worker. `onEvent` gets each event it reports; `onExit` is called once, when it
    /// has ended and every event it reported was delivered.
    func launch(onEvent: @escaping @Sendable (WorkerEvent) -> Void,
                onExit: @escaping @Sendable (_ status: Int32, _ signalled: Bool) -> Void) throws -> any WorkerHandle
}

/// A started worker, as its task drives it. Threads: any.
public protocol WorkerHandle: AnyObject, Sendable {
    /// The process id (for operators' status and tests).
    var pid: Int32 { get }
    /// Sends a command; never blocks, even when the worker stops reading.
    func send(_ command: WorkerCommand)
    /// Ends the worker at once (SIGKILL): a hang, a lost lease.
    func kill()
}

/// `tessera worker` processes of `executable`.
struct ProcessWorkerLauncher: WorkerLauncher {
    let executable: String

    func launch(onEvent: @escaping @Sendable (WorkerEvent) -> Void,
                onExit: @escaping @Sendable (_ status: Int32, _ signalled: Bool) -> Void) throws -> any WorkerHandle {
        try WorkerProcess(executable: executable, onEvent: onEvent, onExit: onExit)
    }
}

extension WorkerProcess: WorkerHandle {}
