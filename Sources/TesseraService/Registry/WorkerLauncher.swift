import Foundation
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

/// `tessera worker` processes of `executable`, each told in its environment the server's log
/// format and level and the task it runs, so that its every line (FFmpeg's too) names the task.
struct ProcessWorkerLauncher: WorkerLauncher {
    let executable: String
    var logFormat: LogFormat = .text
    var logLevel = "info"
    var taskId: String?
    var nodeId: String?

    init(executable: String) { self.executable = executable }

    init(configuration: RegistryConfiguration, taskId: String) {
        executable = configuration.workerExecutable
        logFormat = configuration.logFormat
        logLevel = configuration.logLevel
        self.taskId = taskId
        nodeId = configuration.nodeId
    }

    func launch(onEvent: @escaping @Sendable (WorkerEvent) -> Void,
                onExit: @escaping @Sendable (_ status: Int32, _ signalled: Bool) -> Void) throws -> any WorkerHandle {
        let environment = TesseraLogging.childEnvironment(ProcessInfo.processInfo.environment, format: logFormat, level: logLevel,
                                                          taskId: taskId, nodeId: nodeId)
        return try WorkerProcess(executable: executable, environment: environment, onEvent: onEvent, onExit: onExit)
    }
}

extension WorkerProcess: WorkerHandle {}
