import CFFmpeg
import Foundation
import TesseraCore

/// The task's encoders and every output they feed: one encode, many containers.
public final class OutputSet {
    private enum Destination {
        case muxer(Muxer)
        case raw(Y4MWriter)
    }

    private let video: Encoder?
    private let audio: Encoder
    private var destinations: [(output: ResolvedOutput, destination: Destination)] = []
    private let interrupt: InterruptFlag
    /// The AAC encoder's first packet starts `initial_padding` samples before zero (its priming).
    /// Left negative, each muxer shifts streams its own way (fragmented MP4 stretches the first
    /// video frame), so every output moves all streams by that much: picture and sound keep
    /// their alignment and no timestamp is negative.
    private let startOffsetMicroseconds: Int64
    /// Samples per audio frame the encoder takes (1024 for AAC).
    public var audioFrameSize: Int { audio.frameSize }

    /// Opens the encoders and every output. On failure, closes and removes whatever it had
    /// opened, then throws an error naming the output.
    public init(outputs: [ResolvedOutput], video videoSettings: VideoSettings?, audio audioSettings: AudioSettings,
                interrupt: InterruptFlag) throws {
        self.interrupt = interrupt
        let formats = outputs.compactMap(Self.formatName)
        let globalHeader = formats.contains(where: Muxer.needsGlobalHeader(formatName:))
        video = try videoSettings.map { try Encoder.video($0, globalHeader: globalHeader) }
        audio = try Encoder.audio(audioSettings, globalHeader: globalHeader)
        startOffsetMicroseconds = Int64(audio.context.pointee.initial_padding) * 1_000_000 / Int64(audioSettings.sampleRate)
        do {
            for output in outputs {
                try open(output, videoSettings: videoSettings)
            }
        } catch {
            abandon()
            throw error
        }
    }

    private func open(_ output: ResolvedOutput, videoSettings: VideoSettings?) throws {
        let encoders = [video, audio].compactMap { $0 }
        do {
            switch output.kind {
            case .file(let path, .y4m):
                guard let videoSettings else { throw MediaError(".y4m needs video (encoder.video)") }
                try Self.createParentDirectory(of: path)
                let writer = try Y4MWriter(path: path, width: videoSettings.width, height: videoSettings.height,
                                           fps: videoSettings.fps)
                destinations.append((output, .raw(writer)))
            case .file(let path, let container):
                try Self.createParentDirectory(of: path)
                let muxer = try Muxer(url: path, formatName: container.muxerName ?? "mp4", encoders: encoders,
                                      startOffsetMicroseconds: container == .mp4 ? 0 : startOffsetMicroseconds,
                                      options: Self.muxerOptions(container, hasVideo: video != nil),
                                      protocols: "file", interrupt: interrupt)
                destinations.append((output, .muxer(muxer)))
            case .rtmp:
                let muxer = try Muxer(url: output.url, formatName: "flv", encoders: encoders,
                                      startOffsetMicroseconds: startOffsetMicroseconds,
                                      protocols: "rtmp,rtmps,tcp,tls", interrupt: interrupt)
                destinations.append((output, .muxer(muxer)))
            case .srt:
                let muxer = try Muxer(url: output.url, formatName: "mpegts", encoders: encoders,
                                      startOffsetMicroseconds: startOffsetMicroseconds,
                                      protocols: "srt,udp", interrupt: interrupt)
                destinations.append((output, .muxer(muxer)))
            }
        } catch {
            throw MediaError("output \(URLRedaction.redact(output.url)): \(error)")
        }
    }

    /// `recordings/day1/room.mp4` may name folders that do not exist yet.
    private static func createParentDirectory(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    private static func formatName(_ output: ResolvedOutput) -> String? {
        switch output.kind {
        case .file(_, let container): return container.muxerName
        case .rtmp: return "flv"
        case .srt: return "mpegts"
        }
    }

    /// Fragmented MP4 so that a crash leaves a playable file up to the last fragment. Audio-only
    /// files cut a fragment each second (every AAC frame is a keyframe).
    private static func muxerOptions(_ container: Container, hasVideo: Bool) -> [String: String] {
        switch container {
        case .mp4:
            return hasVideo
                ? ["movflags": "frag_keyframe+empty_moov+delay_moov+default_base_moof"]
                : ["movflags": "empty_moov+default_base_moof", "frag_duration": "1000000"]
        default:
            return [:]
        }
    }

    /// Encodes the composite picture for frame `index` (time `index / fps`) and writes it everywhere.
    public func writeVideo(_ picture: YUVImage, frameIndex: Int64) throws {
        for case (_, .raw(let writer)) in destinations { try writer.write(picture) }
        guard let video else { return }
        try video.encode(picture: picture, pts: frameIndex) { packet in try distribute(packet, streamIndex: 0) }
    }

    /// Encodes one audio frame (`audioFrameSize` samples) starting at output sample `position`.
    public func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        let streamIndex = video == nil ? 0 : 1
        try audio.encode(audio: planes, count: count, pts: position) { packet in
            try distribute(packet, streamIndex: streamIndex)
        }
    }

    /// Drains the encoders and finishes every container (trailers written, files closed).
    public func finish() throws {
        try video?.flush { packet in try distribute(packet, streamIndex: 0) }
        try audio.flush { packet in try distribute(packet, streamIndex: video == nil ? 0 : 1) }
        for (output, destination) in destinations {
            do {
                switch destination {
                case .muxer(let muxer): try muxer.finish()
                case .raw(let writer): try writer.finish()
                }
            } catch {
                throw MediaError("output \(URLRedaction.redact(output.url)): \(error)")
            }
        }
    }

    /// Closes everything and deletes the files this set created: a failed offline run leaves no
    /// file that looks complete.
    public func abandon() {
        let files = destinations.compactMap { entry -> String? in
            if case .file(let path, _) = entry.output.kind { return path }
            return nil
        }
        destinations.removeAll()
        for path in files { try? FileManager.default.removeItem(atPath: path) }
    }

    private func distribute(_ packet: Packet, streamIndex: Int) throws {
        for (output, destination) in destinations {
            guard case .muxer(let muxer) = destination else { continue }
            do {
                try muxer.write(packet, streamIndex: streamIndex)
            } catch {
                throw MediaError("output \(URLRedaction.redact(output.url)): \(error)")
            }
        }
    }
}
