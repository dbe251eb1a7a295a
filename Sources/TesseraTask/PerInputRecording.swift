import TesseraRTP

/// An output whose URL holds `{input}`: one recording per input of the task, each holding that
/// input's own video and audio as received (remuxed, never re-encoded), stamped on the task clock.
public struct PerInputRecording: Codable, Sendable, Equatable {
    /// What an output URL holds to be recorded once per input.
    public static let placeholder = "{input}"

    /// Absolute path with `{input}` in its file name (for `s3://` outputs: the spool path, uploaded
    /// to `ResolvedOutput.upload`, whose key holds `{input}` at the same place).
    public var template: String
    public var container: RecordingContainer

    public init(template: String, container: RecordingContainer) {
        self.template = template; self.container = container
    }

    /// The first file of input `id` (a rejoin's later files follow `RecordingFileNames`).
    public func path(forInput id: String) -> String { Self.fill(template, input: id) }

    /// `text` with `{input}` replaced by `id` (an output URL, an object key, a spool path).
    public static func fill(_ text: String, input id: String) -> String {
        text.replacingOccurrences(of: placeholder, with: id)
    }

    /// Whether an output URL asks for per-input recordings.
    public static func isTemplate(_ url: String) -> Bool { url.contains(placeholder) }
}

/// The containers a per-input recording can be: each takes what it can hold without re-encoding
/// (checked with FFmpeg 5.1's muxers: Matroska takes every RTP codec Tessera receives, WebM only
/// VP8 / VP9 / Opus, MP4 H.264 / VP9 / Opus / AAC).
public enum RecordingContainer: String, Codable, Sendable, Equatable, CaseIterable {
    case mkv, webm, mp4

    /// The container a file extension names, case-insensitively.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "mkv": self = .mkv
        case "webm": self = .webm
        case "mp4": self = .mp4
        default: return nil
        }
    }

    /// The libavformat muxer.
    public var muxerName: String {
        switch self {
        case .mkv: return "matroska"
        case .webm: return "webm"
        case .mp4: return "mp4"
        }
    }

    /// Whether the container holds `codec` as received.
    public func accepts(_ codec: RTPCodec) -> Bool {
        switch (self, codec) {
        case (.mkv, _): return true
        case (.webm, .vp8), (.webm, .vp9), (.webm, .opus): return true
        case (.webm, _): return false
        case (.mp4, .h264), (.mp4, .vp9), (.mp4, .opus), (.mp4, .aac): return true
        case (.mp4, _): return false
        }
    }

    /// Whether the container holds a stream FFmpeg names `codecName` (`h264`, `vp8`, `opus`,
    /// `pcm_mulaw`, …), for file and pull inputs checked when they are opened. Names outside the
    /// RTP set: Matroska takes them (FFmpeg refuses at the header what it cannot), the others not.
    public func accepts(codecName: String) -> Bool {
        let rtp: RTPCodec?
        switch codecName.lowercased() {
        case "h264": rtp = .h264
        case "vp8": rtp = .vp8
        case "vp9": rtp = .vp9
        case "opus": rtp = .opus
        case "aac": rtp = .aac
        case "pcm_mulaw": rtp = .pcmu
        case "pcm_alaw": rtp = .pcma
        default: rtp = nil
        }
        guard let rtp else { return self == .mkv }
        return accepts(rtp)
    }

    /// What it takes, for messages.
    public var acceptedCodecs: String {
        switch self {
        case .mkv: return "H.264, VP8, VP9, Opus, AAC, PCMU and PCMA"
        case .webm: return "VP8, VP9 and Opus"
        case .mp4: return "H.264, VP9, Opus and AAC"
        }
    }
}

extension RTPCodec {
    /// The name people know the codec by, for messages.
    public var displayName: String {
        switch self {
        case .h264: return "H.264"
        case .vp8: return "VP8"
        case .vp9: return "VP9"
        case .opus: return "Opus"
        case .aac: return "AAC"
        case .pcmu: return "PCMU"
        case .pcma: return "PCMA"
        }
    }
}
