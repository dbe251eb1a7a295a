import Synchronization

/// Set while the worker's upload spool is over its bound (`--storage-spool-bytes`): publishers
/// of uploaded outputs drop packets instead of writing them, and start again at a keyframe once
/// it clears, so a store that stays away costs a gap in the recording, not the node's disk.
///
/// Threads: set by the uploader's thread, read by the pipeline's.
public final class OutputHold: Sendable {
    private let held = Atomic<Bool>(false)

    public init() {}

    public var isHeld: Bool {
        get { held.load(ordering: .acquiring) }
        set { held.store(newValue, ordering: .releasing) }
    }
}
