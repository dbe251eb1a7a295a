import Foundation
import Testing
import TesseraTask

/// `outputs[]` whose URL is `s3://BUCKET/KEY` (issue 23): spooled under the output directory and
/// uploaded; refused, naming the URL, when the node has no object store.
@Suite struct ObjectStorageOutputValidationTests {
    static func document(_ outputs: String) -> String {
        #"{"taskId": "show", "inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": {"video": {"width": 640, "height": 360, "gopSeconds": 1}}, "outputs": [\#(outputs)]}"#
    }

    static func validate(_ outputs: String, storage: Bool = true) -> Result<ResolvedTask, ValidationFailure> {
        var options = TaskFixtures.options()
        options.objectStorage = storage
        return TaskFixtures.validate(document(outputs), options: options)
    }

    @Test func aRecordingIsSpooledAndUploaded() throws {
        let task = try #require(TaskFixtures.task(Self.validate(#"{"url": "s3://rec-bucket/shows/room42.mp4"}"#)))
        let output = task.outputs[0]
        #expect(output.upload == ObjectLocation(bucket: "rec-bucket", key: "shows/room42.mp4", spoolDirectory: "/out/.tessera-spool/rec-bucket/"))
        #expect(output.kind == .file(path: "/out/.tessera-spool/rec-bucket/shows/room42.mp4", container: .mp4))
        #expect(output.upload?.key(ofSpoolPath: "/out/.tessera-spool/rec-bucket/shows/room42.1.mp4") == "shows/room42.1.mp4")
    }

    @Test func hlsIsSpooledAndUploaded() throws {
        let task = try #require(TaskFixtures.task(Self.validate(#"{"url": "s3://rec-bucket/live/room.m3u8", "hls": {"segmentSeconds": 2}}"#)))
        guard case .hls(let hls) = task.outputs[0].kind else { Issue.record("not hls"); return }
        #expect(hls.playlist == "/out/.tessera-spool/rec-bucket/live/room.m3u8" && !hls.overHTTP && hls.segmentSeconds == 2)
    }

    @Test func withoutAStoreTheURLIsNamed() {
        let result = Self.validate(#"{"url": "rtmp://cdn.example/live/key"}, {"url": "s3://rec-bucket/room42.mp4"}"#, storage: false)
        let issues = TaskFixtures.issues(result)
        #expect(issues.map(\.path) == ["outputs[1].url"])
        #expect(issues.first?.message.contains("no object storage") == true)
    }

    @Test func badBucketsKeysAndContainersAreNamed() {
        for url in ["s3://Bad_Bucket/a.mp4", "s3://ab/a.mp4", "s3://bucket", "s3://bucket/", "s3://bucket/a/../b.mp4",
                    "s3://bucket/room.mkv", "s3://bucket/room", "s3://bucket/a.mp4?x=1"] {
            #expect(TaskFixtures.issues(Self.validate(#"{"url": "\#(url)"}"#)).map(\.path) == ["outputs[0].url"], "\(url)")
        }
        #expect(TaskFixtures.issues(Self.validate(#"{"url": "s3://bucket/a.mp4", "hls": {}}"#)).map(\.path) == ["outputs[0].hls"])
    }

    /// With renditions: a recording takes one (as a file does); an HLS output is a ladder whose
    /// master playlist is the output's key, its variants' playlists spooled beside it.
    @Test func renditionsRecordOneOrALadder() throws {
        func document(_ output: String) -> String {
            #"{"taskId": "show", "inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": {"video": {"width": 640, "height": 360, "gopSeconds": 1, "renditions": [{"width": 320, "height": 180, "bitrateKbps": 300}]}}, "outputs": [\#(output)]}"#
        }
        var options = TaskFixtures.options()
        options.objectStorage = true
        let task = try #require(TaskFixtures.task(TaskFixtures.validate(document(#"{"url": "s3://rec-bucket/room42.mp4", "rendition": 1}"#),
                                                                        options: options)))
        #expect(task.outputs[0].rendition == 1 && task.outputs[0].upload?.key == "room42.mp4")
        let ladder = try #require(TaskFixtures.task(TaskFixtures.validate(document(#"{"url": "s3://rec-bucket/live/room.m3u8"}"#),
                                                                          options: options)))
        guard case .hls(let hls) = ladder.outputs[0].kind else { Issue.record("not HLS: \(ladder.outputs[0].kind)"); return }
        let location = try #require(ladder.outputs[0].upload)
        #expect(location.key(ofSpoolPath: hls.playlist) == "live/room.m3u8")
        #expect(HLSLadderPlan(hls, renditions: 2).variants.map { location.key(ofSpoolPath: $0.playlist) }
                == ["live/room_r0.m3u8", "live/room_r1.m3u8"])
    }

    @Test func theURLIsShownAsGiven() {
        #expect(URLRedaction.redact("s3://bucket/shows/room42.mp4") == "s3://bucket/shows/room42.mp4")
    }
}
