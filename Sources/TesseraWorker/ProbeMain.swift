import Foundation
import TesseraTask
import TesseraMedia
import TesseraWorkerProtocol

/// The body of `tessera probe` (internal): reads a resolved plan from standard input, opens its
/// first input and checks its codecs against the outputs, and answers on standard output.
public enum ProbeMain {
    public static func run() -> Int32 {
        FFmpeg.configureLogging(verbose: false)
        let data = FileHandle.standardInput.readDataToEndOfFile()
        var answer = ProbeAnswer()
        do {
            let plan = try JSONDecoder().decode(ResolvedTask.self, from: data)
            if let input = plan.inputs.first {
                let source = try SourceOpener.open(input, interrupt: InterruptFlag(), decoderThreads: 1)
                try RelaySession.checkCodecs(source, outputs: plan.outputs)
            }
        } catch {
            answer.error = "\(error)"
        }
        let encoded = (try? JSONEncoder().encode(answer)) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(encoded + Data("\n".utf8))
        return 0
    }
}
