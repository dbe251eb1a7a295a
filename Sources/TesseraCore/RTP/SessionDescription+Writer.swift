/// The SDP Tessera hands out for ports it allocated, for the SFU to send to.
extension SessionDescription {
    /// The SDP an SFU should send to, for ports the service allocated. RTCP goes to port + 1
    /// (RFC 3550 §11), so each allocation takes two ports.
    public static func make(address: String, sessionName: String,
                            video: (codec: RTPCodec, port: Int)?, audio: (codec: RTPCodec, port: Int)?) -> String {
        let addressType = address.contains(":") ? "IP6" : "IP4"
        // A line break in the name would end the s= line and smuggle in lines of the caller's choosing.
        let name = String(sessionName.filter { !$0.isNewline })
        var lines = ["v=0", "o=- 0 0 IN \(addressType) \(address)", "s=\(name.isEmpty ? "-" : name)",
                     "c=IN \(addressType) \(address)", "t=0 0"]
        for (kind, stream) in [(RTPMediaKind.video, video), (.audio, audio)] {
            guard let stream else { continue }
            let format = stream.codec.offeredFormat
            lines.append("m=\(kind.rawValue) \(stream.port) RTP/AVP \(format.payloadType)")
            lines.append("a=rtpmap:\(format.payloadType) \(format.encoding)")
            if let parameters = format.parameters { lines.append("a=fmtp:\(format.payloadType) \(parameters)") }
            lines.append("a=rtcp:\(stream.port + 1)")
        }
        return lines.map { $0 + "\r\n" }.joined()
    }
}

extension RTPCodec {
    /// The payload type, rtpmap encoding and fmtp Tessera offers: the numbers browsers and common
    /// SFUs use, so a forwarded stream can usually keep its payload type.
    public var offeredFormat: (payloadType: UInt8, encoding: String, parameters: String?) {
        switch self {
        case .h264: return (96, "H264/90000", "packetization-mode=1")
        case .vp8: return (97, "VP8/90000", nil)
        case .vp9: return (98, "VP9/90000", nil)
        case .opus: return (111, "opus/48000/2", nil)
        case .aac:
            // AAC-LC, 48 kHz, stereo (AudioSpecificConfig 0x1190), with RFC 3640's AAC-hbr headers.
            return (100, "mpeg4-generic/48000/2",
                    "streamtype=5;profile-level-id=1;mode=AAC-hbr;sizelength=13;indexlength=3;indexdeltalength=3;config=1190")
        case .pcmu: return (0, "PCMU/8000", nil)
        case .pcma: return (8, "PCMA/8000", nil)
        }
    }
}
