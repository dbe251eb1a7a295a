import Testing
import TesseraRTP

@Suite struct RTPStreamSenderTests {
    @Test func writesHeadersWithWrappingSequenceAndTimestamp() {
        var sender = RTPStreamSender(ssrc: 0x1122_3344, payloadType: 96, clockRate: 90_000,
                                     initialSequence: 65_534, timestampOffset: 0xFFFF_FFF0)
        let datagrams = sender.packets(payloads: [[0xAA], [0xBB, 0xCC], [0xDD]], mediaTime: 0x20, marker: true)
        #expect(datagrams == [
            [0x80, 0x60, 0xFF, 0xFE, 0x00, 0x00, 0x00, 0x10, 0x11, 0x22, 0x33, 0x44, 0xAA],
            [0x80, 0x60, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x10, 0x11, 0x22, 0x33, 0x44, 0xBB, 0xCC],
            [0x80, 0xE0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x11, 0x22, 0x33, 0x44, 0xDD],
        ])
        #expect(sender.nextSequenceNumber == 1)
        #expect(sender.packetCount == 3 && sender.octetCount == 4)
    }

    @Test func markerOnlyWhenAsked() throws {
        var sender = RTPStreamSender(ssrc: 9, payloadType: 111, clockRate: 48_000, initialSequence: 0, timestampOffset: 100)
        let datagrams = sender.packets(payloads: [[1, 2, 3]], mediaTime: 960, marker: false)
        let packet = try RTPPacket.parse(datagrams[0]).get()
        #expect(packet == RTPPacket(payloadType: 111, marker: false, sequenceNumber: 0, timestamp: 1060, ssrc: 9, payload: [1, 2, 3]))
        #expect(sender.packets(payloads: [], mediaTime: 0, marker: true).isEmpty)
        #expect(sender.packetCount == 1 && sender.octetCount == 3)
    }

    @Test func timestampIsTheOffsetPlusMediaTimeModulo32Bits() {
        let sender = RTPStreamSender(ssrc: 1, payloadType: 96, clockRate: 90_000, initialSequence: 0, timestampOffset: 10)
        #expect(sender.rtpTimestamp(mediaTime: 0) == 10)
        #expect(sender.rtpTimestamp(mediaTime: -11) == 0xFFFF_FFFF)
        #expect(sender.rtpTimestamp(mediaTime: 1 << 32 | 5) == 15)
    }
}
