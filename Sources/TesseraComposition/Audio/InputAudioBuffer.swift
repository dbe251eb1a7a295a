// Threads: an `InputAudioBuffer` is written by its input's thread (`append`, `reset`) and read by the
// pipeline's mixer thread (`read`, `endPosition`, `bufferedSamples`). Every access to its ring goes
// through one `Mutex`. Work under it is a few `memcpy`s, never I/O.

import Synchronization

/// One input's decoded audio, already resampled to the output's rate and channel count (planar
/// Float32), placed on the OUTPUT timeline (sample index 0 = the output's first sample), waiting for
/// the mixer.
///
/// Timestamps from decoders jitter by a few samples; a block that starts within
/// `jitterToleranceSamples` (1/50 s) of where the previous one ended is taken as contiguous, so the
/// audio has no tiny gaps or overlaps. A real gap becomes silence; an overlap drops the part that
/// repeats. Memory is bounded: beyond `capacitySamples` (10 s) the oldest samples are dropped.
public final class InputAudioBuffer: Sendable {
    public let channels: Int
    public let sampleRate: Int
    /// The most samples (per channel) kept; older ones are dropped first.
    public let capacitySamples: Int
    /// How far (in samples) a block may start from the expected position and still count as contiguous.
    public let jitterToleranceSamples: Int

    private let ring: Mutex<Ring>

    public init(channels: Int, sampleRate: Int, capacitySeconds: Int = 10) {
        precondition(channels > 0 && sampleRate > 0, "InputAudioBuffer needs channels and a rate")
        self.channels = channels
        self.sampleRate = sampleRate
        capacitySamples = max(1, sampleRate * capacitySeconds)
        jitterToleranceSamples = sampleRate / 50
        ring = Mutex(Ring(channels: channels, capacity: capacitySamples))
    }

    deinit { ring.withLock { $0.storage.deallocate() } }

    /// One past the last appended sample on the output timeline (0 before anything was appended).
    /// In `asap` pace the mixer waits until this reaches the end of the block it is about to mix.
    public var endPosition: Int64 { ring.withLock { $0.startPosition + Int64($0.count) } }

    /// Samples per channel waiting to be read.
    public var bufferedSamples: Int { ring.withLock { $0.count } }

    /// Forgets everything; the next `append` sets the position afresh (used when an input restarts).
    public func reset() {
        ring.withLock { ring in ring.head = 0; ring.count = 0; ring.startPosition = 0; ring.hasPosition = false }
    }

    /// Adds `count` samples per channel (`planes[c]` for channel c) whose first sample belongs at
    /// `position` on the output timeline.
    public func append(_ planes: [UnsafePointer<Float>], count newCount: Int, at position: Int64) {
        precondition(planes.count >= channels, "append needs \(channels) planes")
        guard newCount > 0 else { return }
        let tolerance = Int64(jitterToleranceSamples)
        ring.withLock { ring in
            if !ring.hasPosition {
                ring.hasPosition = true
                ring.startPosition = position
                ring.count = 0
            }
            let expected = ring.startPosition + Int64(ring.count)
            let delta = position - expected
            var skip = 0
            if abs(delta) <= tolerance {
                // Rounding jitter: contiguous.
            } else if delta > 0 {
                // A gap: silence up to `position`. A gap longer than the whole buffer leaves only
                // silence before the new block, which `read` gives anyway: restart the ring there.
                if delta >= Int64(ring.capacity) {
                    ring.head = 0; ring.count = 0; ring.startPosition = position
                } else {
                    ring.writeSilence(Int(delta))
                }
            } else {
                // An overlap: the first −delta samples repeat what is buffered (or already read).
                skip = Int(min(-delta, Int64(newCount)))
            }
            guard skip < newCount else { return }
            ring.write(planes, offset: skip, count: newCount - skip)
        }
    }

    /// Copies the samples covering `[position, position + count)` into `planes` (zeros where there
    /// are none), then discards everything before `position + count`.
    /// - Returns: how many real (buffered) samples were copied, per channel.
    @discardableResult
    public func read(into planes: [UnsafeMutablePointer<Float>], count wanted: Int, at position: Int64) -> Int {
        precondition(planes.count >= channels, "read needs \(channels) planes")
        guard wanted > 0 else { return 0 }
        return ring.withLock { ring in
            // Overlap of the request with the buffered span [startPosition, startPosition + count).
            let from = max(position, ring.startPosition)
            let to = min(position + Int64(wanted), ring.startPosition + Int64(ring.count))
            let copied = max(0, Int(to - from))
            let outputOffset = Int(from - position)
            for c in 0..<ring.channels {
                let out = planes[c]
                if copied == 0 { out.update(repeating: 0, count: wanted); continue }
                out.update(repeating: 0, count: outputOffset)
                ring.copyOut(channel: c, from: Int(from - ring.startPosition), count: copied, to: out + outputOffset)
                let tail = wanted - outputOffset - copied
                (out + outputOffset + copied).update(repeating: 0, count: tail)
            }
            // Discard what lies before the end of the request.
            let consumed = Int(max(0, min(Int64(ring.count), position + Int64(wanted) - ring.startPosition)))
            ring.drop(consumed)
            return copied
        }
    }
}

/// The samples themselves: `channels` rings of `capacity` floats, one after another, and where the
/// buffered span starts. Only ever touched inside the buffer's `Mutex`, which is what makes its
/// pointer safe to share (hence `@unchecked`).
private struct Ring: @unchecked Sendable {
    let channels: Int
    let capacity: Int
    let storage: UnsafeMutablePointer<Float>
    /// Ring index of the oldest buffered sample.
    var head = 0
    /// Buffered samples per channel.
    var count = 0
    /// Output-timeline position of the oldest buffered sample.
    var startPosition: Int64 = 0
    /// False until the first `append` after creation or `reset`: that block sets the position.
    var hasPosition = false

    init(channels: Int, capacity: Int) {
        self.channels = channels
        self.capacity = capacity
        storage = .allocate(capacity: channels * capacity)
        storage.initialize(repeating: 0, count: channels * capacity)
    }

    mutating func drop(_ n: Int) {
        head = (head + n) % capacity
        count -= n
        startPosition += Int64(n)
    }

    /// Makes room for `n` more samples by dropping the oldest, and returns the ring index to write at.
    private mutating func reserve(_ n: Int) -> Int {
        let overflow = count + n - capacity
        if overflow > 0 { drop(min(overflow, count)) }
        return (head + count) % capacity
    }

    mutating func write(_ planes: [UnsafePointer<Float>], offset: Int, count n: Int) {
        // Only the last `capacity` samples of a block longer than the ring can stay.
        let excess = max(0, n - capacity)
        if excess > 0 { startPosition += Int64(count + excess); head = 0; count = 0 }
        let keep = n - excess
        let at = reserve(keep)
        let first = min(keep, capacity - at)
        for c in 0..<channels {
            let ring = storage + c * capacity
            let source = planes[c] + offset + excess
            (ring + at).update(from: source, count: first)
            if first < keep { ring.update(from: source + first, count: keep - first) }
        }
        count += keep
    }

    mutating func writeSilence(_ n: Int) {
        let at = reserve(n)
        let first = min(n, capacity - at)
        for c in 0..<channels {
            let ring = storage + c * capacity
            (ring + at).update(repeating: 0, count: first)
            if first < n { ring.update(repeating: 0, count: n - first) }
        }
        count += n
    }

    func copyOut(channel c: Int, from offset: Int, count n: Int, to out: UnsafeMutablePointer<Float>) {
        let ring = storage + c * capacity
        let at = (head + offset) % capacity
        let first = min(n, capacity - at)
        out.update(from: ring + at, count: first)
        if first < n { (out + first).update(from: ring, count: n - first) }
    }
}
