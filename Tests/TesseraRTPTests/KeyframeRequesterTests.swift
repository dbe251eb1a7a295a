import Testing
import TesseraRTP

@Suite struct KeyframeRequesterTests {
    /// Every request over `duration` when polled each millisecond.
    private func requests(_ requester: inout KeyframeRequester, from start: Int64, to end: Int64) -> [Int64] {
        stride(from: start, to: end, by: 1_000).filter { requester.poll(nowMicroseconds: $0) != nil }
    }

    @Test func asksAtOnceThenBacksOffUntilAKeyframeComes() {
        var requester = KeyframeRequester()
        #expect(requester.poll(nowMicroseconds: 0) == nil)
        requester.need(.start, nowMicroseconds: 0)
        // 0, +500, +750, +1125, +1687.5 (polled each ms: 4.063 s), then every 2 s at most.
        #expect(requests(&requester, from: 0, to: 10_000_000) == [0, 500_000, 1_250_000, 2_375_000, 4_063_000, 6_063_000, 8_063_000])
        #expect(requester.requests == 7)
        requester.keyframeArrived()
        #expect(requester.pending == nil)
        #expect(requests(&requester, from: 10_000_000, to: 20_000_000).isEmpty)
    }

    @Test func aBurstOfNeedsAsksOnce() {
        var requester = KeyframeRequester()
        for time in stride(from: Int64(0), to: 300_000, by: 10_000) {
            requester.need(.referenceLost, nowMicroseconds: time)
            _ = requester.poll(nowMicroseconds: time)
        }
        #expect(requester.requests == 1)
    }

    @Test func keepsAMinimumGapBetweenSeparateLosses() {
        var requester = KeyframeRequester(minimumGapMicroseconds: 200_000)
        requester.need(.start, nowMicroseconds: 0)
        #expect(requester.poll(nowMicroseconds: 0) == .start)
        requester.keyframeArrived()
        requester.need(.referenceLost, nowMicroseconds: 50_000)
        #expect(requester.poll(nowMicroseconds: 50_000) == nil)
        #expect(requester.nextDeadlineMicroseconds == 200_000)
        #expect(requester.poll(nowMicroseconds: 200_000) == .referenceLost)
    }
}
