import CFFmpeg
import TesseraComposition
import TesseraTask

/// Relay's audio path for codecs FLV cannot carry (Opus, PCM, …): decode, resample to the task's
/// audio settings, encode AAC in whole 1024-sample frames.
final class AudioTranscoder {
    private var decoder: Decoder?
    private let resampler: AudioResampler
    private let encoder: Encoder
    let description: StreamDescription
    private let frame = Frame()
    private let fifo: InputAudioBuffer
    private let channels: Int
    private let rate: Int
    private var nextPosition: Int64?
    private let planes: [UnsafeMutablePointer<Float>]

    init(settings: AudioSettings) throws {
        encoder = try Encoder.audio(settings, globalHeader: true)
        description = try StreamDescription(encoder: encoder)
        resampler = AudioResampler(outputRate: settings.sampleRate, outputChannels: settings.channels)
        fifo = InputAudioBuffer(channels: settings.channels, sampleRate: settings.sampleRate)
        channels = settings.channels
        rate = settings.sampleRate
        let size = max(encoder.frameSize, 1024)
        planes = (0..<settings.channels).map { _ in
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: size)
            plane.initialize(repeating: 0, count: size)
            return plane
        }
    }

    deinit { planes.forEach { $0.deallocate() } }

    func transcode(_ packet: Packet, stream: UnsafeMutablePointer<AVStream>, offsetMicroseconds: Int64,
                   emit: (Packet) -> Void) throws {
        if decoder == nil { decoder = try Decoder(stream: stream, threads: 1) }
        guard let decoder else { return }
        _ = try decoder.decode(packet, into: frame) { frame in
            let pts = frame.pointer.pointee.best_effort_timestamp
            let microseconds = pts == FFmpeg.noPTS ? nil
                : rescale(pts, from: decoder.timeBase, to: microsecondsTimeBase) + offsetMicroseconds
            var position = microseconds.map { $0 * Int64(rate) / 1_000_000 - resampler.delay } ?? (fifo.endPosition)
            try resampler.convert(frame.pointer) { planes, count in
                fifo.append(planes, count: count, at: position)
                position += Int64(count)
            }
            if nextPosition == nil { nextPosition = max(0, position - Int64(fifo.bufferedSamples)) }
            try drain(emit: emit)
            return true
        }
    }

    private func drain(emit: (Packet) -> Void) throws {
        let size = encoder.frameSize > 0 ? encoder.frameSize : 1024
        while let start = nextPosition, fifo.endPosition >= start + Int64(size) {
            _ = fifo.read(into: planes, count: size, at: start)
            try encoder.encode(audio: planes, count: size, pts: start) { packet in emit(packet) }
            nextPosition = start + Int64(size)
        }
    }
}
