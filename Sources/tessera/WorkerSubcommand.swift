import ArgumentParser
import Foundation
import TesseraEngine

/// `tessera worker`: one live task in a process of its own, driven by `tessera serve` over its
/// standard input and output. Not for people: hidden from `--help`.
struct WorkerSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run one live task for `tessera serve` (internal).",
        shouldDisplay: false
    )

    func run() throws {
        // A server that dies must not take the worker with it through SIGPIPE; the worker notices
        // its closed standard input and ends the task properly.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let code = WorkerMain.run()
        if code != 0 { throw ExitCode(code) }
    }
}
