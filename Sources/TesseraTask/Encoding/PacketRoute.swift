/// Where one encoded packet goes in one output, decided from the encode it came from and what
/// the output takes (`EncodePlan.Sink`); nil when the output does not take it.
///
/// Pure: the output router asks it for every packet and output.
public enum PacketRoute: Sendable, Equatable {
    /// Into the output's container as stream `index` (the video first, when the task has video).
    case stream(Int)
    /// Into the ladder's variant for rendition `index` (its video).
    case variant(Int)
    /// Into every variant of the ladder (the AAC).
    case everyVariant
    /// Sent into the room as RTP.
    case rtp(isVideo: Bool)

    /// A packet of video encode `format`.
    public static func video(from format: VideoEncodeFormat, to sink: EncodePlan.Sink, plan: EncodePlan) -> PacketRoute? {
        let rendition = plan.rendition(of: format)
        switch sink {
        case .rtp(let video): return video == format ? .rtp(isVideo: true) : nil
        case .container(let wanted): return rendition == wanted ? .stream(0) : nil
        case .ladder: return rendition.map(PacketRoute.variant)
        case .raw: return nil
        }
    }

    /// A packet of audio encode `format`: AAC into containers and ladders (after the video stream
    /// when there is one), Opus into the room.
    public static func audio(from format: AudioEncodeFormat, to sink: EncodePlan.Sink, plan: EncodePlan) -> PacketRoute? {
        switch (sink, format) {
        case (.rtp, .opus): return .rtp(isVideo: false)
        case (.container, .aac): return .stream(plan.video == nil ? 0 : 1)
        case (.ladder, .aac): return .everyVariant
        default: return nil
        }
    }
}
