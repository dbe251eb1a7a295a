import Foundation
import TesseraTask
import TesseraWorkerProtocol

/// Checks a relay's input codecs against its outputs (FLV carries H.264 only) in a short-lived
/// child process, `tessera probe`: the server never opens a caller's media itself, so a file that
/// crashes or hangs FFmpeg takes down the probe, not the node and every task's supervisor.
enum CodecProbe {
    /// The longest a probe may take before it is killed and the task refused.
    static let timeoutSeconds = 15.0

    /// In the server: runs `executable probe` with the plan on its standard input. Blocking (call
    /// through `BlockingWork`). Throws a 400 naming `inputs[0].url` when the input is refused, or
    /// when the probe crashed or hung on it.
    static func check(_ plan: ResolvedTask, executable: String) throws {
        let process = Process()
        let input = Pipe(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["probe"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch {
            throw ServiceError(.internalError, message: "cannot start a probe process for the input")
        }
        let encoded = (try? JSONEncoder().encode(plan)) ?? Data()
        try? input.fileHandleForWriting.write(contentsOf: encoded + Data("\n".utf8))
        try? input.fileHandleForWriting.close()
        // The answer is small (well under a pipe's buffer): read once the process has ended.
        if ended.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
            throw refusal("the input could not be probed within \(Int(timeoutSeconds)) s")
        }
        let data = (try? output.fileHandleForReading.readToEnd()) ?? Data()
        if process.terminationReason == .uncaughtSignal {
            throw refusal("the input could not be probed: the probe process was killed by signal \(process.terminationStatus)")
        }
        guard let answer = try? JSONDecoder().decode(ProbeAnswer.self, from: data) else {
            throw refusal("the input could not be probed: the probe process exited with status \(process.terminationStatus)")
        }
        if let error = answer.error { throw refusal(error) }
    }

    private static func refusal(_ message: String) -> ServiceError {
        ServiceError(.invalidTask, message: message, path: "inputs[0].url")
    }
}
