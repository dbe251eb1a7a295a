import CFFmpeg
import Foundation
import TesseraCore

/// The task's encoders and every output they feed: one encode, many containers.
public final class OutputSet {
    private enum Destination {
        case muxer(Muxer)
        case raw(Y4MWriter)
        /// Live: an output on its own thread with its own queue and reconnects.
        case publisher(Publisher)
    }

    /// Live outputs run on threads of their own and reconnect; offline ones are written in step
    /// with the encoder, so a slow disk slows the run instead of losing packets.
    private let live: Bool
    private let giveUpSeconds: Double
    private let videoSettings: VideoSettings?
    private var forceKeyframe = false
    private let seiWriter = SEIPacketWriter()

    private let video: Encoder?
    private let audio: Encoder
    /// Changed only on the pipeline's thread, always under `destinationsLock`, so that
    /// `outputStates` may read it from the status thread.
    private var destinations: [(output: ResolvedOutput, destination: Destination)] = []
    private let destinationsLock = NSLock()
    private let interrupt: InterruptFlag
    /// Where removed outputs are finished, off the pipeline's thread (shared with the pipeline,
    /// which retires removed inputs there too).
    private let retirement: Retirement
    /// Told when a live output changes state.
    private let stateChanged: ChangeSignal?
    /// The AAC encoder's first packet starts `initial_padding` samples before zero (its priming).
    /// Left negative, each muxer shifts streams its own way (fragmented MP4 stretches the first
    /// video frame), so every output moves all streams by that much: picture and sound keep
    /// their alignment and no timestamp is negative.
    private let startOffsetMicroseconds: Int64
    /// The encoders' streams as every container declares them (video first, when there is video).
    private let streams: [StreamDescription]
    /// Samples per audio frame the encoder takes (1024 for AAC).
    public var audioFrameSize: Int { audio.frameSize }

    /// Opens the encoders and every output. On failure, closes and removes whatever it had
    /// opened, then throws an error naming the output.
    public init(outputs: [ResolvedOutput], video videoSettings: VideoSettings?, audio audioSettings: AudioSettings,
                interrupt: InterruptFlag, live: Bool = false, giveUpSeconds: Double = 60,
                retirement: Retirement = Retirement(), stateChanged: ChangeSignal? = nil) throws {
        self.interrupt = interrupt
        self.stateChanged = stateChanged
        self.retirement = retirement
        self.live = live
        self.giveUpSeconds = giveUpSeconds
        self.videoSettings = videoSettings
        let formats = outputs.compactMap(Self.formatName)
        // Live outputs may be added later, RTMP (FLV) among them: codec headers out of band always.
        let globalHeader = live || formats.contains(where: Muxer.needsGlobalHeader(formatName:))
        video = try videoSettings.map { try Encoder.video($0, globalHeader: globalHeader, realtime: live) }
        audio = try Encoder.audio(audioSettings, globalHeader: globalHeader)
        startOffsetMicroseconds = Int64(audio.context.pointee.initial_padding) * 1_000_000 / Int64(audioSettings.sampleRate)
        streams = try [video, audio].compactMap { $0 }.map(StreamDescription.init(encoder:))
        do {
            for output in outputs {
                try open(output, videoSettings: videoSettings)
            }
        } catch {
            abandon()
            throw error
        }
    }

    private func open(_ output: ResolvedOutput, videoSettings: VideoSettings?, joinsMidStream: Bool = false) throws {
        let encoders = streams
        if live, !Self.isRaw(output) {
            let publisher = Publisher(output: output, streams: streams, startOffsetMicroseconds: startOffsetMicroseconds,
                                      giveUpSeconds: giveUpSeconds, joinsMidStream: joinsMidStream, stateChanged: stateChanged)
            publisher.start()
            destinationsLock.withLock { destinations.append((output, .publisher(publisher))) }
            forceKeyframe = true
            return
        }
        do {
            if case .file(let path, .y4m) = output.kind {
                guard let videoSettings else { throw MediaError(".y4m needs video (encoder.video)") }
                try Self.createParentDirectory(of: path)
                let writer = try Y4MWriter(path: path, width: videoSettings.width, height: videoSettings.height,
                                           fps: videoSettings.fps)
                destinationsLock.withLock { destinations.append((output, .raw(writer))) }
                return
            }
            let muxer = try OutputTarget(output, hasVideo: video != nil)
                .open(streams: encoders, startOffsetMicroseconds: startOffsetMicroseconds, interrupt: interrupt)
            destinationsLock.withLock { destinations.append((output, .muxer(muxer))) }
        } catch {
            throw MediaError("output \(URLRedaction.redact(output.url)): \(error)")
        }
    }

    private static func isRaw(_ output: ResolvedOutput) -> Bool {
        if case .file(_, .y4m) = output.kind { return true }
        return false
    }

    /// Live: makes the outputs exactly `outputs`, matched by URL. Those that stay are untouched
    /// (no reconnect); new ones start at a keyframe forced on the next frame; removed ones close.
    /// A removed publisher is finished on a thread of its own (its queue written, then its
    /// trailer, cancelled after 2 s): its peer may have stopped reading, and this is the thread
    /// every other output's frames come from.
    public func setOutputs(_ outputs: [ResolvedOutput]) throws {
        let wanted = Set(outputs.map(\.url))
        var kept: [(output: ResolvedOutput, destination: Destination)] = []
        for entry in destinations {
            if wanted.contains(entry.output.url) {
                kept.append(entry)
                continue
            }
            switch entry.destination {
            case .publisher(let publisher):
                retirement.retire("tessera-output-removed") { publisher.finish(timeoutSeconds: 2) }
            case .muxer(let muxer): try? muxer.finish()
            case .raw(let writer): try? writer.finish()
            }
        }
        destinationsLock.withLock { destinations = kept }
        let present = Set(kept.map(\.output.url))
        for output in outputs where !present.contains(output.url) {
            try open(output, videoSettings: videoSettings, joinsMidStream: true)
        }
    }

    /// Each output's URL (as given) and live state; offline outputs report `live`.
    public var outputStates: [(output: ResolvedOutput, snapshot: Publisher.Snapshot)] {
        destinationsLock.withLock { destinations }.map { entry in
            if case .publisher(let publisher) = entry.destination { return (entry.output, publisher.snapshot) }
            return (entry.output, Publisher.Snapshot(state: .live, bytes: 0, reconnects: 0, droppedPackets: 0, lastError: nil))
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

    /// Encodes the composite picture for frame `index` (time `index / fps`) and writes it
    /// everywhere, with `sei` in that frame's access unit.
    public func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage] = []) throws {
        for case (_, .raw(let writer)) in destinations { try writer.write(picture) }
        guard let video else { return }
        let keyframe = forceKeyframe
        forceKeyframe = false
        seiWriter.schedule(sei, frameIndex: frameIndex)
        try video.encode(picture: picture, pts: frameIndex, forceKeyframe: keyframe) { packet in
            try distribute(seiWriter.apply(to: packet), streamIndex: 0)
        }
    }

    /// Encodes one audio frame (`audioFrameSize` samples) starting at output sample `position`.
    public func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        let streamIndex = video == nil ? 0 : 1
        try audio.encode(audio: planes, count: count, pts: position) { packet in
            try distribute(packet, streamIndex: streamIndex)
        }
    }

    /// Drains the encoders and finishes every container (trailers written, files closed). Live
    /// publishers finish side by side, so one stuck peer costs its own timeout once, not one per
    /// output; outputs removed earlier and still finishing are waited for too.
    public func finish() throws {
        try video?.flush { packet in try distribute(seiWriter.apply(to: packet), streamIndex: 0) }
        try audio.flush { packet in try distribute(packet, streamIndex: video == nil ? 0 : 1) }
        let seconds = Self.finishSeconds
        for case (_, .publisher(let publisher)) in destinations {
            retirement.retire("tessera-output-finish") { publisher.finish(timeoutSeconds: seconds) }
        }
        for (output, destination) in destinations {
            do {
                switch destination {
                case .muxer(let muxer): try muxer.finish()
                case .raw(let writer): try writer.finish()
                case .publisher: break
                }
            } catch {
                throw MediaError("output \(URLRedaction.redact(output.url)): \(error)")
            }
        }
        // `Publisher.finish` cancels after `finishSeconds` and gives the thread 2 s more.
        retirement.wait(timeoutSeconds: seconds + 3)
    }

    /// How long a live output may take to write its queue and trailer at the task's end.
    private static let finishSeconds: Double = 10

    /// Closes everything and deletes the files this set created: a failed offline run leaves no
    /// file that looks complete.
    public func abandon() {
        let files = destinations.compactMap { entry -> String? in
            if case .file(let path, _) = entry.output.kind { return path }
            return nil
        }
        for case (_, .publisher(let publisher)) in destinations { publisher.cancel() }
        destinationsLock.withLock { destinations.removeAll() }
        for path in files { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Bytes the encoders have produced so far (for the task's bitrate).
    public private(set) var encodedBytes: Int64 = 0

    private func distribute(_ packet: Packet, streamIndex: Int) throws {
        encodedBytes += Int64(packet.pointer.pointee.size)
        for (output, destination) in destinations {
            if case .publisher(let publisher) = destination {
                publisher.send(packet, streamIndex: streamIndex)
                continue
            }
            guard case .muxer(let muxer) = destination else { continue }
            do {
                try muxer.write(packet, streamIndex: streamIndex)
            } catch {
                throw MediaError("output \(URLRedaction.redact(output.url)): \(error)")
            }
        }
    }
}
