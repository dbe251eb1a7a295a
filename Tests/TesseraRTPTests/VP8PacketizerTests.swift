import Testing
import TesseraRTP

@Suite struct VP8PacketizerTests {
    /// pion/rtp codecs/vp8_packet_test.go, "WithPictureID_2bytes": the 15-bit picture ID form,
    /// which this packetizer always uses.
    @Test func pionPictureIDVector() {
        var packetizer = VP8Packetizer(maxPayloadSize: 6, initialPictureID: 0x120)
        #expect(packetizer.payloads(frame: [0x90, 0x90, 0x90]) == [[0x90, 0x80, 0x81, 0x20, 0x90, 0x90],
                                                                    [0x80, 0x80, 0x81, 0x20, 0x90]])
        #expect(packetizer.payloads(frame: [0x91, 0x91]) == [[0x90, 0x80, 0x81, 0x21, 0x91, 0x91]])
    }

    @Test func pictureIDWrapsAt15Bits() {
        var packetizer = VP8Packetizer(initialPictureID: 0xFFFF)
        #expect(packetizer.nextPictureID == 0x7FFF)
        #expect(packetizer.payloads(frame: [0x00])[0].prefix(4) == [0x90, 0x80, 0xFF, 0xFF])
        #expect(packetizer.payloads(frame: [0x00])[0].prefix(4) == [0x90, 0x80, 0x80, 0x00])
    }

    @Test func anEmptyFrameHasNoPacketsAndUsesNoPictureID() {
        var packetizer = VP8Packetizer(initialPictureID: 5)
        #expect(packetizer.payloads(frame: []).isEmpty)
        #expect(packetizer.nextPictureID == 5)
    }

    @Test func keyframeDetection() {
        #expect([0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A].withUnsafeBytes { VP8Packetizer.isKeyframe(frame: $0) })
        #expect(![0x31, 0x02, 0x00].withUnsafeBytes { VP8Packetizer.isKeyframe(frame: $0) })
        #expect(![UInt8]().withUnsafeBytes { VP8Packetizer.isKeyframe(frame: $0) })
    }

    @Test func roundTripsThroughTheDepacketizer() throws {
        var packetizer = VP8Packetizer(initialPictureID: 1234)
        var sender = RTPStreamSender(ssrc: 7, payloadType: 100, clockRate: 90_000, initialSequence: 1, timestampOffset: 0)
        var depacketizer = VP8Depacketizer()
        let sent = [[0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + testBytes(3000, seed: 1), [0x31] + testBytes(800, seed: 2)]
        var frames: [EncodedMediaFrame] = []
        for (index, frame) in sent.enumerated() {
            let payloads = packetizer.payloads(frame: frame)
            #expect(payloads.allSatisfy { $0.count <= 1200 })
            for datagram in sender.packets(payloads: payloads, mediaTime: Int64(index) * 3000, marker: true) {
                frames += depacketizer.push(try RTPPacket.parse(datagram).get(), arrivalMicroseconds: 0)
            }
        }
        #expect(frames.map(\.data) == sent)
        #expect(frames.map(\.isKeyframe) == [true, false])
    }
}
