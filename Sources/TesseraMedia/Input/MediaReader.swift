import CFFmpeg
import TesseraComposition

/// What a `MediaReader` hands on as it reads. Called on the reader's thread.
public protocol MediaSink: AnyObject {
    /// A decoded picture, not yet scaled: the sink scales it (`DecodedPicture.scaled(to:)`) only
    /// to the sizes it will draw, and only if it will be drawn. Returns false to stop reading.
    func picture(_ picture: DecodedPicture) throws -> Bool
    /// Planar float samples at the output rate; `position` is the first sample's index on the
    /// input's own timeline (loops already added), in output samples.
    func audio(_ planes: [UnsafePointer<Float>], count: Int, position: Int64)
    /// Whether to stop reading (task cancelled).
    var shouldStop: Bool { get }
    /// Whether to pass on the SEI user data of H.264 pictures (`sei`, just before their `picture`).
    var wantsSEI: Bool { get }
    func sei(_ messages: [SEIMessage])
    /// Whether to hand on each encoded packet as received (`encoded`), for per-participant
    /// recordings; asked per packet (false by default: nothing extra is done).
    var wantsPackets: Bool { get }
    func encoded(_ packet: EncodedPacket)
}

/// Reads a `MediaSource` to its end: demux, decode, hand each picture on for scaling to its draw
/// sizes, resample audio to the output format; and for `loop`, starts again with timestamps
/// carried on.
public final class MediaReader {
    private let source: MediaSource
    private let loop: Bool
    private let scaler: VideoScaler
    private let resampler: AudioResampler?
    private let outputSampleRate: Int
    private let packet = Packet()
    private let frame = Frame()
    private let seiReader = SEIPacketReader()
    /// Added to every timestamp: the length of the passes already played (for `loop`).
    private var loopOffsetMicroseconds: Int64 = 0
    /// The furthest end of any picture or sample in this pass, relative to the input's start.
    private var passEndMicroseconds: Int64 = 0
    public private(set) var decodeErrors = 0
    /// What per-participant recordings describe this input's streams with (on first use).
    private var formats: RecordingFormats?

    public init(source: MediaSource, loop: Bool, outputSampleRate: Int, outputChannels: Int, pool: YUVImagePool? = nil) {
        self.source = source
        scaler = VideoScaler(pool: pool)
        self.loop = loop
        self.outputSampleRate = outputSampleRate
        resampler = source.audio == nil ? nil : AudioResampler(outputRate: outputSampleRate, outputChannels: outputChannels)
    }

    /// Reads until the input ends (or, looping, until `sink.shouldStop`). Throws on a read error.
    public func run(into sink: MediaSink) throws {
        while !sink.shouldStop {
            if try source.demuxer.read(into: packet) {
                let index = packet.pointer.pointee.stream_index
                if sink.wantsPackets { try hand(packet, streamIndex: index, sink: sink) }
                if index == source.demuxer.videoStreamIndex, let video = source.video {
                    if sink.wantsSEI && video.carriesH264SEI { seiReader.note(packet) }
                    if !(try decode(packet, with: video, sink: sink)) { return }
                } else if index == source.demuxer.audioStreamIndex, let audio = source.audio {
                    if !(try decode(packet, with: audio, sink: sink)) { return }
                }
                continue
            }
            // End of this pass: drain what the decoders hold.
            if let video = source.video, !(try decode(nil, with: video, sink: sink)) { return }
            if let audio = source.audio, !(try decode(nil, with: audio, sink: sink)) { return }
            if let resampler {
                let position = samples(fromMicroseconds: loopOffsetMicroseconds + passEndMicroseconds) - resampler.delay
                var at = position
                try resampler.convert(nil) { planes, count in
                    sink.audio(planes, count: count, position: at)
                    at += Int64(count)
                }
            }
            guard loop, passEndMicroseconds > 0 else { return }
            loopOffsetMicroseconds += passEndMicroseconds
            passEndMicroseconds = 0
            try source.demuxer.seekToStart()
            source.video?.flush()
            source.audio?.flush()
        }
    }

    /// The demuxed packet, before decoding, for per-participant recordings: by reference, on the
    /// input's timeline (loops added) as its decoded media is stamped.
    private func hand(_ packet: Packet, streamIndex: Int32, sink: MediaSink) throws {
        let pointer = packet.pointer
        let video = streamIndex == source.demuxer.videoStreamIndex
        let timeBase = source.demuxer.stream(streamIndex).pointee.time_base
        let pts = pointer.pointee.pts != FFmpeg.noPTS ? pointer.pointee.pts : pointer.pointee.dts
        guard pts != FFmpeg.noPTS else { return }
        let dts = pointer.pointee.dts != FFmpeg.noPTS ? pointer.pointee.dts : pts
        let origin = loopOffsetMicroseconds - source.demuxer.startTimeMicroseconds
        let formats = try recordingFormats()
        let parameters = (video ? formats.video : formats.audio)?.parameters.pointee
        sink.encoded(EncodedPacket(
            packet: packet, kind: video ? .video : .audio, formats: formats,
            ptsMicroseconds: origin + rescale(pts, from: timeBase, to: microsecondsTimeBase),
            dtsMicroseconds: origin + rescale(dts, from: timeBase, to: microsecondsTimeBase),
            durationMicroseconds: max(0, rescale(pointer.pointee.duration, from: timeBase, to: microsecondsTimeBase)),
            isKeyframe: pointer.pointee.flags & AV_PKT_FLAG_KEY != 0,
            width: video ? Int(parameters?.width ?? 0) : 0, height: video ? Int(parameters?.height ?? 0) : 0))
    }

    /// The input's streams as the demuxer describes them, copied on first use.
    private func recordingFormats() throws -> RecordingFormats {
        if let formats { return formats }
        let demuxer = source.demuxer
        let video = try demuxer.videoStreamIndex.map { try RecordingStreamFormat(copying: demuxer.stream($0).pointee.codecpar) }
        let audio = try demuxer.audioStreamIndex.map { try RecordingStreamFormat(copying: demuxer.stream($0).pointee.codecpar) }
        let made = RecordingFormats(video: video, audio: audio)
        formats = made
        return made
    }

    /// Sends a packet (nil drains) and hands on every frame it yields; false to stop.
    private func decode(_ packet: Packet?, with decoder: Decoder, sink: MediaSink) throws -> Bool {
        do {
            return try decoder.decode(packet, into: frame) { frame in try deliver(frame, from: decoder, sink: sink) }
        } catch let error as MediaError where error.code == tessera_averror_invaliddata() {
            // Corrupt data inside an otherwise readable input: skip it, as players do.
            decodeErrors += 1
        }
        return true
    }

    private func deliver(_ frame: Frame, from decoder: Decoder, sink: MediaSink) throws -> Bool {
        let pointer = frame.pointer
        var pts = pointer.pointee.best_effort_timestamp
        if pts == FFmpeg.noPTS { pts = pointer.pointee.pts }
        let relativeMicroseconds: Int64 = pts == FFmpeg.noPTS
            ? passEndMicroseconds
            : rescale(pts, from: decoder.timeBase, to: microsecondsTimeBase) - source.demuxer.startTimeMicroseconds
        if decoder === source.video {
            var duration = rescale(pointer.pointee.pkt_duration, from: decoder.timeBase, to: microsecondsTimeBase)
            let durationKnown = duration > 0
            if !durationKnown { duration = source.nominalFrameDurationMicroseconds }
            passEndMicroseconds = max(passEndMicroseconds, relativeMicroseconds + duration)
            if sink.wantsSEI { sink.sei(seiReader.take(for: pointer)) }
            return try sink.picture(DecodedPicture(frame: pointer, scaler: scaler, orientation: source.orientation,
                                                   ptsMicroseconds: loopOffsetMicroseconds + relativeMicroseconds,
                                                   durationMicroseconds: duration, durationIsKnown: durationKnown))
        }
        guard let resampler else { return true }
        trimToPacketDuration(pointer, timeBase: decoder.timeBase)
        let rate = Double(pointer.pointee.sample_rate)
        let frameDuration = rate > 0 ? Int64(Double(pointer.pointee.nb_samples) * 1_000_000 / rate) : 0
        passEndMicroseconds = max(passEndMicroseconds, relativeMicroseconds + frameDuration)
        // What comes out first was buffered inside the resampler before this frame.
        var position = samples(fromMicroseconds: loopOffsetMicroseconds + relativeMicroseconds) - resampler.delay
        try resampler.convert(pointer) { planes, count in
            sink.audio(planes, count: count, position: position)
            position += Int64(count)
        }
        return true
    }

    /// MP4 trims the encoder's padding off the last AAC frame by giving its packet a shorter
    /// duration, but the decoder still returns a whole frame: keep only the samples the container
    /// says are there, so an input ends exactly where its container does.
    private func trimToPacketDuration(_ frame: UnsafeMutablePointer<AVFrame>, timeBase: AVRational) {
        let duration = frame.pointee.pkt_duration
        let rate = Int64(frame.pointee.sample_rate)
        guard duration > 0, rate > 0, timeBase.num > 0 else { return }
        let samples = av_rescale_q(duration, timeBase, AVRational(num: 1, den: Int32(rate)))
        if samples > 0 && samples < Int64(frame.pointee.nb_samples) { frame.pointee.nb_samples = Int32(samples) }
    }

    private func samples(fromMicroseconds microseconds: Int64) -> Int64 {
        microseconds * Int64(outputSampleRate) / 1_000_000
    }

    /// Width corrected by the sample aspect ratio (anamorphic video), height as stored: the
    /// coded orientation (the sample aspect ratio belongs to the coded samples).
    static func displaySize(of frame: UnsafeMutablePointer<AVFrame>) -> PixelSize {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let aspect = frame.pointee.sample_aspect_ratio
        guard aspect.num > 0, aspect.den > 0, aspect.num != aspect.den else { return PixelSize(width: width, height: height) }
        return PixelSize(width: max(2, Int((Double(width) * Double(aspect.num) / Double(aspect.den)).rounded())), height: height)
    }
}
