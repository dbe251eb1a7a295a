import Testing
import TesseraRTP

@Suite struct RTCPPacketTests {
    /// SR from SSRC 0x11223344 at NTP 0xE1234567.80000000 (half a second) and RTP 0x00015F90, no report blocks.
    static let senderReport: [UInt8] = [
        0x80, 200, 0x00, 0x06, 0x11, 0x22, 0x33, 0x44,
        0xE1, 0x23, 0x45, 0x67, 0x80, 0x00, 0x00, 0x00,
        0x00, 0x01, 0x5F, 0x90, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x10, 0x00,
    ]
    /// RR from SSRC 1 with one report block (6 words).
    static let receiverReport: [UInt8] = [0x81, 201, 0x00, 0x07, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 24)
    /// SDES with one chunk: SSRC 0x11223344, CNAME "ab", end, padded to a word.
    static let sdes: [UInt8] = [0x81, 202, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 1, 2, 0x61, 0x62]
    /// BYE for two SSRCs.
    static let goodbye: [UInt8] = [0x82, 203, 0x00, 0x02, 0x11, 0x22, 0x33, 0x44, 0xAA, 0xBB, 0xCC, 0xDD]

    @Test func readsASenderReportCompound() throws {
        let compound = try #require(RTCPCompound.parse(Self.senderReport + Self.sdes))
        #expect(compound.senderReports == [RTCPSenderReport(ssrc: 0x1122_3344, ntpTimestamp: 0xE123_4567_8000_0000,
                                                            rtpTimestamp: 90000)])
        #expect(compound.goodbyeSSRCs.isEmpty)
        #expect(compound.senderReports[0].ntpMicroseconds == 0xE123_4567 * 1_000_000 + 500_000)
    }

    @Test func readsGoodbyeAfterAReceiverReport() {
        #expect(RTCPCompound.parse(Self.receiverReport + Self.sdes + Self.goodbye)
                == RTCPCompound(senderReports: [], goodbyeSSRCs: [0x1122_3344, 0xAABB_CCDD]))
    }

    static let invalid: [(name: String, bytes: [UInt8])] = [
        ("empty", [UInt8]()),
        ("SDES first", sdes + senderReport),
        ("version 1 later", senderReport + [0x41, 202, 0, 0]),
        ("length past the end", Array(senderReport.dropLast(4))),
        ("second length past the end", senderReport + [0x81, 202, 0x00, 0x09, 0, 0, 0, 0]),
        ("trailing bytes", senderReport + [0x81, 202]),
        ("SR too short for sender info", [0x80, 200, 0x00, 0x01, 0, 0, 0, 1]),
        ("BYE count past its length", receiverReport + [0x83, 203, 0x00, 0x01, 0, 0, 0, 1]),
        ("RTP, not RTCP", [0x80, 96, 0x00, 0x01, 0, 0, 0, 1]),
    ]

    @Test(arguments: invalid)
    func refusesInvalidCompounds(_ name: String, bytes: [UInt8]) {
        #expect(RTCPCompound.parse(bytes) == nil, "\(name)")
    }

    @Test func neverReadsPastAnyTruncation() {
        let compound = Self.senderReport + Self.sdes + Self.goodbye
        for end in 0..<compound.count {
            let truncated = Array(compound[..<end])
            // Only the whole-packet boundaries parse; everything else is refused.
            let boundaries = [28, 40]
            #expect((RTCPCompound.parse(truncated) != nil) == boundaries.contains(end), "end \(end)")
        }
    }

    @Test func ntpFractionRoundsDown() {
        let report = RTCPSenderReport(ssrc: 0, ntpTimestamp: 1 << 32 | 0xFFFF_FFFF, rtpTimestamp: 0)
        #expect(report.ntpMicroseconds == 1_999_999)
    }
}
