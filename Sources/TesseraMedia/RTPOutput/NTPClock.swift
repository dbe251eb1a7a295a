import Glibc

/// The wall clock as RTCP sender reports carry it: 64-bit NTP time, seconds since 1900 in the
/// high half, the fraction of a second in the low.
enum NTPClock {
    private static let secondsFrom1900To1970: UInt64 = 2_208_988_800

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let seconds = UInt64(time.tv_sec) + secondsFrom1900To1970
        let fraction = (UInt64(time.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }
}
