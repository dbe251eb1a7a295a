import Foundation
import Synchronization

/// How the registry and its tasks wait with a time limit: for a callback to fire (a worker exits,
/// its snapshot arrives, its RTP sockets are bound, a racing `POST` of the same id is done, the
/// last webhook leaves) or for the seconds to pass, whichever comes first. No polling: the timer
/// and the callback race to resume one continuation, and only the first does.
enum SignalWait {
    /// `register` returns the value at once if it is there already, or keeps the callback it is
    /// given, to call with the value when it comes (and returns nil). After `seconds` without
    /// it, `fallback` is returned. `register` runs on the caller's actor (`isolation`), so an
    /// actor can check its state and keep the callback in one step.
    static func first<T: Sendable>(within seconds: Double, orElse fallback: T, isolation: isolated (any Actor)? = #isolation,
                                   register: (@escaping @Sendable (T) -> Void) -> T?) async -> T {
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<T, Never>) in
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
final class Once: Sendable {
    private let claimed = Mutex(false)
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
