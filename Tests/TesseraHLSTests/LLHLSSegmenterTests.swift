import Testing
import TesseraHLS

/// Where parts and segments are cut (issue 33).
@Suite struct LLHLSSegmenterTests {
    /// 30 fps, keyframe every `gop` frames; the closed parts in order.
    static func run(frames: Int, gop: Int = 30, partSeconds: Double = 0.333, segmentSeconds: Double = 1) -> [LLHLSSegmenter.ClosedPart] {
        let part = LLHLSSegmenter.partMicroseconds(partSeconds: partSeconds, fps: 30)
        var segmenter = LLHLSSegmenter(partMicroseconds: part, segmentMicroseconds: Int64(segmentSeconds * 1_000_000),
                                       frameMicroseconds: 33_333)
        var closed: [LLHLSSegmenter.ClosedPart] = []
        for index in 0..<frames {
            if case .cut(let part) = segmenter.frame(at: Int64(index) * 1_000_000 / 30, keyframe: index % gop == 0) { closed.append(part) }
        }
        if let last = segmenter.finish() { closed.append(last) }
        return closed
    }

    @Test func partsAreWholeFramesWithinTheTarget() {
        #expect(LLHLSSegmenter.partMicroseconds(partSeconds: 0.333, fps: 30) == 300_000)
        #expect(LLHLSSegmenter.partMicroseconds(partSeconds: 0.5, fps: 30) == 500_000)
        #expect(LLHLSSegmenter.partMicroseconds(partSeconds: 0.05, fps: 10) == 100_000)
        // A ladder with a 15 fps rung (step 2): an even number of frames.
        #expect(LLHLSSegmenter.partMicroseconds(partSeconds: 0.333, fps: 30, frameSteps: [1, 2]) == 266_666)
        for part in Self.run(frames: 90) { #expect(part.durationMicroseconds <= 333_000) }
    }

    @Test func segmentsStartOnKeyframesAndPartsAddUp() {
        let parts = Self.run(frames: 90)
        let segments = Dictionary(grouping: parts, by: \.segment)
        #expect(segments.keys.sorted() == [0, 1, 2])
        for (_, list) in segments {
            #expect(list.map(\.part) == Array(0..<list.count))
            #expect(list.first?.independent == true && list.dropFirst().allSatisfy { !$0.independent })
            let last = list.last!
            #expect(last.endsSegment && list.dropLast().allSatisfy { !$0.endsSegment })
            #expect(list.reduce(0) { $0 + $1.durationMicroseconds } == last.segmentDurationMicroseconds)
        }
        // 30 frames: 9 + 9 + 9 + 3.
        #expect(segments[0]!.map(\.durationMicroseconds) == [300_000, 300_000, 300_000, 100_000])
    }

    @Test func framesBeforeTheFirstKeyframeAreDropped() {
        var segmenter = LLHLSSegmenter(partMicroseconds: 300_000, segmentMicroseconds: 1_000_000, frameMicroseconds: 33_333)
        #expect(segmenter.frame(at: 0, keyframe: false) == .drop)
        #expect(segmenter.frame(at: 33_333, keyframe: true) == .append)
        #expect(segmenter.hasStarted)
    }

    @Test func aSegmentWaitsForItsKeyframe() {
        // Keyframes every 2 s, segments asked for 1 s: segments of 2 s.
        let parts = Self.run(frames: 120, gop: 60)
        #expect(Set(parts.map(\.segment)) == [0, 1])
        #expect(parts.filter(\.endsSegment).first?.segmentDurationMicroseconds == 2_000_000)
        // A keyframe inside a part starts it independent.
        let independent = Self.run(frames: 60, gop: 9, partSeconds: 0.3, segmentSeconds: 2).filter(\.independent)
        #expect(independent.count == 7)
    }

    @Test func numberingStartsWhereAskedAndGoesOnAfterTheEnd() {
        var segmenter = LLHLSSegmenter(partMicroseconds: 300_000, segmentMicroseconds: 1_000_000, frameMicroseconds: 33_333,
                                       firstSegment: 12)
        _ = segmenter.frame(at: 0, keyframe: true)
        #expect(segmenter.next == (12, 0))
        let closed = segmenter.finish()
        #expect(closed?.segment == 12 && closed?.durationMicroseconds == 33_333 && closed?.endsSegment == true)
        #expect(segmenter.finish() == nil)
    }
}
