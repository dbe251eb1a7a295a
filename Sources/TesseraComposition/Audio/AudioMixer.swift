/// Sums the inputs' audio for one block of the output timeline: each source times its gain, in
/// Float, then a `PeakLimiter` so overload is limited rather than wrapped or hard-clipped.
///
/// Gains never jump. When a source's gain differs from the previous call's — a volume change, a
/// source that joins (it starts from 0) or leaves (it is no longer listed; it goes to 0) — the gain
/// moves linearly over `rampSamples` (10 ms) from where it was to the new value, one step per
/// sample: `g_k = g_0 + (k + 1)·(g_target − g_0) / rampSamples`. A source that left keeps being
/// read until its ramp reaches 0, then is forgotten. Sources are told apart by object identity.
///
/// Threads: owned by the pipeline's output thread; not shared.
public final class AudioMixer {
    public let channels: Int
    public let sampleRate: Int
    /// Length of a gain ramp: 10 ms.
    public let rampSamples: Int
    public private(set) var limiter: PeakLimiter

    private struct Track {
        let buffer: InputAudioBuffer
        var gain: Float = 0
        var target: Float = 0
        var step: Float = 0
        var remaining = 0
    }
    private var tracks: [ObjectIdentifier: Track] = [:]
    /// Order in which tracks were first seen, so summing order (and hence rounding) is stable.
    private var order: [ObjectIdentifier] = []
    private var scratch: [UnsafeMutablePointer<Float>] = []
    private var scratchCapacity = 0
    /// Per listed source of the last `mix`: the mean square of what it added (after its gain).
    private var meanSquares: [ObjectIdentifier: Double] = [:]

    public init(channels: Int, sampleRate: Int) {
        precondition(channels > 0 && sampleRate > 0, "AudioMixer needs channels and a rate")
        self.channels = channels
        self.sampleRate = sampleRate
        rampSamples = max(1, sampleRate / 100)
        limiter = PeakLimiter(sampleRate: sampleRate)
    }

    deinit { scratch.forEach { $0.deallocate() } }

    /// Mixes `count` samples starting at `position` (output timeline) into `planes` (overwritten).
    /// Each buffer is read (and so consumed) up to `position + count`. A buffer listed twice counts
    /// once, with the gains added.
    public func mix(sources: [(buffer: InputAudioBuffer, gain: Float)], count: Int, at position: Int64,
                    into planes: [UnsafeMutablePointer<Float>]) {
        precondition(planes.count >= channels, "mix needs \(channels) planes")
        guard count > 0 else { return }
        for c in 0..<channels { planes[c].update(repeating: 0, count: count) }
        reserveScratch(count)
        meanSquares.removeAll(keepingCapacity: true)

        // New targets: listed sources get their gain, the others ramp to 0.
        var targets: [ObjectIdentifier: Float] = [:]
        for source in sources {
            let id = ObjectIdentifier(source.buffer)
            targets[id, default: 0] += max(0, source.gain)
            if tracks[id] == nil { tracks[id] = Track(buffer: source.buffer); order.append(id) }
        }
        for id in order {
            guard var track = tracks[id] else { continue }
            let target = targets[id] ?? 0
            if target != track.target {
                track.target = target
                track.step = (target - track.gain) / Float(rampSamples)
                track.remaining = rampSamples
            }
            if track.gain == 0 && track.target == 0 && track.remaining == 0 {
                // Silent and staying silent: still consume its samples so it does not fall behind.
                if targets[id] != nil { track.buffer.read(into: scratch, count: count, at: position) }
            } else {
                let copied = track.buffer.read(into: scratch, count: count, at: position)
                if copied > 0, targets[id] != nil {
                    meanSquares[id] = AudioLevelMeter.meanSquare(scratch, channels: channels, count: count, gain: track.target)
                }
                if copied > 0 { accumulate(&track, count: count, into: planes) } else { advanceRamp(&track, by: count) }
            }
            tracks[id] = track
        }
        // Forget sources that left and have finished fading out.
        order.removeAll { id in
            guard let track = tracks[id], targets[id] == nil, track.gain == 0, track.remaining == 0 else { return false }
            tracks[id] = nil
            return true
        }
        limiter.process(planes, count: count)
    }

    /// Forgets every source, ramp and limiter state.
    public func reset() {
        tracks.removeAll(); order.removeAll(); meanSquares.removeAll(); limiter.reset()
    }

    /// The mean square, over its channels, of what `buffer` added to the last `mix` at its (target)
    /// gain, before the limiter; 0 for a source that had no samples, a gain of 0 or was not listed.
    /// The audio level meters feed on it.
    public func lastMeanSquare(of buffer: InputAudioBuffer) -> Double { meanSquares[ObjectIdentifier(buffer)] ?? 0 }

    // MARK: Kernels

    /// `out += g·in` per channel: the ramp part sample by sample, then the steady part with one gain.
    private func accumulate(_ track: inout Track, count: Int, into planes: [UnsafeMutablePointer<Float>]) {
        let ramp = min(track.remaining, count)
        let start = track.gain, step = track.step
        let steady = track.remaining > count ? start + step * Float(count) : track.target
        for c in 0..<channels {
            let input = UnsafePointer(scratch[c]), out = planes[c]
            for k in 0..<ramp { out[k] += (start + step * Float(k + 1)) * input[k] }
            if ramp < count {
                for k in ramp..<count { out[k] += steady * input[k] }
            }
        }
        advanceRamp(&track, by: count)
    }

    private func advanceRamp(_ track: inout Track, by count: Int) {
        if track.remaining > count {
            track.gain += track.step * Float(count)
            track.remaining -= count
        } else {
            track.gain = track.target
            track.remaining = 0
        }
    }

    private func reserveScratch(_ count: Int) {
        guard count > scratchCapacity else { return }
        scratch.forEach { $0.deallocate() }
        scratch = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: count) }
        scratchCapacity = count
    }
}
