import Dispatch

/// Monotonic time since a task's output started, in microseconds: the wall clock that live
/// output frames leave on and that live inputs are placed against.
final class TaskClock: Sendable {
    private let startNanoseconds: UInt64

    init() { startNanoseconds = DispatchTime.now().uptimeNanoseconds }

    var nowMicroseconds: Int64 { Int64((DispatchTime.now().uptimeNanoseconds - startNanoseconds) / 1_000) }

    /// Sleeps until the clock reads `microseconds` (returns at once if it already has).
    func sleep(until microseconds: Int64) {
        let remaining = microseconds - nowMicroseconds
        if remaining > 0 { usleep(UInt32(min(remaining, 1_000_000))) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
