import Testing
import TesseraComposition

/// What the composition and timeline tests expect of a side-by-side run, written once.
extension MixHarness {
    /// Red into the left input (`a`) and blue into the right one (`b`), pictures and audio for 1 s:
    /// ten frames at 10 fps.
    static var redAndBlue: [String: SyntheticInput.Script] { ["a": clip(red, until: 1), "b": clip(blue, until: 1)] }

    /// Expects `count` frames, each showing on its left and right halves the colours `expected`
    /// names for its index.
    static func expectHalves(_ record: RecordingOutputs.Record, count: Int = 10,
                             sourceLocation: SourceLocation = #_sourceLocation,
                             _ expected: (Int64) -> (left: YUVColor, right: YUVColor)) {
        #expect(record.frames.count == count, sourceLocation: sourceLocation)
        for frame in record.frames {
            let (left, right) = frame.halves
            let want = expected(frame.index)
            #expect(left.isClose(to: want.left), "frame \(frame.index) left: \(left)", sourceLocation: sourceLocation)
            #expect(right.isClose(to: want.right), "frame \(frame.index) right: \(right)", sourceLocation: sourceLocation)
        }
    }

    /// Expects `redAndBlue`'s ten frames with the layout swapped (blue left, red right) from frame
    /// `index` on.
    static func expectSwapped(_ record: RecordingOutputs.Record, from index: Int64,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        expectHalves(record, sourceLocation: sourceLocation) { $0 >= index ? (blue, red) : (red, blue) }
    }
}
