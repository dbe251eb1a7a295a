import ArgumentParser
import Foundation
import TesseraComposition
import TesseraMedia
import TesseraPNG

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Draw the layout (numbered, labelled boxes in z-order) to a PNG, without any media."
    )

    @Argument(help: "The task document (JSON).") var task: String
    @Option(name: .shortAndLong, help: "The PNG to write.") var output: String
    @Option(help: "Directory relative input and image paths resolve against [working directory].") var mediaRoot: String?

    func run() throws {
        let data: Data
        do { data = try TaskLoading.read(task) } catch { StandardError.line("error: \(error)"); throw ExitCode(1) }
        // A preview needs no media: every file counts as present.
        var options = TaskLoading.options(mediaRoot: mediaRoot, outputDirectory: nil)
        options.fileExists = { _ in true }
        switch TaskLoading.validate(data, options: options) {
        case .failure(let failure):
            for issue in failure.issues { StandardError.line("error: \(issue.path): \(issue.message)") }
            throw ExitCode(1)
        case .success(let resolved):
            guard let layout = resolved.layout else {
                StandardError.line("error: encoder.video: an audio-only task has no layout to preview")
                throw ExitCode(1)
            }
            let labels = LayoutPreview.labels(for: layout, inputIDs: resolved.inputs.map(\.id))
            let picture = LayoutPreview.render(layout: layout, labels: labels)
            do {
                try PNGEncoder.encode(picture).write(to: URL(fileURLWithPath: output))
            } catch {
                StandardError.line("error: cannot write \(output): \(error)")
                throw ExitCode(1)
            }
            print("preview: \(output) (\(layout.canvasWidth)x\(layout.canvasHeight), \(layout.regions.count) regions)")
        }
    }
}
