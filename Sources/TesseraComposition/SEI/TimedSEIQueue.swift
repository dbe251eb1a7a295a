// Threads: written by an input's thread (`append`, `reset`), read by the output thread (`take`);
// every access goes through one `Mutex`.

import Synchronization

/// One input's SEI messages waiting for the output, each with the output-timeline time of the
/// picture that carried it. The output takes, with each frame, every message whose picture is
/// shown by then — so a message lands in the frame that first shows its picture, or in the next
/// frame when that picture was skipped (an input faster than the output).
public final class TimedSEIQueue: Sendable {
    /// Pictures' worth of messages kept when nobody takes them (an input no frame draws for a while).
    public let capacity: Int
    private let entries = Mutex<[(ptsMicroseconds: Int64, messages: [SEIMessage])]>([])

    public init(capacity: Int = 256) { self.capacity = capacity }

    public func append(_ messages: [SEIMessage], ptsMicroseconds: Int64) {
        guard !messages.isEmpty else { return }
        entries.withLock { entries in
            entries.append((ptsMicroseconds, messages))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// Every message of pictures at or before `ptsMicroseconds`, oldest first; removed from the queue.
    public func take(upTo ptsMicroseconds: Int64) -> [SEIMessage] {
        entries.withLock { entries in
            guard let first = entries.first, first.ptsMicroseconds <= ptsMicroseconds else { return [] }
            let due = entries.filter { $0.ptsMicroseconds <= ptsMicroseconds }
            entries.removeAll { $0.ptsMicroseconds <= ptsMicroseconds }
            return due.flatMap(\.messages)
        }
    }

    public var count: Int { entries.withLock { $0.count } }

    public func reset() { entries.withLock { $0.removeAll() } }
}
