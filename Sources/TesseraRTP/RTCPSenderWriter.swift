/// The RTCP packets Tessera sends as an RTP sender (RFC 3550 §6.4.1, §6.6): the sender report
/// that lets a receiver line the stream's RTP clock up with wall time (lip sync) and measure the
/// round trip, and BYE when the stream stops.
///
/// Each function returns one RTCP packet; `RTPSenderSession` puts them in a compound with an
/// SDES CNAME (`RTCPFeedbackWriter.sourceDescription`).
public enum RTCPSenderWriter {
    static let senderReportType: UInt8 = 200
    static let goodbyeType: UInt8 = 203

    /// A sender report with up to 31 report blocks (only a sender that also receives has any).
    /// `ntpTimestamp`: 64-bit NTP wall time, seconds since 1900 in the high half; `rtpTimestamp`:
    /// the stream's RTP time at that same instant, which need not be any packet's timestamp.
    public static func senderReport(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32,
                                    octetCount: UInt32, blocks: [RTCPReportBlock] = []) -> [UInt8] {
        let blocks = Array(blocks.prefix(31))
        var bytes = header(count: blocks.count, type: senderReportType, words: 6 + 6 * blocks.count)
        bytes.appendBigEndian(ssrc)
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: ntpTimestamp >> 32))
        bytes.appendBigEndian(UInt32(truncatingIfNeeded: ntpTimestamp))
        bytes.appendBigEndian(rtpTimestamp)
        bytes.appendBigEndian(packetCount)
        bytes.appendBigEndian(octetCount)
        // Report blocks are laid out as in a receiver report, after its header and SSRC (8 bytes),
        // so that writer's encoding (cumulative loss clamped to 24 signed bits) is the one used.
        bytes += RTCPFeedbackWriter.receiverReport(senderSSRC: ssrc, blocks: blocks).dropFirst(8)
        return bytes
    }

    /// BYE for up to 31 SSRCs, with an optional reason (at most 255 bytes of UTF-8), zero-padded
    /// to a word (RFC 3550 §6.6).
    public static func goodbye(ssrcs: [UInt32], reason: String? = nil) -> [UInt8] {
        let ssrcs = ssrcs.prefix(31)
        let text = reason.map { Array($0.utf8.prefix(255)) } ?? []
        let reasonBytes = reason == nil ? 0 : (1 + text.count + 3) / 4 * 4
        var bytes = header(count: ssrcs.count, type: goodbyeType, words: ssrcs.count + reasonBytes / 4)
        for ssrc in ssrcs { bytes.appendBigEndian(ssrc) }
        if reason != nil {
            bytes += [UInt8(text.count)] + text
            bytes += [UInt8](repeating: 0, count: reasonBytes - 1 - text.count)
        }
        return bytes
    }

    /// RTCP's common header: version 2, no padding, the count, type, and the length in 32-bit
    /// words after the first.
    private static func header(count: Int, type: UInt8, words: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | UInt8(count & 0x1F), type, UInt8(words >> 8 & 0xFF), UInt8(words & 0xFF)]
        bytes.reserveCapacity(4 * (words + 1))
        return bytes
    }
}
