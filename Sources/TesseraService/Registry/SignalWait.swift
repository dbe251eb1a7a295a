import Foundation

/// The service side's one way to wait with a time limit: for a callback to fire (a worker
/// exits, its snapshot arrives, the last webhook leaves) or for the seconds to pass, whichever
/// comes first. No polling: the timer and the callback race to resume one continuation, and
/// only the first does.
enum SignalWait {
    /// `register` returns the value at once if it is there already, or keeps the callback it is
    /// given, to call with the value when it comes (and returns nil). After `seconds` without
    /// it, `fallback` is returned.
    static func first<T: Sendable>(within seconds: Double, orElse fallback: T,
                                   register: (@escaping @Sendable (T) -> Void) -> T?) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let once = Once()
            let deliver: @Sendable (T) -> Void = { value in if once.claim() { continuation.resume(returning: value) } }
            if let ready = register(deliver) {
                deliver(ready)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { deliver(fallback) }
        }
    }
}

/// True for the first caller of `claim()` only: of several racing callbacks, one resumes.
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool { lock.withLock { defer { claimed = true }; return !claimed } }
}
