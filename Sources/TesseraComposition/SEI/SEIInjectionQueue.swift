// Threads: `add` from the thread that reads worker commands, `takeForNextFrame` from the output
// thread; one `Mutex` guards the list.

import Synchronization

/// Messages injected through `POST /v1/tasks/{taskId}/sei`, each going into the next `repeat`
/// output frames (TRTC `sendSEIMsg` with `repeatCount`): a player that joins or drops a frame
/// still sees it.
public final class SEIInjectionQueue: Sendable {
    /// Injections waiting at once; past this the oldest goes (a flood must not grow the worker).
    public static let capacity = 64
    private let pending = Mutex<[(message: SEIMessage, remaining: Int)]>([])

    public init() {}

    public func add(_ injection: SEIInjection) {
        pending.withLock { pending in
            pending.append((injection.message, injection.repeatCount))
            if pending.count > Self.capacity { pending.removeFirst(pending.count - Self.capacity) }
        }
    }

    /// The messages for the next output frame, in the order they were injected.
    public func takeForNextFrame() -> [SEIMessage] {
        pending.withLock { pending in
            guard !pending.isEmpty else { return [] }
            let messages = pending.map(\.message)
            for index in pending.indices { pending[index].remaining -= 1 }
            pending.removeAll { $0.remaining <= 0 }
            return messages
        }
    }
}
