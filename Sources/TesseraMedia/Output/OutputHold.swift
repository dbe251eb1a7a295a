import Foundation

/// Set while the worker's upload spool is over its bound (`--storage-spool-bytes`): publishers
/// of uploaded outputs drop packets instead of writing them, and start again at a keyframe once
/// it clears, so a store that stays away costs a gap in the recording, not the node's disk.
///
/// Threads: set by the uploader's thread, read by the pipeline's.
public final class OutputHold: @unchecked Sendable {
    private let lock = NSLock()
    private var held = false

    public init() {}

    public var isHeld: Bool {
        get { lock.withLock { held } }
        set { lock.withLock { held = newValue } }
    }
}
