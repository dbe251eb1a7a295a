import Testing
import TesseraRTP

@Suite struct VP8DepacketizerTests {
    /// A keyframe (payload header P bit 0) then delta frames (P bit 1), sizes spanning 1–4 packets.
    static func frames(count: Int = 4, seed: UInt64 = 1) -> [[UInt8]] {
        (0..<count).map { index in [index == 0 ? 0x10 : 0x11] + testBytes(3000 - 600 * index, seed: seed + UInt64(index)) }
    }

    static func packets(_ frames: [[UInt8]], pictureID: Int? = nil, layerFields: Bool = false,
                        stream: inout TestRTPStream) -> [[RTPPacket]] {
        frames.enumerated().map { index, frame in
            stream.packets(TestPacketizer.vp8(frame, pictureID: pictureID.map { $0 + index }, layerFields: layerFields),
                           timestamp: UInt32(index) * 3000)
        }
    }

    @Test(arguments: [(nil, false), (5, false), (126, true), (20_000, false), (32_000, true)] as [(Int?, Bool)])
    func roundTrip(pictureID: Int?, layerFields: Bool) {
        var stream = TestRTPStream(), depacketizer = VP8Depacketizer()
        let frames = Self.frames()
        let out = depacketizer.push(Self.packets(frames, pictureID: pictureID, layerFields: layerFields, stream: &stream).flatMap { $0 })
        #expect(out.map(\.data) == frames)
        #expect(out.map(\.isKeyframe) == [true, false, false, false])
        #expect(out.map(\.rtpTimestamp) == [0, 3000, 6000, 9000])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 4))
    }

    @Test func aLostPacketDropsItsFrameAndDeltaFramesUntilTheNextKeyframe() {
        var stream = TestRTPStream(), depacketizer = VP8Depacketizer()
        let frames = Self.frames() + Self.frames(count: 2, seed: 9)
        var sent = Self.packets(frames, pictureID: 1, stream: &stream)
        sent[1].remove(at: 1)
        var out = depacketizer.push(sent[0] + Array(sent[1].prefix(1)))
        depacketizer.packetsLost()
        out += depacketizer.push(Array(sent[1].dropFirst()) + sent[2...].flatMap { $0 })
        #expect(out.map(\.data) == [frames[0], frames[4], frames[5]])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 3, malformedPackets: 0, droppedFrames: 3))
    }

    @Test(arguments: [1, 3])
    func aLateJoinerWaitsForAKeyframe(skippedPackets: Int) {
        var stream = TestRTPStream(), depacketizer = VP8Depacketizer()
        let frames = Self.frames() + Self.frames(count: 1, seed: 9)
        let sent = Self.packets(frames, stream: &stream).flatMap { $0 }
        #expect(depacketizer.push(Array(sent.dropFirst(skippedPackets))).map(\.data) == [frames[4]])
        #expect(depacketizer.statistics.malformedPackets == 0)
    }

    static let truncatedDescriptors: [[UInt8]] = [
        [], [0x90], [0x90, 0x80], [0x90, 0x80, 0x85], [0x90, 0x80, 0x85, 0x00],
        [0x90, 0x40, 0x01], [0x90, 0x20, 0x01], [0x90, 0xF0, 0x01, 0x02, 0x03],
    ]

    @Test(arguments: truncatedDescriptors)
    func truncatedDescriptorsAreMalformed(payload: [UInt8]) {
        var stream = TestRTPStream(), depacketizer = VP8Depacketizer()
        let keyframe = Self.frames(count: 1)[0]
        var out = depacketizer.push(stream.packets(TestPacketizer.vp8(keyframe), timestamp: 0))
        out += depacketizer.push(stream.packets([payload], timestamp: 3000))
        out += depacketizer.push(stream.packets(TestPacketizer.vp8([0x11, 1, 2, 3]), timestamp: 6000))
        out += depacketizer.push(stream.packets(TestPacketizer.vp8(keyframe), timestamp: 9000))
        #expect(out.map(\.rtpTimestamp) == [0, 9000])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 1, droppedFrames: 2))
    }

    @Test func anOversizedFrameIsDroppedAsMalformed() {
        var stream = TestRTPStream(), depacketizer = VP8Depacketizer(maxFrameBytes: 2000)
        var out = depacketizer.push(stream.packets(TestPacketizer.vp8([0x10] + testBytes(5000, seed: 3)), timestamp: 0))
        out += depacketizer.push(stream.packets(TestPacketizer.vp8([0x10] + testBytes(1999, seed: 4)), timestamp: 3000))
        #expect(out.map(\.data.count) == [2000])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 1, malformedPackets: 1, droppedFrames: 1))
    }
}
