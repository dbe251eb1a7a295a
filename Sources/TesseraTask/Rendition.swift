/// One encode of the composite (a rung of an ABR ladder), resolved: its size, bitrate and frame
/// rate. The composite is drawn once at the main size; each rendition is scaled from it and
/// encoded once, however many outputs take it.
public struct Rendition: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bitrateKbps: Int
    public var fps: Int
    /// Composite frames per encoded frame: the rendition takes frame N when `N % frameStep == 0`
    /// (a lower rate is made by dropping frames evenly, never by blending them).
    public var frameStep: Int

    public init(width: Int, height: Int, bitrateKbps: Int, fps: Int, frameStep: Int = 1) {
        self.width = width; self.height = height; self.bitrateKbps = bitrateKbps; self.fps = fps; self.frameStep = frameStep
    }
}

extension VideoSettings {
    /// Every encode of the ladder, by the number outputs name it with: 0 the main size, then
    /// `renditions` in order.
    public var ladder: [Rendition] {
        [Rendition(width: width, height: height, bitrateKbps: bitrateKbps, fps: fps)] + renditions
    }

    /// The settings rendition `index`'s encoder runs with: the task's codec, preset, profile,
    /// latency and threads; the rendition's size, rate and bitrate; a GOP of the same seconds
    /// (`gopFrames / frameStep` of its own frames, exact by validation), so every rendition
    /// puts its keyframes on the same composite frames and HLS segments line up across variants.
    public func encoderSettings(forRendition index: Int) -> VideoSettings {
        let rendition = ladder[index]
        var settings = self
        settings.width = rendition.width
        settings.height = rendition.height
        settings.bitrateKbps = rendition.bitrateKbps
        settings.fps = rendition.fps
        settings.gopFrames = max(1, gopFrames / rendition.frameStep)
        settings.renditions = []
        return settings
    }

    /// Composite frames between frames every rendition encodes (the least common multiple of their
    /// steps). A keyframe forced out of cadence (an output joining, a resume) waits for such a
    /// frame and is forced on every rendition at once, so their GOPs stay aligned.
    public var ladderFrameStep: Int {
        renditions.map(\.frameStep).reduce(1) { a, b in a / Self.gcd(a, b) * b }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
