import Testing
import TesseraRTP

@Suite struct AACDepacketizerTests {
    static func units(_ count: Int, seed: UInt64 = 1) -> [[UInt8]] {
        (0..<count).map { testBytes(180 + 37 * $0, seed: seed + UInt64($0)) }
    }

    @Test(arguments: [1, 3])
    func roundTrip(unitCount: Int) {
        var stream = TestRTPStream(), depacketizer = AACDepacketizer()
        let units = Self.units(unitCount)
        let out = depacketizer.push(stream.packets([TestPacketizer.aac(units)], timestamp: 4_294_966_000))
        #expect(out.map(\.data) == units)
        #expect(out.map(\.rtpTimestamp) == (0..<UInt32(unitCount)).map { 4_294_966_000 &+ $0 * 1024 })
        #expect(!out.map(\.isKeyframe).contains(false))
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: Int64(unitCount)))
    }

    @Test func aFragmentedUnitIsReassembled() {
        var stream = TestRTPStream(), depacketizer = AACDepacketizer()
        let unit = testBytes(3000, seed: 5)
        let fragments = TestPacketizer.aacFragments(unit, mtu: 1200)
        #expect(fragments.count == 3)
        let out = depacketizer.push(stream.packets(fragments, timestamp: 1024))
        #expect(out.map(\.data) == [unit])
        #expect(out.map(\.rtpTimestamp) == [1024])
    }

    @Test func aLostFragmentDropsTheUnitOnly() {
        var stream = TestRTPStream(), depacketizer = AACDepacketizer()
        let unit = testBytes(3000, seed: 5)
        let sent = stream.packets(TestPacketizer.aacFragments(unit, mtu: 1200), timestamp: 0)
        var out = depacketizer.push(Array(sent.prefix(1)))
        depacketizer.packetsLost()
        out += depacketizer.push(Array(sent.suffix(1)))
        let next = Self.units(2)
        out += depacketizer.push(stream.packets([TestPacketizer.aac(next)], timestamp: 1024))
        #expect(out.map(\.data) == next)
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 0, droppedFrames: 1))
    }

    static let malformedPayloads: [[UInt8]] = [
        [0x00],                                     // no AU-headers-length
        [0x00, 0x00, 0xAA],                         // zero header bits
        [0x00, 0x20, 0x00, 0x08],                   // two headers announced, one present
        [0x00, 0x12, 0x00, 0x08, 0x00, 0xAA],       // 18 bits: a header cut short
        [0x00, 0x20, 0x00, 0x10, 0x00, 0x10, 0xAA, 0xBB, 0xCC], // two AUs of 2, three bytes
    ]

    @Test(arguments: malformedPayloads)
    func malformedHeadersAreCounted(payload: [UInt8]) {
        var stream = TestRTPStream(), depacketizer = AACDepacketizer()
        var out = depacketizer.push(stream.packets([payload], timestamp: 0))
        out += depacketizer.push(stream.packets([TestPacketizer.aac(Self.units(1))], timestamp: 1024))
        #expect(out.map(\.rtpTimestamp) == [1024])
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 1, malformedPackets: 1, droppedFrames: 0))
    }

    @Test func otherHeaderLayouts() {
        // AAC-lbr: 6-bit size, 2-bit index, one byte per header.
        var stream = TestRTPStream(), depacketizer = AACDepacketizer(sizeLength: 6, indexLength: 2, indexDeltaLength: 2)
        let payload: [UInt8] = [0x00, 0x10, 0x02 << 2, 0x01 << 2, 0xAA, 0xBB, 0xCC]
        let out = depacketizer.push(stream.packets([payload], timestamp: 0))
        #expect(out.map(\.data) == [[0xAA, 0xBB], [0xCC]])
    }

    @Test func audioSpecificConfigFromHex() {
        #expect(AACDepacketizer.audioSpecificConfig(fromHex: "1190") == [0x11, 0x90])
        #expect(AACDepacketizer.audioSpecificConfig(fromHex: "121056E500") == [0x12, 0x10, 0x56, 0xE5, 0x00])
        #expect(AACDepacketizer.audioSpecificConfig(fromHex: "119") == nil)
        #expect(AACDepacketizer.audioSpecificConfig(fromHex: "11g0") == nil)
        #expect(AACDepacketizer.audioSpecificConfig(fromHex: "") == nil)
    }
}

@Suite struct WholePacketDepacketizerTests {
    @Test func eachPayloadIsOneFrame() {
        var stream = TestRTPStream(), depacketizer = WholePacketDepacketizer()
        let out = depacketizer.push(stream.packets([[0xFC, 1, 2]], timestamp: 960) + stream.packets([[0xFC, 3]], timestamp: 1920))
        #expect(out.map(\.data) == [[0xFC, 1, 2], [0xFC, 3]])
        #expect(out.map(\.rtpTimestamp) == [960, 1920])
        #expect(depacketizer.push(RTPPacket(payloadType: 111, marker: false, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: []),
                                  arrivalMicroseconds: 0).isEmpty)
        #expect(depacketizer.statistics == DepacketizerStatistics(frames: 2, malformedPackets: 1))
    }
}
