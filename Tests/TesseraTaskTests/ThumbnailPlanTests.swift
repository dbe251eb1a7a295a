import Foundation
import Testing
import TesseraTask

/// `outputs[].thumbnails` (issue 33): read, validated with field paths, and planned.
@Suite struct ThumbnailPlanTests {
    static func document(_ outputs: String, encoder: String = #"{"video": {"width": 1280, "height": 720, "fps": 30}}"#) -> String {
        #"{"inputs": [{"id": "a", "url": "anchor.mp4"}], "encoder": \#(encoder), "outputs": [\#(outputs)]}"#
    }

    static func plan(interval: Double = 2, width: Int = 320, fps: Int = 30) -> ThumbnailPlan {
        ThumbnailPlan(settings: ThumbnailSettings(intervalSeconds: interval, width: width, canvasWidth: 1280, canvasHeight: 720),
                      stem: "/out/live/room", fps: fps)
    }

    @Test func resolvesOnHLSAndFiles() throws {
        let ok = TaskFixtures.validate(Self.document(#"{"url": "live/room.m3u8", "thumbnails": {"intervalSeconds": 4, "width": 160}}, {"url": "rec.mp4", "thumbnails": {}}"#))
        let task = try #require(TaskFixtures.task(ok))
        #expect(task.outputs[0].thumbnails == ThumbnailSettings(intervalSeconds: 4, width: 160, height: 90, columns: 5, rows: 5))
        #expect(task.outputs[1].thumbnails == ThumbnailSettings(intervalSeconds: 2, width: 320, height: 180, columns: 5, rows: 5))
        let plans = ThumbnailPlan.plans(for: task)
        #expect(plans.map(\.stem) == ["/out/live/room", "/out/rec"])
        #expect(ThumbnailPlan.latestThumbnailPath(of: task) == "/out/live/room_thumb_latest.jpg")
        // The plan survives the stored form.
        let stored = try JSONDecoder().decode(ResolvedOutput.self, from: JSONEncoder().encode(task.outputs[0]))
        #expect(stored == task.outputs[0])
    }

    @Test func refusesWithPaths() throws {
        let refused = TaskFixtures.validate(Self.document(#"""
            {"url": "a.m3u8", "thumbnails": {"intervalSeconds": 0.5, "width": 321}},
            {"url": "b.mp4", "thumbnails": {"width": 1920}},
            {"url": "rtmp://127.0.0.1/live/x", "thumbnails": {}},
            {"url": "c.mp4", "thumbnails": {"widht": 320}},
            {"url": "d.mp4", "thumbnails": {"intervalSeconds": 601, "width": 16}}
            """#))
        let paths = TaskFixtures.issues(refused).map(\.path)
        #expect(Set(paths) == ["outputs[0].thumbnails.intervalSeconds", "outputs[0].thumbnails.width",
                          "outputs[1].thumbnails.width", "outputs[2].thumbnails", "outputs[3].thumbnails.widht",
                          "outputs[4].thumbnails.intervalSeconds", "outputs[4].thumbnails.width"])
        let audioOnly = TaskFixtures.validate(Self.document(#"{"url": "a.m3u8", "thumbnails": {}}"#, encoder: #"{"audio": {}}"#))
        #expect(TaskFixtures.issues(audioOnly).map(\.path) == ["outputs[0].thumbnails"])
    }

    @Test func namesBesideTheOutput() {
        let plan = Self.plan()
        #expect(plan.thumbnailPath(0) == "/out/live/room_thumb_00001.jpg")
        #expect(plan.thumbnailPath(123_455) == "/out/live/room_thumb_123456.jpg")
        #expect(plan.spritePath(1) == "/out/live/room_sprite_00002.jpg")
        #expect(plan.trackPath == "/out/live/room_thumbnails.vtt")
        #expect(plan.latestPath == "/out/live/room_thumb_latest.jpg")
        #expect(plan.stemName == "room" && plan.folder == "/out/live")
        #expect(ThumbnailPlan.stem(of: .file(path: "/out/a.b/rec.mp4", container: .mp4)) == "/out/a.b/rec")
        #expect(ThumbnailPlan.stem(of: .hls(HLSSettings(playlist: "/out/x/show.m3u8", overHTTP: false))) == "/out/x/show")
        #expect(ThumbnailPlan.stem(of: .rtmp) == nil)
    }

    @Test func framesAtEachInterval() {
        let plan = Self.plan()
        #expect((0..<4).map(plan.frameIndex(ofThumbnail:)) == [0, 60, 120, 180])
        let taken = (0..<200).compactMap { frame in plan.thumbnail(atFrame: Int64(frame)).map { (frame, $0) } }
        #expect(taken.map(\.0) == [0, 60, 120, 180] && taken.map(\.1) == [0, 1, 2, 3])
        // 2.5 s at 24 fps is 60 frames; 1.3 s at 25 fps is 32.5, so the first frame at or after it.
        #expect(Self.plan(interval: 2.5, fps: 24).frameIndex(ofThumbnail: 1) == 60)
        let odd = Self.plan(interval: 1.3, fps: 25)
        #expect((0..<3).map(odd.frameIndex(ofThumbnail:)) == [0, 33, 65])
        #expect((0..<100).compactMap { odd.thumbnail(atFrame: Int64($0)) }.count == 4)
    }

    @Test func tilesFillSheetsRowByRow() {
        let plan = Self.plan()
        #expect(plan.tile(of: 0) == .init(sheet: 0, x: 0, y: 0, width: 320, height: 180))
        #expect(plan.tile(of: 6) == .init(sheet: 0, x: 320, y: 180, width: 320, height: 180))
        #expect(plan.tile(of: 24) == .init(sheet: 0, x: 1280, y: 720, width: 320, height: 180))
        #expect(plan.tile(of: 25) == .init(sheet: 1, x: 0, y: 0, width: 320, height: 180))
        #expect(plan.sheetWidth == 1600 && plan.sheetHeight == 900)
        let wide = ThumbnailSettings(intervalSeconds: 2, width: 1920, canvasWidth: 1920, canvasHeight: 1080)
        #expect(wide.columns == 1 && wide.rows == 1 && wide.height == 1080)
    }

    @Test func trackCuesOnTheOutputTimeline() {
        let plan = Self.plan()
        let track = plan.track(count: 3, durationMilliseconds: 5_200)
        #expect(track == """
            WEBVTT

            00:00:00.000 --> 00:00:02.000
            room_sprite_00001.jpg#xywh=0,0,320,180

            00:00:02.000 --> 00:00:04.000
            room_sprite_00001.jpg#xywh=320,0,320,180

            00:00:04.000 --> 00:00:05.200
            room_sprite_00001.jpg#xywh=640,0,320,180

            """)
        #expect(plan.track(count: 0) == "WEBVTT\n")
        #expect(ThumbnailPlan.timestamp(3_723_004) == "01:02:03.004")
    }
}
