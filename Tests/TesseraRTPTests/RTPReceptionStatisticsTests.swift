import Testing
import TesseraRTP

@Suite struct RTPReceptionStatisticsTests {
    @Test func countsLossPerIntervalAndInTotal() throws {
        var statistics = RTPReceptionStatistics(clockRate: 90_000)
        #expect(statistics.reportBlock(nowMicroseconds: 0) == nil)
        // 65530 ... 65535, 0 ... 9 with 3 and 4 missing: 16 expected, 14 received; across a wrap.
        let sequences: [UInt16] = Array(65530...65535) + [0, 1, 2, 5, 6, 7, 8, 9]
        for (index, sequence) in sequences.enumerated() {
            statistics.note(sequenceNumber: sequence, rtpTimestamp: UInt32(index) * 3000, ssrc: 9,
                            arrivalMicroseconds: Int64(index) * 33_333)
        }
        let firstReport = statistics.reportBlock(nowMicroseconds: 1_000_000)
        let first = try #require(firstReport)
        #expect(first.ssrc == 9)
        #expect(first.highestSequence == 65536 + 9)
        #expect(first.cumulativeLost == 2)
        #expect(first.fractionLost == UInt8(2 * 256 / 16))
        // The next interval has no loss: its fraction is 0, the total stays.
        statistics.note(sequenceNumber: 10, rtpTimestamp: 14 * 3000, ssrc: 9, arrivalMicroseconds: 14 * 33_333)
        let secondReport = statistics.reportBlock(nowMicroseconds: 1_100_000)
        let second = try #require(secondReport)
        #expect(second.fractionLost == 0)
        #expect(second.cumulativeLost == 2)
    }

    @Test func jitterFollowsRFC3550() throws {
        var statistics = RTPReceptionStatistics(clockRate: 90_000)
        // Packets every 3000 ticks (33.3 ms) arriving alternately 10 ms early and late: |D| = 1800 ticks
        // after the first pair, so J converges towards 1800.
        for index in 0..<400 {
            let offset: Int64 = index % 2 == 0 ? 10_000 : -10_000
            statistics.note(sequenceNumber: UInt16(index), rtpTimestamp: UInt32(index * 3000), ssrc: 1,
                            arrivalMicroseconds: Int64(index) * 1_000_000 / 30 + offset + 1_000_000)
        }
        let blockReport = statistics.reportBlock(nowMicroseconds: 20_000_000)
        let block = try #require(blockReport)
        #expect(abs(Int(block.jitter) - 1800) <= 2)
        #expect(abs(statistics.jitterMilliseconds - 20) < 0.1)
    }

    @Test func echoesTheLastSenderReport() throws {
        var statistics = RTPReceptionStatistics(clockRate: 48_000)
        statistics.note(sequenceNumber: 1, rtpTimestamp: 0, ssrc: 5, arrivalMicroseconds: 0)
        // Another SSRC's report is not ours to echo.
        statistics.noteSenderReport(ssrc: 6, ntpTimestamp: 0xAAAA_BBBB_CCCC_DDDD, arrivalMicroseconds: 0)
        let early = statistics.reportBlock(nowMicroseconds: 10)
        #expect(early?.lastSenderReport == 0)
        statistics.noteSenderReport(ssrc: 5, ntpTimestamp: 0xE123_4567_89AB_CDEF, arrivalMicroseconds: 1_000_000)
        let blockReport = statistics.reportBlock(nowMicroseconds: 1_500_000)
        let block = try #require(blockReport)
        #expect(block.lastSenderReport == 0x4567_89AB)
        #expect(block.delaySinceLastSenderReport == 32_768)
    }

    @Test func aNewSenderStartsAfresh() throws {
        var statistics = RTPReceptionStatistics(clockRate: 90_000)
        statistics.note(sequenceNumber: 100, rtpTimestamp: 0, ssrc: 1, arrivalMicroseconds: 0)
        statistics.note(sequenceNumber: 110, rtpTimestamp: 0, ssrc: 1, arrivalMicroseconds: 0)
        statistics.note(sequenceNumber: 7, rtpTimestamp: 0, ssrc: 2, arrivalMicroseconds: 0)
        let blockReport = statistics.reportBlock(nowMicroseconds: 0)
        let block = try #require(blockReport)
        #expect(block.ssrc == 2)
        #expect(block.cumulativeLost == 0)
        #expect(block.highestSequence == 7)
    }
}
