import ArgumentParser
import Dispatch
import Foundation
import TesseraTask
import TesseraMedia
import TesseraServer
import TesseraWorker

struct MixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mix",
        abstract: "Run one task offline, as fast as the machine allows, and write its outputs."
    )

    @Argument(help: "The task document (JSON).") var task: String
    @Option(name: .shortAndLong, help: "Write only this file, instead of the document's outputs.") var output: String?
    @Option(help: "Directory relative input and image paths resolve against [working directory].") var mediaRoot: String?
    @Option(name: .customLong("output-dir"), help: "Directory relative output paths resolve against [working directory].")
    var outputDirectory: String?
    @Option(help: ArgumentHelp("A layout object (JSON, as under a task's `layout`) replacing the document's layout and its updates' layouts.",
                               discussion: "Re-mixes a show's timeline ({taskId}.timeline.json) with another layout; audio and SEI updates still apply."))
    var layout: String?
    @Flag(help: "Show FFmpeg's own log lines.") var verbose = false

    func run() throws {
        // Log lines (FFmpeg's included) to standard error: standard output says what was written.
        LoggingSetup.tool()
        FFmpeg.configureLogging(verbose: verbose)
        let data: Data
        do { data = try TaskLoading.read(task, outputOverride: output, layoutOverride: layout) } catch {
            StandardError.line("error: \(error)")
            throw ExitCode(1)
        }
        let resolved: ResolvedTask
        switch TaskLoading.validate(data, options: TaskLoading.options(mediaRoot: mediaRoot, outputDirectory: outputDirectory),
                                    layoutOverridden: layout != nil) {
        case .failure(let failure):
            for issue in failure.issues { StandardError.line("error: \(issue.description)") }
            throw ExitCode(1)
        case .success(let task):
            resolved = task
        }
        // Refused before anything opens, in the words `tessera validate` uses.
        let serveOnly = TaskLoading.serveOnlyLines(resolved)
        guard serveOnly.isEmpty else {
            for line in serveOnly { StandardError.line("error: \(line)") }
            throw ExitCode(1)
        }

        if resolved.mode == .relay {
            try runRelay(resolved)
            return
        }
        // `tessera mix` writes files, which never reconnect: the give-up is `serve`'s default, unused.
        let pipeline = MixPipeline(task: resolved, outputGiveUpSeconds: ServeSettings.Defaults.outputGiveUpSeconds,
                                   outputStallSeconds: ServeSettings.Defaults.outputStallSeconds)
        let signals = SignalCancellation { pipeline.cancel() }
        defer { signals.restore() }
        let reporter = ProgressReporter(interactive: StandardError.isTerminal)
        let started = MonotonicClock.seconds
        do {
            try pipeline.run { reporter.update($0) }
        } catch {
            reporter.finish()
            StandardError.line("error: \(error)")
            throw ExitCode(1)
        }
        reporter.finish()
        let elapsed = MonotonicClock.seconds - started
        for output in resolved.outputs {
            print("wrote \(URLRedaction.redact(output.url))")
        }
        StandardError.line(String(format: "done in %.1f s", elapsed))
    }
}

extension MixCommand {
    /// `mode: relay` offline: the input copied into the outputs without re-encoding its video.
    private func runRelay(_ task: ResolvedTask) throws {
        let relay = RelayPipeline(task: task, outputGiveUpSeconds: ServeSettings.Defaults.outputGiveUpSeconds,
                                  outputStallSeconds: ServeSettings.Defaults.outputStallSeconds)
        let signals = SignalCancellation { relay.cancel() }
        defer { signals.restore() }
        do {
            try relay.run()
        } catch {
            for output in task.outputs { if case .file(let path, _) = output.kind { try? FileManager.default.removeItem(atPath: path) } }
            StandardError.line("error: \(error)")
            throw ExitCode(1)
        }
        for output in task.outputs { print("wrote \(URLRedaction.redact(output.url))") }
    }
}

/// Ctrl-C or SIGTERM cancels the run; the pipeline then removes the outputs it started.
final class SignalCancellation: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(_ cancel: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { cancel() }
            source.resume()
            sources.append(source)
        }
    }

    func restore() {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
