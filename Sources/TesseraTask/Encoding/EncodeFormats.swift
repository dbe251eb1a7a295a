/// One encode of the composite; every output that takes the same format shares it (RTMP and
/// files take the task's H.264, an RTP output constrained-baseline H.264 or VP8).
public enum VideoEncodeFormat: Hashable, Sendable {
    case h264(H264Profile)
    case vp8
    /// `VideoSettings.renditions[N-1]` in the task's profile: the composite scaled, then encoded.
    case rendition(Int)
}

/// One encode of the mix: AAC for RTMP, SRT and files, Opus for RTP outputs.
public enum AudioEncodeFormat: Hashable, Sendable {
    case aac, opus
}
