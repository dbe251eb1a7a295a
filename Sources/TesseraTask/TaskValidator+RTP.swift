import TesseraRTP
/// `inputs[].rtp.sdp`: the SDP is read here, at the edge, so a task the RTP ingest cannot
/// receive (SRTP, an unsupported codec, colliding ports) is refused with the reason before a
/// worker starts rather than failing inside it.
extension ValidationContext {
    mutating func resolveSessionDescription(_ sdp: String, at path: String) -> ResolvedInput.Source? {
        do {
            _ = try SessionDescription.parse(sdp)
            return .rtpSDP(sdp: sdp)
        } catch {
            issues.add(path, error.description)
            return nil
        }
    }
}
