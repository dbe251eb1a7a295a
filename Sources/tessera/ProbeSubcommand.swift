import ArgumentParser
import Foundation
import Logging
import TesseraWorker

/// `tessera probe`: opens one caller's input in a short-lived process of its own and checks its
/// codecs, for `tessera serve` (which never opens callers' media itself). Not for people.
struct ProbeSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Check a relay input's codecs for `tessera serve` (internal).",
        shouldDisplay: false
    )

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        // Standard output carries the answer: every log line goes to standard error, in the
        // server's format.
        LoggingSetup.child()
        let code = ProbeMain.run()
        if code != 0 { throw ExitCode(code) }
    }
}
