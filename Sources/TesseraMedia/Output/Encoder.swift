import CFFmpeg
import Foundation
import TesseraComposition
import TesseraTask

/// One opened encoder: libx264 or libvpx (VP8) for video, FFmpeg's AAC or libopus for audio. A task
/// encodes once per format and every output of that format copies these packets.
final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    private let frame = Frame()
    private let packet = Packet()

    var timeBase: AVRational { context.pointee.time_base }
    var mediaType: AVMediaType { context.pointee.codec_type }
    /// Samples per audio frame the encoder takes (1024 for AAC).
    var frameSize: Int { Int(context.pointee.frame_size) }

    private init(codecName: String, configure: (UnsafeMutablePointer<AVCodecContext>) -> [String: String]) throws {
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw MediaError("this FFmpeg has no \(codecName) encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError("out of memory") }
        self.context = context
        let options = OptionDictionary(configure(context))
        try FFmpeg.check(avcodec_open2(context, codec, &options.pointer), "cannot open the \(codecName) encoder")
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&toFree)
    }

    /// H.264 by libx264: constant frame rate (time base 1/fps), fixed GOP (no scene-cut keyframes,
    /// so CDN segmenters see a steady cadence), VBV capped at the bitrate for steady CDN ingest,
    /// tagged BT.709 limited range like the pictures the compositor makes.
    ///
    /// Threads: as the task says, else sized from the work for a live task (`EncoderThreads`), and
    /// x264's own choice offline, where the task should finish as soon as the machine allows.
    /// `profile` and `level` (`H264Level`, e.g. 31) as an RTP output's SDP says them; the
    /// task's own profile otherwise.
    static func video(_ settings: VideoSettings, globalHeader: Bool, realtime: Bool, profile: H264Profile? = nil,
                      level: Int? = nil) throws -> Encoder {
        try Encoder(codecName: "libx264") { context in
            context.pointee.width = Int32(settings.width)
            context.pointee.height = Int32(settings.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
            context.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
            context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            context.pointee.bit_rate = Int64(settings.bitrateKbps) * 1000
            context.pointee.rc_max_rate = Int64(settings.bitrateKbps) * 1000
            context.pointee.rc_buffer_size = Int32(settings.bitrateKbps * 1000 * 2)
            context.pointee.gop_size = Int32(settings.gopFrames)
            context.pointee.keyint_min = Int32(settings.gopFrames)
            context.pointee.colorspace = AVCOL_SPC_BT709
            context.pointee.color_primaries = AVCOL_PRI_BT709
            context.pointee.color_trc = AVCOL_TRC_BT709
            context.pointee.color_range = AVCOL_RANGE_MPEG
            let cores = ProcessInfo.processInfo.activeProcessorCount
            context.pointee.thread_count = Int32(realtime ? settings.encoderThreads(cores: cores) : settings.threads ?? 0)
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            var options = ["preset": settings.preset, "x264-params": "scenecut=0:bframes=0"]
            // No look-ahead and sliced instead of frame threads (when there are several): each
            // frame's packet comes out of the same `encode` call that took the frame.
            if settings.latency == .low { options["tune"] = "zerolatency" }
            options["profile"] = (profile ?? settings.profile).rawValue
            if let level { context.pointee.level = Int32(level) }
            return options
        }
    }

    /// VP8 by libvpx, tuned for real time as WebRTC senders run it: no lag, error resilient
    /// (a receiver that lost a packet can go on decoding the partitions it has), the task's
    /// bitrate and GOP, keyframes on request.
    static func vp8(_ settings: VideoSettings) throws -> Encoder {
        try Encoder(codecName: "libvpx") { context in
            context.pointee.width = Int32(settings.width)
            context.pointee.height = Int32(settings.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
            context.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
            context.pointee.bit_rate = Int64(settings.bitrateKbps) * 1000
            context.pointee.rc_min_rate = 0
            context.pointee.rc_max_rate = Int64(settings.bitrateKbps) * 1000
            context.pointee.rc_buffer_size = Int32(settings.bitrateKbps * 1000)
            context.pointee.gop_size = Int32(settings.gopFrames)
            context.pointee.keyint_min = Int32(settings.gopFrames)
            context.pointee.qmin = 4
            context.pointee.qmax = 56
            context.pointee.color_range = AVCOL_RANGE_MPEG
            let cores = ProcessInfo.processInfo.activeProcessorCount
            context.pointee.thread_count = Int32(settings.encoderThreads(cores: cores))
            return ["deadline": "realtime", "cpu-used": "8", "lag-in-frames": "0", "error-resilient": "1",
                    "static-thresh": "0", "max-intra-rate": "300", "undershoot-pct": "95"]
        }
    }

    /// Opus by libopus at the task's rate and channels (interleaved float in, 20 ms frames):
    /// full-band music and voice alike, in-band FEC for a lossy path into the room.
    static func opus(_ settings: AudioSettings) throws -> Encoder {
        try Encoder(codecName: "libopus") { context in
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLT
            context.pointee.sample_rate = Int32(settings.sampleRate)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.channels))
            context.pointee.bit_rate = Int64(min(settings.bitrateKbps, 256)) * 1000
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
            return ["application": "audio", "frame_duration": "20", "fec": "1", "packet_loss": "5", "vbr": "on"]
        }
    }

    /// AAC-LC, planar float in, at the task's rate and channel count.
    static func audio(_ settings: AudioSettings, globalHeader: Bool) throws -> Encoder {
        try Encoder(codecName: "aac") { context in
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            context.pointee.sample_rate = Int32(settings.sampleRate)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.channels))
            context.pointee.bit_rate = Int64(settings.bitrateKbps) * 1000
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            return [:]
        }
    }

    /// Encodes one composite picture at `pts` (in 1/fps). The encoder is given a reference to the
    /// picture, not a copy: the picture stays alive (retained) until the encoder lets it go, which
    /// the caller sees as `isKnownUniquelyReferenced` turning true again (see `CanvasRing`).
    func encode(picture: YUVImage, pts: Int64, forceKeyframe: Bool = false, emit: (Packet) throws -> Void) throws {
        let target = frame.pointer
        av_frame_unref(target)
        target.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        target.pointee.width = Int32(picture.width)
        target.pointee.height = Int32(picture.height)
        guard let buffer = Self.referenceBuffer(for: picture) else { throw MediaError("out of memory for a frame reference") }
        tessera_frame_set_buffer(target, buffer)
        tessera_frame_set_plane(target, 0, picture.y, Int32(picture.lumaStride))
        tessera_frame_set_plane(target, 1, picture.u, Int32(picture.chromaStride))
        tessera_frame_set_plane(target, 2, picture.v, Int32(picture.chromaStride))
        target.pointee.pts = pts
        // A new output joined: give it a keyframe now instead of at the end of the GOP.
        target.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        target.pointee.colorspace = AVCOL_SPC_BT709
        target.pointee.color_range = AVCOL_RANGE_MPEG
        target.pointee.color_primaries = AVCOL_PRI_BT709
        target.pointee.color_trc = AVCOL_TRC_BT709
        defer { av_frame_unref(target) }
        try send(target, emit: emit)
    }

    /// An `AVBufferRef` over the picture's planes that keeps the picture retained until FFmpeg
    /// frees the last reference.
    private static func referenceBuffer(for picture: YUVImage) -> UnsafeMutablePointer<AVBufferRef>? {
        let start = UnsafeMutableRawPointer(picture.y)
        let end = UnsafeMutableRawPointer(picture.v + picture.chromaStride * picture.chromaHeight)
        let owner = Unmanaged.passRetained(picture).toOpaque()
        let buffer = av_buffer_create(picture.y, start.distance(to: end), { opaque, _ in
            guard let opaque else { return }
            Unmanaged<YUVImage>.fromOpaque(opaque).release()
        }, owner, 0)
        if buffer == nil { Unmanaged<YUVImage>.fromOpaque(owner).release() }
        return buffer
    }

    /// Encodes `count` planar float samples per channel starting at sample `pts`.
    func encode(audio planes: [UnsafeMutablePointer<Float>], count: Int, pts: Int64,
                emit: (Packet) throws -> Void) throws {
        let target = frame.pointer
        av_frame_unref(target)
        target.pointee.format = context.pointee.sample_fmt.rawValue
        target.pointee.nb_samples = Int32(count)
        target.pointee.sample_rate = context.pointee.sample_rate
        try FFmpeg.check(av_channel_layout_copy(&target.pointee.ch_layout, &context.pointee.ch_layout), "channel layout")
        try FFmpeg.check(av_frame_get_buffer(target, 0), "out of memory for audio")
        if context.pointee.sample_fmt == AV_SAMPLE_FMT_FLT {
            // libopus takes interleaved samples: L R L R …
            let destination = UnsafeMutableRawPointer(tessera_frame_extended_data_mut(target)[0]!)
                .assumingMemoryBound(to: Float.self)
            let channels = planes.count
            for (channel, plane) in planes.enumerated() {
                for index in 0..<count { destination[index * channels + channel] = plane[index] }
            }
        } else {
            for (channel, plane) in planes.enumerated() {
                let destination = UnsafeMutableRawPointer(tessera_frame_extended_data_mut(target)[channel]!)
                destination.copyMemory(from: plane, byteCount: count * MemoryLayout<Float>.size)
            }
        }
        target.pointee.pts = pts
        try send(target, emit: emit)
    }

    /// Drains the encoder at the end of the task.
    func flush(emit: (Packet) throws -> Void) throws { try send(nil, emit: emit) }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, emit: (Packet) throws -> Void) throws {
        let code = avcodec_send_frame(context, frame)
        if code < 0 && code != FFmpeg.eof { throw MediaError("encode failed", code: code) }
        while true {
            packet.unref()
            let received = avcodec_receive_packet(context, packet.pointer)
            if received == FFmpeg.again || received == FFmpeg.eof { return }
            try FFmpeg.check(received, "encode failed")
            try emit(packet)
        }
    }
}
