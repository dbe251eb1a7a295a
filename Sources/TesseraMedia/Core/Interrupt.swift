import CFFmpeg
import TesseraTask
#if canImport(Glibc)
import Glibc
#endif

/// The cancel flag and per-call deadline that FFmpeg's blocking calls poll (see shim.h), and the
/// sleeps that end when it is raised: a thread waiting for a frame's time or between reconnects
/// is woken at once by `cancel()`, not when its sleep runs out.
///
/// Threads: `cancel()`, `setDeadline` and `sleep` may be called from any thread (atomics in C, a
/// mutex and condition variable for the sleeps); the C struct lives as long as this object, which
/// every context using it keeps alive.
public final class InterruptFlag: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<TesseraInterrupt>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// On `CLOCK_MONOTONIC`, so that a wall-clock step never lengthens or cuts short a sleep.
    private let wakeup: UnsafeMutablePointer<pthread_cond_t>
    /// Readable once `cancel()` is called, for threads that wait in `poll` (RTP sockets) rather
    /// than on the condition variable; -1 if the kernel gave none (they then wake every 20 ms).
    let wakeDescriptor: Int32

    public init() {
        wakeDescriptor = tessera_eventfd()
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: TesseraInterrupt())
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        wakeup = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wakeup, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
        pthread_cond_destroy(wakeup)
        pthread_mutex_destroy(mutex)
        wakeup.deallocate()
        mutex.deallocate()
        pointer.deallocate()
    }

    public func cancel() {
        tessera_interrupt_cancel(pointer)
        if wakeDescriptor >= 0 { tessera_eventfd_signal(wakeDescriptor) }
        // The flag is set before the mutex is taken, and sleepers test it under the mutex before
        // waiting: a sleeper either sees it or is already waiting when this broadcast comes.
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(wakeup)
        pthread_mutex_unlock(mutex)
    }

    public var isCancelled: Bool { tessera_interrupt_is_cancelled(pointer) != 0 }

    /// Makes blocking FFmpeg calls give up `seconds` from now; nil removes the deadline.
    public func setDeadline(secondsFromNow seconds: Double?) {
        let deadline = seconds.map { av_gettime_relative() + Int64($0 * 1_000_000) } ?? 0
        tessera_interrupt_set_deadline(pointer, deadline)
    }

    /// Makes blocking FFmpeg calls give up at once (abandoning a connection: its close then
    /// sends nothing more to a peer that stopped reading).
    public func expire() {
        tessera_interrupt_set_deadline(pointer, max(1, av_gettime_relative() - 1))
    }

    var callback: AVIOInterruptCB { tessera_make_interrupt(pointer) }

    // MARK: Stall watch (the calling thread's own FFmpeg calls)

    /// Makes the FFmpeg calls this thread makes next give up once `context`'s output has not moved
    /// for `seconds` (see shim.h); nil context ends the watch. Call on the thread that calls FFmpeg.
    func watchProgress(of context: UnsafeMutablePointer<AVFormatContext>?, stallSeconds seconds: Double) {
        tessera_interrupt_watch(pointer, context, Int64(seconds * 1_000_000))
    }

    /// Forgets `context` (being closed): a container later made at the same address is a new connection.
    func forget(_ context: UnsafeMutablePointer<AVFormatContext>) {
        tessera_interrupt_forget(pointer, context)
    }

    /// Whether the last watched call gave up because nothing moved (rather than a deadline or a cancel).
    var didStall: Bool { tessera_interrupt_stalled(pointer) != 0 }

    // MARK: Sleeps

    /// Sleeps until `MonotonicClock.nanoseconds` reaches `deadline`, however far ahead, or until
    /// `cancel()`. Returns true when the deadline was reached, false when cancelled.
    @discardableResult
    public func sleep(untilMonotonicNanoseconds deadline: UInt64) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        // The condition variable waits on the same clock, so the deadline is handed over as it is.
        var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while !isCancelled {
            guard MonotonicClock.nanoseconds < deadline else { return true }
            _ = pthread_cond_timedwait(wakeup, mutex, &until)
        }
        return false
    }

    /// Sleeps `seconds`, or until `cancel()`. Returns true when the time ran out, false when cancelled.
    @discardableResult
    public func sleep(seconds: Double) -> Bool {
        let nanoseconds = UInt64(max(0, seconds) * 1_000_000_000)
        return sleep(untilMonotonicNanoseconds: MonotonicClock.nanoseconds + nanoseconds)
    }
}
