import CFFmpeg
import Foundation
import TesseraComposition
import TesseraRTP
import TesseraTask

/// The task's encoders and every output they feed: one encode per format, many outputs.
///
/// RTMP, SRT and files take the task's H.264 and AAC (the "main" streams); an RTP output takes
/// constrained-baseline H.264 or VP8 and Opus. Each format is encoded once, when some output needs
/// it and for as long as one does: RTP outputs share theirs, and a task whose own profile is
/// baseline feeds RTMP and the room from one x264.
public final class OutputSet {
    private enum Destination {
        case muxer(Muxer)
        case raw(Y4MWriter)
        /// Live: an output on its own thread with its own queue and reconnects.
        case publisher(Publisher)
        /// Into the room: RTP sent as it is encoded.
        case rtp(RTPPublisher)
        /// HLS of a task with renditions: a variant per rendition under one master playlist.
        case ladder(HLSLadder)
    }

    /// The main encodes' streams as every container declares them (video first, when there is
    /// video), and the AAC priming: the encoder's first packet starts `initial_padding` samples
    /// before zero. Left negative, each muxer shifts streams its own way (fragmented MP4
    /// stretches the first video frame), so every output moves all streams by that much:
    /// picture and sound keep their alignment and no timestamp is negative.
    private struct MainStreams {
        let streams: [StreamDescription]
        let startOffsetMicroseconds: Int64
    }

    /// Live outputs run on threads of their own and reconnect; offline ones are written in step
    /// with the encoder, so a slow disk slows the run instead of losing packets.
    private let live: Bool
    private let giveUpSeconds: Double
    /// Live network outputs: seconds their destination may take no bytes before they reconnect.
    private let stallSeconds: Double
    /// Set once `finish` has run: outputs written in step (offline files) then read `finished`,
    /// or `failed` with the error their trailer gave.
    private var endedOutputs: [String: String?]? = nil
    private let videoSettings: VideoSettings?
    private let audioSettings: AudioSettings
    /// Codec headers out of band (in extradata) for every encode: live outputs may be added later,
    /// RTMP (FLV) among them. RTP puts H.264's parameter sets back in front of each keyframe.
    private let globalHeader: Bool
    /// The task's SEI for each H.264 encode of the composite: the main size and every rendition
    /// (an HLS ladder's variants and a rendition's recording carry what the main stream does).
    private var seiWriters: [VideoEncodeFormat: SEIPacketWriter] = [:]
    private let keyframes: KeyframeRequests
    /// Composite frames between frames every rendition encodes (`VideoSettings.ladderFrameStep`).
    private let ladderFrameStep: Int64
    /// Renditions' scalers from the composite, by rendition number (1…).
    private var scalers: [Int: CompositeScaler] = [:]
    /// Ladder encodes that have taken their first frame. Each takes it on a frame every rendition
    /// encodes, beside a keyframe forced on the others, so all share their GOP boundaries.
    private var startedLadder = Set<VideoEncodeFormat>()

    private var videoEncoders: [VideoEncodeFormat: Encoder] = [:] { didSet { nameEncodes() } }
    private var audioEncoders: [AudioEncodeFormat: AudioEncode] = [:] { didSet { nameEncodes() } }
    /// `videoEncoders` and `audioEncoders` by name, for the status thread.
    private var encodeNames: [String] = []
    /// Per rendition (0 the main size), the streams RTMP, SRT, file and HLS outputs declare.
    private var mainStreamsByRendition: [Int: MainStreams] = [:]
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
    /// Held while the upload spool is full (`s3://` outputs).
    private let hold: OutputHold?
    /// Samples per chunk of the mix: AAC's frame when the task starts with an AAC output, else
    /// Opus's 20 ms (a voice room sending only into the room mixes in 20 ms steps).
    public let audioFrameSize: Int

    private var mainVideoFormat: VideoEncodeFormat? { videoSettings.map { .h264($0.profile) } }

    /// Opens every output (and the encoders they need). On failure, closes and removes whatever
    /// it had opened, then throws an error naming the output.
    public init(outputs: [ResolvedOutput], video videoSettings: VideoSettings?, audio audioSettings: AudioSettings,
                interrupt: InterruptFlag, live: Bool, giveUpSeconds: Double, stallSeconds: Double = 10,
                retirement: Retirement = Retirement(), stateChanged: ChangeSignal? = nil, hold: OutputHold? = nil) throws {
        self.stallSeconds = stallSeconds
        self.interrupt = interrupt
        self.hold = hold
        self.stateChanged = stateChanged
        self.retirement = retirement
        self.live = live
        self.giveUpSeconds = giveUpSeconds
        self.videoSettings = videoSettings
        self.audioSettings = audioSettings
        let formats = outputs.compactMap(Self.formatName)
        // With renditions, an HLS master playlist's CODECS is read from each encoder's SPS.
        let hasLadder = !(videoSettings?.renditions.isEmpty ?? true)
            && outputs.contains { if case .hls = $0.kind { true } else { false } }
        globalHeader = live || hasLadder || formats.contains(where: Muxer.needsGlobalHeader(formatName:))
        ladderFrameStep = Int64(videoSettings?.ladderFrameStep ?? 1)
        var ladder = Set<VideoEncodeFormat>()
        if let videoSettings, !videoSettings.renditions.isEmpty {
            ladder = Set([.h264(videoSettings.profile)] + videoSettings.renditions.indices.map { .rendition($0 + 1) })
        }
        keyframes = KeyframeRequests(ladder: ladder)
        let onlyRTP = !outputs.isEmpty && outputs.allSatisfy { if case .rtp = $0.kind { true } else { false } }
        audioFrameSize = onlyRTP ? audioSettings.sampleRate / 50 : 1024
        do {
            for output in outputs {
                try open(output)
            }
        } catch {
            abandon()
            throw error
        }
    }

    // MARK: Encoders

    private func videoEncoder(_ format: VideoEncodeFormat) throws -> Encoder {
        if let encoder = videoEncoders[format] { return encoder }
        guard let videoSettings else { throw MediaError("this task has no video (encoder.video)") }
        let encoder: Encoder
        switch format {
        case .h264(let profile):
            encoder = try Encoder.video(videoSettings, globalHeader: globalHeader, realtime: live, profile: profile)
        case .vp8:
            encoder = try Encoder.vp8(videoSettings)
        case .rendition(let index):
            let settings = videoSettings.encoderSettings(forRendition: index)
            scalers[index] = try CompositeScaler(from: PixelSize(width: videoSettings.width, height: videoSettings.height),
                                                 to: PixelSize(width: settings.width, height: settings.height))
            encoder = try Encoder.video(settings, globalHeader: globalHeader, realtime: live)
        }
        videoEncoders[format] = encoder
        return encoder
    }

    private func audioEncoder(_ format: AudioEncodeFormat) throws -> AudioEncode {
        if let stage = audioEncoders[format] { return stage }
        let encoder = format == .aac ? try Encoder.audio(audioSettings, globalHeader: globalHeader) : try Encoder.opus(audioSettings)
        let stage = AudioEncode(encoder, channels: audioSettings.channels)
        audioEncoders[format] = stage
        return stage
    }

    /// The encode rendition `index` is made by: the main H.264 for 0.
    private func videoFormat(forRendition index: Int) -> VideoEncodeFormat? {
        index == 0 ? mainVideoFormat : .rendition(index)
    }

    /// The rendition an encode is (0 the main H.264); nil for RTP's own encodes.
    private func renditionNumber(of format: VideoEncodeFormat) -> Int? {
        if case .rendition(let index) = format { return index }
        return format == mainVideoFormat ? 0 : nil
    }

    /// Rendition `index`'s H.264 and the AAC, opened by the first output that takes them.
    private func mainStreams(rendition index: Int = 0) throws -> MainStreams {
        if let made = mainStreamsByRendition[index] { return made }
        let video = try videoFormat(forRendition: index).map { try videoEncoder($0) }
        let audio = try audioEncoder(.aac).encoder
        let offset = Int64(audio.context.pointee.initial_padding) * 1_000_000 / Int64(audioSettings.sampleRate)
        let made = MainStreams(streams: try [video, audio].compactMap { $0 }.map(StreamDescription.init(encoder:)),
                               startOffsetMicroseconds: offset)
        mainStreamsByRendition[index] = made
        return made
    }

    /// Closes the encodes no output takes any more (an RTP output removed, say).
    private func closeUnusedEncoders() {
        var video = Set<VideoEncodeFormat>()
        var audio = Set<AudioEncodeFormat>()
        for (output, destination) in destinations {
            switch destination {
            case .muxer, .publisher:
                if let format = videoFormat(forRendition: output.rendition) { video.insert(format) }
                audio.insert(.aac)
            case .ladder:
                for index in (videoSettings?.ladder ?? []).indices {
                    if let format = videoFormat(forRendition: index) { video.insert(format) }
                }
                audio.insert(.aac)
            case .rtp(let publisher):
                if let format = publisher.videoFormat { video.insert(format) }
                audio.insert(.opus)
            case .raw: break
            }
        }
        videoEncoders = videoEncoders.filter { video.contains($0.key) }
        audioEncoders = audioEncoders.filter { audio.contains($0.key) }
        startedLadder = startedLadder.intersection(video)
        scalers = scalers.filter { video.contains(.rendition($0.key)) }
        mainStreamsByRendition = mainStreamsByRendition.filter { entry in
            audio.contains(.aac) && videoFormat(forRendition: entry.key).map(video.contains) ?? true
        }
    }

    /// The encodes running now, by name (`h264-high`, `h264-baseline`, `vp8`, `aac`, `opus`;
    /// rendition N as `h264-high-rN-640x360`).
    public var encodes: [String] { destinationsLock.withLock { encodeNames } }

    private func nameEncodes() {
        let video = videoEncoders.keys.map { format -> String in
            switch format {
            case .h264(let profile): return "h264-\(profile.rawValue)"
            case .vp8: return "vp8"
            case .rendition(let index):
                let rendition = videoSettings?.ladder[index]
                return "h264-\(videoSettings?.profile.rawValue ?? "high")-r\(index)-\(rendition?.width ?? 0)x\(rendition?.height ?? 0)"
            }
        }
        let audio = audioEncoders.keys.map { $0 == .aac ? "aac" : "opus" }
        let names = video.sorted() + audio.sorted()
        destinationsLock.withLock { encodeNames = names }
    }

    // MARK: Outputs

    private func open(_ output: ResolvedOutput, joinsMidStream: Bool = false) throws {
        do {
            if case .rtp(let settings) = output.kind {
                let publisher = try makeRTPPublisher(output, settings: settings)
                publisher.start()
                destinationsLock.withLock { destinations.append((output, .rtp(publisher))) }
                if let format = publisher.videoFormat { keyframes.request(format) }
                return
            }
            if case .hls(let hls) = output.kind, let videoSettings, !videoSettings.renditions.isEmpty {
                try openLadder(output, settings: hls, video: videoSettings, joinsMidStream: joinsMidStream)
                return
            }
            if live, !Self.isRaw(output) {
                let main = try mainStreams(rendition: output.rendition)
                let publisher = Publisher(output: output, streams: main.streams, startOffsetMicroseconds: main.startOffsetMicroseconds,
                                          giveUpSeconds: giveUpSeconds, stallSeconds: stallSeconds, joinsMidStream: joinsMidStream,
                                          stateChanged: stateChanged, hold: hold)
                publisher.start()
                destinationsLock.withLock { destinations.append((output, .publisher(publisher))) }
                if let format = videoFormat(forRendition: output.rendition) { keyframes.request(format) }
                return
            }
            if case .file(let path, .y4m) = output.kind {
                guard let videoSettings else { throw MediaError(".y4m needs video (encoder.video)") }
                try Self.createParentDirectory(of: path)
                let writer = try Y4MWriter(path: path, width: videoSettings.width, height: videoSettings.height,
                                           fps: videoSettings.fps)
                destinationsLock.withLock { destinations.append((output, .raw(writer))) }
                return
            }
            let main = try mainStreams(rendition: output.rendition)
            let muxer = try OutputTarget(output, hasVideo: videoSettings != nil)
                .open(streams: main.streams, startOffsetMicroseconds: main.startOffsetMicroseconds, interrupt: interrupt)
            destinationsLock.withLock { destinations.append((output, .muxer(muxer))) }
        } catch {
            throw Self.failure(of: output, error)
        }
    }

    /// An HLS output of a task with renditions: every rendition's encode (opened now if no output
    /// took it yet), a variant each, and the master playlist naming their codecs.
    private func openLadder(_ output: ResolvedOutput, settings: HLSSettings, video: VideoSettings, joinsMidStream: Bool) throws {
        let streams = try video.ladder.indices.map { try mainStreams(rendition: $0) }
        let codecs = video.ladder.indices.map { index -> String? in
            guard let format = videoFormat(forRendition: index), let encoder = videoEncoders[format],
                  let extradata = encoder.context.pointee.extradata else { return nil }
            let bytes = UnsafeRawBufferPointer(start: extradata, count: Int(encoder.context.pointee.extradata_size))
            return HLSCodecs.avc1(parameterSets: H264Packetizer.parameterSets(annexB: bytes))
        }
        let ladder = try HLSLadder(output: output, settings: settings, video: video, audio: audioSettings,
                                   streams: streams.map(\.streams), codecs: codecs,
                                   startOffsetMicroseconds: streams[0].startOffsetMicroseconds, live: live,
                                   giveUpSeconds: giveUpSeconds, joinsMidStream: joinsMidStream, stateChanged: stateChanged,
                                   retirement: retirement, interrupt: interrupt, hold: hold)
        destinationsLock.withLock { destinations.append((output, .ladder(ladder))) }
        // Every rendition's next keyframe on one frame: the variants start together.
        if let mainVideoFormat { keyframes.request(mainVideoFormat) }
    }

    private func makeRTPPublisher(_ output: ResolvedOutput, settings: RTPOutputSettings) throws -> RTPPublisher {
        var videoSource: RTPPublisher.VideoSource?
        if settings.video != nil, videoSettings != nil {
            let format = settings.videoEncodeFormat
            let encoder = try videoEncoder(format)
            let extradata = encoder.context.pointee.extradata.map {
                UnsafeRawBufferPointer(start: $0, count: Int(encoder.context.pointee.extradata_size))
            }
            let parameterSets = format == .vp8 ? [] : extradata.map { H264Packetizer.parameterSets(annexB: $0) } ?? []
            videoSource = RTPPublisher.VideoSource(format: format, timeBase: encoder.timeBase, parameterSets: parameterSets)
        }
        let opus = try audioEncoder(.opus).encoder
        let cname = "tessera-" + String(settings.video?.ssrc ?? settings.audio.ssrc, radix: 16)
        let sdp = settings.sessionDescription(sessionName: "Tessera", cname: cname, video: videoSettings, audio: audioSettings)
        let keyframes = self.keyframes
        let format = videoSource?.format
        return RTPPublisher(output: output, settings: settings, video: videoSource, audioTimeBase: opus.timeBase,
                            sessionDescription: sdp, cname: cname, stateChanged: stateChanged,
                            requestKeyframe: { if let format { keyframes.request(format) } })
    }

    private static func isRaw(_ output: ResolvedOutput) -> Bool {
        if case .file(_, .y4m) = output.kind { return true }
        return false
    }

    /// Live: makes the outputs exactly `outputs`, matched by URL and settings. Those that stay are
    /// untouched (no reconnect); new ones start at a keyframe forced on the next frame; removed
    /// ones close, and so do encodes no output takes any more. A removed publisher is finished on
    /// a thread of its own (its queue written, then its trailer, cancelled after 2 s): its peer
    /// may have stopped reading, and this is the thread every other output's frames come from.
    public func setOutputs(_ outputs: [ResolvedOutput]) throws {
        var kept: [(output: ResolvedOutput, destination: Destination)] = []
        for entry in destinations {
            if let wanted = outputs.first(where: { $0.isSameDestination(as: entry.output) }) {
                if wanted.paused != entry.output.paused {
                    switch entry.destination {
                    case .publisher(let publisher): publisher.setPaused(wanted.paused)
                    case .ladder(let ladder): ladder.setPaused(wanted.paused)
                    default: break
                    }
                    // Resumed: the recording goes on at a keyframe, now rather than at the GOP's end.
                    if !wanted.paused, let format = videoFormat(forRendition: wanted.rendition) { keyframes.request(format) }
                }
                kept.append((wanted, entry.destination))
                continue
            }
            switch entry.destination {
            case .publisher(let publisher):
                retirement.retire("tessera-output-removed") { publisher.finish(timeoutSeconds: 2) }
            case .rtp(let publisher):
                retirement.retire("tessera-output-removed") { publisher.finish() }
            case .ladder(let ladder): try? ladder.finish(timeoutSeconds: 2, retirement: retirement)
            case .muxer(let muxer): try? muxer.finish()
            case .raw(let writer): try? writer.finish()
            }
        }
        destinationsLock.withLock { destinations = kept }
        let present = kept.map(\.output)
        for output in outputs where !present.contains(where: { $0.isSameDestination(as: output) }) {
            try open(output, joinsMidStream: true)
        }
        closeUnusedEncoders()
    }

    /// Each output's URL (as given) and live state; offline outputs report `live`.
    public var outputStates: [(output: ResolvedOutput, snapshot: Publisher.Snapshot)] {
        destinationsLock.withLock { destinations }.map { entry in
            switch entry.destination {
            case .publisher(let publisher): return (entry.output, publisher.snapshot)
            case .rtp(let publisher): return (entry.output, publisher.snapshot)
            case .ladder(let ladder): return (entry.output, ladder.snapshot)
            case .muxer, .raw:
                // Written in step with the encoder: live until `finish`, then as their trailers went.
                let ended = destinationsLock.withLock { endedOutputs?[entry.output.url] }
                let state: Publisher.State = ended == nil ? .live : ended! == nil ? .finished : .failed
                return (entry.output, Publisher.Snapshot(state: state, bytes: 0, reconnects: 0, droppedPackets: 0,
                                                         lastError: ended ?? nil))
            }
        }
    }

    /// Why the task should end when every output has given up (each named with its last error),
    /// nil while one still runs. Read by the pipeline's thread, a few times a second.
    public var allOutputsFailedReason: String? {
        OutputFault.allOutputsFailedReason(outputStates.map { ($0.output.url, $0.snapshot.state, $0.snapshot.lastError) })
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
        case .hls(let hls): return hls.segmentFormat == .fmp4 ? "mp4" : "mpegts"
        case .rtp: return nil
        }
    }

    // MARK: Encoding

    /// Encodes the composite picture for frame `index` (time `index / fps`) once per format and
    /// writes it everywhere, with `sei` in the access unit of the main encode and of every
    /// rendition. Each rendition scales the composite to its size and takes every `frameStep`-th
    /// frame (its pts in its own 1/fps); one that skips this frame carries `sei` on its next.
    public func writeVideo(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage] = []) throws {
        for case (_, .raw(let writer)) in destinations { try writer.write(picture) }
        if !sei.isEmpty { scheduleSEI(sei, frameIndex: frameIndex) }
        let onLadderFrame = frameIndex % ladderFrameStep == 0
        for (format, encoder) in videoEncoders {
            let inLadder = keyframes.isLadder(format)
            if inLadder, !startedLadder.contains(format) {
                guard onLadderFrame else { continue }
                startedLadder.insert(format)
            }
            var frame = picture
            var pts = frameIndex
            if case .rendition(let index) = format, let scaler = scalers[index], let videoSettings {
                let step = Int64(videoSettings.ladder[index].frameStep)
                guard frameIndex % step == 0 else { continue }
                frame = try scaler.scale(picture)
                pts = frameIndex / step
            }
            // A ladder keyframe waits for a frame every rendition encodes, then lands on all.
            let forced = (!inLadder || onLadderFrame) && keyframes.take(format)
            try encoder.encode(picture: frame, pts: pts, forceKeyframe: forced) { packet in
                try distributeVideo(packet, format: format)
            }
        }
    }

    /// Schedules `sei` on the picture each H.264 encode of the composite makes from frame
    /// `frameIndex` or, for a rendition at a lower rate that skips it, on its next one.
    private func scheduleSEI(_ sei: [SEIMessage], frameIndex: Int64) {
        for format in videoEncoders.keys {
            let step: Int64
            switch format {
            case .rendition(let index):
                guard let videoSettings else { continue }
                step = Int64(videoSettings.ladder[index].frameStep)
            case _ where format == mainVideoFormat:
                step = 1
            default:
                // RTP outputs' own encodes (constrained baseline, VP8) carry no SEI.
                continue
            }
            let writer = seiWriters[format] ?? SEIPacketWriter()
            seiWriters[format] = writer
            writer.schedule(sei, frameIndex: (frameIndex + step - 1) / step)
        }
    }

    /// Takes `count` mixed samples per channel starting at output sample `position`; each audio
    /// encode cuts them into its own frames.
    public func writeAudio(_ planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64) throws {
        for (format, stage) in audioEncoders {
            try stage.encode(planes, count: count, position: position) { packet in
                try distributeAudio(packet, format: format)
            }
        }
    }

    /// Drains the encoders and finishes every container (trailers written, files closed). Live
    /// publishers finish side by side, so one stuck peer costs its own timeout once, not one per
    /// output; outputs removed earlier and still finishing are waited for too.
    public func finish() throws {
        for (format, encoder) in videoEncoders {
            try encoder.flush { packet in try distributeVideo(packet, format: format) }
        }
        for (format, stage) in audioEncoders {
            try stage.encoder.flush { packet in try distributeAudio(packet, format: format) }
        }
        let seconds = Self.finishSeconds
        for (_, destination) in destinations {
            switch destination {
            case .publisher(let publisher):
                retirement.retire("tessera-output-finish") { publisher.finish(timeoutSeconds: seconds) }
            case .rtp(let publisher):
                retirement.retire("tessera-output-finish") { publisher.finish() }
            case .muxer, .raw, .ladder: break
            }
        }
        var ended: [String: String?] = [:]
        defer { destinationsLock.withLock { endedOutputs = ended } }
        for (output, destination) in destinations {
            do {
                switch destination {
                case .muxer(let muxer): try muxer.finish()
                case .raw(let writer): try writer.finish()
                case .ladder(let ladder): try ladder.finish(timeoutSeconds: seconds, retirement: retirement)
                case .publisher, .rtp: break
                }
                ended[output.url] = .some(nil)
            } catch {
                ended[output.url] = .some("\(error)")
                throw Self.failure(of: output, error)
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
        for (_, destination) in destinations {
            switch destination {
            case .publisher(let publisher): publisher.cancel()
            case .rtp(let publisher): publisher.cancel()
            case .ladder(let ladder): ladder.cancel()
            case .muxer, .raw: break
            }
        }
        destinationsLock.withLock { destinations.removeAll() }
        for path in files { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Bytes the encoders have produced so far, every encode counted (for the task's bitrate).
    public private(set) var encodedBytes: Int64 = 0

    private func distributeVideo(_ packet: Packet, format: VideoEncodeFormat) throws {
        encodedBytes += Int64(packet.pointer.pointee.size)
        let packet = try seiWriters[format]?.apply(to: packet) ?? packet
        let rendition = renditionNumber(of: format)
        for (output, destination) in destinations {
            switch destination {
            case .rtp(let publisher) where publisher.videoFormat == format:
                publisher.send(packet, isVideo: true)
            case .publisher(let publisher) where rendition == output.rendition:
                publisher.send(packet, streamIndex: 0)
            case .muxer(let muxer) where rendition == output.rendition:
                try write(packet, streamIndex: 0, to: muxer, output: output)
            case .ladder(let ladder):
                guard let rendition else { continue }
                do { try ladder.sendVideo(packet, rendition: rendition) } catch { throw Self.failure(of: output, error) }
            default: break
            }
        }
    }

    private func distributeAudio(_ packet: Packet, format: AudioEncodeFormat) throws {
        encodedBytes += Int64(packet.pointer.pointee.size)
        let streamIndex = videoSettings == nil ? 0 : 1
        for (output, destination) in destinations {
            switch destination {
            case .rtp(let publisher) where format == .opus:
                publisher.send(packet, isVideo: false)
            case .publisher(let publisher) where format == .aac:
                publisher.send(packet, streamIndex: streamIndex)
            case .muxer(let muxer) where format == .aac:
                try write(packet, streamIndex: streamIndex, to: muxer, output: output)
            case .ladder(let ladder) where format == .aac:
                do { try ladder.sendAudio(packet) } catch { throw Self.failure(of: output, error) }
            default: break
            }
        }
    }

    private func write(_ packet: Packet, streamIndex: Int, to muxer: Muxer, output: ResolvedOutput) throws {
        do {
            try muxer.write(packet, streamIndex: streamIndex)
        } catch {
            throw Self.failure(of: output, error)
        }
    }

    private static func failure(of output: ResolvedOutput, _ error: Error) -> MediaError {
        MediaError("output \(URLRedaction.redact(output.url)): \(error)")
    }
}
