import Testing
import TesseraRTP

@Suite struct RTCPSenderWriterTests {
    /// pion/rtcp sender_report_test.go, "valid": an SR with one report block. Its length field
    /// there is 7 (copied from the RR vector; pion's reader does not check it); RFC 3550 §6.4.1's
    /// value for 52 bytes is 12 words after the first, so that is what is expected here.
    static let pionSenderReport: [UInt8] = [
        0x81, 0xc8, 0x00, 0x0c, 0x90, 0x2f, 0x9e, 0x2e,
        0xda, 0x8b, 0xd1, 0xfc, 0xdd, 0xdd, 0xa0, 0x5a,
        0xaa, 0xf4, 0xed, 0xd5, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
        0xbc, 0x5e, 0x9a, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46, 0xe1,
        0x00, 0x00, 0x01, 0x11, 0x09, 0xf3, 0x64, 0x32, 0x00, 0x02, 0x4a, 0x79,
    ]
    static let pionBlock = RTCPReportBlock(ssrc: 0xbc5e_9a40, fractionLost: 0, cumulativeLost: 0, highestSequence: 0x46e1,
                                           jitter: 273, lastSenderReport: 0x09f3_6432, delaySinceLastSenderReport: 150_137)

    @Test func senderReportMatchesPion() {
        let report = RTCPSenderWriter.senderReport(ssrc: 0x902f_9e2e, ntpTimestamp: 0xda8b_d1fc_dddd_a05a, rtpTimestamp: 0xaaf4_edd5,
                                                   packetCount: 1, octetCount: 2, blocks: [Self.pionBlock])
        #expect(report == Self.pionSenderReport)
    }

    /// pion/rtcp sender_report_test.go, "with extension": its first 28 bytes, an SR with no blocks.
    @Test func senderReportWithoutBlocksMatchesPion() {
        let report = RTCPSenderWriter.senderReport(ssrc: 0x2b7e_c0c5, ntpTimestamp: 0xe020_a2a9_52a5_3fc0, rtpTimestamp: 0x2e48_a552,
                                                   packetCount: 70, octetCount: 4637)
        #expect(report == [0x80, 0xc8, 0x00, 0x06, 0x2b, 0x7e, 0xc0, 0xc5, 0xe0, 0x20, 0xa2, 0xa9, 0x52, 0xa5, 0x3f, 0xc0,
                           0x2e, 0x48, 0xa5, 0x52, 0x00, 0x00, 0x00, 0x46, 0x00, 0x00, 0x12, 0x1d])
    }

    @Test func senderReportWithoutBlocksIsReadBack() throws {
        let report = RTCPSenderWriter.senderReport(ssrc: 0x1122_3344, ntpTimestamp: 0xE123_4567_8000_0000, rtpTimestamp: 90_000,
                                                   packetCount: 10, octetCount: 4096)
        #expect(report == RTCPPacketTests.senderReport)
        let compound = try #require(RTCPCompound.parse(report + RTCPFeedbackWriter.sourceDescription(ssrc: 0x1122_3344, cname: "ab")))
        #expect(compound.senderReports == [RTCPSenderReport(ssrc: 0x1122_3344, ntpTimestamp: 0xE123_4567_8000_0000, rtpTimestamp: 90_000)])
    }

    /// pion/rtcp: the BYE of packet_test.go's realPacket, and goodbye_test.go's "valid" one (whose
    /// length field there says 12 words, which pion does not check; RFC 3550's value is 2).
    @Test func goodbyeMatchesPion() {
        #expect(RTCPSenderWriter.goodbye(ssrcs: [0x902f_9e2e]) == [0x81, 0xcb, 0x00, 0x01, 0x90, 0x2f, 0x9e, 0x2e])
        #expect(RTCPSenderWriter.goodbye(ssrcs: [0x902f_9e2e], reason: "FOO")
                == [0x81, 0xcb, 0x00, 0x02, 0x90, 0x2f, 0x9e, 0x2e, 0x03, 0x46, 0x4f, 0x4f])
    }

    @Test func goodbyeReasonIsPaddedToAWord() {
        let bye = RTCPSenderWriter.goodbye(ssrcs: [1, 2], reason: "ab")
        #expect(bye == [0x82, 0xcb, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0x02, 0x61, 0x62, 0x00])
        #expect(RTCPCompound.parse(RTCPFeedbackWriter.receiverReport(senderSSRC: 1, blocks: []) + bye)?.goodbyeSSRCs == [1, 2])
        let empty = RTCPSenderWriter.goodbye(ssrcs: [1], reason: "")
        #expect(empty == [0x81, 0xcb, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0])
    }
}
