import Testing
import TesseraRTP

@Suite struct RTPReorderBufferTests {
    static func packet(_ sequence: UInt16, ssrc: UInt32 = 0xA) -> RTPPacket {
        RTPPacket(payloadType: 96, marker: false, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000,
                  ssrc: ssrc, payload: [UInt8(truncatingIfNeeded: sequence)])
    }

    /// The events as short strings: `5` a packet, `-2` a gap of two, `R` a restart, `b:5` a packet of SSRC 0xB.
    static func summary(_ events: [RTPReorderBuffer.Event]) -> [String] {
        events.map {
            switch $0 {
            case .packet(let packet, _): return packet.ssrc == 0xA ? "\(packet.sequenceNumber)" : "b:\(packet.sequenceNumber)"
            case .gap(let lost): return "-\(lost)"
            case .restart: return "R"
            }
        }
    }

    /// Inserts each sequence number 1 ms apart; returns all events.
    static func feed(_ buffer: inout RTPReorderBuffer, _ sequences: [UInt16], ssrc: UInt32 = 0xA,
                     startMicroseconds: Int64 = 0) -> [String] {
        sequences.enumerated().flatMap { index, sequence in
            summary(buffer.insert(packet(sequence, ssrc: ssrc), arrivalMicroseconds: startMicroseconds + Int64(index) * 1000))
        }
    }

    @Test func inOrderPacketsPassStraightThroughWithoutARestart() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [10, 11, 12]) == ["10", "11", "12"])
        #expect(buffer.nextDeadlineMicroseconds == nil)
        #expect(buffer.statistics.received == 3 && buffer.statistics.released == 3 && buffer.statistics.restarts == 0)
    }

    @Test func reorderedPacketsComeOutInSequence() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [1, 3, 4, 2, 5]) == ["1", "2", "3", "4", "5"])
        #expect(buffer.statistics.reordered == 1 && buffer.statistics.lost == 0)
    }

    @Test func wrapsAroundSixteenBits() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [65534, 0, 65535, 1]) == ["65534", "65535", "0", "1"])
    }

    @Test func aHoleIsDeclaredLostAfterMaxDelay() {
        var buffer = RTPReorderBuffer(maxDelayMicroseconds: 50_000)
        #expect(Self.feed(&buffer, [1, 4, 5]) == ["1"])
        #expect(buffer.nextDeadlineMicroseconds == 51_000)
        #expect(buffer.expire(nowMicroseconds: 50_999).isEmpty)
        // Packet 4 has waited 50 ms: 2 and 3 are lost; 5 follows at once.
        #expect(Self.summary(buffer.expire(nowMicroseconds: 51_000)) == ["-2", "4", "5"])
        #expect(buffer.nextDeadlineMicroseconds == nil)
        // 3 after its hole was declared lost is late; 5 again is a duplicate; 1 again too.
        #expect(Self.feed(&buffer, [3, 5, 1, 6], startMicroseconds: 60_000) == ["6"])
        #expect(buffer.statistics.late == 1 && buffer.statistics.duplicates == 2 && buffer.statistics.lost == 2)
    }

    @Test func insertHonoursAPassedDeadline() {
        var buffer = RTPReorderBuffer(maxDelayMicroseconds: 10_000)
        #expect(Self.summary(buffer.insert(Self.packet(1), arrivalMicroseconds: 0)) == ["1"])
        #expect(Self.summary(buffer.insert(Self.packet(3), arrivalMicroseconds: 1000)).isEmpty)
        #expect(Self.summary(buffer.insert(Self.packet(5), arrivalMicroseconds: 20_000)) == ["-1", "3"])
        #expect(buffer.nextDeadlineMicroseconds == 30_000)
    }

    @Test func aDuplicateOfAHeldPacketIsCountedOnce() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [1, 3, 3, 2]) == ["1", "2", "3"])
        #expect(buffer.statistics.duplicates == 1)
    }

    @Test func packetsBeforeTheFirstAreLate() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [100, 99, 101]) == ["100", "101"])
        #expect(buffer.statistics.late == 1 && buffer.statistics.duplicates == 0)
    }

    @Test func overflowingTheCapacityReleasesTheOldest() {
        var buffer = RTPReorderBuffer(capacity: 3)
        #expect(Self.feed(&buffer, [1, 3, 4, 5]) == ["1"])
        #expect(Self.feed(&buffer, [7], startMicroseconds: 4000) == ["-1", "3", "4", "5"])
        #expect(Self.feed(&buffer, [6], startMicroseconds: 5000) == ["6", "7"])
    }

    @Test func aStrayPacketFromAnotherSSRCDoesNotResetTheStream() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [1, 2]) == ["1", "2"])
        #expect(Self.feed(&buffer, [40000], ssrc: 0xB).isEmpty)
        #expect(Self.feed(&buffer, [3, 4]) == ["3", "4"])
        // Same SSRC, sequence numbers far away: a stray too.
        #expect(Self.feed(&buffer, [30000, 5]) == ["5"])
        #expect(buffer.statistics.foreign == 2 && buffer.statistics.restarts == 0)
    }

    @Test func aNewSenderIsAdoptedAfterProbation() {
        var buffer = RTPReorderBuffer(probation: 3)
        #expect(Self.feed(&buffer, [1, 2, 4]) == ["1", "2"])
        #expect(Self.feed(&buffer, [500, 501], ssrc: 0xB).isEmpty)
        // Out of sequence: probation starts again.
        #expect(Self.feed(&buffer, [9], ssrc: 0xB).isEmpty)
        #expect(Self.feed(&buffer, [10, 11], ssrc: 0xB) == ["-1", "4", "R", "b:9", "b:10", "b:11"])
        #expect(Self.feed(&buffer, [12, 14, 13], ssrc: 0xB) == ["b:12", "b:13", "b:14"])
        // The old stream's stragglers are now foreign.
        #expect(Self.feed(&buffer, [5], ssrc: 0xA).isEmpty)
        let statistics = buffer.statistics
        #expect(statistics.restarts == 1 && statistics.foreign == 6 && statistics.lost == 1)
        #expect(statistics.received == 12 && statistics.released == 9)
    }

    @Test func aRenumberedStreamWithTheSameSSRCIsAdopted() {
        var buffer = RTPReorderBuffer()
        #expect(Self.feed(&buffer, [100, 101, 5000, 5001, 5002]) == ["100", "101", "R", "5000", "5001", "5002"])
    }

    @Test func probationOfOneAdoptsAtOnce() {
        var buffer = RTPReorderBuffer(probation: 1)
        #expect(Self.feed(&buffer, [1]) + Self.feed(&buffer, [7], ssrc: 0xB) == ["1", "R", "b:7"])
    }

    @Test func eventsCarryEachPacketsOwnArrival() {
        var buffer = RTPReorderBuffer()
        _ = buffer.insert(Self.packet(1), arrivalMicroseconds: 100)
        _ = buffer.insert(Self.packet(3), arrivalMicroseconds: 200)
        let events = buffer.insert(Self.packet(2), arrivalMicroseconds: 300)
        #expect(events == [.packet(Self.packet(2), arrivalMicroseconds: 300), .packet(Self.packet(3), arrivalMicroseconds: 200)])
    }

    @Test func sequenceExtensionPicksTheNearestValue() {
        #expect(RTPReorderBuffer.extend(0, near: 65535) == 65536)
        #expect(RTPReorderBuffer.extend(65535, near: 65536) == 65535)
        #expect(RTPReorderBuffer.extend(10, near: 3 * 65536 + 5) == 3 * 65536 + 10)
        #expect(RTPReorderBuffer.extend(5, near: 0) == 5 && RTPReorderBuffer.extend(65531, near: 0) == -5)
    }
}
