import Foundation
import Testing
import TesseraComposition

@Suite struct PeakLimiterTests {
    /// Runs the limiter over stereo blocks of 480; returns both channels.
    static func process(_ limiter: inout PeakLimiter, _ left: [Float], _ right: [Float], block: Int = 480) -> ([Float], [Float]) {
        var l = left, r = right
        l.withUnsafeMutableBufferPointer { lp in
            r.withUnsafeMutableBufferPointer { rp in
                var start = 0
                while start < lp.count {
                    let n = min(block, lp.count - start)
                    limiter.process([lp.baseAddress! + start, rp.baseAddress! + start], count: n)
                    start += n
                }
            }
        }
        return (l, r)
    }

    /// A tiny deterministic noise source (LCG), uniform in ±amplitude.
    struct Noise {
        var state: UInt64
        mutating func next(_ amplitude: Float) -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * amplitude
        }
    }

    @Test func thresholdIsMinusPoint3dBFS() {
        #expect(abs(20 * log10(Double(PeakLimiter.defaultThreshold)) + 0.3) < 0.01)
    }

    @Test func quietSignalPassesBitExactly() {
        var noise = Noise(state: 1)
        let left = (0..<48000).map { _ in noise.next(0.95) }, right = (0..<48000).map { _ in noise.next(0.966) }
        var limiter = PeakLimiter(sampleRate: 48000)
        let (l, r) = Self.process(&limiter, left, right)
        #expect(l == left && r == right)
        #expect(limiter.gain == 1)
    }

    @Test(arguments: [1.5 as Float, 4, 40])
    func neverExceedsTheThreshold(amplitude: Float) {
        var noise = Noise(state: 7)
        let left = (0..<48000).map { _ in noise.next(amplitude) }, right = (0..<48000).map { _ in noise.next(amplitude / 2) }
        var limiter = PeakLimiter(sampleRate: 48000)
        let (l, r) = Self.process(&limiter, left, right)
        #expect((l + r).allSatisfy { abs($0) <= PeakLimiter.defaultThreshold })
        #expect(l.map(abs).max()! > 0.9)
    }

    @Test func peakHitsTheThresholdExactlyAndReleasesSmoothly() {
        var limiter = PeakLimiter(sampleRate: 48000)
        // One sample at 2.0 then a steady 0.5.
        let left: [Float] = [2] + Array(repeating: 0.5, count: 48000)
        let (l, _) = Self.process(&limiter, left, Array(repeating: 0, count: left.count))
        #expect(abs(l[0] - 0.966) < 1e-6)
        // g₀ = 0.483; after τ = 50 ms (2400 samples) the reduction 1 − g has shrunk by e.
        let g0: Float = 0.966 / 2
        let expected = 1 - (1 - g0) * Float(exp(-1.0))
        #expect(abs(l[2400] / 0.5 - expected) < 1e-3)
        // Monotonic recovery, no steps bigger than the release slope allows.
        let tail = Array(l[1...])
        #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 >= $0 && $1 - $0 < 1e-3 })
        // After a second (20 τ) the gain is exactly 1 again and the signal is untouched.
        #expect(l.last! == 0.5)
        #expect(limiter.gain == 1)
    }

    @Test func resetForgetsGainReduction() {
        var limiter = PeakLimiter(sampleRate: 48000)
        _ = Self.process(&limiter, [3], [0])
        #expect(limiter.gain < 1)
        limiter.reset()
        #expect(limiter.gain == 1)
    }
}
