import TesseraRTP
import TesseraTestSupport

/// Makes the fuzzer's datagrams: runs of valid packets of every payload format, those packets
/// mutated at the RTP layer, and payloads crafted to stress each format's length fields.
struct RTPFuzzer {
    private var random: SplitMix64
    private(set) var timestamp: UInt32 = 0
    private var sequenceNumber: UInt16 = 0
    private var cursor = 0
    /// Packets left in a run of big NAL units at one timestamp (frames past the size limit).
    private var oversizedBurst = 0
    private let corpus = Self.makeCorpus()
    /// Random bytes made once; payload bodies are slices of it at random offsets, as a debug
    /// build spends most of its time making fresh random bytes otherwise.
    private let noisePool: [UInt8]

    init(seed: UInt64) {
        random = SplitMix64(state: seed)
        noisePool = random.bytes(1 << 16)
    }

    private mutating func noise(_ count: Int) -> ArraySlice<UInt8> {
        let start = random.below(noisePool.count - count)
        return noisePool[start..<start + count]
    }

    mutating func maybeAnnounceLossOrReset(_ harnesses: inout FuzzHarnesses) {
        if random.oneIn(64) { harnesses.packetsLost() }
        if random.oneIn(4096) { harnesses.reset() }
    }

    mutating func nextDatagram() -> [UInt8] {
        if oversizedBurst > 0 {
            oversizedBurst -= 1
            return datagram([0x41, 0x9A] + noise(1400), marker: oversizedBurst == 0, advance: false)
        }
        switch random.below(16) {
        case 0...3:
            return nextValid()
        case 4:
            var bytes = nextValid()
            for _ in 0...random.below(8) { bytes[random.below(bytes.count)] ^= 1 << UInt8(random.below(8)) }
            return bytes
        case 5:
            return Array(nextValid().prefix(random.below(40)))
        case 6:
            var bytes = nextValid()
            bytes[0] = bytes[0] & 0x3F | UInt8(random.below(4)) << 6
            return bytes
        case 7:
            var bytes = nextValid()
            bytes[0] |= 0x20
            bytes[bytes.count - 1] = random.oneIn(4) ? 0 : UInt8(clamping: bytes.count - 12 + random.below(200))
            return bytes
        case 8:
            var bytes = nextValid()
            bytes[0] |= 0x10
            bytes.insert(contentsOf: [0xBE, 0xDE, random.byte(), random.byte()], at: 12)
            return bytes
        case 9:
            var bytes = Array(noise(random.below(1500)))
            if random.oneIn(2) && bytes.count >= 12 { bytes[0] = 0x80; bytes[1] &= 0x7F }
            return bytes
        case 10:
            return datagram(randomAggregate())
        case 11:
            return datagram([0x7C & random.byte() | 0x1C, random.byte()] + noise(random.below(1400)))
        case 12:
            return datagram([random.byte() | (random.oneIn(2) ? 0x80 : 0)] + noise(random.below(6))
                            + noise(random.below(30)))
        case 13:
            return datagram([random.byte()] + noise(random.below(16)) + noise(random.below(30)))
        case 14:
            return datagram([0, UInt8(random.below(80))] + noise(random.below(12)) + noise(random.below(60)))
        default:
            oversizedBurst = 10 + random.below(10)
            return datagram([TestNAL.aud[0], TestNAL.aud[1]])
        }
    }

    /// STAP-A whose sizes are sometimes right, sometimes zero, sometimes past the end.
    private mutating func randomAggregate() -> [UInt8] {
        var payload: [UInt8] = [0x78]
        for _ in 0..<random.below(5) {
            let body = noise(random.below(40))
            let size = random.oneIn(3) ? random.below(80) : body.count
            payload += [UInt8(size >> 8), UInt8(size & 0xFF)] + body
        }
        return payload
    }

    private mutating func datagram(_ payload: [UInt8], marker: Bool? = nil, advance: Bool = true) -> [UInt8] {
        if advance && random.oneIn(3) { timestamp &+= 3000 }
        sequenceNumber &+= 1
        return RTPPacket(payloadType: 96, marker: marker ?? random.oneIn(4), sequenceNumber: sequenceNumber,
                         timestamp: timestamp, ssrc: 1, payload: payload).serialized()
    }

    private mutating func nextValid() -> [UInt8] {
        defer { cursor = (cursor + 1) % corpus.count }
        return corpus[cursor]
    }

    /// Valid datagrams of every format, in order, so runs of them make whole frames.
    private static func makeCorpus() -> [[UInt8]] {
        var stream = TestRTPStream()
        var packets: [RTPPacket] = []
        var t: UInt32 = 0
        func add(_ payloads: [[UInt8]]) { t &+= 3000; packets += stream.packets(payloads, timestamp: t) }
        add(TestPacketizer.h264([TestNAL.sps, TestNAL.pps, TestNAL.idr(40_000)], mtu: 1000))  // past the limit
        add(TestPacketizer.h264([TestNAL.sps, TestNAL.pps, TestNAL.idr(6000)], mtu: 1000))
        add(TestPacketizer.h264([TestNAL.slice(2500)], mtu: 1000))
        add(TestPacketizer.h264([TestNAL.aud, TestNAL.idr(900), TestNAL.slice(300)]))
        add(TestPacketizer.vp8([0x10] + testBytes(3000, seed: 1), pictureID: 200, layerFields: true))
        add(TestPacketizer.vp8([0x11] + testBytes(900, seed: 2), pictureID: 5))
        add(TestPacketizer.vp8([0x11] + testBytes(300, seed: 3)))
        add(TestPacketizer.vp9(testBytes(3000, seed: 4), keyframe: true))
        add(TestPacketizer.vp9(testBytes(1500, seed: 5), keyframe: false))
        add([TestPacketizer.aac([testBytes(200, seed: 6)])])
        add([TestPacketizer.aac((0..<3).map { testBytes(100 + $0, seed: 7) })])
        add(TestPacketizer.aacFragments(testBytes(3000, seed: 8), mtu: 1200))
        add([[0xFC] + testBytes(80, seed: 9)])
        return packets.map { $0.serialized() }
    }
}
