import Testing
import TesseraRTP

/// Each datagram on an RTP port is counted once: `packets.malformed` and `packets.refused.source`
/// never both count the same one (issue 30). The reader checks whether a datagram is RTP at all
/// (`RTPPacket.headerProblem`) before it looks at the sender (`RTPSenderLatch`).
@Suite struct PacketCountsOnceTests {
    let sender = RTPEndpoint(address: [10, 0, 0, 7], port: 40_000)
    let stranger = RTPEndpoint(address: [10, 0, 0, 66], port: 40_000)

    static func rtp(sequence: UInt16, payloadType: UInt8 = 96) -> [UInt8] {
        RTPPacket(payloadType: payloadType, marker: false, sequenceNumber: sequence, timestamp: 0, ssrc: 0x5EED,
                  payload: [0x65, 1, 2, 3]).serialized()
    }

    /// The reader's order, without sockets: header, then sender, then the whole parse.
    static func screen(_ datagram: [UInt8], from endpoint: RTPEndpoint, latch: inout RTPSenderLatch,
                       counts: inout [String: Int64]) {
        if RTPPacket.headerProblem(datagram) != nil { counts["malformed", default: 0] += 1; return }
        if case .refuse = latch.admit(endpoint, nowMicroseconds: 0) { counts["source", default: 0] += 1; return }
        if case .failure = RTPPacket.parse(datagram) { counts["malformed", default: 0] += 1 }
    }

    @Test func aStrangersGarbageIsMalformedOnlyAndHisRTPIsRefusedSourceOnly() {
        var latch = RTPSenderLatch(silenceMicroseconds: 2_000_000)
        var counts: [String: Int64] = [:]
        Self.screen(Self.rtp(sequence: 1), from: sender, latch: &latch, counts: &counts)
        // 40 datagrams that are both from a refused source and not RTP, 25 well-formed ones from him.
        let garbage: [[UInt8]] = [[], [0x80], Array(repeating: 0xFF, count: 40), [0x8F] + Array(repeating: 0, count: 20),
                                  [0x90, 96] + Array(repeating: 0, count: 10) + [0xBE, 0xDE, 0x7F, 0xFF]]
        for index in 0..<40 { Self.screen(garbage[index % garbage.count], from: stranger, latch: &latch, counts: &counts) }
        for sequence in 0..<25 { Self.screen(Self.rtp(sequence: UInt16(sequence)), from: stranger, latch: &latch, counts: &counts) }
        var total = PacketCounters()
        total.add(refused: counts, depacketizerMalformed: 3)
        #expect(total.refused == ["malformed": 40, "source": 25])
        #expect(total.malformed == 43)
        #expect(latch.latched == sender)
    }

    @Test func garbageFirstLatchesNobody() {
        var latch = RTPSenderLatch(silenceMicroseconds: 2_000_000)
        var counts: [String: Int64] = [:]
        Self.screen(Array(repeating: 0x00, count: 30), from: stranger, latch: &latch, counts: &counts)
        #expect(latch.latched == nil)
        Self.screen(Self.rtp(sequence: 1), from: sender, latch: &latch, counts: &counts)
        #expect(latch.latched == sender)
        #expect(counts == ["malformed": 1])
    }

    @Test func sourceRefusalsStayOutOfMalformedAndEveryOtherReasonIsIn() {
        var total = PacketCounters()
        total.add(refused: ["source": 300, "payloadType": 7, "malformed": 5, "truncated": 1, "authentication": 2, "zero": 0],
                  depacketizerMalformed: 4)
        total.add(refused: ["source": 1, "malformed": 1], depacketizerMalformed: 0)
        #expect(total.malformed == 7 + 5 + 1 + 2 + 4 + 1)
        #expect(total.refused == ["source": 301, "payloadType": 7, "malformed": 6, "truncated": 1, "authentication": 2])
    }

    @Test func aHeaderProblemIsAlwaysAParseFailure() {
        // Every datagram the header check refuses, the full parse refuses too; every one it parses
        // has a whole header. Random bytes with a mostly valid first byte, fixed seed.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for _ in 0..<20_000 {
            let length = Int(next() % 48)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            if !bytes.isEmpty && next() % 4 != 0 { bytes[0] = 0x80 | (bytes[0] & 0x3F) }
            let problem = RTPPacket.headerProblem(bytes)
            switch RTPPacket.parse(bytes) {
            case .success: #expect(problem == nil, "\(bytes)")
            case .failure(let error):
                if let problem { #expect(problem == error, "\(bytes)") }
                else { #expect([.badPadding, .emptyPayload].contains(error), "\(bytes): \(error)") }
            }
        }
    }
}
