import Testing
import TesseraComposition
import TesseraWorker
import TesseraWorkerProtocol

/// The composite the pipeline writes: which input's picture each region shows, frame by frame.
@Suite struct MixPipelineCompositionTests {
    typealias H = MixHarness

    @Test func drawsEachInputInItsRegionOnEveryFrame() throws {
        let mix = try H(H.sideBySide(), scripts: ["a": H.clip(H.red, until: 1), "b": H.clip(H.blue, until: 1)])
        let record = try mix.run()
        #expect(record.frames.count == 10)
        for frame in record.frames {
            #expect(frame.halves.left.isClose(to: H.red), "frame \(frame.index): \(frame.halves.left)")
            #expect(frame.halves.right.isClose(to: H.blue), "frame \(frame.index): \(frame.halves.right)")
        }
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
        for frame in record.frames {
            let (left, right) = frame.halves
            let time = Double(frame.index) / 10
            #expect(left.isClose(to: time < 0.3 ? H.red : H.green), "frame \(frame.index) left: \(left)")
            #expect(right.isClose(to: time < 0.5 ? H.green : H.blue), "frame \(frame.index) right: \(right)")
        }
    }

    /// `update` swaps the layout between two frames: the frame after the one that asked shows it.
    @Test func aLayoutUpdateTakesEffectAtTheNextFrame() throws {
        let mix = try H(H.sideBySide(), scripts: ["a": H.clip(H.red, until: 1), "b": H.clip(H.blue, until: 1)])
        let swapped = try H(H.sideBySide(left: "b", right: "a"), scripts: [:]).task
        let pipeline = mix.pipeline
        mix.outputs.onEachFrame { index in if index == 4 { pipeline.update(swapped) } }
        let record = try mix.run()
        #expect(record.frames.count == 10)
        for frame in record.frames {
            let (left, right) = frame.halves
            let swappedNow = frame.index >= 5
            #expect(left.isClose(to: swappedNow ? H.blue : H.red), "frame \(frame.index) left: \(left)")
            #expect(right.isClose(to: swappedNow ? H.red : H.blue), "frame \(frame.index) right: \(right)")
        }
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
