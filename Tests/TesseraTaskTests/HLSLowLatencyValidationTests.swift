import Foundation
import Testing
import TesseraTask

/// `outputs[].hls.lowLatency`, `dvrSeconds` and `viewerKey` (issue 33).
@Suite struct HLSLowLatencyValidationTests {
    static func settings(_ output: String) throws -> HLSSettings? { try HLSOutputValidationTests.settings(output) }
    static func paths(_ output: String) -> [String] { HLSOutputValidationTests.paths(output) }

    @Test func lowLatencyIsRead() throws {
        let settings = try Self.settings(#"{"url": "room.m3u8", "hls": {"lowLatency": {"partSeconds": 0.333}, "viewerKey": "abcdefgh-1234_XYZ"}}"#)
        #expect(settings?.partSeconds == 0.333 && settings?.viewerKey == "abcdefgh-1234_XYZ" && settings?.playlistType == .event)
        #expect(try Self.settings(#"{"url": "room.m3u8"}"#)?.partSeconds == nil)
    }

    @Test func partRules() {
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"lowLatency": {"partSeconds": 0.05}}}"#) == ["outputs[0].hls.lowLatency.partSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"lowLatency": {"partSeconds": 2.5}}}"#) == ["outputs[0].hls.lowLatency.partSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentSeconds": 2, "lowLatency": {"partSeconds": 1.5}}}"#)
            == ["outputs[0].hls.lowLatency.partSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentSeconds": 2, "lowLatency": {"partSeconds": 1}}}"#) == [])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"lowLatency": {}}}"#) == ["outputs[0].hls.lowLatency.partSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"lowLatency": {"partSeconds": 0.5, "x": 1}}}"#) == ["outputs[0].hls.lowLatency.x"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentFormat": "ts", "lowLatency": {"partSeconds": 0.5}}}"#)
            == ["outputs[0].hls.lowLatency"])
    }

    /// Live, where a `PATCH` could resume it: a paused LL-HLS output is refused by name, not ignored.
    @Test func aLowLatencyOutputCannotBePaused() {
        var options = TaskFixtures.options()
        options.offline = false
        func paths(_ output: String) -> [String] {
            let document = #"{"taskId": "show", "pace": "realtime", "inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": {"video": {"width": 640, "height": 360, "gopSeconds": 1}}, "outputs": [\#(output)]}"#
            return TaskFixtures.issues(TaskFixtures.validate(document, options: options)).map(\.path)
        }
        #expect(paths(#"{"url": "a.m3u8", "paused": true, "hls": {"lowLatency": {"partSeconds": 0.333}}}"#) == ["outputs[0].paused"])
        #expect(paths(#"{"url": "a.m3u8", "paused": false, "hls": {"lowLatency": {"partSeconds": 0.333}}}"#) == [])
        #expect(paths(#"{"url": "a.m3u8", "paused": true}"#) == [])
    }

    @Test func dvrWindow() throws {
        let settings = try Self.settings(#"{"url": "a.m3u8", "hls": {"dvrSeconds": 60, "segmentSeconds": 4}}"#)
        #expect(settings?.playlistType == .live && settings?.dvrSeconds == 60 && settings?.windowSegmentCount == 15)
        #expect(try Self.settings(#"{"url": "a.m3u8", "hls": {"dvrSeconds": 5, "segmentSeconds": 2}}"#)?.windowSegmentCount == 3)
        #expect(try Self.settings(#"{"url": "a.m3u8", "hls": {"playlist": "live", "windowSegments": 4}}"#)?.windowSegmentCount == 4)
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"dvrSeconds": 3, "segmentSeconds": 2}}"#) == ["outputs[0].hls.dvrSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"dvrSeconds": 60, "playlist": "event"}}"#) == ["outputs[0].hls.dvrSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"dvrSeconds": 60, "playlist": "live", "windowSegments": 4}}"#)
            == ["outputs[0].hls.dvrSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"dvrSeconds": 100000}}"#) == ["outputs[0].hls.dvrSeconds"])
    }

    @Test func viewerKeys() {
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"viewerKey": "short"}}"#) == ["outputs[0].hls.viewerKey"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"viewerKey": "has/a/slash/in/it/xx"}}"#) == ["outputs[0].hls.viewerKey"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"viewerKey": "\#(String(repeating: "k", count: 65))"}}"#)
            == ["outputs[0].hls.viewerKey"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"viewerKey": "\#(String(repeating: "k", count: 64))"}}"#) == [])
    }
}

extension HLSLowLatencyValidationTests {
    @Test func noPartsOverPUT() {
        #expect(Self.paths(#"{"url": "https://origin.example/a.m3u8", "hls": {"lowLatency": {"partSeconds": 0.5}}}"#)
            == ["outputs[0].hls.lowLatency"])
    }
}
