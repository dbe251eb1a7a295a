import Foundation
import Testing
import TesseraTask
import TesseraMedia

/// The sleeps live pacing and back-off rest on: they last until their deadline, however far
/// ahead, and end at once when their flag is raised.
@Suite struct InterruptibleSleepTests {
    private static func now() -> UInt64 { MonotonicClock.nanoseconds }

    @Test func aSleepLastsUntilItsDeadlinePastOneSecond() {
        let flag = InterruptFlag()
        let start = Self.now()
        #expect(flag.sleep(untilMonotonicNanoseconds: start + 1_600_000_000))
        let slept = Double(Self.now() - start) / 1e9
        #expect(slept >= 1.6 && slept < 2.0, "slept \(slept) s for a 1.6 s deadline")
    }

    @Test func aDeadlineInThePastReturnsAtOnce() {
        let flag = InterruptFlag()
        let start = Self.now()
        #expect(flag.sleep(untilMonotonicNanoseconds: start - 1_000))
        #expect(flag.sleep(seconds: 0))
        #expect(Self.now() - start < 50_000_000)
    }

    @Test func raisingTheFlagWakesASleeperAtOnce() {
        let flag = InterruptFlag()
        let start = Self.now()
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.2)
            flag.cancel()
        }
        #expect(flag.sleep(seconds: 5) == false)
        let slept = Double(Self.now() - start) / 1e9
        #expect(slept >= 0.19 && slept < 0.6, "woke after \(slept) s, the flag was raised at 0.2 s")
        // A raised flag ends every later sleep at once.
        #expect(flag.sleep(seconds: 5) == false)
        #expect(Double(Self.now() - start) / 1e9 < 0.7)
    }

    @Test func retirementWaitsForWhatItRunsWithinItsBound() {
        let retirement = Retirement()
        let flag = InterruptFlag()
        retirement.retire("test-stuck") { flag.sleep(seconds: 10) }
        let start = Self.now()
        #expect(retirement.wait(timeoutSeconds: 0.2) == false, "a stuck job is not waited for past the bound")
        #expect(Double(Self.now() - start) / 1e9 < 0.5)
        flag.cancel()
        #expect(retirement.wait(timeoutSeconds: 2))
    }
}
