import Testing
import TesseraTask

/// Renditions' frame steps, the ladder's shared keyframes and first frames, and where the SEI of
/// a composite frame lands in each encode.
@Suite struct EncodeCadenceTests {
    static let plan = EncodePlanTests.plan

    @Test func aRenditionTakesEveryStepthFrameOnItsOwnClock() {
        var cadence = EncodeCadence(plan: Self.plan)
        let frames = (0..<6).map { cadence.frame(Int64($0), of: .rendition(2)) }
        #expect(frames == [.encode(pts: 0, keyframeAllowed: true), .skip, .encode(pts: 1, keyframeAllowed: true), .skip,
                           .encode(pts: 2, keyframeAllowed: true), .skip])
        #expect(cadence.frame(1, of: .rendition(1)) == .skip) // not started: waits for a ladder frame
    }

    @Test func theLadderStartsAndTakesKeyframesOnFramesEveryRenditionEncodes() {
        var cadence = EncodeCadence(plan: Self.plan)
        // Opened mid-stream on an odd frame: the main encode waits for the next ladder frame.
        #expect(cadence.frame(7, of: .h264(.high)) == .skip)
        #expect(cadence.frame(8, of: .h264(.high)) == .encode(pts: 8, keyframeAllowed: true))
        // Started: every frame, but a keyframe only where the 15 fps rendition has a picture too.
        #expect(cadence.frame(9, of: .h264(.high)) == .encode(pts: 9, keyframeAllowed: false))
        #expect(cadence.frame(10, of: .h264(.high)) == .encode(pts: 10, keyframeAllowed: true))
        // RTP's own encode is no part of the ladder.
        #expect(cadence.frame(9, of: .vp8) == .encode(pts: 9, keyframeAllowed: true))
    }

    @Test func aClosedEncodeOpenedAgainStartsTheCadenceAnew() {
        var cadence = EncodeCadence(plan: Self.plan)
        _ = cadence.frame(0, of: .rendition(1))
        #expect(cadence.frame(3, of: .rendition(1)) == .encode(pts: 3, keyframeAllowed: false))
        cadence.keep(only: [.h264(.high)])
        #expect(cadence.frame(5, of: .rendition(1)) == .skip)
    }

    @Test func aKeyframeWishForOneRungIsForTheWholeLadder() {
        let cadence = EncodeCadence(plan: Self.plan)
        #expect(cadence.ladder == [.h264(.high), .rendition(1), .rendition(2)])
        #expect(cadence.keyframeGroup(of: .rendition(2)) == cadence.ladder)
        #expect(cadence.keyframeGroup(of: .vp8) == [.vp8])
        // Without renditions there is no ladder: each encode alone, every frame its own.
        var single = EncodeCadence(plan: EncodePlan(video: EncodePlanTests.video.withoutRenditions))
        #expect(single.keyframeGroup(of: .h264(.high)) == [.h264(.high)])
        #expect(single.frame(7, of: .h264(.high)) == .encode(pts: 7, keyframeAllowed: true))
    }

    @Test func seiGoesOnTheFrameThatShowsTheCompositeFrameOrOnTheNext() {
        let cadence = EncodeCadence(plan: Self.plan)
        #expect(cadence.seiFrame(forComposite: 11, of: .h264(.high)) == 11)
        #expect(cadence.seiFrame(forComposite: 11, of: .rendition(1)) == 11)
        #expect(cadence.seiFrame(forComposite: 11, of: .rendition(2)) == 6) // composite 12, its pts 6
        #expect(cadence.seiFrame(forComposite: 12, of: .rendition(2)) == 6)
        #expect(cadence.seiFrame(forComposite: 11, of: .vp8) == nil)
        #expect(cadence.seiFrame(forComposite: 11, of: .h264(.baseline)) == nil)
    }
}

extension VideoSettings {
    var withoutRenditions: VideoSettings {
        var settings = self
        settings.renditions = []
        return settings
    }
}
