import Foundation

/// Keeps a mix from ever exceeding `threshold` (−0.3 dBFS) without clipping it into noise.
///
/// Per sample frame (one sample of every channel):
/// - `peak = max_c |x_c|`, the loudest channel, so every channel gets the same gain (the stereo
///   image does not shift while limiting).
/// - Release: the gain relaxes toward 1 as a one-pole filter with time constant τ = 50 ms. The state
///   is the gain reduction `d = 1 − g`, decaying as `d ← d·r`, `r = exp(−1 / (τ · sampleRate))`;
///   after τ the remaining reduction is 1/e (≈ 37 %) of what it was, after 5τ below 1 %. (Keeping
///   `d` rather than `g` matters in Float: near 1, `1 − (1 − g)·r` moves by less than half an ulp
///   per sample and would stick just below 1.)
/// - Attack is instant: if `peak · g > T` the gain drops at once to `g = T / peak`, so that very
///   sample comes out at `T`. No look-ahead, hence no added latency.
/// - Output `x · g`, also clamped to `±T` so float rounding of `peak · (T / peak)` can never go over.
///
/// While `d == 0` and `peak ≤ T` the sample is not touched at all: a signal that stays below the
/// threshold passes bit-exactly. `d` snaps to 0 once below 1e-5 (−0.0001 dB, inaudible).
public struct PeakLimiter: Sendable {
    /// −0.3 dBFS: `10^(−0.3/20) ≈ 0.9661`.
    public static let defaultThreshold: Float = 0.966
    public let threshold: Float
    /// Release factor per sample frame, `exp(−1 / (τ · sampleRate))`.
    public let releaseFactor: Float
    /// The gain reduction `1 − g` now applied; 0 when not limiting.
    private var reduction: Float = 0

    /// The gain now applied; 1 when not limiting.
    public var gain: Float { 1 - reduction }

    public init(sampleRate: Int, threshold: Float = PeakLimiter.defaultThreshold, releaseSeconds: Double = 0.05) {
        self.threshold = threshold
        releaseFactor = Float(exp(-1 / (releaseSeconds * Double(max(1, sampleRate)))))
    }

    /// Limits `count` sample frames of planar audio in place (`planes[c]` for channel c).
    public mutating func process(_ planes: [UnsafeMutablePointer<Float>], count: Int) {
        guard count > 0, !planes.isEmpty else { return }
        let t = threshold, r = releaseFactor
        var d = reduction
        planes.withUnsafeBufferPointer { channels in
            for i in 0..<count {
                var peak: Float = 0
                for plane in channels { peak = max(peak, abs(plane[i])) }
                if d == 0 && peak <= t { continue }      // the untouched fast path
                d *= r
                if d < 1e-5 { d = 0 }
                if peak * (1 - d) > t { d = 1 - t / peak }
                if d == 0 { continue }
                let g = 1 - d
                for plane in channels { plane[i] = min(t, max(-t, plane[i] * g)) }
            }
        }
        reduction = d
    }

    /// Forgets any gain reduction in progress.
    public mutating func reset() { reduction = 0 }
}
