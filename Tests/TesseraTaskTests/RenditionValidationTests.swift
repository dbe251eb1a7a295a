import Foundation
import Testing
import TesseraTask

/// `encoder.video.renditions` and `outputs[].rendition` (issue 23, item 2).
@Suite struct RenditionValidationTests {
    static func document(renditions: String, outputs: String, fps: Int = 30, gopSeconds: Double = 2) -> String {
        #"{"taskId": "ladder", "inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": {"video": {"width": 1280, "height": 720, "fps": \#(fps), "gopSeconds": \#(gopSeconds), "renditions": \#(renditions)}}, "outputs": \#(outputs)}"#
    }

    static let ladder = #"[{"width": 854, "height": 480, "bitrateKbps": 1200}, {"width": 640, "height": 360, "bitrateKbps": 700, "fps": 15}]"#

    static func paths(_ renditions: String, outputs: String = #"[{"url": "a.mp4"}]"#, fps: Int = 30, gopSeconds: Double = 2) -> [String] {
        TaskFixtures.issues(TaskFixtures.validate(document(renditions: renditions, outputs: outputs, fps: fps, gopSeconds: gopSeconds)))
            .map(\.path)
    }

    @Test func resolvesTheLadder() throws {
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(
            Self.document(renditions: Self.ladder, outputs: #"[{"url": "a.mp4"}, {"url": "b.flv", "rendition": 2}, {"url": "rtmp://cdn.example/live/k", "rendition": 1}]"#))))
        let video = try #require(task.video)
        #expect(video.renditions == [Rendition(width: 854, height: 480, bitrateKbps: 1200, fps: 30, frameStep: 1),
                                     Rendition(width: 640, height: 360, bitrateKbps: 700, fps: 15, frameStep: 2)])
        #expect(task.outputs.map(\.rendition) == [0, 2, 1])
        #expect(video.ladder.map(\.width) == [1280, 854, 640])
        #expect(video.ladderFrameStep == 2)
        let low = video.encoderSettings(forRendition: 2)
        #expect(low.width == 640 && low.height == 360 && low.fps == 15 && low.bitrateKbps == 700 && low.gopFrames == 30)
        #expect(low.renditions.isEmpty && low.preset == video.preset && low.profile == video.profile)
        #expect(video.encoderSettings(forRendition: 0).gopFrames == 60)
    }

    @Test func badRenditionsAreNamedByPath() {
        #expect(Self.paths(#"[{"width": 853, "height": 480, "bitrateKbps": 1200}]"#) == ["encoder.video.renditions[0].width"])
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700}, {"width": 1920, "height": 1080, "bitrateKbps": 4000}]"#)
            == ["encoder.video.renditions[1].width", "encoder.video.renditions[1].height"])
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 10}]"#) == ["encoder.video.renditions[0].bitrateKbps"])
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700, "fps": 60}]"#) == ["encoder.video.renditions[0].fps"])
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700, "fps": 20}]"#) == ["encoder.video.renditions[0].fps"])
        #expect(Self.paths(#"[{"width": 640, "height": 360}]"#) == ["encoder.video.renditions[0].bitrateKbps"])
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700, "gop": 1}]"#) == ["encoder.video.renditions[0].gop"])
        #expect(Self.paths(#"{"width": 640}"#) == ["encoder.video.renditions"])
        let five = "[" + Array(repeating: #"{"width": 640, "height": 360, "bitrateKbps": 700}"#, count: 5).joined(separator: ",") + "]"
        #expect(Self.paths(five) == ["encoder.video.renditions"])
    }

    /// 25 fps with 1 s GOPs: 5 fps keeps every 5th frame (5 per GOP); 12.5 would not divide.
    @Test func aLowerRateMustKeepTheKeyframes() {
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700, "fps": 5}]"#, fps: 25, gopSeconds: 1) == [])
        // 30 fps, GOP 0.5 s = 15 frames: 10 fps (every 3rd) fits, 15 fps (every 2nd) does not.
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700, "fps": 10}]"#, gopSeconds: 0.5) == [])
        #expect(Self.paths(#"[{"width": 640, "height": 360, "bitrateKbps": 700, "fps": 15}]"#, gopSeconds: 0.5)
            == ["encoder.video.renditions[0].fps"])
    }

    @Test func outputRenditionsAreChecked() {
        #expect(Self.paths(Self.ladder, outputs: #"[{"url": "a.mp4", "rendition": 3}]"#) == ["outputs[0].rendition"])
        #expect(Self.paths("[]", outputs: #"[{"url": "a.mp4", "rendition": 1}]"#) == ["outputs[0].rendition"])
        #expect(Self.paths(Self.ladder, outputs: #"[{"url": "a.mp4"}, {"url": "b.mp4", "rendition": -1}]"#) == ["outputs[1].rendition"])
        #expect(Self.paths(Self.ladder, outputs: #"[{"url": "a.m3u8", "rendition": 1}]"#) == ["outputs[0].rendition"])
        #expect(Self.paths(Self.ladder, outputs: #"[{"url": "a.y4m", "rendition": 1}]"#) == ["outputs[0].rendition"])
        #expect(Self.paths(Self.ladder, outputs: #"[{"url": "a.mp4", "rendition": "1"}]"#) == ["outputs[0].rendition"])
    }

    @Test func anRTPOutputSaysRenditionsAreNotForIt() {
        let result = TaskFixtures.validate(Self.document(renditions: Self.ladder,
                                                         outputs: #"[{"url": "rtp://127.0.0.1:5004", "rendition": 1}]"#))
        let issue = TaskFixtures.issues(result).first { $0.path == "outputs[0].rendition" }
        #expect(issue?.message.contains("rtp output") == true)
    }

    /// Plans stored before renditions existed still decode.
    @Test func olderPlansDecode() throws {
        let json = #"{"width": 640, "height": 360, "fps": 30, "bitrateKbps": 800, "gopFrames": 60, "codec": "h264", "preset": "veryfast"}"#
        let video = try JSONDecoder().decode(VideoSettings.self, from: Data(json.utf8))
        #expect(video.renditions.isEmpty && video.ladder.count == 1 && video.ladderFrameStep == 1)
        let output = try JSONDecoder().decode(ResolvedOutput.self, from: Data(#"{"url": "a.mp4", "kind": {"rtmp": {}}}"#.utf8))
        #expect(output.rendition == 0)
    }
}
