/// What an RTP output reports: the SDP it sends by, and per stream what was sent and what the
/// receiver (the SFU) said about it in its RTCP.
public struct RTPOutputStatus: Codable, Sendable, Equatable {
    /// Where the packets go, resolved (`127.0.0.1:5004`).
    public var destination: String
    public var video: RTPSentStreamStatus?
    public var audio: RTPSentStreamStatus
    /// RTCP that came back and was not read: not RTCP, malformed, or failing SRTCP authentication
    /// (the newest reason is the output's `lastError`).
    public var refusedDatagrams: Int64
    /// With SRTP: feedback that came back unencrypted and was read (Janus sends its PLIs so).
    public var plainFeedback: Int64

    public init(destination: String, video: RTPSentStreamStatus?, audio: RTPSentStreamStatus,
                refusedDatagrams: Int64 = 0, plainFeedback: Int64 = 0) {
        self.destination = destination; self.video = video; self.audio = audio
        self.refusedDatagrams = refusedDatagrams; self.plainFeedback = plainFeedback
    }
}

/// One sent stream.
public struct RTPSentStreamStatus: Codable, Sendable, Equatable {
    public var ssrc: UInt32
    public var packets: Int64
    /// Payload octets (RFC 3550's sender octet count).
    public var bytes: Int64
    public var senderReports: Int64
    /// Receiver reports about this SSRC.
    public var receiverReports: Int64
    /// Keyframe requests received: picture loss indications and full intra requests (new ones).
    public var pli: Int64
    public var fir: Int64
    /// Requests turned into keyframes (at most one a second; the rest wait or merge).
    public var keyframesRequested: Int64
    /// NACKed sequence numbers (nothing is retransmitted; counted to show the path's loss).
    public var nackedPackets: Int64
    /// From the latest receiver report: the fraction lost since the one before (0–1), lost
    /// packets in all, interarrival jitter, and the round trip from its LSR / DLSR.
    public var fractionLost: Double?
    public var cumulativeLost: Int64?
    public var jitterMs: Double?
    public var rttMs: Double?

    public init(ssrc: UInt32, packets: Int64 = 0, bytes: Int64 = 0, senderReports: Int64 = 0, receiverReports: Int64 = 0,
                pli: Int64 = 0, fir: Int64 = 0, keyframesRequested: Int64 = 0, nackedPackets: Int64 = 0,
                fractionLost: Double? = nil, cumulativeLost: Int64? = nil, jitterMs: Double? = nil, rttMs: Double? = nil) {
        self.ssrc = ssrc; self.packets = packets; self.bytes = bytes; self.senderReports = senderReports
        self.receiverReports = receiverReports; self.pli = pli; self.fir = fir; self.keyframesRequested = keyframesRequested
        self.nackedPackets = nackedPackets; self.fractionLost = fractionLost; self.cumulativeLost = cumulativeLost
        self.jitterMs = jitterMs; self.rttMs = rttMs
    }
}
