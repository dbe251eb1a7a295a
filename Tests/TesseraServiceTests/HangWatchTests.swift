import Testing
import TesseraService

/// When a silent worker counts as hung, on a clock the test moves.
@Suite struct HangWatchTests {
    @Test func aWorkerThatReportsIsNeverHung() {
        var watch = HangWatch(limitSeconds: 15, now: 100)
        for second in stride(from: 101.0, through: 200, by: 1) {
            watch.heard(at: second)
            #expect(!watch.isHung(at: second + 0.5))
        }
    }

    @Test func silenceLongerThanTheLimitIsAHang() {
        var watch = HangWatch(limitSeconds: 15, now: 100)
        #expect(!watch.isHung(at: 115))
        #expect(watch.isHung(at: 115.1))
    }

    @Test func oneHangIsOneKill() {
        var watch = HangWatch(limitSeconds: 15, now: 0)
        #expect(watch.isHung(at: 16))
        // Checked every 2 s after the kill: the next kill only after another whole limit of silence.
        for second in stride(from: 18.0, through: 31, by: 2) { #expect(!watch.isHung(at: second)) }
        #expect(watch.isHung(at: 31.5))
    }

    @Test func aLateReportDoesNotMoveTheWatchBack() {
        var watch = HangWatch(limitSeconds: 15, now: 50)
        watch.heard(at: 40)
        #expect(!watch.isHung(at: 64))
        #expect(watch.isHung(at: 65.5))
    }
}
