import Testing
import TesseraRTP

@Suite struct NACKSchedulerTests {
    @Test func asksForEachHoleAtOnceThenRetriesABoundedNumberOfTimes() {
        var scheduler = NACKScheduler(retryMicroseconds: 20_000, maximumAttempts: 3)
        #expect(scheduler.update(missing: [10, 11], nowMicroseconds: 0) == [10, 11])
        #expect(scheduler.update(missing: [10, 11], nowMicroseconds: 10_000) == [])
        #expect(scheduler.nextDeadlineMicroseconds == 20_000)
        // 11 arrived: only 10 is asked for again; a new hole joins at once.
        #expect(scheduler.update(missing: [10, 14], nowMicroseconds: 20_000) == [10, 14])
        #expect(scheduler.update(missing: [10, 14], nowMicroseconds: 40_000) == [10, 14])
        #expect(scheduler.update(missing: [10, 14], nowMicroseconds: 60_000) == [14])
        #expect(scheduler.update(missing: [10, 14], nowMicroseconds: 200_000) == [])
        #expect(scheduler.nextDeadlineMicroseconds == nil)
        #expect(scheduler.requestedPackets == 7)
    }

    @Test func boundsTheHolesItTracks() {
        var scheduler = NACKScheduler(maximumHoles: 4)
        #expect(scheduler.update(missing: (0..<100).map { UInt16($0) }, nowMicroseconds: 0) == [0, 1, 2, 3])
    }
}

@Suite struct RTPReorderBufferMissingTests {
    @Test func listsTheHolesBeforeTheNewestHeldPacket() {
        var buffer = RTPReorderBuffer(maxDelayMicroseconds: 50_000)
        func packet(_ sequence: UInt16) -> RTPPacket {
            RTPPacket(payloadType: 96, marker: false, sequenceNumber: sequence, timestamp: 0, ssrc: 1, payload: [1])
        }
        _ = buffer.insert(packet(65534), arrivalMicroseconds: 0)
        #expect(buffer.missingSequenceNumbers().isEmpty)
        _ = buffer.insert(packet(1), arrivalMicroseconds: 1)
        _ = buffer.insert(packet(4), arrivalMicroseconds: 2)
        #expect(buffer.missingSequenceNumbers() == [65535, 0, 2, 3])
        #expect(buffer.missingSequenceNumbers(limit: 2) == [65535, 0])
        _ = buffer.insert(packet(65535), arrivalMicroseconds: 3)
        _ = buffer.insert(packet(0), arrivalMicroseconds: 3)
        #expect(buffer.missingSequenceNumbers() == [2, 3])
        // Once the wait is over the holes are lost, not missing.
        _ = buffer.expire(nowMicroseconds: 100_000)
        #expect(buffer.missingSequenceNumbers().isEmpty)
    }
}
