import TesseraRTP
/// An `rtp://HOST:PORT` output, resolved: where each medium goes, in which format, under which
/// SSRC, and how it is protected. It is also what the output's SDP says (`sessionDescription`).
public struct RTPOutputSettings: Codable, Sendable, Equatable {
    /// Video codecs an SFU forwards to browsers as they are: H.264 constrained baseline
    /// (packetization-mode 1, what every browser decodes) and VP8.
    public enum VideoCodec: String, Codable, Sendable, CaseIterable { case h264, vp8 }
    public enum AudioCodec: String, Codable, Sendable, CaseIterable { case opus }

    /// One RTP stream: its destination ports, payload type and SSRC.
    public struct Stream: Codable, Sendable, Equatable {
        public var port: Int
        /// Where its RTCP goes and comes from: `port` with rtcp-mux, else `port + 1`.
        public var rtcpPort: Int
        public var payloadType: Int
        public var ssrc: UInt32
        public init(port: Int, rtcpPort: Int, payloadType: Int, ssrc: UInt32) {
            self.port = port; self.rtcpPort = rtcpPort; self.payloadType = payloadType; self.ssrc = ssrc
        }
    }

    /// The URL's host (a name or an address literal, without brackets).
    public var host: String
    /// nil for an audio-only task.
    public var video: Stream?
    public var videoCodec: VideoCodec
    public var audio: Stream
    public var audioCodec: AudioCodec
    public var rtcpMux: Bool
    public var srtp: SRTPSpec?

    public init(host: String, video: Stream?, videoCodec: VideoCodec = .h264, audio: Stream,
                audioCodec: AudioCodec = .opus, rtcpMux: Bool = false, srtp: SRTPSpec? = nil) {
        self.host = host; self.video = video; self.videoCodec = videoCodec; self.audio = audio
        self.audioCodec = audioCodec; self.rtcpMux = rtcpMux; self.srtp = srtp
    }

    /// Opus's RTP clock is 48 kHz whatever the encoder's rate (RFC 7587 §4.1).
    public static let audioClockRate = 48_000
    public static let videoClockRate = 90_000

    /// The SSRC Tessera picks when the task names none: derived from the task and the output
    /// (FNV-1a), so it stays the same when the task is validated again, updated or moved to
    /// another node, and an SFU that keyed its consumer on it keeps receiving.
    public static func defaultSSRC(taskId: String, url: String, medium: String) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(taskId)\n\(url)\n\(medium)".utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash == 0 ? 1 : hash
    }
}
