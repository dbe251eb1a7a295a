/// One entry of `ResolvedTask.schedule`: from `atMicroseconds` on the task's clock, the task runs
/// as `task` (the update applied to the task before it), exactly as after a `PATCH`.
public struct ScheduledUpdate: Codable, Sendable, Equatable {
    public var atMicroseconds: Int64
    /// The whole task from this moment, with no schedule of its own.
    public var task: ResolvedTask

    public init(atMicroseconds: Int64, task: ResolvedTask) {
        self.atMicroseconds = atMicroseconds; self.task = task
    }
}

/// Which scheduled update an output frame applies: a cursor over the schedule, asked once per
/// frame with the frame's time. Each entry holds the whole task, so when several fall due at
/// once (a frame interval longer than their spacing) only the last is applied.
public struct UpdateSchedule: Sendable {
    private let entries: [ScheduledUpdate]
    private var next = 0

    public init(_ entries: [ScheduledUpdate]) { self.entries = entries }

    /// The task to switch to at `time` (the first frame at or after an entry's time), nil when
    /// nothing new is due.
    public mutating func due(at time: Int64) -> ResolvedTask? {
        var found: ResolvedTask?
        while next < entries.count, entries[next].atMicroseconds <= time {
            found = entries[next].task
            next += 1
        }
        return found
    }

    /// Whether every entry has been applied.
    public var isFinished: Bool { next >= entries.count }
}
