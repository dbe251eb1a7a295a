import Testing
import TesseraService

/// When a silent worker counts as hung, on a clock the test moves.
@Suite struct HangWatchTests {
    /// `isHung` is mutating (a kill counts as hearing from the worker), which `#expect` cannot call.
    private func hung(_ watch: inout HangWatch, at now: Double) -> Bool { watch.isHung(at: now) }

    @Test func aWorkerThatReportsIsNeverHung() {
        var watch = HangWatch(limitSeconds: 15, now: 100)
        for second in stride(from: 101.0, through: 200, by: 1) {
            watch.heard(at: second)
            #expect(!hung(&watch, at: second + 0.5))
        }
    }

    @Test func silenceLongerThanTheLimitIsAHang() {
        var watch = HangWatch(limitSeconds: 15, now: 100)
        #expect(!hung(&watch, at: 115))
        #expect(hung(&watch, at: 115.1))
    }

    @Test func oneHangIsOneKill() {
        var watch = HangWatch(limitSeconds: 15, now: 0)
        #expect(hung(&watch, at: 16))
        // Checked every 2 s after the kill: the next kill only after another whole limit of silence.
        for second in stride(from: 18.0, through: 31, by: 2) { #expect(!hung(&watch, at: second)) }
        #expect(hung(&watch, at: 31.5))
    }

    @Test func aLateReportDoesNotMoveTheWatchBack() {
        var watch = HangWatch(limitSeconds: 15, now: 50)
        watch.heard(at: 40)
        #expect(!hung(&watch, at: 64))
        #expect(hung(&watch, at: 65.5))
    }
}
