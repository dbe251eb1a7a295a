import TesseraWorkerProtocol

/// Whether an update (`PATCH`) may be applied to a task as it stands on this node: refused once
/// the task is stopping or over, and when its `sequence` is not past the last one applied (so
/// two clients' updates apply in the order they meant, whichever node each reached).
///
/// One rule, asked twice on purpose: by the registry before it writes the store (a refused update
/// changes nothing) and by the task as it applies the update, since a stop or another update may
/// have come in while the store was written. Pure: `ManagedTask` holds the state it is asked about.
public enum UpdateAdmission: Sendable, Equatable {
    /// Apply it; the task's last applied sequence becomes `sequence` (unchanged when nil).
    case accept(sequence: Int64?)
    /// The task is stopping or over (its state is given): nothing may change any more.
    case refuseEnded(TaskState)
    /// `got` is not greater than `last`, the sequence of the update in force.
    case refuseStale(got: Int64, last: Int64)

    /// - Parameters:
    ///   - sequence: the update's `sequence`, if it has one (an update without one always goes in order).
    ///   - lastSequence: the sequence of the update in force, if any carried one.
    ///   - ending: the task's state when it is stopping or final; nil while it runs.
    public static func decide(sequence: Int64?, lastSequence: Int64?, ending: TaskState?) -> UpdateAdmission {
        if let ending { return .refuseEnded(ending) }
        if let sequence, let lastSequence, sequence <= lastSequence { return .refuseStale(got: sequence, last: lastSequence) }
        return .accept(sequence: sequence ?? lastSequence)
    }
}
