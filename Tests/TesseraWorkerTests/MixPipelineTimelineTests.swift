import Foundation
import Testing
import TesseraComposition
import TesseraTask
import TesseraWorker

private typealias H = MixHarness

/// A recorded show played back offline (issue 32): a scheduled update applies at the first frame
/// at or after its time, and an input inside a gap shows what an absent input shows.
@Suite struct MixPipelineTimelineTests {
    @Test func aScheduledUpdateSwapsTheLayoutAtItsFrame() throws {
        let swapped = ##"{"backgroundColor": "#000000", "regions": [{"input": "b", "x": 0, "y": 0, "width": 160, "height": 180, "backgroundColor": "#00FF00"}, {"input": "a", "x": 160, "y": 0, "width": 160, "height": 180, "backgroundColor": "#00FF00"}]}"##
        // 450 ms: the first frame at or after it is frame 5 (500 ms, at 10 fps).
        let mix = try H(H.sideBySide(extra: #", "updates": [{"atMs": 450, "layout": \#(swapped)}]"#), scripts: H.redAndBlue)
        try H.expectSwapped(mix.run(), from: 5)
    }

    @Test func anInputInAGapShowsItsRegionsBackground() throws {
        let inputs = #"[{"id": "a", "url": "a.mp4", "gaps": [{"fromMs": 300, "toMs": 600}]}, {"id": "b", "url": "b.mp4"}]"#
        let mix = try H(H.sideBySide(inputs: inputs), scripts: H.redAndBlue)
        try H.expectHalves(mix.run()) { index in ((3..<6).contains(index) ? H.green : H.red, H.blue) }
    }

    /// A per-participant MKV states no picture durations and its demuxer guesses 1000 fps from the
    /// millisecond time base: a 1 ms guess must not make every picture "shown by no frame".
    @Test func picturesWithAGuessedShortDurationAreShownFromTheirOwnTimestamps() throws {
        var a = H.clip(H.red, from: 0.03, until: 1)
        a.pictureDuration = 1_000
        a.durationIsKnown = false
        let mix = try H(H.sideBySide(), scripts: ["a": a, "b": H.clip(H.blue, until: 1)])
        let record = try mix.run()
        #expect(record.frames.count == 10)
        for frame in record.frames {
            // The first picture (30 ms) appears at the first frame at or after it (frame 1, 100 ms).
            #expect(frame.halves.left.isClose(to: frame.index >= 1 ? H.red : H.green), "frame \(frame.index) left: \(frame.halves.left)")
        }
    }
}
