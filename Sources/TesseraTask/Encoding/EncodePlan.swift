/// Which encodes a task's outputs need, which rendition each one makes and what it is called.
///
/// Each format is encoded once, for as long as some output takes it: RTMP, SRT, files and HLS
/// take their rendition's H.264 (0 the task's own size and profile) and the AAC; an HLS output of
/// a task with renditions takes every rendition; an RTP output takes its own video encode and
/// Opus. A task whose profile is baseline feeds RTMP and the room from one x264.
///
/// Pure: the output set asks it which encoders to keep open and where their packets go.
public struct EncodePlan: Sendable, Equatable {
    /// What an output takes from the encodes.
    public enum Sink: Sendable, Equatable {
        /// RTMP, SRT, a file or a single-rendition HLS output: rendition `rendition`'s H.264 (when
        /// the task has video) and the AAC in one container.
        case container(rendition: Int)
        /// An HLS output of a task with renditions: every rendition's H.264, a variant each, and the AAC.
        case ladder
        /// An RTP output: its own video encode, if it sends video, and Opus.
        case rtp(video: VideoEncodeFormat?)
        /// A raw `.y4m` file: the composite's pictures, no encode.
        case raw
    }

    public let video: VideoSettings?

    public init(video: VideoSettings?) { self.video = video }

    /// The task's own H.264 (rendition 0); nil for a task without video.
    public var mainVideoFormat: VideoEncodeFormat? { video.map { .h264($0.profile) } }

    /// Whether HLS outputs are published as a ladder of variants.
    public var hasRenditions: Bool { !(video?.renditions.isEmpty ?? true) }

    /// The encode rendition `index` is made by: the main H.264 for 0.
    public func videoFormat(forRendition index: Int) -> VideoEncodeFormat? {
        index == 0 ? mainVideoFormat : .rendition(index)
    }

    /// The rendition an encode makes (0 the main H.264); nil for RTP's own encodes.
    public func rendition(of format: VideoEncodeFormat) -> Int? {
        if case .rendition(let index) = format { return index }
        return format == mainVideoFormat ? 0 : nil
    }

    /// The encodes `sinks` take between them; the rest may close.
    public func encodes(for sinks: [Sink]) -> (video: Set<VideoEncodeFormat>, audio: Set<AudioEncodeFormat>) {
        var video = Set<VideoEncodeFormat>()
        var audio = Set<AudioEncodeFormat>()
        for sink in sinks {
            switch sink {
            case .container(let rendition):
                if let format = videoFormat(forRendition: rendition) { video.insert(format) }
                audio.insert(.aac)
            case .ladder:
                for index in (self.video?.ladder ?? []).indices {
                    if let format = videoFormat(forRendition: index) { video.insert(format) }
                }
                audio.insert(.aac)
            case .rtp(let format):
                if let format { video.insert(format) }
                audio.insert(.opus)
            case .raw: break
            }
        }
        return (video, audio)
    }

    /// Whether the streams rendition `index`'s containers declare (its H.264 and the AAC) are still
    /// those of open encodes.
    public func streamsStayOpen(rendition index: Int, video: Set<VideoEncodeFormat>, audio: Set<AudioEncodeFormat>) -> Bool {
        audio.contains(.aac) && (videoFormat(forRendition: index).map(video.contains) ?? true)
    }

    /// The encodes by name, video first (`h264-high`, `h264-baseline`, `vp8`; rendition N as
    /// `h264-high-rN-640x360`), then `aac` and `opus`, each group sorted.
    public func names(video: some Sequence<VideoEncodeFormat>, audio: some Sequence<AudioEncodeFormat>) -> [String] {
        video.map(name(of:)).sorted() + audio.map { $0 == .aac ? "aac" : "opus" }.sorted()
    }

    public func name(of format: VideoEncodeFormat) -> String {
        switch format {
        case .h264(let profile): return "h264-\(profile.rawValue)"
        case .vp8: return "vp8"
        case .rendition(let index):
            let rendition = video.flatMap { $0.ladder.indices.contains(index) ? $0.ladder[index] : nil }
            return "h264-\(video?.profile.rawValue ?? "high")-r\(index)-\(rendition?.width ?? 0)x\(rendition?.height ?? 0)"
        }
    }
}
