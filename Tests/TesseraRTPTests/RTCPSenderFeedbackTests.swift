import Testing
import TesseraRTP
import TesseraTestSupport

@Suite struct RTCPSenderFeedbackTests {
    /// pion/rtcp packet_test.go's realPacket (from a packet dump): RR with one block, SDES CNAME,
    /// BYE, PLI, RRR (RTPFB format 5) and APP.
    static let pionCompound: [UInt8] = [
        0x81, 0xc9, 0x00, 0x07, 0x90, 0x2f, 0x9e, 0x2e, 0xbc, 0x5e, 0x9a, 0x40, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x46, 0xe1, 0x00, 0x00, 0x01, 0x11, 0x09, 0xf3, 0x64, 0x32, 0x00, 0x02, 0x4a, 0x79,
        0x81, 0xca, 0x00, 0x0c, 0x90, 0x2f, 0x9e, 0x2e, 0x01, 0x26,
        0x7b, 0x39, 0x63, 0x30, 0x30, 0x65, 0x62, 0x39, 0x32, 0x2d, 0x31, 0x61, 0x66, 0x62, 0x2d, 0x39,
        0x64, 0x34, 0x39, 0x2d, 0x61, 0x34, 0x37, 0x64, 0x2d, 0x39, 0x31, 0x66, 0x36, 0x34, 0x65, 0x65,
        0x65, 0x36, 0x39, 0x66, 0x35, 0x7d, 0x00, 0x00, 0x00, 0x00,
        0x81, 0xcb, 0x00, 0x01, 0x90, 0x2f, 0x9e, 0x2e,
        0x81, 0xce, 0x00, 0x02, 0x90, 0x2f, 0x9e, 0x2e, 0x90, 0x2f, 0x9e, 0x2e,
        0x85, 0xcd, 0x00, 0x02, 0x90, 0x2f, 0x9e, 0x2e, 0x90, 0x2f, 0x9e, 0x2e,
        0x80, 0xcc, 0x00, 0x03, 0x4b, 0xaa, 0xe1, 0xab, 0x4e, 0x41, 0x4d, 0x45, 0x41, 0x42, 0x43, 0x44,
    ]
    /// pion/rtcp picture_loss_indication_test.go "valid": a lone PLI (RFC 5506 reduced size).
    static let pionPLI: [UInt8] = [0x81, 0xce, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x4b, 0xc4, 0xfc, 0xb4]
    /// pion/rtcp full_intra_request_test.go "also valid": two FIR entries.
    static let pionFIR: [UInt8] = [0x84, 0xce, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x4b, 0xc4, 0xfc, 0xb4,
                                   0x12, 0x34, 0x56, 0x78, 0x42, 0x00, 0x00, 0x00, 0x98, 0x76, 0x54, 0x32, 0x57, 0x00, 0x00, 0x00]
    /// pion/rtcp transport_layer_nack_test.go "valid": PID 0xAAAA, BLP 0x5555.
    static let pionNACK: [UInt8] = [0x81, 0xcd, 0x00, 0x03, 0x90, 0x2f, 0x9e, 0x2e, 0x90, 0x2f, 0x9e, 0x2e, 0xaa, 0xaa, 0x55, 0x55]
    /// REMB (PSFB format 15, "REMB", one SSRC) and a transport-wide CC header (RTPFB format 15): skipped.
    static let remb: [UInt8] = [0x8f, 0xce, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4d, 0x42,
                                0x01, 0x0a, 0x12, 0x34, 0x4b, 0xc4, 0xfc, 0xb4]
    static let twcc: [UInt8] = [0x8f, 0xcd, 0x00, 0x04, 0, 0, 0, 1, 0x4b, 0xc4, 0xfc, 0xb4, 0x00, 0x01, 0x00, 0x01,
                                0x00, 0x00, 0x01, 0x00]

    @Test func readsPionsCompound() throws {
        let feedback = try #require(RTCPSenderFeedback.parse(Self.pionCompound))
        #expect(feedback == RTCPSenderFeedback(reportBlocks: [RTCPSenderWriterTests.pionBlock], pictureLossSSRCs: [0x902f_9e2e],
                                               goodbye: true))
    }

    @Test func readsReducedSizeFeedback() {
        #expect(RTCPSenderFeedback.parse(Self.pionPLI) == RTCPSenderFeedback(pictureLossSSRCs: [0x4bc4_fcb4]))
        #expect(RTCPSenderFeedback.parse(Self.pionFIR) == RTCPSenderFeedback(fullIntraRequests: [
            RTCPFullIntraRequest(ssrc: 0x1234_5678, sequenceNumber: 0x42), RTCPFullIntraRequest(ssrc: 0x9876_5432, sequenceNumber: 0x57)]))
        let nack = RTCPSenderFeedback.parse(Self.pionNACK)
        // BLP 0x5555 sets bits 0, 2, …, 14: PID + 1, + 3, …, + 15.
        let expected = [0xAAAA] + stride(from: 1, through: 15, by: 2).map { 0xAAAA + UInt16($0) }
        #expect(nack?.nacks == [RTCPGenericNACK(mediaSSRC: 0x902f_9e2e, sequenceNumbers: expected)])
        #expect(nack?.nackedSequenceNumbers == expected)
        #expect(nack?.nackedSequenceNumbers(ssrc: 1) == [])
    }

    @Test func readsSenderReportBlocksAndSkipsWhatItDoesNotUse() {
        let datagram = RTCPSenderWriterTests.pionSenderReport + RTCPFeedbackWriter.sourceDescription(ssrc: 5, cname: "x")
            + Self.remb + Self.twcc + Self.pionPLI
        #expect(RTCPSenderFeedback.parse(datagram) == RTCPSenderFeedback(reportBlocks: [RTCPSenderWriterTests.pionBlock],
                                                                           pictureLossSSRCs: [0x4bc4_fcb4]))
    }

    @Test func roundTripsTesserasOwnFeedback() {
        let block = RTCPReportBlock(ssrc: 9, fractionLost: 12, cumulativeLost: -3, highestSequence: 0x1_0005, jitter: 90,
                                    lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x8000)
        let datagram = RTCPFeedbackWriter.receiverReport(senderSSRC: 1, blocks: [block])
            + RTCPFeedbackWriter.fullIntraRequest(senderSSRC: 1, mediaSSRC: 9, sequenceNumber: 7)
            + RTCPFeedbackWriter.pictureLossIndication(senderSSRC: 1, mediaSSRC: 9)
            + RTCPFeedbackWriter.genericNACK(senderSSRC: 1, mediaSSRC: 9, lost: [65_535, 0, 2, 40])!
        #expect(RTCPSenderFeedback.parse(datagram) == RTCPSenderFeedback(
            reportBlocks: [block], pictureLossSSRCs: [9], fullIntraRequests: [RTCPFullIntraRequest(ssrc: 9, sequenceNumber: 7)],
            nacks: [RTCPGenericNACK(mediaSSRC: 9, sequenceNumbers: [65_535, 0, 2, 40])]))
    }

    @Test func paddingIsRemovedBeforeReading() {
        // A PLI padded by 4 bytes (the last says how many).
        let padded: [UInt8] = [0xa1, 0xce, 0x00, 0x03, 0, 0, 0, 0, 0x4b, 0xc4, 0xfc, 0xb4, 0, 0, 0, 4]
        #expect(RTCPSenderFeedback.parse(padded) == RTCPSenderFeedback(pictureLossSSRCs: [0x4bc4_fcb4]))
    }

    static let invalid: [(name: String, bytes: [UInt8])] = [
        ("empty", []),
        ("RTP, not RTCP", [0x80, 96, 0x00, 0x01, 0, 0, 0, 1]),
        ("version 1", [0x41, 0xce, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 1]),
        ("version 1 later", pionPLI + [0x41, 202, 0, 0]),
        ("length past the end", Array(pionPLI.dropLast(4))),
        ("trailing bytes", pionPLI + [0x81, 202]),
        ("SR count past its length", [0x81, 0xc8, 0x00, 0x06] + [UInt8](repeating: 0, count: 24)),
        ("RR count past its length", [0x82, 0xc9, 0x00, 0x07] + [UInt8](repeating: 0, count: 28)),
        ("BYE count past its length", [0x83, 0xcb, 0x00, 0x01, 0, 0, 0, 1]),
        ("PLI without media SSRC", [0x81, 0xce, 0x00, 0x01, 0, 0, 0, 0]),
        ("FIR with half an entry", [0x84, 0xce, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        ("padding of zero", [0xa1, 0xce, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0]),
        ("padding past the header", [0xa1, 0xce, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 9]),
        ("NACK padding leaving a part-word", [0xa1, 0xcd, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 2]),
    ]

    @Test(arguments: invalid)
    func refusesInvalidDatagrams(_ name: String, bytes: [UInt8]) {
        #expect(RTCPSenderFeedback.parse(bytes) == nil, "\(name)")
    }

    @Test func neverReadsPastAnyTruncation() {
        let datagram = Self.pionCompound
        let boundaries: Set = [32, 84, 92, 104, 116, 132]
        for end in 0..<datagram.count {
            #expect((RTCPSenderFeedback.parse(Array(datagram[..<end])) != nil) == boundaries.contains(end), "end \(end)")
        }
    }

    /// Random bytes, and valid datagrams with bits flipped and lengths rewritten: whatever comes
    /// back, nothing is read out of bounds (the debug build traps if it is).
    @Test func survivesRandomAndMutatedDatagrams() {
        var random = SplitMix64(state: 42)
        let seeds = [Self.pionCompound, Self.pionFIR + Self.pionNACK, RTCPSenderWriterTests.pionSenderReport + Self.remb + Self.twcc]
        var parsed = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 4 == 0 {
                bytes = random.bytes(random.below(80))
                if bytes.count > 1 { bytes[0] = 0x80 | bytes[0] & 0x3F; bytes[1] = 200 + UInt8(random.below(8)) }
            } else {
                bytes = seeds[random.below(seeds.count)]
                for _ in 0...random.below(4) {
                    let index = random.below(bytes.count)
                    bytes[index] = random.oneIn(2) ? random.byte() : bytes[index] ^ 1 << UInt8(random.below(8))
                }
                if random.oneIn(3) { bytes = Array(bytes.prefix(random.below(bytes.count + 1))) }
            }
            if RTCPSenderFeedback.parse(bytes) != nil { parsed += 1 }
        }
        #expect(parsed > 1000)
    }
}
