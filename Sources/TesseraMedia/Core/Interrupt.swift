import CFFmpeg

/// The cancel flag and per-call deadline that FFmpeg's blocking calls poll (see shim.h).
///
/// Threads: `cancel()` and `setDeadline` may be called from any thread (atomics in C); the C
/// struct lives as long as this object, which every context using it keeps alive.
public final class InterruptFlag: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<TesseraInterrupt>

    public init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: TesseraInterrupt())
    }

    deinit { pointer.deallocate() }

    public func cancel() { tessera_interrupt_cancel(pointer) }
    public var isCancelled: Bool { tessera_interrupt_is_cancelled(pointer) != 0 }

    /// Makes blocking FFmpeg calls give up `seconds` from now; nil removes the deadline.
    public func setDeadline(secondsFromNow seconds: Double?) {
        let deadline = seconds.map { av_gettime_relative() + Int64($0 * 1_000_000) } ?? 0
        tessera_interrupt_set_deadline(pointer, deadline)
    }

    var callback: AVIOInterruptCB { tessera_make_interrupt(pointer) }
}
