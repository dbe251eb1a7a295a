import Testing
import TesseraRTP

/// Byte layouts from published test vectors (pion/rtcp's receiver report, NACK and FIR tests;
/// RFC 4585 / 5104 field order), so a wrong field is caught by a peer's view, not only our own.
@Suite struct RTCPFeedbackWriterTests {
    @Test func receiverReportMatchesPionsVector() {
        let block = RTCPReportBlock(ssrc: 0xBC5E_9A40, fractionLost: 0, cumulativeLost: 0, highestSequence: 0x46E1,
                                    jitter: 273, lastSenderReport: 0x09F3_6432, delaySinceLastSenderReport: 150_137)
        #expect(RTCPFeedbackWriter.receiverReport(senderSSRC: 0x902F_9E2E, blocks: [block]) == [
            0x81, 0xC9, 0x00, 0x07, 0x90, 0x2F, 0x9E, 0x2E, 0xBC, 0x5E, 0x9A, 0x40, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x46, 0xE1, 0x00, 0x00, 0x01, 0x11, 0x09, 0xF3, 0x64, 0x32, 0x00, 0x02, 0x4A, 0x79,
        ])
    }

    @Test func cumulativeLossIsSigned24Bits() {
        let block = RTCPReportBlock(ssrc: 1, fractionLost: 0x40, cumulativeLost: -2, highestSequence: 0, jitter: 0,
                                    lastSenderReport: 0, delaySinceLastSenderReport: 0)
        let bytes = RTCPFeedbackWriter.receiverReport(senderSSRC: 2, blocks: [block])
        #expect(Array(bytes[12..<16]) == [0x40, 0xFF, 0xFF, 0xFE])
        let clamped = RTCPFeedbackWriter.receiverReport(senderSSRC: 2, blocks: [RTCPReportBlock(
            ssrc: 1, fractionLost: 0, cumulativeLost: 1 << 30, highestSequence: 0, jitter: 0, lastSenderReport: 0,
            delaySinceLastSenderReport: 0)])
        #expect(Array(clamped[12..<16]) == [0x00, 0x7F, 0xFF, 0xFF])
    }

    @Test func reportAndSourceDescriptionParseAsACompound() throws {
        let compound = RTCPFeedbackWriter.receiverReport(senderSSRC: 7, blocks: [])
            + RTCPFeedbackWriter.sourceDescription(ssrc: 7, cname: "tessera")
        #expect(compound.count % 4 == 0)
        #expect(RTCPCompound.parse(compound) == RTCPCompound())
        // SDES: header, SSRC, CNAME (1, 7, "tessera"), then a zero end byte, padded with zeros to
        // the word: 4 + 4 + 9 + 3 bytes, five words.
        #expect(Array(compound[8...]) == [0x81, 0xCA, 0x00, 0x04, 0, 0, 0, 7, 1, 7] + Array("tessera".utf8) + [0, 0, 0])
    }

    @Test func pictureLossIndication() {
        #expect(RTCPFeedbackWriter.pictureLossIndication(senderSSRC: 0, mediaSSRC: 0x4BC4_FCB4)
                == [0x81, 0xCE, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x4B, 0xC4, 0xFC, 0xB4])
    }

    @Test func fullIntraRequestNamesTheSenderInItsFCI() {
        #expect(RTCPFeedbackWriter.fullIntraRequest(senderSSRC: 0x4BC4_FCB4, mediaSSRC: 0x1234_5678, sequenceNumber: 0x42) == [
            0x84, 0xCE, 0x00, 0x04, 0x4B, 0xC4, 0xFC, 0xB4, 0x00, 0x00, 0x00, 0x00,
            0x12, 0x34, 0x56, 0x78, 0x42, 0x00, 0x00, 0x00,
        ])
    }

    @Test func genericNACKPacksSixteenFollowersIntoOneEntry() throws {
        // pion's "multiple in range": 100, 101, 105, 115 → PID 100, BLP 0x4011.
        let bytes = try #require(RTCPFeedbackWriter.genericNACK(senderSSRC: 0x902F_9E2E, mediaSSRC: 0x902F_9E2E,
                                                                lost: [115, 100, 105, 101, 101]))
        #expect(bytes == [0x81, 0xCD, 0x00, 0x03, 0x90, 0x2F, 0x9E, 0x2E, 0x90, 0x2F, 0x9E, 0x2E, 0x00, 0x64, 0x40, 0x11])
        // "multiple ranges": 100, 117, 500-502 → three entries.
        let three = try #require(RTCPFeedbackWriter.genericNACK(senderSSRC: 1, mediaSSRC: 2, lost: [100, 117, 500, 501, 502]))
        #expect(three[2...3] == [0x00, 0x05])
        #expect(Array(three[12...]) == [0x00, 0x64, 0, 0, 0x00, 0x75, 0, 0, 0x01, 0xF4, 0x00, 0x03])
        #expect(RTCPFeedbackWriter.genericNACK(senderSSRC: 1, mediaSSRC: 2, lost: []) == nil)
    }

    @Test func genericNACKKeepsOrderAcrossWrapAround() throws {
        let bytes = try #require(RTCPFeedbackWriter.genericNACK(senderSSRC: 1, mediaSSRC: 2, lost: [65535, 0, 2]))
        #expect(Array(bytes[12...]) == [0xFF, 0xFF, 0x00, 0x05])
    }
}
