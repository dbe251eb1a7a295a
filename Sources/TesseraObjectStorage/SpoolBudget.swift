/// The local spool's bound (`--storage-spool-bytes`): bytes recorded but not yet in the store,
/// summed over a worker's uploads. While the store is slow or away, recordings go on into the
/// spool; past the bound a recording holds new packets (a gap in it, resumed at a keyframe once
/// uploads catch up) instead of filling the disk.
public struct SpoolBudget: Sendable, Equatable {
    public let limitBytes: Int64
    /// Waiting bytes per file.
    private var waiting: [String: Int64] = [:]

    public init(limitBytes: Int64) { self.limitBytes = limitBytes }

    /// Records that `file` has `bytes` not yet uploaded (0 once it is all up).
    public mutating func set(_ file: String, waitingBytes bytes: Int64) {
        if bytes > 0 { waiting[file] = bytes } else { waiting[file] = nil }
    }

    public var waitingBytes: Int64 { waiting.values.reduce(0, +) }

    /// Whether recordings must hold their packets now. Holding starts at the limit and ends below
    /// three quarters of it, so a store that is just keeping up does not toggle it every part.
    public func mustHold(wasHolding: Bool) -> Bool {
        wasHolding ? waitingBytes > limitBytes / 4 * 3 : waitingBytes >= limitBytes
    }
}
