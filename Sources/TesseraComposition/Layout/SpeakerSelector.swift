/// Picks the speaker for template `speaker` from the inputs' audio levels, one output frame at a
/// time. A switch needs the new speaker to be the loudest for `leadMicroseconds` without a break,
/// and the speaker it replaces to have held the big picture for `holdMicroseconds`, so two people
/// talking over each other do not make the picture flap. Pure: feed it (time, levels), read `speaker`.
public struct SpeakerSelector: Sendable, Equatable {
    /// How long a challenger must lead before it takes over.
    public static let leadMicroseconds: Int64 = 1_500_000
    /// How long a speaker keeps the big picture at least.
    public static let holdMicroseconds: Int64 = 2_000_000
    /// Levels (0–100) at or below this count as silence, which never leads: the level where
    /// `AudioLevelMeter` stops calling an input speaking.
    public static let silenceLevel = Double(AudioLevelMeter.speakingOffLevel)

    /// The input in the big picture; nil until there are candidates.
    public private(set) var speaker: Int?
    /// The input now leading the speaker, which takes over if it keeps the lead; nil when none.
    public private(set) var challenger: Int?
    private var speakerSince: Int64 = 0
    private var challengerSince: Int64 = 0

    /// - Parameter initial: the speaker before anyone has spoken (`layout.main`, else the first input).
    public init(initial: Int? = nil) { speaker = initial }

    /// Takes the levels at output time `time` (µs, never decreasing) of the inputs that may be the
    /// speaker, in slot order, and returns the speaker. A speaker that is no longer among them is
    /// replaced at once (the loudest, or the first on a tie or in silence).
    @discardableResult
    public mutating func update(candidates: [Int], levels: [Int: Double], at time: Int64) -> Int? {
        guard let first = candidates.first else {
            speaker = nil; challenger = nil
            return nil
        }
        let loudest = Self.loudest(candidates, levels: levels)
        guard let current = speaker, candidates.contains(current) else {
            take(loudest ?? first, at: time)
            return speaker
        }
        guard let loudest, loudest != current, Self.level(loudest, levels) > Self.level(current, levels) else {
            challenger = nil
            return current
        }
        if challenger != loudest {
            challenger = loudest
            challengerSince = time
        }
        if time - challengerSince >= Self.leadMicroseconds && time - speakerSince >= Self.holdMicroseconds {
            take(loudest, at: time)
        }
        return speaker
    }

    /// The same state after the inputs were renumbered (a live update added or removed some):
    /// `map` takes old indices to new ones; a speaker or challenger no longer there is forgotten.
    public func renumbered(_ map: [Int: Int]) -> SpeakerSelector {
        var copy = self
        copy.speaker = speaker.flatMap { map[$0] }
        copy.challenger = challenger.flatMap { map[$0] }
        return copy
    }

    private mutating func take(_ input: Int, at time: Int64) {
        speaker = input
        speakerSince = time
        challenger = nil
    }

    /// The candidate with the highest level above silence; the earlier one on a tie.
    private static func loudest(_ candidates: [Int], levels: [Int: Double]) -> Int? {
        var best: Int?
        for input in candidates where level(input, levels) > silenceLevel {
            if best.map({ level(input, levels) > level($0, levels) }) ?? true { best = input }
        }
        return best
    }

    private static func level(_ input: Int, _ levels: [Int: Double]) -> Double { levels[input] ?? 0 }
}
