#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one clock Tessera measures and schedules with: `CLOCK_MONOTONIC`, which wall-clock steps
/// never move, which condition variables are told to wait on (`InterruptFlag`), and which FFmpeg's
/// own deadlines read (`av_gettime_relative`). Frames leave, inputs are paced, back-offs, leases,
/// hangs and request times are all measured on it; dates (`Date`) are only for showing when.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary start (the machine's boot).
    public static var nanoseconds: UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Seconds since the same start, for durations measured in seconds.
    public static var seconds: Double { Double(nanoseconds) / 1_000_000_000 }
}
