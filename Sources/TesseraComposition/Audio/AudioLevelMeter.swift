import Foundation

/// One input's loudness as the vendors' volume indication reports it (TRTC `onUserVoiceVolume`,
/// ByteRTC `onRemoteAudioPropertiesReport`): 0–100 from the RMS of the last 300 ms, and whether
/// the input is speaking.
///
/// The scale is linear in dB: `level = 100·(dBFS + 60) / 60`, clamped, where
/// `dBFS = 10·log10(meanSquare)` relative to a full-scale square wave. So −60 dBFS and below is 0,
/// 0 dBFS is 100, a full-scale sine (−3 dBFS) is 95 and −30 dBFS (ordinary speech) is 50.
///
/// `speaking` switches on at `speakingOnLevel` and off only below `speakingOffLevel`, so a voice
/// hovering around the threshold does not flicker between the two.
///
/// The window is made of whole mixer blocks: blocks are dropped from the old end while the rest
/// still covers 300 ms, so it spans 300 ms plus at most one block.
public struct AudioLevelMeter: Sendable {
    public static let windowMilliseconds = 300
    public static let floorDecibels = -60.0
    /// Level at which an input starts speaking (−42 dBFS).
    public static let speakingOnLevel = 30
    /// Level below which a speaking input stops speaking (−48 dBFS).
    public static let speakingOffLevel = 20

    private let windowSamples: Int
    /// (Σ meanSquare·samples, samples) per block, oldest first from `head`.
    private var blocks: [(energy: Double, samples: Int)] = []
    private var head = 0
    private var energy = 0.0
    private var samples = 0
    public private(set) var speaking = false

    public init(sampleRate: Int) {
        windowSamples = max(1, sampleRate * Self.windowMilliseconds / 1000)
    }

    /// Adds one block of `samples` samples (per channel) whose mean square over all channels is `meanSquare`.
    public mutating func add(meanSquare: Double, samples count: Int) {
        guard count > 0 else { return }
        let blockEnergy = max(0, meanSquare.isFinite ? meanSquare : 0) * Double(count)
        blocks.append((blockEnergy, count))
        energy += blockEnergy
        samples += count
        while head < blocks.count - 1, samples - blocks[head].samples >= windowSamples {
            energy -= blocks[head].energy
            samples -= blocks[head].samples
            head += 1
        }
        // Compact now and then, so the array does not grow with the task.
        if head > 64 { blocks.removeFirst(head); head = 0 }
        // Subtraction leaves rounding dust; silence must read exactly 0.
        if energy < 1e-15 { energy = 0 }
        let current = level
        if speaking { speaking = current >= Self.speakingOffLevel } else { speaking = current >= Self.speakingOnLevel }
    }

    /// Mean square over the window (0 before anything was added).
    public var meanSquare: Double { samples > 0 ? energy / Double(samples) : 0 }

    /// 0–100, linear in dB between −60 dBFS and 0 dBFS.
    public var level: Int { Self.level(meanSquare: meanSquare) }

    public static func level(meanSquare: Double) -> Int {
        guard meanSquare > 0 else { return 0 }
        let decibels = 10 * log10(meanSquare)
        let scaled = (decibels - floorDecibels) / -floorDecibels * 100
        return Int(min(100, max(0, scaled)).rounded())
    }

    /// Mean square of `count` samples in each of `planes`, over all of them, times `gain`².
    public static func meanSquare(_ planes: [UnsafeMutablePointer<Float>], channels: Int, count: Int, gain: Float = 1) -> Double {
        guard count > 0, channels > 0 else { return 0 }
        var sum: Float = 0
        var total = 0.0
        for c in 0..<channels {
            let plane = planes[c]
            sum = 0
            for k in 0..<count { sum += plane[k] * plane[k] }
            total += Double(sum)
        }
        return total / Double(count * channels) * Double(gain) * Double(gain)
    }
}
