import CFFmpeg

/// What a muxer needs to create one stream: a private copy of the encoder's codec parameters
/// (extradata included), its time base and frame rate.
///
/// Threads: immutable after creation, so output threads may read it while the encoder runs on
/// the pipeline's thread; hence `@unchecked Sendable`.
public final class StreamDescription: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    let timeBase: AVRational
    let frameRate: AVRational
    public let isVideo: Bool

    init(encoder: Encoder) throws {
        guard let parameters = avcodec_parameters_alloc() else { throw MediaError("out of memory") }
        self.parameters = parameters
        timeBase = encoder.timeBase
        frameRate = encoder.context.pointee.framerate
        isVideo = encoder.mediaType == AVMEDIA_TYPE_VIDEO
        try FFmpeg.check(avcodec_parameters_from_context(parameters, encoder.context), "stream parameters")
    }

    /// From a demuxed stream (relay: packets copied without re-encoding).
    init(stream: UnsafeMutablePointer<AVStream>) throws {
        guard let parameters = avcodec_parameters_alloc() else { throw MediaError("out of memory") }
        self.parameters = parameters
        timeBase = stream.pointee.time_base
        frameRate = stream.pointee.avg_frame_rate
        isVideo = stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        try FFmpeg.check(avcodec_parameters_copy(parameters, stream.pointee.codecpar), "stream parameters")
        parameters.pointee.codec_tag = 0
    }

    deinit {
        var toFree: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&toFree)
    }

    public var codecName: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }

    /// Creates one stream of `context` per description, in order (stream N is description N):
    /// its codec parameters, time base and, for video, frame rate. What every muxer starts with.
    static func addStreams(_ streams: [StreamDescription], to context: UnsafeMutablePointer<AVFormatContext>) throws {
        for description in streams {
            guard let stream = avformat_new_stream(context, nil) else { throw MediaError("out of memory") }
            try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, description.parameters), "stream parameters")
            stream.pointee.time_base = description.timeBase
            if description.isVideo, description.frameRate.num > 0 {
                stream.pointee.avg_frame_rate = description.frameRate
                stream.pointee.r_frame_rate = description.frameRate
            }
        }
    }
}
