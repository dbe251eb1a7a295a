/// The SEI messages waiting for the pictures of one encode, by the picture's pts: an encoder hands
/// its packets back frames later (lookahead), so the messages meant for frame N wait until the
/// packet whose pts is N comes out.
///
/// Pure: the encode's SEI writer puts what `take` returns into that packet.
public struct SEISchedule: Sendable, Equatable {
    private var scheduled: [Int64: [SEIMessage]] = [:]

    public init() {}

    /// Whether no message is waiting.
    public var isEmpty: Bool { scheduled.isEmpty }

    /// Messages for the picture sent to the encoder with pts `frame`.
    public mutating func schedule(_ messages: [SEIMessage], frame: Int64) {
        guard !messages.isEmpty else { return }
        // A rendition at a lower rate gets the messages of the frames it skips on its next one:
        // a message repeated on those frames (an injection's `repeat`) goes in once.
        let already = scheduled[frame] ?? []
        scheduled[frame] = already + messages.filter { !already.contains($0) }
        // Packets come back in order: anything far behind belongs to a frame the encoder dropped.
        if scheduled.count > 512 { scheduled = scheduled.filter { $0.key > frame - 256 } }
    }

    /// The messages for the packet with pts `frame`, forgotten once taken; nil when there are none.
    public mutating func take(frame: Int64) -> [SEIMessage]? {
        scheduled.removeValue(forKey: frame)
    }
}
