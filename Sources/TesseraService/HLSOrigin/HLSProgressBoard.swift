import Foundation
import Synchronization
import TesseraTask

/// The newest part the worker published for each playlist of a task (its `hls` events, about
/// three a second per playlist), and the origin's requests held until a part appears. A request
/// is resumed by the event that brings its part (no polling), or by its time limit, or when the
/// worker exits (the playlist is then answered as it stands).
///
/// Threads: `publish` from the worker's event loop, `wait` from request handlers; one `Mutex`.
public final class HLSProgressBoard: Sendable {
    private struct Waiter {
        var awaited: HLSBlockingRequest.Awaited
        var deadline: Double
        var resume: @Sendable (Bool) -> Void
    }

    private struct State {
        /// Playlist path (standardized) → the newest part published.
        var newest: [String: HLSPartPosition] = [:]
        var waiters: [String: [Waiter]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// The worker wrote part `position` of `playlist` and the playlist lists it.
    public func publish(playlist: String, position: HLSPartPosition) {
        let key = Self.key(playlist)
        let now = MonotonicClock.seconds
        let ready: [@Sendable (Bool) -> Void] = state.withLock { state in
            state.newest[key] = position
            guard let waiting = state.waiters[key], !waiting.isEmpty else { return [] }
            var kept: [Waiter] = []
            var ready: [@Sendable (Bool) -> Void] = []
            for waiter in waiting {
                if waiter.awaited.isReached(by: position) {
                    ready.append(waiter.resume)
                } else if waiter.deadline > now {
                    kept.append(waiter)
                }
                // Past its deadline: its timer has answered it already.
            }
            state.waiters[key] = kept
            return ready
        }
        ready.forEach { $0(true) }
    }

    /// The newest part published of `playlist`, if any.
    public func newest(playlist: String) -> HLSPartPosition? {
        state.withLock { $0.newest[Self.key(playlist)] }
    }

    /// True once `awaited` is published for `playlist` (at once if it is already), false after
    /// `timeoutSeconds`; true also when the worker exits meanwhile (`wakeAll`).
    public func wait(playlist: String, for awaited: HLSBlockingRequest.Awaited, timeoutSeconds: Double) async -> Bool {
        let key = Self.key(playlist)
        let deadline = MonotonicClock.seconds + timeoutSeconds
        return await SignalWait.first(within: timeoutSeconds, orElse: false) { resume in
            state.withLock { state in
                if let newest = state.newest[key], awaited.isReached(by: newest) { return true }
                state.waiters[key, default: []].append(Waiter(awaited: awaited, deadline: deadline, resume: resume))
                return nil
            }
        }
    }

    /// The worker exited: every held request is answered with what is on disk, and the
    /// progress starts afresh with the next worker.
    public func wakeAll() {
        let all: [@Sendable (Bool) -> Void] = state.withLock { state in
            defer { state = State() }
            return state.waiters.values.flatMap { $0.map(\.resume) }
        }
        all.forEach { $0(true) }
    }

    /// Paths as the worker and the origin both spell them.
    static func key(_ path: String) -> String { (path as NSString).standardizingPath }
}
