import ArgumentParser
import Foundation
import Logging
import TesseraWorker

/// `tessera worker`: one live task in a process of its own, driven by `tessera serve` over its
/// standard input and output. Not for people: hidden from `--help`.
struct WorkerSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run one live task for `tessera serve` (internal).",
        shouldDisplay: false
    )

    func run() throws {
        // The server ends its workers through their standard input (and kills a hung one), so
        // signals meant for the server's process group — Ctrl-C, SIGTERM to the group, a broken
        // pipe when the server dies — must not cut a recording short: the worker notices the
        // closed input and ends the task properly.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        // Standard output carries the events to the server: every log line goes to standard error,
        // in the server's format, each with the task's id (FFmpeg's too).
        LoggingSetup.child()
        let code = WorkerMain.run()
        if code != 0 { throw ExitCode(code) }
    }
}
