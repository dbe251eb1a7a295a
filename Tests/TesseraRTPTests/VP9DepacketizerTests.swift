import Testing
import TesseraRTP

@Suite struct VP9DepacketizerTests {
    static func frames(count: Int = 4, seed: UInt64 = 1) -> [[UInt8]] {
        (0..<count).map { testBytes(3500 - 700 * $0, seed: seed + UInt64($0)) }
    }

    /// A GOP: the first frame a keyframe.
    static func packets(_ frames: [[UInt8]], stream: inout TestRTPStream, firstTimestamp: UInt32 = 0) -> [[RTPPacket]] {
        frames.enumerated().map { index, frame in
            stream.packets(TestPacketizer.vp9(frame, keyframe: index == 0, pictureID: 300 + index),
                           timestamp: firstTimestamp + UInt32(index) * 3000)
        }
    }

    @Test func singleLayerRoundTrip() {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        let frames = Self.frames()
        let sent = Self.packets(frames, stream: &stream)
        #expect(sent[0].count == 3 && sent[0][0].payload[0] & 0x02 != 0)
        let out = depacketizer.push(sent.flatMap { $0 })
        #expect(out.map(\.data) == frames)
        #expect(out.map(\.isKeyframe) == [true, false, false, false])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 4))
    }

    /// E ends a frame even without the marker bit (one spatial layer of several).
    @Test func theEndBitEndsAFrame() {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        let out = depacketizer.push(stream.packets(TestPacketizer.vp9([1, 2, 3], keyframe: true), timestamp: 0, marker: false))
        #expect(out.map(\.data) == [[1, 2, 3]])
    }

    /// A frame whose E packet never came (no sequence gap: the sender left it out) is incomplete
    /// as far as anyone knows, so it never reaches the decoder; the keyframe after it does.
    @Test func aFrameInterruptedBeforeItsEndIsDropped() {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        var unfinished = stream.packets(TestPacketizer.vp9(testBytes(3000, seed: 2), keyframe: true), timestamp: 0)
        unfinished.removeLast()
        let key = testBytes(2000, seed: 3)
        let out = depacketizer.push(unfinished + stream.packets(TestPacketizer.vp9(key, keyframe: true), timestamp: 3000))
        #expect(out.map(\.data) == [key])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 1, malformedPackets: 0, droppedFrames: 1))
    }

    /// Flexible mode: layer indices without TL0PICIDX, then P_DIFF bytes chained by their N bit.
    @Test func flexibleModeReferencesAreSkipped() {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        let key: [UInt8] = [0xBC, 0x05, 0x00, 0xAA]            // I L F B E, picture id 5
        let delta: [UInt8] = [0xFC, 0x06, 0x00, 0x03, 0x05, 0x02, 0xBB]  // + P, three P_DIFFs
        let out = depacketizer.push(stream.packets([key], timestamp: 0) + stream.packets([delta], timestamp: 3000))
        #expect(out.map(\.data) == [[0xAA], [0xBB]])
        #expect(out.map(\.isKeyframe) == [true, false])
    }

    @Test func aLostPacketDropsFramesUntilTheNextKeyframe() {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        let frames = Self.frames() + Self.frames(count: 2, seed: 7)
        let sent = Self.packets(Array(frames.prefix(4)), stream: &stream)
            + Self.packets(Array(frames.suffix(2)), stream: &stream, firstTimestamp: 12_000)
        var out = depacketizer.push(sent[0] + sent[1])
        depacketizer.packetsLost()
        out += depacketizer.push(Array(sent[2].dropFirst()) + sent[3...].flatMap { $0 })
        #expect(out.map(\.data) == [frames[0], frames[1], frames[4], frames[5]])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 4, malformedPackets: 0, droppedFrames: 2))
    }

    @Test func aLateJoinerWaitsForAKeyframe() {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        let sent = Self.packets(Self.frames(), stream: &stream).flatMap { $0 }
        #expect(depacketizer.push(Array(sent.dropFirst())).isEmpty)
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 0, malformedPackets: 0, droppedFrames: 4))
    }

    static let malformedDescriptors: [[UInt8]] = [
        [], [0x88], [0x88, 0x05], [0x88, 0x85], [0x88, 0x85, 0x01],  // nothing after picture ids
        [0xA8, 0x05, 0x00],                         // L without TL0PICIDX (non-flexible) and no data
        [0xF8, 0x05, 0x00, 0x03, 0x03, 0x03, 0xAA],  // four chained P_DIFFs
        [0x8A, 0x05, 0x10, 0x02, 0x80, 0x01],        // scalability structure: size cut short
        [0x8A, 0x05, 0x08, 0x02, 0x04],              // scalability structure: P_DIFF missing
    ]

    @Test(arguments: malformedDescriptors)
    func malformedDescriptorsAreCountedAndTheNextKeyframeComesOut(payload: [UInt8]) {
        var stream = TestRTPStream(), depacketizer = VP9Depacketizer()
        let keyframe = TestPacketizer.vp9([1, 2, 3], keyframe: true)
        var out = depacketizer.push(stream.packets(keyframe, timestamp: 0))
        out += depacketizer.push(stream.packets([payload], timestamp: 3000))
        out += depacketizer.push(stream.packets(TestPacketizer.vp9([4, 5], keyframe: false), timestamp: 6000))
        out += depacketizer.push(stream.packets(keyframe, timestamp: 9000))
        #expect(out.map(\.rtpTimestamp) == [0, 9000])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 1, droppedFrames: 2))
    }
}
