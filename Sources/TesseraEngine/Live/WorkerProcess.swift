import Foundation

/// One running `tessera worker` process and its pipes. Events are read on a thread of its own
/// and handed to `onEvent`; `onExit` is called once when the process has ended and its output is
/// drained.
///
/// Threads: `send`, `kill` from any thread (the pipe write is one locked `write`).
final class WorkerProcess: @unchecked Sendable {
    let process = Process()
    private let input: LineWriter
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()

    init(executable: String, onEvent: @escaping @Sendable (WorkerEvent) -> Void,
         onExit: @escaping @Sendable (_ status: Int32, _ signalled: Bool) -> Void) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["worker"]
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.standardError
        input = LineWriter(descriptor: stdinPipe.fileHandleForWriting.fileDescriptor)
        let output = stdoutPipe.fileHandleForReading.fileDescriptor
        let process = self.process
        try process.run()
        let reader = Thread {
            var lines = LineReader(descriptor: output)
            let decoder = JSONDecoder()
            while let line = lines.next() {
                if let event = try? decoder.decode(WorkerEvent.self, from: line) { onEvent(event) }
            }
            process.waitUntilExit()
            onExit(process.terminationStatus, process.terminationReason == .uncaughtSignal)
        }
        reader.name = "tessera-worker-events"
        reader.start()
    }

    var pid: Int32 { process.processIdentifier }

    func send(_ command: WorkerCommand) { input.send(command) }

    /// Closes the worker's standard input: it stops its task properly.
    func closeInput() { try? stdinPipe.fileHandleForWriting.close() }

    func kill() { if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) } }
}
