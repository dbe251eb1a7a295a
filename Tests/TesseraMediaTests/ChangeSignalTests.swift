import Foundation
import Testing
import TesseraMedia

/// One waiting thread told of changes: coalesced, never lost, bounded by its timeout.
@Suite struct ChangeSignalTests {
    @Test func aNotificationBeforeTheWaitCountsOnce() {
        let signal = ChangeSignal()
        signal.notify()
        signal.notify()
        #expect(signal.wait(seconds: 1))
        #expect(!signal.wait(seconds: 0.01))
    }

    @Test func aWaitEndsWhenItsTimeRunsOut() {
        let signal = ChangeSignal()
        let start = DispatchTime.now().uptimeNanoseconds
        #expect(!signal.wait(seconds: 0.02))
        #expect(DispatchTime.now().uptimeNanoseconds - start >= 20_000_000)
    }

    @Test func aNotificationFromAnotherThreadWakesTheWaiter() {
        let signal = ChangeSignal()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            signal.wait()
            done.signal()
        }
        signal.notify()
        #expect(done.wait(timeout: .now() + 2) == .success)
    }
}
