import Foundation
import TesseraComposition
import TesseraTask
import TesseraMedia
import TesseraWorker
import TesseraWorkerProtocol

/// A mix run in the test's process: a task document validated as `tessera mix` would, inputs made
/// of scripts (no files are read), outputs recorded in memory (nothing is encoded).
struct MixHarness {
    static let red = YUVColor(red: 255, green: 0, blue: 0)
    static let blue = YUVColor(red: 0, green: 0, blue: 255)
    static let green = YUVColor(red: 0, green: 255, blue: 0)
    static let grey = YUVColor(red: 128, green: 128, blue: 128)

    let task: ResolvedTask
    let outputs = RecordingOutputs()
    let pipeline: MixPipeline

    /// `document`: a task's JSON (its inputs' `url`s are names the scripts are keyed by).
    init(_ document: String, scripts: [String: SyntheticInput.Script]) throws {
        let options = ValidationOptions(mediaRoot: "/media", outputDirectory: "/out", defaultPace: .asap, offline: true,
                                        fileExists: { _ in true }, inspectFile: { _ in nil })
        task = try TaskValidator.validate(json: Data(document.utf8), options: options).get()
        let outputs = self.outputs
        let media = MixMedia(
            openInput: { input, _, _, _ in
                guard let script = scripts[input.id] else { throw TaskError.input(id: input.id, url: "", reason: "no script") }
                return SyntheticInput(script)
            },
            openOutputs: { _, _ in outputs })
        pipeline = MixPipeline(task: task, outputGiveUpSeconds: 1, media: media)
    }

    /// Runs the task to its end; returns what was written.
    func run() throws -> RecordingOutputs.Record {
        try pipeline.run()
        return outputs.recorded
    }

    /// Two inputs side by side on a 320×180 canvas at 10 fps, stereo 48 kHz into one output;
    /// `extra` adds top-level members (`,"maxDurationSeconds": 1`).
    static func sideBySide(left: String = "a", right: String = "b", inputs: String? = nil, audio: String = "",
                           extra: String = "", background: String = "#000000") -> String {
        """
        {
          "taskId": "w1",
          "inputs": \(inputs ?? #"[{"id": "a", "url": "a.mp4"}, {"id": "b", "url": "b.mp4"}]"#),
          "encoder": {"video": {"width": 320, "height": 180, "fps": 10}, "audio": {"sampleRate": 48000, "channels": 2}},
          "layout": {"backgroundColor": "\(background)", "regions": [
            {"input": "\(left)", "x": 0, "y": 0, "width": 160, "height": 180, "backgroundColor": "#00FF00"},
            {"input": "\(right)", "x": 160, "y": 0, "width": 160, "height": 180, "backgroundColor": "#00FF00"}
          ]},
          \(audio)
          "outputs": [{"url": "out.mp4"}]\(extra)
        }
        """
    }

    /// A solid colour for `seconds` (pictures every 100 ms) with constant-level audio as long.
    static func clip(_ color: YUVColor, from start: Double = 0, until end: Double, level: Float? = nil) -> SyntheticInput.Script {
        var script = SyntheticInput.Script()
        script.pictures = [(color, Int64(start * 1_000_000), Int64(end * 1_000_000))]
        script.level = level
        script.audioEnd = Int64(end * 1_000_000)
        return script
    }
}

extension RecordingOutputs.Frame {
    /// The colours at the centres of the left and right halves.
    var halves: (left: YUVColor, right: YUVColor) {
        (picture.color(x: 80, y: 90), picture.color(x: 240, y: 90))
    }
}
