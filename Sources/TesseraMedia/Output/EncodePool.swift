import CFFmpeg
import Synchronization
import TesseraComposition
import TesseraRTP
import TesseraTask

/// The task's encoders: one per format some output takes (`EncodePlan`), opened by the first
/// output that takes it and closed when the last one goes. Each frame of the composite is encoded
/// once per format, a rendition's scaled to its size first (`CompositeScaler`), at the cadence
/// and with the keyframes `EncodeCadence` decides, the task's SEI put into every H.264 encode of
/// the composite; each mix chunk once per audio format.
///
/// Threads: the pipeline's thread, except `names` (the status thread) and the keyframe wishes
/// (`KeyframeRequests`, from an RTP output's RTCP thread).
final class EncodePool {
    /// The streams a rendition's containers declare (video first, when there is video), and the
    /// AAC priming: the encoder's first packet starts `initial_padding` samples before zero. Left
    /// negative, each muxer shifts streams its own way (fragmented MP4 stretches the first video
    /// frame), so every output moves all streams by that much: picture and sound keep their
    /// alignment and no timestamp is negative.
    struct MainStreams {
        let streams: [StreamDescription]
        let startOffsetMicroseconds: Int64
    }

    let plan: EncodePlan
    let keyframes: KeyframeRequests
    private var cadence: EncodeCadence
    private let audioSettings: AudioSettings
    /// Codec headers out of band (in extradata) for every encode: live outputs may be added later,
    /// RTMP (FLV) among them. RTP puts H.264's parameter sets back in front of each keyframe.
    private let globalHeader: Bool
    private let realtime: Bool
    private var video: [VideoEncodeFormat: Encoder] = [:]
    private var audio: [AudioEncodeFormat: AudioEncode] = [:]
    /// Renditions' scalers from the composite, by rendition number (1…).
    private var scalers: [Int: CompositeScaler] = [:]
    /// The task's SEI for each H.264 encode of the composite (an HLS ladder's variants and a
    /// rendition's recording carry what the main stream does).
    private var seiWriters: [VideoEncodeFormat: SEIPacketWriter] = [:]
    private var mainStreams: [Int: MainStreams] = [:]
    private let encodeNames = Mutex<[String]>([])
    /// Bytes the encoders have produced so far, every encode counted (for the task's bitrate).
    private(set) var encodedBytes: Int64 = 0

    init(plan: EncodePlan, audio audioSettings: AudioSettings, globalHeader: Bool, realtime: Bool) {
        self.plan = plan
        cadence = EncodeCadence(plan: plan)
        keyframes = KeyframeRequests(ladder: cadence.ladder)
        self.audioSettings = audioSettings
        self.globalHeader = globalHeader
        self.realtime = realtime
    }

    /// The encodes running now, by name (`EncodePlan.names`).
    var names: [String] { encodeNames.withLock { $0 } }

    // MARK: Opening and closing

    func videoEncoder(_ format: VideoEncodeFormat) throws -> Encoder {
        if let encoder = video[format] { return encoder }
        guard let settings = plan.video else { throw MediaError("this task has no video (encoder.video)") }
        let encoder: Encoder
        switch format {
        case .h264(let profile):
            encoder = try Encoder.video(settings, globalHeader: globalHeader, realtime: realtime, profile: profile)
        case .vp8:
            encoder = try Encoder.vp8(settings)
        case .rendition(let index):
            let rendition = settings.encoderSettings(forRendition: index)
            scalers[index] = try CompositeScaler(from: PixelSize(width: settings.width, height: settings.height),
                                                 to: PixelSize(width: rendition.width, height: rendition.height))
            encoder = try Encoder.video(rendition, globalHeader: globalHeader, realtime: realtime)
        }
        video[format] = encoder
        publishNames()
        return encoder
    }

    func audioEncoder(_ format: AudioEncodeFormat) throws -> AudioEncode {
        if let stage = audio[format] { return stage }
        let encoder = format == .aac ? try Encoder.audio(audioSettings, globalHeader: globalHeader) : try Encoder.opus(audioSettings)
        let stage = AudioEncode(encoder, channels: audioSettings.channels)
        audio[format] = stage
        publishNames()
        return stage
    }

    /// Rendition `index`'s H.264 and the AAC, opened by the first output that takes them.
    func mainStreams(rendition index: Int = 0) throws -> MainStreams {
        if let made = mainStreams[index] { return made }
        let video = try plan.videoFormat(forRendition: index).map { try videoEncoder($0) }
        let audio = try audioEncoder(.aac).encoder
        let offset = Int64(audio.context.pointee.initial_padding) * 1_000_000 / Int64(audioSettings.sampleRate)
        let made = MainStreams(streams: try [video, audio].compactMap { $0 }.map(StreamDescription.init(encoder:)),
                               startOffsetMicroseconds: offset)
        mainStreams[index] = made
        return made
    }

    /// The H.264 parameter sets in an open encode's extradata; nil before it is open or without extradata.
    func parameterSets(of format: VideoEncodeFormat) -> [[UInt8]]? {
        guard let encoder = video[format], let extradata = encoder.context.pointee.extradata else { return nil }
        return H264Packetizer.parameterSets(annexB: UnsafeRawBufferPointer(start: extradata, count: Int(encoder.context.pointee.extradata_size)))
    }

    /// Closes every encode but `video` and `audio` (an RTP output removed, say).
    func keep(video keptVideo: Set<VideoEncodeFormat>, audio keptAudio: Set<AudioEncodeFormat>) {
        video = video.filter { keptVideo.contains($0.key) }
        audio = audio.filter { keptAudio.contains($0.key) }
        cadence.keep(only: keptVideo)
        scalers = scalers.filter { keptVideo.contains(.rendition($0.key)) }
        mainStreams = mainStreams.filter { plan.streamsStayOpen(rendition: $0.key, video: keptVideo, audio: keptAudio) }
        publishNames()
    }

    private func publishNames() {
        let names = plan.names(video: video.keys, audio: audio.keys)
        encodeNames.withLock { $0 = names }
    }

    // MARK: Encoding

    /// Encodes the composite picture for frame `index` (time `index / fps`) once per format, with
    /// `sei` in the access unit each H.264 encode of the composite makes of it (a rendition that
    /// skips the frame carries it on its next), and hands every packet to `emit`.
    func encode(_ picture: YUVImage, frameIndex: Int64, sei: [SEIMessage],
                emit: (Packet, VideoEncodeFormat) throws -> Void) throws {
        if !sei.isEmpty { scheduleSEI(sei, frameIndex: frameIndex) }
        for (format, encoder) in video {
            guard case .encode(let pts, let keyframeAllowed) = cadence.frame(frameIndex, of: format) else { continue }
            var frame = picture
            if case .rendition(let index) = format, let scaler = scalers[index] { frame = try scaler.scale(picture) }
            let forced = keyframeAllowed && keyframes.take(format)
            try encoder.encode(picture: frame, pts: pts, forceKeyframe: forced) { packet in
                try pass(packet, of: format, to: emit)
            }
        }
    }

    private func scheduleSEI(_ sei: [SEIMessage], frameIndex: Int64) {
        for format in video.keys {
            guard let frame = cadence.seiFrame(forComposite: frameIndex, of: format) else { continue }
            let writer = seiWriters[format] ?? SEIPacketWriter()
            seiWriters[format] = writer
            writer.schedule(sei, frameIndex: frame)
        }
    }

    /// Takes `count` mixed samples per channel starting at output sample `position`; each audio
    /// encode cuts them into its own frames.
    func encode(audio planes: [UnsafeMutablePointer<Float>], count: Int, position: Int64,
                emit: (Packet, AudioEncodeFormat) throws -> Void) throws {
        for (format, stage) in audio {
            try stage.encode(planes, count: count, position: position) { packet in
                encodedBytes += Int64(packet.pointer.pointee.size)
                try emit(packet, format)
            }
        }
    }

    /// Drains every encoder (the task's end).
    func flush(video emitVideo: (Packet, VideoEncodeFormat) throws -> Void,
               audio emitAudio: (Packet, AudioEncodeFormat) throws -> Void) throws {
        for (format, encoder) in video {
            try encoder.flush { packet in try pass(packet, of: format, to: emitVideo) }
        }
        for (format, stage) in audio {
            try stage.encoder.flush { packet in
                encodedBytes += Int64(packet.pointer.pointee.size)
                try emitAudio(packet, format)
            }
        }
    }

    /// Counts a video packet and hands it on, with its frame's SEI.
    private func pass(_ packet: Packet, of format: VideoEncodeFormat, to emit: (Packet, VideoEncodeFormat) throws -> Void) throws {
        encodedBytes += Int64(packet.pointer.pointee.size)
        try emit(seiWriters[format]?.apply(to: packet) ?? packet, format)
    }
}
