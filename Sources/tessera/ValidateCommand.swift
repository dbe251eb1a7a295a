import ArgumentParser
import Foundation

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a task document and print every problem with its field path (exit 1 if any).",
        discussion: "A valid document that only `tessera serve` can run (rtp.allocate inputs) is valid (exit 0), with a `serve only:` line per such field."
    )

    @Argument(help: "The task document (JSON).") var task: String
    @Option(help: "Directory relative input and image paths resolve against [working directory].") var mediaRoot: String?
    @Option(name: .customLong("output-dir"), help: "Directory relative output paths resolve against [working directory].")
    var outputDirectory: String?
    @Option(help: "A layout object (JSON) replacing the document's layout and its updates' layouts, as `tessera mix --layout` does.")
    var layout: String?

    func run() throws {
        let data: Data
        do { data = try TaskLoading.read(task, layoutOverride: layout) } catch { StandardError.line("error: \(error)"); throw ExitCode(1) }
        switch TaskLoading.validate(data, options: TaskLoading.options(mediaRoot: mediaRoot, outputDirectory: outputDirectory),
                                    layoutOverridden: layout != nil) {
        case .success(let resolved):
            let video = resolved.video.map { "\($0.width)x\($0.height)@\($0.fps)" } ?? "audio only"
            print("valid: task \(resolved.taskId), \(resolved.inputs.count) input(s), \(video), "
                  + "\(resolved.layout?.regions.count ?? 0) region(s), \(resolved.outputs.count) output(s)")
            // The same document runs under both commands: say where the field does something.
            if resolved.callbackUrl != nil { print("note: callbackUrl is posted to by tessera serve only; tessera mix ignores it") }
            for line in TaskLoading.serveOnlyLines(resolved) { print(line) }
        case .failure(let failure):
            for issue in failure.issues { print(issue.description) }
            throw ExitCode(1)
        }
    }
}
