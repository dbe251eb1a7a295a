import Testing
import TesseraComposition

/// Timelines of levels → speaker: a switch needs a 1.5 s lead and a 2 s hold, so it never flaps.
@Suite struct SpeakerSelectorTests {
    private let ms: Int64 = 1_000

    /// Runs `selector` every 100 ms from `from` to `to` (ms) with `levels`; returns the speakers seen.
    private func run(_ selector: inout SpeakerSelector, from: Int64, to: Int64, candidates: [Int] = [0, 1, 2],
                     levels: [Int: Double]) -> [Int64: Int?] {
        var seen: [Int64: Int?] = [:]
        for t in stride(from: from, to: to, by: 100) {
            seen[t] = selector.update(candidates: candidates, levels: levels, at: t * ms)
        }
        return seen
    }

    @Test func startsWithTheInitialSpeakerAndKeepsItInSilence() {
        var selector = SpeakerSelector(initial: 1)
        let seen = run(&selector, from: 0, to: 5_000, levels: [:])
        #expect(Set(seen.values.compactMap { $0 }) == [1])
    }

    @Test func aNewSpeakerTakesOverAfterLeadingForOneAndAHalfSeconds() {
        var selector = SpeakerSelector(initial: 0)
        _ = run(&selector, from: 0, to: 3_000, levels: [0: 60])
        // Input 2 leads from 3.0 s: still input 0 at 4.4 s, input 2 from 4.5 s.
        let seen = run(&selector, from: 3_000, to: 6_000, levels: [0: 20, 2: 70])
        #expect(seen[4_400] == 0)
        #expect(seen[4_500] == 2)
        #expect(seen[5_900] == 2)
        #expect(selector.challenger == nil)
    }

    @Test func aSpeakerHoldsTheBigPictureForTwoSeconds() {
        var selector = SpeakerSelector(initial: 0)
        // 0 → 1 at 1.5 s (0 held since 0 s, more than... no: 1.5 s < 2 s, so at 2.0 s).
        let first = run(&selector, from: 0, to: 2_500, levels: [1: 50])
        #expect(first[1_900] == 0)
        #expect(first[2_000] == 1)
        // Input 2 leads from 2.5 s: 1.5 s of lead at 4.0 s, 2 s of hold at 4.0 s — switch at 4.0 s.
        let second = run(&selector, from: 2_500, to: 4_500, levels: [1: 10, 2: 50])
        #expect(second[3_900] == 1)
        #expect(second[4_000] == 2)
    }

    @Test func twoVoicesTakingTurnsFasterThanTheLeadNeverSwitch() {
        var selector = SpeakerSelector(initial: 0)
        var seen: Set<Int> = []
        // Inputs 0 and 1 alternate every second for 20 s: no one leads 1.5 s without a break.
        for t in stride(from: Int64(0), to: 20_000, by: 100) {
            let loud = (t / 1_000) % 2 == 0 ? 0 : 1
            if let speaker = selector.update(candidates: [0, 1], levels: [loud: 80, 1 - loud: 30], at: t * ms) {
                seen.insert(speaker)
            }
        }
        #expect(seen == [0])
    }

    @Test func aChallengerThatFallsSilentLosesItsLead() {
        var selector = SpeakerSelector(initial: 0)
        _ = run(&selector, from: 0, to: 2_000, levels: [0: 40])
        _ = run(&selector, from: 2_000, to: 3_000, levels: [0: 40, 1: 60])
        #expect(selector.challenger == 1)
        _ = run(&selector, from: 3_000, to: 3_200, levels: [0: 40, 1: 3])
        #expect(selector.challenger == nil)
        // Its lead starts again: 1.5 s from 3.2 s.
        let seen = run(&selector, from: 3_200, to: 5_000, levels: [0: 40, 1: 60])
        #expect(seen[4_600] == 0)
        #expect(seen[4_700] == 1)
    }

    @Test func aSpeakerWhoLeavesIsReplacedAtOnceByTheLoudest() {
        var selector = SpeakerSelector(initial: 0)
        _ = run(&selector, from: 0, to: 500, levels: [0: 50])
        #expect(selector.update(candidates: [1, 2], levels: [1: 10, 2: 30], at: 600 * ms) == 2)
        #expect(selector.update(candidates: [], levels: [:], at: 700 * ms) == nil)
        #expect(selector.update(candidates: [1, 2], levels: [:], at: 800 * ms) == 1)
    }

    @Test func silenceNeverLeads() {
        var selector = SpeakerSelector(initial: 0)
        let seen = run(&selector, from: 0, to: 5_000, levels: [1: SpeakerSelector.silenceLevel])
        #expect(Set(seen.values.compactMap { $0 }) == [0])
    }
}
