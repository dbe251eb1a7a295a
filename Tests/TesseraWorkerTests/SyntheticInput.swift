import TesseraComposition
import TesseraRTP
import TesseraMedia

/// An input made in the test: solid-colour pictures and constant-level PCM on the input's own
/// timeline, handed to the pipeline in time order the way a decoder's reader hands them over.
final class SyntheticInput: OpenedInput {
    struct Script: Sendable {
        /// Pictures: a colour from `start` until `end` (µs), one every `frameMicroseconds`.
        var pictures: [(color: YUVColor, start: Int64, end: Int64)] = []
        var frameMicroseconds: Int64 = 100_000
        var pictureSize = PixelSize(width: 64, height: 36)
        /// Each picture's duration (nil: `frameMicroseconds`); `durationIsKnown` false makes it a
        /// guess, as for a file that states none.
        var pictureDuration: Int64?
        var durationIsKnown = true
        /// Audio: every sample of every channel at `level`, from 0 until `audioEnd` (µs).
        var level: Float?
        var audioEnd: Int64 = 0
    }

    let script: Script
    let description: MediaSource.Description
    var arrivesInRealTime: Bool { false }

    init(_ script: Script) {
        self.script = script
        let end = max(script.pictures.map(\.end).max() ?? 0, script.level == nil ? 0 : script.audioEnd)
        description = MediaSource.Description(hasVideo: !script.pictures.isEmpty, hasAudio: script.level != nil,
                                              durationMicroseconds: end)
    }

    func makeReader(loop: Bool, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool?) -> InputReader {
        SyntheticReader(script: script, sampleRate: outputSampleRate, channels: outputChannels)
    }
}

final class SyntheticReader: InputReader {
    private let script: Script
    private let sampleRate: Int
    private let channels: Int
    typealias Script = SyntheticInput.Script
    var decodeErrors: Int { 0 }
    var packetCounters: PacketCounters? { nil }

    init(script: Script, sampleRate: Int, channels: Int) {
        self.script = script
        self.sampleRate = sampleRate
        self.channels = channels
    }

    private enum Event {
        case picture(YUVColor, pts: Int64)
        case audio(position: Int64, count: Int)
    }

    func run(into sink: MediaSink) throws {
        let block = 1024
        var events: [(time: Int64, event: Event)] = []
        for run in script.pictures {
            for pts in stride(from: run.start, to: run.end, by: Int(script.frameMicroseconds)) {
                events.append((pts, .picture(run.color, pts: pts)))
            }
        }
        if script.level != nil {
            let total = script.audioEnd * Int64(sampleRate) / 1_000_000
            for position in stride(from: Int64(0), to: total, by: block) {
                events.append((position * 1_000_000 / Int64(sampleRate), .audio(position: position, count: Int(min(Int64(block), total - position)))))
            }
        }
        events.sort { $0.time < $1.time }
        let samples = [Float](repeating: script.level ?? 0, count: block)
        for (_, event) in events {
            if sink.shouldStop { return }
            switch event {
            case .picture(let color, let pts):
                let image = YUVImage(width: script.pictureSize.width, height: script.pictureSize.height)
                image.fill(PixelRect(x: 0, y: 0, width: image.width, height: image.height), with: color)
                let picture = DecodedPicture(image: image, ptsMicroseconds: pts,
                                             durationMicroseconds: script.pictureDuration ?? script.frameMicroseconds,
                                             durationIsKnown: script.durationIsKnown)
                if try !sink.picture(picture) { return }
            case .audio(let position, let count):
                samples.withUnsafeBufferPointer { plane in
                    sink.audio(Array(repeating: plane.baseAddress!, count: channels), count: count, position: position)
                }
            }
        }
    }
}
