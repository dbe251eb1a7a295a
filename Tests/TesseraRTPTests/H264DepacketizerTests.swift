import Testing
import TesseraRTP

@Suite struct H264DepacketizerTests {
    /// A GOP: IDR access unit (SPS, PPS, big IDR slice) then P access units, 3000 ticks apart.
    static func gop(idrSize: Int = 5000, frames: Int = 4, seed: UInt64 = 1) -> [[[UInt8]]] {
        [[TestNAL.sps, TestNAL.pps, TestNAL.idr(idrSize, seed: seed)]]
            + (1..<frames).map { [TestNAL.slice(800 + 700 * $0, seed: seed + UInt64($0))] }
    }

    static func packets(_ accessUnits: [[[UInt8]]], stream: inout TestRTPStream, firstTimestamp: UInt32 = 90_000) -> [[RTPPacket]] {
        accessUnits.enumerated().map { index, nals in
            stream.packets(TestPacketizer.h264(nals), timestamp: firstTimestamp + UInt32(index) * 3000)
        }
    }

    @Test func singleNALUnitsStapAAndFUARoundTrip() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let accessUnits = Self.gop()
        let sent = Self.packets(accessUnits, stream: &stream)
        #expect(sent[0].count == 6 && sent[0][0].payload[0] & 0x1F == 24 && sent[0][1].payload[0] & 0x1F == 28)
        let frames = depacketizer.push(sent.flatMap { $0 })
        #expect(frames.map(\.data) == accessUnits.map(TestPacketizer.annexB))
        #expect(frames.map(\.isKeyframe) == [true, false, false, false])
        #expect(frames.map(\.rtpTimestamp) == [90_000, 93_000, 96_000, 99_000])
        #expect(frames[0].arrivalMicroseconds == Int64(sent[0].last!.sequenceNumber))
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 4))
    }

    @Test func aNewTimestampEndsAnAccessUnitWithoutMarker() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let first = stream.packets([TestNAL.idr(300)], timestamp: 10, marker: false)
        let second = stream.packets([TestNAL.slice(200)], timestamp: 20, marker: false)
        #expect(depacketizer.push(first).isEmpty)
        let frames = depacketizer.push(second)
        #expect(frames.map(\.data) == [TestPacketizer.annexB([TestNAL.idr(300)])])
    }

    @Test func spropParameterSetsGoAheadOfAnIDRWithoutSPS() {
        let sprop = H264Depacketizer.parameterSets(fromSprop: "Z0LAH4yNQFAe0A==, aM48gA,not*base64,,gA==")
        #expect(sprop == [TestNAL.sps, TestNAL.pps])
        var stream = TestRTPStream(), depacketizer = H264Depacketizer(parameterSets: sprop)
        let idr = TestNAL.idr(3000)
        var frames = depacketizer.push(stream.packets(TestPacketizer.h264([idr]), timestamp: 0))
        frames += depacketizer.push(stream.packets([TestNAL.aud, idr], timestamp: 3000))
        frames += depacketizer.push(stream.packets(TestPacketizer.h264([TestNAL.sps, TestNAL.pps, idr]), timestamp: 6000))
        #expect(frames.map(\.data) == [
            TestPacketizer.annexB([TestNAL.sps, TestNAL.pps, idr]),
            TestPacketizer.annexB([TestNAL.aud, TestNAL.sps, TestNAL.pps, idr]),
            TestPacketizer.annexB([TestNAL.sps, TestNAL.pps, idr]),
        ])
    }

    /// Parameter sets sent as an access unit of their own are dropped by the keyframe gate but
    /// kept, and go ahead of the IDR slice; the latest in-band ones win over sprop.
    @Test func inBandParameterSetsInTheirOwnAccessUnitReachTheKeyframe() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer(parameterSets: [[0x67, 0x00], [0x68, 0x00]])
        let idr = TestNAL.idr(2000)
        var frames = depacketizer.push(stream.packets(TestPacketizer.h264([TestNAL.sps, TestNAL.pps]), timestamp: 0))
        frames += depacketizer.push(stream.packets(TestPacketizer.h264([idr]), timestamp: 3000))
        #expect(frames.map(\.data) == [TestPacketizer.annexB([TestNAL.sps, TestNAL.pps, idr])])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 1, malformedPackets: 0, droppedFrames: 1))
    }

    @Test func aLostFragmentDropsItsAccessUnitAndPFramesUntilTheNextIDR() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let firstGOP = Self.gop(frames: 5, seed: 1), secondGOP = Self.gop(frames: 2, seed: 9)
        var sent = Self.packets(firstGOP + secondGOP, stream: &stream)
        #expect(sent[3].count == 3)
        sent[3].remove(at: 1)  // middle FU-A fragment of the third P frame
        var frames: [EncodedMediaFrame] = []
        for (index, accessUnit) in sent.enumerated() {
            for packet in accessUnit {
                if index == 3 && packet.sequenceNumber == accessUnit[1].sequenceNumber { depacketizer.packetsLost() }
                frames += depacketizer.push(packet, arrivalMicroseconds: 0)
            }
        }
        let expected = Array(firstGOP.prefix(3)) + secondGOP
        #expect(frames.map(\.data) == expected.map(TestPacketizer.annexB))
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 5, malformedPackets: 0, droppedFrames: 2))
    }

    @Test func aLostMarkerPacketDropsTheAccessUnitItEnded() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        var sent = Self.packets(Self.gop(frames: 3) + Self.gop(frames: 1, seed: 5), stream: &stream)
        sent[1].removeLast()
        var frames = depacketizer.push(sent[0] + sent[1])
        depacketizer.packetsLost()
        frames += depacketizer.push(sent[2] + sent[3])
        #expect(frames.map(\.isKeyframe) == [true, true])
        #expect(depacketizer.statistics.droppedFrames == 2)
    }

    /// Joining inside the IDR access unit (its first slice missing) or after it, mid-GOP.
    @Test(arguments: [2, 4, 6, 7])
    func aLateJoinerWaitsForTheNextIDR(skippedPackets: Int) {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let accessUnits = Self.gop(frames: 3) + Self.gop(frames: 2, seed: 7)
        let sent = Self.packets(accessUnits, stream: &stream).flatMap { $0 }
        let frames = depacketizer.push(Array(sent.dropFirst(skippedPackets)))
        #expect(frames.map(\.data) == accessUnits.suffix(2).map(TestPacketizer.annexB))
        #expect(depacketizer.statistics.malformedPackets == 0)
    }

    /// An access unit counts as whole from its first slice (first_mb_in_slice 0): senders that keep
    /// parameter sets in the SDP only never send anything before it. Missing parameter sets are
    /// what sprop is for.
    @Test func aLateJoinerAtTheFirstSliceGetsTheSpropParameterSets() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer(parameterSets: [TestNAL.sps, TestNAL.pps])
        let accessUnits = Self.gop(frames: 2)
        let sent = Self.packets(accessUnits, stream: &stream).flatMap { $0 }
        let frames = depacketizer.push(Array(sent.dropFirst()))
        #expect(frames.map(\.data) == accessUnits.map(TestPacketizer.annexB))
    }

    /// Payloads refused as malformed, each sent between two good keyframes.
    static let malformedPayloads: [[UInt8]] = [
        [0x7C, 0x05, 0x01, 0x02],                         // FU-A continuation without a start
        [0x7C, 0xC5, 0x01, 0x02],                         // FU-A start and end together
        [0x7C, 0x98, 0x01],                               // FU-A of an aggregate type
        [0x78, 0x00, 0x04, 0x67, 0x42],                   // STAP-A length past the end
        [0x78, 0x00, 0x00, 0x00, 0x02, 0x68, 0xCE],       // STAP-A zero length
        [0x78, 0x00, 0x02, 0x68, 0xCE, 0x00],             // STAP-A cut inside a length
        [0x78, 0x00, 0x02, 0xE8, 0xCE],                   // STAP-A NAL with the forbidden bit
        [0x78],                                           // STAP-A with nothing in it
        [0x60], [0x79, 0x00], [0x7A, 0x00], [0x7B, 0x00], // type 0, STAP-B, MTAP16, MTAP24
        [0x7D, 0x85, 0x00, 0x00, 0x01], [0x7E, 0x00], [0x7F, 0x00], // FU-B, 30, 31
        [0xE5, 0x88, 0x00],                               // forbidden_zero_bit
    ]

    @Test(arguments: malformedPayloads)
    func malformedPacketsAreCountedAndTheNextKeyframeComesOut(payload: [UInt8]) {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let keyframe = [TestNAL.sps, TestNAL.pps, TestNAL.idr(2500)]
        var frames = depacketizer.push(stream.packets(TestPacketizer.h264(keyframe), timestamp: 0))
        frames += depacketizer.push(stream.packets([payload], timestamp: 3000))
        frames += depacketizer.push(stream.packets([TestNAL.slice(100)], timestamp: 6000))
        frames += depacketizer.push(stream.packets(TestPacketizer.h264(keyframe), timestamp: 9000))
        #expect(frames.map(\.data) == [TestPacketizer.annexB(keyframe), TestPacketizer.annexB(keyframe)])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 1, droppedFrames: 2))
    }

    @Test func aFragmentStartWhileOneIsOpenDropsTheAccessUnit() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let keyframe = TestPacketizer.h264([TestNAL.idr(3000)])
        var frames = depacketizer.push(stream.packets(keyframe, timestamp: 0))
        frames += depacketizer.push(stream.packets([keyframe[0], keyframe[0], keyframe[1], keyframe[2]], timestamp: 3000))
        frames += depacketizer.push(stream.packets(keyframe, timestamp: 6000))
        #expect(frames.count == 2)
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 1, droppedFrames: 1))
    }

    @Test func anAccessUnitEndingInsideAFragmentIsDropped() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let keyframe = TestPacketizer.h264([TestNAL.idr(3000)])
        var frames = depacketizer.push(stream.packets(Array(keyframe.prefix(2)), timestamp: 0, marker: false))
        frames += depacketizer.push(stream.packets(keyframe, timestamp: 3000))
        #expect(frames.map(\.rtpTimestamp) == [3000])
        #expect(depacketizer.statistics.droppedFrames == 1)
    }

    @Test func anOversizedNALIsDroppedAndTheNextKeyframeComesOut() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer(maxFrameBytes: 4000)
        var frames = depacketizer.push(stream.packets(TestPacketizer.h264([TestNAL.idr(1000)]), timestamp: 0))
        frames += depacketizer.push(stream.packets(TestPacketizer.h264([TestNAL.idr(6000)]), timestamp: 3000))
        frames += depacketizer.push(stream.packets(TestPacketizer.h264([TestNAL.slice(500)]), timestamp: 6000))
        frames += depacketizer.push(stream.packets(TestPacketizer.h264([TestNAL.idr(3900)]), timestamp: 9000))
        #expect(frames.map(\.data.count) == [1004, 3904])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 1, droppedFrames: 2))
    }

    @Test func resetForgetsTheAccessUnitAndWaitsForAKeyframe() {
        var stream = TestRTPStream(), depacketizer = H264Depacketizer()
        let sent = Self.packets(Self.gop(frames: 2), stream: &stream)
        var frames = depacketizer.push(Array(sent[0].prefix(3)))
        depacketizer.reset()
        frames += depacketizer.push(sent[1])
        frames += depacketizer.push(sent[0])
        #expect(frames.map(\.isKeyframe) == [true])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 1, malformedPackets: 0, droppedFrames: 2))
    }
}
