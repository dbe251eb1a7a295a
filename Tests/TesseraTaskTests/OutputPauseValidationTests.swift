import Foundation
import Testing
import TesseraTask

/// `outputs[].paused` (issue 23): recordings only, live only; a pause keeps the destination.
@Suite struct OutputPauseValidationTests {
    static func document(_outputs: String) -> String {
        #"{"inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": {"video": {"width": 640, "height": 360}}, "outputs": [\#(_outputs)]}"#
    }

    @Test func recordingsPauseStreamsDoNot() throws {
        let ok = TaskFixtures.validate(Self.document(_outputs: #"{"url": "a.mp4", "paused": true}, {"url": "b.m3u8", "paused": false}"#))
        let task = try #require(TaskFixtures.task(ok))
        #expect(task.outputs.map(\.paused) == [true, false])
        let refused = TaskFixtures.validate(Self.document(_outputs: #"{"url": "rtmp://127.0.0.1/live/x", "paused": true}, {"url": "c.y4m", "paused": true}, {"url": "rtp://127.0.0.1:5000", "paused": false}"#))
        #expect(TaskFixtures.issues(refused).map(\.path) == ["outputs[0].paused", "outputs[1].paused", "outputs[2].paused"])
        let offline = TaskFixtures.validate(Self.document(_outputs: #"{"url": "a.mp4", "paused": true}"#),
                                            options: TaskFixtures.options(offline: true, pace: .asap))
        #expect(TaskFixtures.issues(offline).map(\.path) == ["outputs[0].paused"])
        let relay = TaskFixtures.validate(#"{"mode": "relay", "inputs": [{"id": "a", "url": "anchor.mp4"}], "outputs": [{"url": "a.mp4", "paused": true}]}"#)
        #expect(TaskFixtures.issues(relay).map(\.path) == ["outputs[0].paused"])
    }

    @Test func pausingKeepsTheDestination() throws {
        let running = ResolvedOutput(url: "a.mp4", kind: .file(path: "/out/a.mp4", container: .mp4))
        var held = running
        held.paused = true
        #expect(held.isSameDestination(as: running) && held != running)
        let other = ResolvedOutput(url: "b.mp4", kind: .file(path: "/out/b.mp4", container: .mp4))
        #expect(!other.isSameDestination(as: running))
        // A plan stored before `paused` existed reads as not paused.
        let stored = #"{"url": "a.mp4", "kind": {"file": {"path": "/out/a.mp4", "container": "mp4"}}}"#
        let decoded = try JSONDecoder().decode(ResolvedOutput.self, from: Data(stored.utf8))
        #expect(decoded == running)
        #expect(try JSONDecoder().decode(ResolvedOutput.self, from: JSONEncoder().encode(held)) == held)
    }
}
