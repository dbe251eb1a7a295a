import Foundation

/// Keeps a mix from ever exceeding `threshold` (−0.3 dBFS) without clipping it into noise.
///
/// Per sample frame (one sample of every channel):
/// - `peak = max_c |x_c|`, the loudest channel, so every channel gets the same gain (the stereo
///   image does not shift while limiting).
/// - Release: the gain relaxes toward 1 as a one-pole filter with time constant τ = 50 ms:
///   `g ← 1 − (1 − g)·r`, `r = exp(−1 / (τ · sampleRate))`; after τ the remaining reduction is 1/e
///   (≈ 37 %) of what it was, after 5τ below 1 %.
/// - Attack is instant: if `peak · g > T` the gain drops at once to `g = T / peak`, so that very
///   sample comes out at exactly `T`. No look-ahead, hence no added latency.
/// - Output `x · g`, also clamped to `±T` so float rounding of `peak · (T / peak)` can never go over.
///
/// While `g == 1` and `peak ≤ T` the sample is not touched at all: a signal that stays below the
/// threshold passes bit-exactly. The release snaps `g` to exactly 1 once it is within 1e-5
/// (−0.0001 dB, inaudible), because in Float `1 − (1 − g)·r` can get stuck one ulp below 1.
public struct PeakLimiter: Sendable {
    /// −0.3 dBFS: `10^(−0.3/20) ≈ 0.9661`.
    public static let defaultThreshold: Float = 0.966
    public let threshold: Float
    /// Release factor per sample frame, `exp(−1 / (τ · sampleRate))`.
    public let releaseFactor: Float
    /// The gain now applied; 1 when not limiting.
    public private(set) var gain: Float = 1

    public init(sampleRate: Int, threshold: Float = PeakLimiter.defaultThreshold, releaseSeconds: Double = 0.05) {
        self.threshold = threshold
        releaseFactor = Float(exp(-1 / (releaseSeconds * Double(max(1, sampleRate)))))
    }

    /// Limits `count` sample frames of planar audio in place (`planes[c]` for channel c).
    public mutating func process(_ planes: [UnsafeMutablePointer<Float>], count: Int) {
        guard count > 0, !planes.isEmpty else { return }
        let t = threshold, r = releaseFactor
        var g = gain
        planes.withUnsafeBufferPointer { channels in
            for i in 0..<count {
                var peak: Float = 0
                for plane in channels { peak = max(peak, abs(plane[i])) }
                if g == 1 && peak <= t { continue }      // the untouched fast path
                if g < 1 {
                    g = 1 - (1 - g) * r
                    if 1 - g < 1e-5 { g = 1 }
                }
                if peak * g > t { g = t / peak }
                if g == 1 { continue }
                for plane in channels { plane[i] = min(t, max(-t, plane[i] * g)) }
            }
        }
        gain = g
    }

    /// Forgets any gain reduction in progress.
    public mutating func reset() { gain = 1 }
}
