import Testing
import TesseraComposition
import TesseraRTP

@Suite struct VideoOrientationExtensionTests {
    @Test(arguments: [
        (0x00, 0, false), (0x01, 90, false), (0x02, 180, false), (0x03, 270, false),
        (0x04, 0, true), (0x07, 270, true),
        (0x08, 0, false), (0x09, 90, false),   // C (camera) changes nothing on screen
    ] as [(UInt8, Int, Bool)])
    func readsTheCVOByte(byte: UInt8, degrees: Int, mirrored: Bool) {
        let orientation = VideoOrientationExtension.orientation(byte: byte)
        #expect(orientation.rotationDegrees == degrees && orientation.mirrored == mirrored)
    }

    @Test func highGranularityRoundsToQuarterTurns() {
        // 6-bit angle R1 R0 R5 R4 R3 R2 in 64ths of a turn; the byte is R5 R4 R3 R2 C F R1 R0.
        func byte(_ sixtyFourths: Int) -> UInt8 { UInt8((sixtyFourths & 15) << 4 | sixtyFourths >> 4) }
        #expect(VideoOrientationExtension.orientation(byte: byte(16), highGranularity: true).rotationDegrees == 90)
        #expect(VideoOrientationExtension.orientation(byte: byte(20), highGranularity: true).rotationDegrees == 90)
        #expect(VideoOrientationExtension.orientation(byte: byte(24), highGranularity: true).rotationDegrees == 180)
        #expect(VideoOrientationExtension.orientation(byte: byte(63), highGranularity: true).rotationDegrees == 0)
        #expect(VideoOrientationExtension.orientation(byte: byte(48) | 0x04, highGranularity: true)
                == PictureOrientation(quarterTurns: 3, mirrored: true))
    }

    static func packet(_ headerExtension: RTPHeaderExtension?) -> [UInt8] {
        RTPPacket(payloadType: 96, marker: true, sequenceNumber: 7, timestamp: 9000, ssrc: 0x1234, payload: [0x65, 1, 2],
                  headerExtension: headerExtension).serialized()
    }

    @Test func readsOneByteHeaderElements() throws {
        // 0xBEDE, 2 words: element id 1 (2 bytes), a padding byte, id 3 (CVO, 1 byte), padding.
        let datagram: [UInt8] = [0x90, 0xE0, 0, 7, 0, 0, 0x23, 0x28, 0, 0, 0x12, 0x34,
                                 0xBE, 0xDE, 0, 2, 0x11, 0xAA, 0xBB, 0x00, 0x30, 0x01, 0, 0,
                                 0x65, 1, 2]
        let packet = try RTPPacket.parse(datagram).get()
        #expect(packet.payload == [0x65, 1, 2])
        #expect(packet.headerExtension?.element(id: 1) == [0xAA, 0xBB])
        #expect(packet.headerExtension?.element(id: 3) == [0x01])
        #expect(packet.headerExtension?.element(id: 2) == nil)
        #expect(VideoOrientationExtension(id: 3).orientation(in: packet) == PictureOrientation(quarterTurns: 1))
        #expect(VideoOrientationExtension(id: 4).orientation(in: packet) == nil)
        #expect(packet.serialized() == datagram)
    }

    @Test func readsTwoByteHeaderElements() throws {
        // 0x1000 with app bits 5: id 9 with no data, padding, id 200 (2 bytes), id 5 (CVO).
        let ext = RTPHeaderExtension(profile: 0x1005, data: [9, 0, 0, 200, 2, 0xAB, 0xCD, 5, 1, 0x06, 0, 0])
        let packet = try RTPPacket.parse(Self.packet(ext)).get()
        #expect(packet.headerExtension == ext)
        #expect(packet.headerExtension?.element(id: 9) == [])
        #expect(packet.headerExtension?.element(id: 200) == [0xAB, 0xCD])
        #expect(VideoOrientationExtension(id: 5).orientation(in: packet) == PictureOrientation(quarterTurns: 2, mirrored: true))
        let built = RTPHeaderExtension.twoByte([(id: 5, data: [0x03])])
        #expect(built.element(id: 5) == [0x03])
    }

    @Test func distrustsElementsThatRunPastTheEnd() {
        #expect(RTPHeaderExtension(profile: 0xBEDE, data: [0x13, 1, 2, 3]).element(id: 1) == nil)   // 4 bytes claimed
        #expect(RTPHeaderExtension(profile: 0xBEDE, data: [0xF0, 0x10, 5, 0]).element(id: 1) == nil) // 15 ends the list
        #expect(RTPHeaderExtension(profile: 0x1000, data: [3, 9, 0, 0]).element(id: 3) == nil)
        #expect(RTPHeaderExtension(profile: 0xABCD, data: [0x30, 1, 0, 0]).element(id: 3) == nil)    // not RFC 8285
        #expect(RTPHeaderExtension.oneByte([(id: 14, data: [7])]).element(id: 14) == [7])
    }

    @Test func readsTheExtensionIdFromTheSDP() throws {
        let sdp = """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=-
            c=IN IP4 127.0.0.1
            t=0 0
            m=audio 5002 RTP/AVP 111
            a=rtpmap:111 opus/48000/2
            a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
            m=video 5004 RTP/AVP 96
            a=rtpmap:96 VP8/90000
            a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
            a=extmap:13/sendonly urn:3gpp:video-orientation
            a=extmap:nonsense
            """
        let session = try SessionDescription.parse(sdp)
        #expect(session.video?.videoOrientation == VideoOrientationExtension(id: 13))
        #expect(session.audio?.videoOrientation == nil)

        let sessionLevel = """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=-
            c=IN IP4 127.0.0.1
            t=0 0
            a=extmap:7 URN:3GPP:video-orientation:6
            m=video 5004 RTP/AVP 96
            a=rtpmap:96 H264/90000
            """
        #expect(try SessionDescription.parse(sessionLevel).video?.videoOrientation
                == VideoOrientationExtension(id: 7, highGranularity: true))
        let without = sessionLevel.split(separator: "\n").filter { !$0.hasPrefix("a=extmap") }.joined(separator: "\n")
        #expect(try SessionDescription.parse(without).video?.videoOrientation == nil)
    }

    @Test func framesKeepTheirOrientationAcrossTheDecoder() {
        var queue = FrameOrientationQueue()
        let turned = PictureOrientation(quarterTurns: 1)
        queue.note(.upright, ptsMicroseconds: 0)
        queue.note(turned, ptsMicroseconds: 33_000)
        queue.note(.upright, ptsMicroseconds: 66_000)
        #expect(queue.take(ptsMicroseconds: 0) == .upright)
        // The decoder dropped nothing yet held a frame: the picture at 33 ms is the turned one.
        #expect(queue.take(ptsMicroseconds: 33_000) == turned)
        // A picture between entries (or one before all of them) keeps the newest taken.
        #expect(queue.take(ptsMicroseconds: 40_000) == turned)
        #expect(queue.take(ptsMicroseconds: 100_000) == .upright)
        queue.note(turned, ptsMicroseconds: 133_000)
        queue.reset()
        #expect(queue.take(ptsMicroseconds: 200_000) == .upright)
    }
}
