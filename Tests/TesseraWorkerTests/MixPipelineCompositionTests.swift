import Testing
import TesseraComposition
import TesseraWorker
import TesseraWorkerProtocol

/// The composite the pipeline writes: which input's picture each region shows, frame by frame.
@Suite struct MixPipelineCompositionTests {
    typealias H = MixHarness

    @Test func drawsEachInputInItsRegionOnEveryFrame() throws {
        let mix = try H(H.sideBySide(), scripts: H.redAndBlue)
        try H.expectHalves(mix.run()) { _ in (H.red, H.blue) }
    }

    /// An input that starts late and one that ends early: its region shows the region's own
    /// background before the first picture and after the last one's end (no frozen picture).
    @Test func aRegionWithoutPictureShowsItsBackgroundUntilAndAfterItsInput() throws {
        let inputs = #"[{"id": "a", "url": "a.mp4"}, {"id": "b", "url": "b.mp4", "startAtMs": 500}]"#
        let mix = try H(H.sideBySide(inputs: inputs),
                        scripts: ["a": H.clip(H.red, until: 0.3), "b": H.clip(H.blue, until: 0.5)])
        let record = try mix.run()
        // b runs 0.5 s from 0.5 s: the output lasts until 1.0 s.
        #expect(record.frames.map(\.index) == Array(0..<10))
        H.expectHalves(record) { index in
            let time = Double(index) / 10
            return (time < 0.3 ? H.red : H.green, time < 0.5 ? H.green : H.blue)
        }
    }

    /// `update` swaps the layout between two frames: the frame after the one that asked shows it.
    @Test func aLayoutUpdateTakesEffectAtTheNextFrame() throws {
        let mix = try H(H.sideBySide(), scripts: H.redAndBlue)
        let swapped = try H(H.sideBySide(left: "b", right: "a"), scripts: [:]).task
        let pipeline = mix.pipeline
        mix.outputs.onEachFrame { index in if index == 4 { pipeline.update(swapped) } }
        let record = try mix.run()
        H.expectSwapped(record, from: 5)
        // The update's outputs were handed on once (the same URL: kept as they are).
        #expect(record.outputUpdates.count == 1)
    }

    /// The layout's background shows where no region draws, whatever the inputs do.
    @Test func theCanvasBackgroundFillsWhatNoRegionCovers() throws {
        let document = H.sideBySide(background: "#808080").replacingOccurrences(
            of: #""x": 160, "y": 0, "width": 160, "height": 180"#, with: #""x": 160, "y": 0, "width": 160, "height": 90"#)
        let mix = try H(document, scripts: ["a": H.clip(H.red, until: 0.5), "b": H.clip(H.blue, until: 0.5)])
        let record = try mix.run()
        let last = try #require(record.frames.last)
        #expect(last.picture.color(x: 240, y: 45).isClose(to: H.blue))
        #expect(last.picture.color(x: 240, y: 135).isClose(to: H.grey))
    }
}
