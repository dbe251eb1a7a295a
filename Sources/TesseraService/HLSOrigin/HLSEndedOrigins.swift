import Foundation
import Synchronization
import TesseraTask

/// The origins of tasks that ended on this node, kept a while after the registry forgets them
/// (it does as soon as the final status is stored). A player polling the live playlist when the
/// stream ends then gets the final playlist (`#EXT-X-ENDLIST`, the last window or the whole
/// event) and stops cleanly, and a viewer rewinding the window can finish, instead of a 404 that
/// players report as a fatal error. Longer replays are the recording's business (the output
/// folder or the bucket). The newest `capacity` tasks are kept, each `keepSeconds`.
///
/// Threads: any; one `Mutex`. Pure but for the clock, which callers may pass.
public final class HLSEndedOrigins: Sendable {
    public static let defaultKeepSeconds = 600.0
    public static let defaultCapacity = 64

    private struct Kept {
        var origin: HLSOriginTask
        var until: Double
    }

    private let kept = Mutex<[String: Kept]>([:])
    public let keepSeconds: Double
    public let capacity: Int

    public init(keepSeconds: Double = defaultKeepSeconds, capacity: Int = defaultCapacity) {
        self.keepSeconds = keepSeconds
        self.capacity = max(1, capacity)
    }

    /// The task ended: its origin stays answerable for `keepSeconds` from `now`. A task without
    /// a served HLS output is not kept.
    public func keep(_ origin: HLSOriginTask, now: Double = MonotonicClock.seconds) {
        guard !origin.outputs.isEmpty else { return }
        kept.withLock { kept in
            kept = kept.filter { $0.value.until > now }
            kept[origin.taskId] = Kept(origin: origin, until: now + keepSeconds)
            while kept.count > capacity, let oldest = kept.min(by: { $0.value.until < $1.value.until })?.key {
                kept[oldest] = nil
            }
        }
    }

    /// The ended task's origin, while kept.
    public func origin(_ taskId: String, now: Double = MonotonicClock.seconds) -> HLSOriginTask? {
        kept.withLock { kept in
            guard let entry = kept[taskId] else { return nil }
            guard entry.until > now else {
                kept[taskId] = nil
                return nil
            }
            return entry.origin
        }
    }
}
