/// One input's level at one moment, as the status and the volume SEI report it.
public struct AudioLevel: Sendable, Equatable, Codable {
    /// 0–100 (see `AudioLevelMeter`).
    public var level: Int
    public var speaking: Bool

    public init(level: Int, speaking: Bool) { self.level = level; self.speaking = speaking }
}

/// Every input's `AudioLevelMeter`, by input id, measured where the output mixes (so offline and
/// live alike), after each input's volume: the level is what the output carries from that input,
/// so a muted input (volume 0, or left out of `audio.inputs`) reads 0 and never speaks.
///
/// Threads: owned by the output thread; `snapshot` is a value to hand to others.
public struct AudioLevels: Sendable {
    public let sampleRate: Int
    private var meters: [String: AudioLevelMeter] = [:]

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// Adds one mixed block for `input`.
    public mutating func add(input: String, meanSquare: Double, samples: Int) {
        meters[input, default: AudioLevelMeter(sampleRate: sampleRate)].add(meanSquare: meanSquare, samples: samples)
    }

    /// Forgets inputs that are no longer in the task (a re-added input starts from silence).
    public mutating func keep(only inputs: [String]) {
        let kept = Set(inputs)
        meters = meters.filter { kept.contains($0.key) }
    }

    public subscript(input: String) -> AudioLevel? {
        meters[input].map { AudioLevel(level: $0.level, speaking: $0.speaking) }
    }

    /// Every measured input's level.
    public var snapshot: [String: AudioLevel] { meters.mapValues { AudioLevel(level: $0.level, speaking: $0.speaking) } }

    /// The input with the highest level among `inputs` that is speaking (ties: the first listed);
    /// nil when nobody speaks.
    public func loudest(among inputs: [String]) -> String? {
        var best: (id: String, meanSquare: Double)?
        for id in inputs {
            guard let meter = meters[id], meter.speaking else { continue }
            if best == nil || meter.meanSquare > best!.meanSquare { best = (id, meter.meanSquare) }
        }
        return best?.id
    }
}
