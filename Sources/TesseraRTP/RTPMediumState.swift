/// Whether one medium of an RTP participant is really drawn or heard, not only arriving.
public enum RTPMediumState: String, Codable, Sendable, Equatable {
    /// Nothing from a sender for the last `RTPReceptionStatus.silenceMicroseconds`.
    case noPackets = "no packets"
    /// Packets arrive but the decoder has no keyframe to start from (a mid-call join, a new
    /// sender, a loss that broke the reference chain): the region shows its placeholder or the
    /// last good picture.
    case waitingForKeyframe = "waiting for keyframe"
    /// Pictures (or sound) are decoded.
    case live
}
