import Foundation
import Testing
import TesseraComposition

@Suite struct AudioLevelMeterTests {
    static let rate = 48000
    static let block = 1024

    /// Feeds `seconds` of `signal(i)` (the same on both channels) in mixer-sized blocks.
    static func feed(_ meter: inout AudioLevelMeter, seconds: Double, gain: Float = 1, from start: Int = 0,
                     signal: (Int) -> Float) {
        let planes = (0..<2).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { planes.forEach { $0.deallocate() } }
        let blocks = Int(seconds * Double(rate)) / block
        for b in 0..<blocks {
            for c in 0..<2 { for k in 0..<block { planes[c][k] = signal(start + b * block + k) } }
            meter.add(meanSquare: AudioLevelMeter.meanSquare(planes, channels: 2, count: block, gain: gain), samples: block)
        }
    }

    static func sine(amplitude: Float, hertz: Double = 440) -> (Int) -> Float {
        { i in amplitude * Float(sin(2 * Double.pi * hertz * Double(i) / Double(rate))) }
    }

    @Test(arguments: [
        // Full-scale sine: RMS 0.707, −3 dBFS → 95. −20 dBFS sine (peak 0.1·√2) → 67. −60 dBFS → 0.
        (Float(1), 95), (Float(0.1 * 2.0.squareRoot()), 67), (Float(0.001 * 2.0.squareRoot()), 0),
        // −30 dBFS → 50.
        (Float(0.0316227766 * 2.0.squareRoot()), 50),
    ])
    func sineLevelIsLinearInDecibels(amplitude: Float, expected: Int) {
        var meter = AudioLevelMeter(sampleRate: Self.rate)
        Self.feed(&meter, seconds: 1, signal: Self.sine(amplitude: amplitude))
        #expect(abs(meter.level - expected) <= 1, "amplitude \(amplitude): \(meter.level)")
    }

    @Test func silenceIsZeroAndNotSpeaking() {
        var meter = AudioLevelMeter(sampleRate: Self.rate)
        #expect(meter.level == 0 && !meter.speaking)
        Self.feed(&meter, seconds: 1) { _ in 0 }
        #expect(meter.level == 0 && !meter.speaking)
    }

    @Test func whiteNoiseLevelFollowsItsRMS() {
        // Uniform noise in [−a, a] has RMS a/√3: a = 0.5 → −10.8 dBFS → 82.
        var generator = SystemRandomNumberGenerator()
        var meter = AudioLevelMeter(sampleRate: Self.rate)
        Self.feed(&meter, seconds: 1) { _ in Float.random(in: -0.5...0.5, using: &generator) }
        #expect(abs(meter.level - 82) <= 1)
        #expect(meter.speaking)
    }

    @Test func gainIsAppliedBeforeMeasuring() {
        var meter = AudioLevelMeter(sampleRate: Self.rate)
        // A full-scale sine at gain 0.1 (−20 dB) reads like a −23 dBFS signal: 62.
        Self.feed(&meter, seconds: 1, gain: 0.1, signal: Self.sine(amplitude: 1))
        #expect(abs(meter.level - 62) <= 1)
        var muted = AudioLevelMeter(sampleRate: Self.rate)
        Self.feed(&muted, seconds: 1, gain: 0, signal: Self.sine(amplitude: 1))
        #expect(muted.level == 0 && !muted.speaking)
    }

    @Test func windowForgetsSoundAfter300Milliseconds() {
        var meter = AudioLevelMeter(sampleRate: Self.rate)
        Self.feed(&meter, seconds: 1, signal: Self.sine(amplitude: 1))
        // 200 ms of silence: a third of the window still holds the tone (≈ 95 − 4.8 dB·60/100).
        Self.feed(&meter, seconds: 0.2) { _ in 0 }
        #expect(meter.level > 80 && meter.level < 95)
        // 350 ms (a block past the window): all silence.
        Self.feed(&meter, seconds: 0.15) { _ in 0 }
        #expect(meter.level == 0 && !meter.speaking)
    }

    @Test func speakingHasHysteresis() {
        var meter = AudioLevelMeter(sampleRate: Self.rate)
        // Level 25 lies between the off (20) and on (30) thresholds: −45 dBFS.
        let between = Float(pow(10, -45.0 / 20) * 2.0.squareRoot())
        Self.feed(&meter, seconds: 1, signal: Self.sine(amplitude: between))
        #expect(abs(meter.level - 25) <= 1)
        #expect(!meter.speaking, "not yet speaking below the on threshold")
        Self.feed(&meter, seconds: 1, signal: Self.sine(amplitude: 0.1))
        #expect(meter.speaking)
        Self.feed(&meter, seconds: 1, signal: Self.sine(amplitude: between))
        #expect(meter.speaking, "keeps speaking above the off threshold")
        Self.feed(&meter, seconds: 1, signal: Self.sine(amplitude: 0.001))
        #expect(!meter.speaking)
    }

    @Test func levelsPickTheLoudestSpeaker() {
        var levels = AudioLevels(sampleRate: Self.rate)
        levels.add(input: "quiet", meanSquare: 0.001, samples: 14400)
        levels.add(input: "loud", meanSquare: 0.1, samples: 14400)
        levels.add(input: "silent", meanSquare: 0, samples: 14400)
        #expect(levels.loudest(among: ["quiet", "loud", "silent"]) == "loud")
        #expect(levels.loudest(among: ["quiet", "silent"]) == "quiet")
        #expect(levels.loudest(among: ["silent"]) == nil)
        #expect(levels["loud"] == AudioLevel(level: 83, speaking: true))
        levels.keep(only: ["quiet"])
        #expect(levels["loud"] == nil && levels["quiet"] != nil)
    }

    @Test func mixerReportsEachSourcesShareAfterGain() {
        let a = AudioMixerTests.source(samples: 4800) { _ in 0.5 }, b = AudioMixerTests.source(samples: 4800) { _ in 0.5 }
        let unlisted = AudioMixerTests.source(samples: 4800) { _ in 0.5 }
        let mixer = AudioMixer(channels: 2, sampleRate: Self.rate)
        _ = AudioMixerTests.run(mixer, blocks: [[(a, 1), (b, 0.5)]])
        #expect(abs(mixer.lastMeanSquare(of: a) - 0.25) < 1e-6)
        #expect(abs(mixer.lastMeanSquare(of: b) - 0.0625) < 1e-6)
        #expect(mixer.lastMeanSquare(of: unlisted) == 0)
    }
}
