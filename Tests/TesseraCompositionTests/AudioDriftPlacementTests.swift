import Testing
import TesseraComposition

@Suite struct AudioDriftPlacementTests {
    /// Blocks whose resampled length is a sample short of what their timestamps say go end to end,
    /// and the ratio asks for a little more until they are back on their timestamps.
    @Test func roundingIsWrittenEndToEndAndMadeUp() {
        var placement = AudioDriftPlacement(sampleRate: 48000)
        let first = placement.place(target: 1000, ratio: 1.002)
        #expect(first.position == 1000 && first.ratio == 1.002)
        placement.ended(at: 1000 + 961)
        let second = placement.place(target: 1000 + 962, ratio: 1.002)
        #expect(second.position == 1961)
        #expect(second.ratio > 1.002 && second.ratio < 1.002 * (1 + 2.0 / 48000))
        placement.ended(at: 1961 + 964)
        // Ahead of its timestamp now: a little less.
        #expect(placement.place(target: 1000 + 2 * 962, ratio: 1.002).ratio < 1.002)
    }

    /// Beyond 20 ms it is a real gap (or an overlap): the block goes where its timestamp says.
    @Test func aRealGapIsKept() {
        var placement = AudioDriftPlacement(sampleRate: 48000)
        _ = placement.place(target: 0, ratio: 1)
        placement.ended(at: 960)
        let after = placement.place(target: 960 + 4800, ratio: 1)
        #expect(after.position == 5760 && after.ratio == 1)
        placement.ended(at: 6720)
        #expect(placement.place(target: 0, ratio: 1).position == 0)
    }
}
