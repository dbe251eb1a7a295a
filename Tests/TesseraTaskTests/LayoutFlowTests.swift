import Foundation
import Testing
import TesseraComposition
import TesseraTask

/// `layout.fill`, `layout.audioOnlySlots`, `layout.main`, template `speaker` and
/// `regions[].onVideoLoss`: validation with paths, and the re-flow the output thread applies.
@Suite struct LayoutFlowTests {
    private func document(inputs count: Int = 3, layout: String) -> JSONValue {
        let inputs = (0..<count).map { #"{"id": "i\#($0)", "url": "anchor.mp4"}"# }.joined(separator: ", ")
        return TaskFixtures.value("""
            {"inputs": [\(inputs)], "encoder": {"video": {"width": 1280, "height": 720}}, "outputs": [{"url": "o.mp4"}],
             "layout": \(layout)}
            """)
    }

    private func layout(inputs count: Int = 3, _ json: String) throws -> ResolvedLayout {
        try #require(TaskFixtures.task(TaskFixtures.validate(document(inputs: count, layout: json)))?.layout)
    }

    private func issues(inputs count: Int = 3, _ json: String) -> [String] {
        TaskFixtures.issues(TaskFixtures.validate(document(inputs: count, layout: json))).map(\.path)
    }

    private func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> PixelRect {
        PixelRect(x: x, y: y, width: width, height: height)
    }

    /// The follower's change at this frame; a test failure when there is none.
    private func change(_ follower: inout LayoutFollower, hasVideo: Set<Int>, audioOnly: Set<Int>, levels: [Int: Double],
                        at time: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> LayoutFollower.Change {
        let change = follower.follow(hasVideo: hasVideo, audioOnly: audioOnly, levels: levels, at: time)
        return try #require(change, sourceLocation: sourceLocation)
    }

    /// Input index → rectangle of its template slot.
    private func slots(_ layout: ResolvedLayout) -> [Int: PixelRect] {
        var result: [Int: PixelRect] = [:]
        for region in layout.regions {
            if case .input(let index) = region.content, case .templateSlot = region.origin { result[index] = region.rect }
        }
        return result
    }

    @Test func oldDocumentsStayStatic() throws {
        let grid = try layout(#"{"template": "grid"}"#)
        #expect(grid.flow == nil)
        #expect(slots(grid).count == 3)
        #expect(LayoutFollower(grid).isFollowing == false)
    }

    @Test func fillPresentPlacesOnlyInputsWithVideo() throws {
        let resolved = try layout(#"{"template": "grid", "fill": "present", "regions": [{"image": "logo.png", "x": 0, "y": 0, "width": 100, "height": 100, "zOrder": 5}]}"#)
        // Resolved with everyone placed (what a preview shows).
        #expect(slots(resolved) == [0: rect(0, 0, 640, 360), 1: rect(640, 0, 640, 360), 2: rect(0, 360, 640, 360)])
        var follower = LayoutFollower(resolved)
        #expect(follower.isFollowing)
        // Nobody yet: only the logo.
        let empty = try change(&follower, hasVideo: [], audioOnly: [], levels: [:], at: 0)
        #expect(slots(empty.layout).isEmpty)
        #expect(empty.layout.regions.count == 1)
        // Each absent input stands by at the slot it would take alone.
        #expect(empty.standby.map(\.rect) == [rect(0, 0, 1280, 720), rect(0, 0, 1280, 720), rect(0, 0, 1280, 720)])
        // Three arrive: 2x2; unchanged frames return nil.
        let three = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [:], at: 33_333)
        #expect(slots(three.layout).count == 3)
        #expect(follower.follow(hasVideo: [0, 1, 2], audioOnly: [], levels: [:], at: 66_667) == nil)
        // Input 1 drops: the other two side by side, input 2 moves up into the second slot.
        let two = try change(&follower, hasVideo: [0, 2], audioOnly: [], levels: [:], at: 100_000)
        #expect(slots(two.layout) == [0: rect(0, 0, 640, 720), 2: rect(640, 0, 640, 720)])
        #expect(two.layout.regions.last?.content == .image(path: "/media/logo.png"), "the explicit region stays on top")
        // Input 1 would come back into the second slot of the 2x2.
        #expect(two.standby.map(\.content) == [.input(1)])
        #expect(two.standby.map(\.rect) == [rect(640, 0, 640, 360)])
        let back = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [:], at: 133_333)
        #expect(back.layout.regions == three.layout.regions)
    }

    @Test func audioOnlySlotsKeepAudioOnlyInputsPlaced() throws {
        var without = LayoutFollower(try layout(#"{"template": "grid", "fill": "present"}"#))
        let placedWithout = try change(&without, hasVideo: [0], audioOnly: [1], levels: [:], at: 0)
        #expect(slots(placedWithout.layout).keys.sorted() == [0])
        var with = LayoutFollower(try layout(#"{"template": "grid", "fill": "present", "audioOnlySlots": true}"#))
        let placedWith = try change(&with, hasVideo: [0], audioOnly: [1], levels: [:], at: 0)
        #expect(slots(placedWith.layout) == [0: rect(0, 0, 640, 720), 1: rect(640, 0, 640, 720)])
    }

    @Test func mainTakesTheBigPictureOfFloatAndScreenShare() throws {
        let float = try layout(#"{"template": "float", "main": "i2"}"#)
        #expect(slots(float)[2] == rect(0, 0, 1280, 720))
        #expect(slots(float)[0]?.width == 282)
        let share = try layout(#"{"template": "screen-share", "main": "i1"}"#)
        #expect(slots(share)[1] == rect(0, 0, 960, 720))
        #expect(share.regions.first { $0.content == .input(1) }?.renderMode == .fit)
    }

    @Test func mainMustNameAnInputTheTemplatePlaces() {
        #expect(issues(#"{"template": "float", "main": "nobody"}"#) == ["layout.main"])
        #expect(issues(#"{"template": "float", "main": "i0", "regions": [{"input": "i0", "x": 0, "y": 0, "width": 64, "height": 64}]}"#)
            == ["layout.main"])
        #expect(issues(#"{"template": "float", "main": 3}"#) == ["layout.main"])
    }

    @Test func flowFieldsAreValidatedWithPaths() {
        #expect(issues(#"{"template": "grid", "fill": "some"}"#) == ["layout.fill"])
        #expect(issues(#"{"template": "grid", "audioOnlySlots": "yes"}"#) == ["layout.audioOnlySlots"])
        #expect(issues(#"{"regions": [{"input": "i0", "x": 0, "y": 0, "width": 64, "height": 64}], "fill": "present"}"#)
            == ["layout.fill"])
        #expect(issues(#"{"regions": [{"input": "i0", "x": 0, "y": 0, "width": 64, "height": 64}], "main": "i0"}"#)
            == ["layout.main"])
    }

    @Test func onVideoLossIsValidatedWithItsPath() throws {
        let kept = try layout(#"{"regions": [{"input": "i0", "x": 0, "y": 0, "width": 64, "height": 64, "onVideoLoss": "lastFrame"}]}"#)
        #expect(kept.regions.map(\.onVideoLoss) == [.lastFrame])
        let plain = try layout(#"{"regions": [{"input": "i0", "x": 0, "y": 0, "width": 64, "height": 64, "onVideoLoss": "placeholder"}]}"#)
        #expect(plain.regions.map(\.onVideoLoss) == [nil])
        #expect(issues(#"{"regions": [{"input": "i0", "x": 0, "y": 0, "width": 64, "height": 64, "onVideoLoss": "freeze"}]}"#)
            == ["layout.regions[0].onVideoLoss"])
        #expect(issues(#"{"regions": [{"image": "logo.png", "x": 0, "y": 0, "width": 64, "height": 64, "onVideoLoss": "lastFrame"}]}"#)
            == ["layout.regions[0].onVideoLoss"])
    }

    @Test func theSpeakerTemplatePutsTheSpeakerInTheBigPicture() throws {
        let resolved = try layout(#"{"template": "speaker"}"#)
        #expect(slots(resolved) == [0: rect(0, 0, 1280, 540), 1: rect(384, 540, 256, 180), 2: rect(640, 540, 256, 180)])
        var follower = LayoutFollower(resolved)
        let start = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [:], at: 0)
        #expect(slots(start.layout)[0] == rect(0, 0, 1280, 540))
        #expect(start.standby.isEmpty)
        // Input 2 speaks: a challenger at once (its big size stands by), the speaker after 1.5 s.
        let challenged = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [2: 70], at: 2_000_000)
        #expect(slots(challenged.layout)[0] == rect(0, 0, 1280, 540))
        #expect(challenged.standby.map(\.content) == [.input(2)])
        #expect(challenged.standby.map(\.rect) == [rect(0, 0, 1280, 540)])
        #expect(follower.follow(hasVideo: [0, 1, 2], audioOnly: [], levels: [2: 70], at: 3_400_000) == nil)
        let switched = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [2: 70], at: 3_500_000)
        #expect(slots(switched.layout) == [2: rect(0, 0, 1280, 540), 0: rect(384, 540, 256, 180), 1: rect(640, 540, 256, 180)])
    }

    @Test func anUpdateKeepsTheSpeaker() throws {
        let resolved = try layout(#"{"template": "speaker"}"#)
        var follower = LayoutFollower(resolved)
        _ = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [2: 70], at: 2_000_000)
        _ = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [2: 70], at: 3_500_000)
        // An update removes input 0: input 2 is now index 1 and stays the speaker, at once.
        var updated = LayoutFollower(try layout(inputs: 2, #"{"template": "speaker"}"#), continuing: follower,
                                     map: [1: 0, 2: 1])
        let after = try change(&updated, hasVideo: [0, 1], audioOnly: [], levels: [:], at: 3_600_000)
        #expect(slots(after.layout)[1] == rect(0, 0, 1280, 540))
        // Without the history the first input would take the big picture.
        var fresh = LayoutFollower(try layout(inputs: 2, #"{"template": "speaker"}"#))
        #expect(slots(try change(&fresh, hasVideo: [0, 1], audioOnly: [], levels: [:], at: 3_600_000).layout)[0]
            == rect(0, 0, 1280, 540))
    }

    @Test func theSpeakerTemplateWithMainStartsOnMain() throws {
        var follower = LayoutFollower(try layout(#"{"template": "speaker", "main": "i1", "fill": "present"}"#))
        let start = try change(&follower, hasVideo: [0, 1, 2], audioOnly: [], levels: [:], at: 0)
        #expect(slots(start.layout)[1] == rect(0, 0, 1280, 540))
        // The speaker drops: the next takes the big picture at once.
        let dropped = try change(&follower, hasVideo: [0, 2], audioOnly: [], levels: [:], at: 100_000)
        #expect(slots(dropped.layout) == [0: rect(0, 0, 1280, 540), 2: rect(512, 540, 256, 180)])
    }

    @Test func resamplingKeepsColoursWhereTheyWere() {
        let image = YUVImage(width: 4, height: 2)
        image.fill(YUVColor(y: 50, u: 60, v: 70))
        for row in 0..<2 { for column in 2..<4 { image.y[row * image.lumaStride + column] = 200 } }
        let bigger = image.resampled(to: PixelSize(width: 8, height: 4))
        #expect(bigger.sample(x: 0, y: 0).y == 50)
        #expect(bigger.sample(x: 3, y: 3).y == 50)
        #expect(bigger.sample(x: 4, y: 0).y == 200)
        #expect(bigger.sample(x: 7, y: 3) == YUVColor(y: 200, u: 60, v: 70))
    }
}
