/// What an RTP input's reader reports besides its packet counters: the RTCP it sent, whether
/// each medium is drawn / heard, and the newest reason a packet was refused.
public struct RTPReceptionStatus: Sendable, Equatable {
    public var rtcp = RTCPReceiver.Counters()
    public var videoState: RTPMediumState?
    public var audioState: RTPMediumState?
    /// The newest refusal, named once per new reason or sender (`payload type 96 is not in the
    /// input's SDP (expected 111)`); nil while every packet was taken.
    public var refusal: String?
    /// Bumped whenever `refusal` is set anew, so a repeat of one text is told apart from no news.
    public var refusalCount: Int64 = 0

    public init() {}

    /// Names a refusal: once per new text, so a flood of one kind is one line, and a new kind or
    /// sender shows at once.
    public mutating func note(_ refusal: RTPRefusalNotice) {
        guard self.refusal != refusal.text else { return }
        self.refusal = refusal.text
        refusalCount += 1
    }

    /// The RTCP sent and each medium's state, as the input's streams stand at `nowMicroseconds`;
    /// the refusal fields are kept.
    public mutating func update(from streams: [RTPStreamReceiver], nowMicroseconds: Int64) {
        rtcp = streams.reduce(RTCPReceiver.Counters()) { $0 + $1.rtcp.counters }
        videoState = nil
        audioState = nil
        for stream in streams {
            let state = stream.mediumState(nowMicroseconds: nowMicroseconds)
            if stream.media.kind == .video { videoState = state } else { audioState = state }
        }
    }
}
