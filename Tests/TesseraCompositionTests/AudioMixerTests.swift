import Foundation
import Testing
import TesseraComposition

@Suite struct AudioMixerTests {
    static let rate = 48000

    /// A buffer holding `samples` samples per channel of `value(i)`, from position 0.
    static func source(channels: Int = 2, samples: Int, value: @escaping (Int) -> Float) -> InputAudioBuffer {
        let buffer = InputAudioBuffer(channels: channels, sampleRate: rate)
        Planes(channels: channels, count: samples) { _, i in value(i) }.append(to: buffer, at: 0)
        return buffer
    }

    /// Runs the mixer over consecutive blocks, each with its own source list; returns channel 0.
    static func run(_ mixer: AudioMixer, blocks: [[(buffer: InputAudioBuffer, gain: Float)]], size: Int = 480) -> [Float] {
        let planes = (0..<mixer.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: size) }
        defer { planes.forEach { $0.deallocate() } }
        var out: [Float] = []
        for (index, sources) in blocks.enumerated() {
            mixer.mix(sources: sources, count: size, at: Int64(index * size), into: planes)
            out += UnsafeBufferPointer(start: planes[0], count: size)
        }
        return out
    }

    @Test func sumsSourcesTimesGainOnceRampsSettle() {
        let a = Self.source(samples: 4800) { _ in 0.25 }, b = Self.source(samples: 4800) { _ in 0.1 }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        #expect(mixer.rampSamples == 480)
        let out = Self.run(mixer, blocks: Array(repeating: [(a, 1), (b, 0.5)], count: 4))
        // First 10 ms: both fade in from 0; after that, 0.25 + 0.05.
        #expect(out[0] > 0 && out[0] < 0.01)
        #expect(out[480...].allSatisfy { abs($0 - 0.3) < 1e-6 })
    }

    @Test func gainChangeRampsWithoutAStep() {
        let a = Self.source(samples: 4800) { _ in 0.5 }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        // Settle at 1, then 0.2, then 1.6 — ramps over 480 samples each.
        let out = Self.run(mixer, blocks: [[(a, 1)], [(a, 1)], [(a, 0.2)], [(a, 1.6)], [(a, 1.6)]], size: 480)
        let maxStep = zip(out, out.dropFirst()).map { abs($1 - $0) }.max()!
        // Largest step: a 1.4 gain change over 480 samples on a 0.5 signal.
        #expect(maxStep <= 0.5 * 1.4 / 480 + 1e-6)
        #expect(abs(out[480 * 2 - 1] - 0.5) < 1e-6)
        #expect(abs(out[480 * 3 - 1] - 0.1) < 1e-6)
        // 0.5·1.6 = 0.8 stays under the limiter's threshold.
        #expect(abs(out.last! - 0.8) < 1e-6)
    }

    @Test func rampSpansBlocksSmallerThanTheRamp() {
        let a = Self.source(samples: 4800) { _ in 0.5 }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        let out = Self.run(mixer, blocks: Array(repeating: [(a, 1)], count: 10), size: 64)
        let steps = zip(out, out.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 >= -1e-7 && $0 <= 0.5 / 480 + 1e-6 })
        #expect(abs(out[480] - 0.5) < 1e-6)
    }

    @Test func aSourceThatLeavesFadesOutThenIsForgotten() {
        let a = Self.source(samples: 48000) { _ in 0.5 }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        let out = Self.run(mixer, blocks: [[(a, 1)], [(a, 1)], [], [], []])
        #expect(abs(out[959] - 0.5) < 1e-6)
        #expect(out[960] > 0.49 && out[960] < 0.5)                  // fading, not cut
        #expect(abs(out[1439]) < 1e-6)                                // silent after 10 ms
        #expect(out[1440...].allSatisfy { $0 == 0 })
        // Forgotten: its buffer is no longer read (samples after 1440 remain buffered).
        #expect(a.bufferedSamples == 48000 - 1440)
    }

    @Test func silentSourcesStillConsumeTheirAudio() {
        let a = Self.source(samples: 4800) { _ in 0.5 }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        let out = Self.run(mixer, blocks: [[(a, 0)], [(a, 0)]])
        #expect(out.allSatisfy { $0 == 0 })
        #expect(a.bufferedSamples == 4800 - 960)
    }

    @Test func fourFullScaleInputsAreLimited() {
        let sources = (0..<4).map { k in
            Self.source(samples: 48000) { i in Float(sin(2 * Double.pi * 440 * Double(i) / 48000 + Double(k) * 0.1)) }
        }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        let out = Self.run(mixer, blocks: Array(repeating: sources.map { ($0, Float(1)) }, count: 100))
        let peak = out.map(abs).max()!
        #expect(peak <= PeakLimiter.defaultThreshold)
        #expect(peak > 0.9)
    }

    @Test func volumePercentToLinear() {
        #expect(AudioGain.linear(volumePercent: 100) == 1)
        #expect(AudioGain.linear(volumePercent: 80) == 0.8)
        #expect(AudioGain.linear(volumePercent: 200) == 2)
        #expect(AudioGain.linear(volumePercent: 0) == 0)
        #expect(AudioGain.linear(volumePercent: -5) == 0)
        #expect(abs(AudioGain.decibels(linear: 0.5) + 6.0206) < 1e-3)
    }
}
