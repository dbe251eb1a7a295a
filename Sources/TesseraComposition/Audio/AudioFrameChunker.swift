/// Cuts the mix into the frame size one encoder takes: the mix is made in chunks of one size
/// (1024 samples for AAC), and Opus takes 20 ms (960 at 48 kHz), so each audio encoder of a task
/// gets its own chunker between the mix and itself. Sample positions carry through, so each
/// frame's timestamp is exactly the position of its first sample.
///
/// Planar float in and out, one plane per channel; no allocation once warmed up.
public struct AudioFrameChunker: Sendable {
    public let frameSize: Int
    public let channels: Int
    private var buffered: [[Float]]
    /// Output sample position of `buffered[_][0]`; nil before the first chunk.
    private var position: Int64?

    public init(frameSize: Int, channels: Int) {
        precondition(frameSize > 0 && channels > 0)
        self.frameSize = frameSize
        self.channels = channels
        buffered = Array(repeating: [], count: channels)
    }

    /// Samples held back, waiting to fill a frame.
    public var pendingSamples: Int { buffered[0].count }

    /// Adds `count` samples per channel starting at output sample `start`. A chunk that does not
    /// follow the previous one (the mix jumped) drops what was pending: a frame never spans a gap.
    public mutating func append(_ planes: [UnsafePointer<Float>], count: Int, start: Int64) {
        precondition(planes.count == channels)
        if let position, position + Int64(pendingSamples) != start {
            for channel in 0..<channels { buffered[channel].removeAll(keepingCapacity: true) }
            self.position = start
        }
        if position == nil { position = start }
        for channel in 0..<channels {
            buffered[channel].append(contentsOf: UnsafeBufferPointer(start: planes[channel], count: count))
        }
    }

    /// Copies the next whole frame into `planes` (`frameSize` samples each) and returns the
    /// position of its first sample, or nil until a whole frame is pending.
    public mutating func nextFrame(into planes: [UnsafeMutablePointer<Float>]) -> Int64? {
        precondition(planes.count == channels)
        guard let position, pendingSamples >= frameSize else { return nil }
        for channel in 0..<channels {
            buffered[channel].withUnsafeBufferPointer { planes[channel].update(from: $0.baseAddress!, count: frameSize) }
            buffered[channel].removeFirst(frameSize)
        }
        self.position = position + Int64(frameSize)
        return position
    }
}
