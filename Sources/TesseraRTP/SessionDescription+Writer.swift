/// The SDP Tessera hands out for ports it allocated, for the SFU to send to: exactly the formats,
/// extensions, RTCP layout and keys the allocation asked for.
extension SessionDescription {
    /// The SDP for an allocation on `videoPort` / `audioPort` (a port for each medium the request
    /// has). Without rtcp-mux, RTCP is on port + 1 (RFC 3550 §11) and said so by `a=rtcp`.
    ///
    /// Video lists the feedback Tessera sends as a receiver (generic NACK, PLI, FIR), so its
    /// profile is AVPF (RFC 4585 §4.2 allows `a=rtcp-fb` only there); audio stays AVP. With SRTP
    /// the profiles are SAVPF / SAVP and each section carries the one `a=crypto` key.
    public static func make(address: String, sessionName: String, request: RTPAllocationRequest,
                            videoPort: Int?, audioPort: Int?) -> String {
        let addressType = address.contains(":") ? "IP6" : "IP4"
        // A line break in the name would end the s= line and smuggle in lines of the caller's choosing.
        let name = String(sessionName.filter { !$0.isNewline })
        var lines = ["v=0", "o=- 0 0 IN \(addressType) \(address)", "s=\(name.isEmpty ? "-" : name)",
                     "c=IN \(addressType) \(address)", "t=0 0"]
        // Session level: the request does not say which medium an extension belongs to, and a
        // session-level a=extmap applies to every section (RFC 8285 §5).
        for (uri, id) in request.extensions.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
            lines.append("a=extmap:\(id) \(uri)")
        }
        for (medium, port) in [(request.video, videoPort), (request.audio, audioPort)] {
            guard let medium, let port else { continue }
            lines += mediaSection(medium, port: port, request: request)
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// The SDP of the string form (`"video": "H264"`): each codec's usual format, RTCP on port + 1.
    public static func make(address: String, sessionName: String,
                            video: (codec: RTPCodec, port: Int)?, audio: (codec: RTPCodec, port: Int)?) -> String {
        let request = RTPAllocationRequest(video: video.map { .init(codec: $0.codec) }, audio: audio.map { .init(codec: $0.codec) })
        return make(address: address, sessionName: sessionName, request: request, videoPort: video?.port, audioPort: audio?.port)
    }

    private static func mediaSection(_ medium: RTPAllocationRequest.Medium, port: Int, request: RTPAllocationRequest) -> [String] {
        let pt = medium.payloadType
        let isVideo = medium.codec.kind == .video
        let profile = (request.srtp == nil ? "RTP/AVP" : "RTP/SAVP") + (isVideo ? "F" : "")
        let formats = [pt] + (medium.rtxPayloadType.map { [$0] } ?? [])
        var lines = ["m=\(medium.codec.kind.rawValue) \(port) \(profile) \(formats.map(String.init).joined(separator: " "))",
                     "a=rtpmap:\(pt) \(medium.rtpmapEncoding)"]
        if let fmtp = medium.fmtp { lines.append("a=fmtp:\(pt) \(fmtp)") }
        if isVideo {
            lines += ["a=rtcp-fb:\(pt) nack", "a=rtcp-fb:\(pt) nack pli", "a=rtcp-fb:\(pt) ccm fir"]
        }
        if let rtx = medium.rtxPayloadType {
            // RFC 4588 §8.6: the retransmission stream runs on the original's clock.
            lines += ["a=rtpmap:\(rtx) rtx/\(medium.clockRate)", "a=fmtp:\(rtx) apt=\(pt)"]
        }
        lines.append(request.rtcpMux ? "a=rtcp-mux" : "a=rtcp:\(port + 1)")
        if let srtp = request.srtp { lines.append("a=crypto:1 \(srtp.suite) inline:\(srtp.key)") }
        return lines
    }
}
