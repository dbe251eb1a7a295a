import Foundation
import Synchronization

/// A thread of its own for the live thumbnails' JPEG encoding and file writes, fed through a
/// short queue so that the output thread never waits on them.
///
/// Threads: `submit` and `finish` from the output thread; the jobs run on this thread.
final class ThumbnailThread: Sendable {
    /// One thumbnail's (or a track's) work: it owns what it touches until it has run.
    struct Job: @unchecked Sendable {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private struct State {
        var jobs: [Job] = []
        var ending = false
        var ended = false
    }

    /// Jobs waiting at most: a thumbnail every interval needs one; more means the disk is slow.
    static let capacity = 4
    private let state = Mutex(State())
    private let wake = ChangeSignal()
    private let done = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "thumbnails"
        thread.start()
    }

    var isRunning: Bool { state.withLock { !$0.ended && !$0.ending } }

    /// Queues `job`; false when the queue is full (or the thread ended) and the job was dropped.
    func submit(_ job: Job, evenWhenFull: Bool = false) -> Bool {
        let queued = state.withLock { state -> Bool in
            guard !state.ending, evenWhenFull || state.jobs.count < Self.capacity else { return false }
            state.jobs.append(job)
            return true
        }
        if queued { wake.notify() }
        return queued
    }

    /// Runs what is queued, then ends the thread; waits at most `timeoutSeconds`.
    func finish(timeoutSeconds: Double) {
        let first = state.withLock { state -> Bool in
            defer { state.ending = true }
            return !state.ending
        }
        guard first else { return }
        wake.notify()
        _ = done.wait(timeout: .now() + timeoutSeconds)
    }

    private func run() {
        defer {
            state.withLock { $0.ended = true }
            done.signal()
        }
        while true {
            let (jobs, ending) = state.withLock { state -> ([Job], Bool) in
                defer { state.jobs = [] }
                return (state.jobs, state.ending)
            }
            for job in jobs { job.run() }
            if jobs.isEmpty && ending { return }
            if jobs.isEmpty { wake.wait() }
        }
    }
}
