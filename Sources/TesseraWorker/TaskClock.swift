import TesseraTask
import TesseraMedia

/// Monotonic time since a task's output started, in microseconds: the wall clock that live
/// output frames leave on and that live inputs are placed against.
final class TaskClock: Sendable {
    /// `MonotonicClock.nanoseconds` at the clock's zero. Live inputs are placed on this clock; the
    /// output's frame N leaves at this + (F + N) / fps, where F is the frame the output starts on
    /// once its inputs' first pictures are there (`FirstPictureGate`, logged as "output frame 0").
    let startNanoseconds: UInt64

    init() { startNanoseconds = MonotonicClock.nanoseconds }

    var nowMicroseconds: Int64 { Int64((MonotonicClock.nanoseconds - startNanoseconds) / 1_000) }

    /// Sleeps until the clock reads `microseconds`, however far ahead that is (an input placed
    /// seconds ahead, a gap in its timestamps), unless `stop` is raised first. Returns at once if
    /// the clock has already passed it. True when the time was reached, false when stopped.
    @discardableResult
    func sleep(until microseconds: Int64, unless stop: InterruptFlag) -> Bool {
        guard microseconds > 0 else { return !stop.isCancelled }
        return stop.sleep(untilMonotonicNanoseconds: startNanoseconds + UInt64(microseconds) * 1_000)
    }
}
