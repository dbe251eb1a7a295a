import CFFmpeg
import Foundation
import TesseraComposition

/// An opened input: its container and the decoders of the streams Tessera uses. Opening happens
/// before a task starts, so an input that cannot be read fails the task up front, by name.
/// `run` then reads it to the end on the input's own thread.
public final class MediaSource {
    public struct Description: Sendable {
        public var hasVideo: Bool
        public var hasAudio: Bool
        public var videoCodec: String?
        public var audioCodec: String?
        /// Length of one pass through the input, when the container says.
        public var durationMicroseconds: Int64?

        public init(hasVideo: Bool, hasAudio: Bool, videoCodec: String? = nil, audioCodec: String? = nil,
                    durationMicroseconds: Int64? = nil) {
            self.hasVideo = hasVideo; self.hasAudio = hasAudio; self.videoCodec = videoCodec; self.audioCodec = audioCodec
            self.durationMicroseconds = durationMicroseconds
        }
    }

    let demuxer: Demuxer
    let video: Decoder?
    let audio: Decoder?
    public let description: Description
    /// How the video is shown upright (its display matrix; phone recordings are coded sideways).
    public let orientation: PictureOrientation

    /// Opens a file or a pull URL. `protocols` is FFmpeg's whitelist for it.
    public init(url: String, protocols: String, format: String? = nil, interrupt: InterruptFlag,
                options: [String: String] = [:], decoderThreads: Int = 2, readTimeoutSeconds: Double? = nil) throws {
        let demuxer = try Demuxer(url: url, protocols: protocols, format: format, options: options, interrupt: interrupt)
        demuxer.readTimeoutSeconds = readTimeoutSeconds
        let video = try demuxer.videoStreamIndex.map { try Decoder(stream: demuxer.stream($0), threads: decoderThreads) }
        let audio = try demuxer.audioStreamIndex.map { try Decoder(stream: demuxer.stream($0), threads: 1) }
        self.demuxer = demuxer
        self.video = video
        self.audio = audio
        orientation = demuxer.videoStreamIndex.map { Self.orientation(of: demuxer.stream($0)) } ?? .upright
        description = Description(hasVideo: video != nil, hasAudio: audio != nil,
                                  videoCodec: video?.codecName, audioCodec: audio?.codecName,
                                  durationMicroseconds: demuxer.durationMicroseconds)
    }

    /// The stream's display matrix side data, read as ffmpeg's autorotation reads it; none is upright.
    private static func orientation(of stream: UnsafeMutablePointer<AVStream>) -> PictureOrientation {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
              size >= 9 * MemoryLayout<Int32>.size else { return .upright }
        let matrix = UnsafeRawPointer(data).withMemoryRebound(to: Int32.self, capacity: 9) { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        return PictureOrientation(displayMatrix: matrix)
    }

    /// Frame rate the stream declares, for a picture whose duration is not stated.
    var nominalFrameDurationMicroseconds: Int64 {
        guard let index = demuxer.videoStreamIndex else { return 33_333 }
        let stream = demuxer.stream(index)
        var rate = stream.pointee.avg_frame_rate
        if rate.num <= 0 || rate.den <= 0 { rate = stream.pointee.r_frame_rate }
        if rate.num <= 0 || rate.den <= 0 { return 33_333 }
        return Int64((1_000_000 * Double(rate.den) / Double(rate.num)).rounded())
    }
}
