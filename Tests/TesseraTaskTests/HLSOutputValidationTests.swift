import Foundation
import Testing
import TesseraTask

/// `outputs[]` ending in `.m3u8` and their `hls` object (issue 23).
@Suite struct HLSOutputValidationTests {
    static func document(_ output: String, gopSeconds: Double = 1) -> String {
        #"{"taskId": "show", "inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": {"video": {"width": 640, "height": 360, "gopSeconds": \#(gopSeconds)}}, "outputs": [\#(output)]}"#
    }

    static func settings(_ output: String) throws -> HLSSettings? {
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document(output))))
        guard case .hls(let settings) = task.outputs[0].kind else { return nil }
        return settings
    }

    static func paths(_ output: String, gopSeconds: Double = 1) -> [String] {
        TaskFixtures.issues(TaskFixtures.validate(document(output, gopSeconds: gopSeconds))).map(\.path)
    }

    @Test func fileDefaults() throws {
        let settings = try Self.settings(#"{"url": "shows/room.m3u8"}"#)
        #expect(settings == HLSSettings(playlist: "/out/shows/room.m3u8", overHTTP: false))
        #expect(settings?.stem == "/out/shows/room" && settings?.playlistType == .event && settings?.segmentFormat == .fmp4)
    }

    @Test func originOverHTTP() throws {
        let settings = try Self.settings(#"{"url": "https://origin.example/live/room.m3u8", "hls": {"playlist": "live", "windowSegments": 4, "segmentSeconds": 4, "segmentFormat": "ts"}}"#)
        #expect(settings == HLSSettings(playlist: "https://origin.example/live/room.m3u8", overHTTP: true, segmentSeconds: 4,
                                        playlistType: .live, windowSegments: 4, segmentFormat: .ts))
    }

    @Test func segmentsStartOnKeyframes() {
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentSeconds": 3}}"#, gopSeconds: 2) == ["outputs[0].hls.segmentSeconds"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentSeconds": 4}}"#, gopSeconds: 2) == [])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentSeconds": 1.5}}"#, gopSeconds: 0.5) == [])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"segmentSeconds": 11}}"#) == ["outputs[0].hls.segmentSeconds"])
    }

    @Test func everyBadFieldIsNamed() {
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"playlist": "vod", "segmentFormat": "mp4", "extra": 1}}"#)
            == ["outputs[0].hls.extra", "outputs[0].hls.playlist", "outputs[0].hls.segmentFormat"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"windowSegments": 4}}"#) == ["outputs[0].hls.windowSegments"])
        #expect(Self.paths(#"{"url": "a.m3u8", "hls": {"playlist": "live", "windowSegments": 1}}"#) == ["outputs[0].hls.windowSegments"])
        #expect(Self.paths(#"{"url": "srt://127.0.0.1:9000/a.m3u8"}"#) == ["outputs[0].url"])
        #expect(Self.paths(#"{"url": "a.mp4", "hls": {}}"#) == ["outputs[0].hls"])
        #expect(Self.paths(#"{"url": "../a.m3u8"}"#) == ["outputs[0].url"])
    }

    @Test func onePlaylistPerOutput() {
        let document = #"{"inputs": [{"id": "a", "url": "anchor.mp4"}], "outputs": [{"url": "a.m3u8"}, {"url": "./a.m3u8"}]}"#
        #expect(TaskFixtures.issues(TaskFixtures.validate(document)).map(\.path) == ["outputs[1].url"])
    }
}
