/// The RTCP a receiver sends for one RTP stream (RFC 3550, 4585, 5104): a receiver report about
/// once a second, keyframe requests (PLI, or FIR where the SDP offers `ccm fir`) while the
/// decoder waits for a keyframe, and generic NACKs for holes the reorder buffer can still fill.
///
/// A state machine with no clock or I/O: the reader tells it what arrived and what the decoder
/// needs, and `poll` returns the next compound datagram to send (report, SDES CNAME, then the
/// feedback), or nil. Feedback names the current sender's SSRC, so nothing is sent before a
/// packet has arrived: there is no one to address yet.
public struct RTCPReceiver: Sendable {
    /// What was sent, for the input's status.
    public struct Counters: Codable, Sendable, Equatable {
        public var reports: Int64 = 0
        public var pli: Int64 = 0
        public var fir: Int64 = 0
        /// NACK packets sent (each may name several sequence numbers).
        public var nack: Int64 = 0
        /// Sequence numbers named by those NACKs.
        public var nackedPackets: Int64 = 0
        public init() {}

        public static func + (lhs: Counters, rhs: Counters) -> Counters {
            var sum = lhs
            sum.reports += rhs.reports; sum.pli += rhs.pli; sum.fir += rhs.fir
            sum.nack += rhs.nack; sum.nackedPackets += rhs.nackedPackets
            return sum
        }
    }

    public let receiverSSRC: UInt32
    public let feedback: RTCPFeedbackSupport
    private let cname: String
    private let reportIntervalMicroseconds: Int64
    private var statistics: RTPReceptionStatistics
    public private(set) var keyframes = KeyframeRequester()
    private var nacks: NACKScheduler
    private var nextReportMicroseconds: Int64?
    private var firSequence: UInt8 = 0
    public private(set) var counters = Counters()

    /// `feedback`: what the SDP offers; PLI is sent to every video sender (those that do not
    /// know it ignore it), FIR and NACK only where offered. `nackRetry`: how long a NACK waits for
    /// its retransmission before asking again (a fraction of the reorder buffer's wait).
    public init(receiverSSRC: UInt32, cname: String, clockRate: Int, feedback: RTCPFeedbackSupport,
                nackRetryMicroseconds: Int64 = 20_000, reportIntervalMicroseconds: Int64 = 1_000_000) {
        self.receiverSSRC = receiverSSRC
        self.cname = cname
        self.feedback = feedback
        self.reportIntervalMicroseconds = reportIntervalMicroseconds
        statistics = RTPReceptionStatistics(clockRate: clockRate)
        nacks = NACKScheduler(retryMicroseconds: nackRetryMicroseconds)
    }

    /// The sender being reported on; nil before its first packet.
    public var senderSSRC: UInt32? { statistics.ssrc }
    public var jitterMilliseconds: Double { statistics.jitterMilliseconds }

    public mutating func packetArrived(sequenceNumber: UInt16, rtpTimestamp: UInt32, ssrc: UInt32, arrivalMicroseconds: Int64) {
        statistics.note(sequenceNumber: sequenceNumber, rtpTimestamp: rtpTimestamp, ssrc: ssrc,
                        arrivalMicroseconds: arrivalMicroseconds)
        if nextReportMicroseconds == nil { nextReportMicroseconds = arrivalMicroseconds + reportIntervalMicroseconds / 2 }
    }

    public mutating func senderReportArrived(_ report: RTCPSenderReport, arrivalMicroseconds: Int64) {
        statistics.noteSenderReport(ssrc: report.ssrc, ntpTimestamp: report.ntpTimestamp, arrivalMicroseconds: arrivalMicroseconds)
    }

    /// A new sender was adopted: the old one's holes are not worth asking for.
    public mutating func senderChanged() { nacks.reset() }

    public mutating func needKeyframe(_ reason: KeyframeRequester.Reason, nowMicroseconds: Int64) {
        keyframes.need(reason, nowMicroseconds: nowMicroseconds)
    }

    public mutating func keyframeArrived() { keyframes.keyframeArrived() }

    /// When `poll` has something to send next; nil when nothing is scheduled.
    public var nextDeadlineMicroseconds: Int64? {
        [nextReportMicroseconds, keyframes.nextDeadlineMicroseconds,
         feedback.contains(.nack) ? nacks.nextDeadlineMicroseconds : nil].compactMap { $0 }.min()
    }

    /// The datagram to send now, if any. `missing`: the reorder buffer's holes (video with NACK).
    public mutating func poll(nowMicroseconds: Int64, missing: [UInt16] = []) -> [UInt8]? {
        guard let media = statistics.ssrc else { return nil }
        var feedbackPackets: [UInt8] = []
        if keyframes.poll(nowMicroseconds: nowMicroseconds) != nil {
            if feedback.contains(.fir) {
                firSequence &+= 1
                feedbackPackets += RTCPFeedbackWriter.fullIntraRequest(senderSSRC: receiverSSRC, mediaSSRC: media, sequenceNumber: firSequence)
                counters.fir += 1
            }
            feedbackPackets += RTCPFeedbackWriter.pictureLossIndication(senderSSRC: receiverSSRC, mediaSSRC: media)
            counters.pli += 1
        }
        if feedback.contains(.nack) {
            let due = nacks.update(missing: missing, nowMicroseconds: nowMicroseconds)
            if let nack = RTCPFeedbackWriter.genericNACK(senderSSRC: receiverSSRC, mediaSSRC: media, lost: due) {
                feedbackPackets += nack
                counters.nack += 1
                counters.nackedPackets += Int64(due.count)
            }
        }
        let reportDue = nextReportMicroseconds.map { nowMicroseconds >= $0 } ?? false
        guard reportDue || !feedbackPackets.isEmpty else { return nil }
        // Every compound starts with a report (RFC 3550 §6.1), so feedback carries one too; the
        // regular report's clock restarts from it.
        let blocks = statistics.reportBlock(nowMicroseconds: nowMicroseconds).map { [$0] } ?? []
        nextReportMicroseconds = nowMicroseconds + reportIntervalMicroseconds
        counters.reports += 1
        return RTCPFeedbackWriter.receiverReport(senderSSRC: receiverSSRC, blocks: blocks)
            + RTCPFeedbackWriter.sourceDescription(ssrc: receiverSSRC, cname: cname) + feedbackPackets
    }
}
