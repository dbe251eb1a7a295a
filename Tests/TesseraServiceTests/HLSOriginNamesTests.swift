import Foundation
import Testing
import TesseraHLS
import TesseraService
import TesseraTask

/// Which files the origin serves under an output's viewer key: exactly the names that output
/// writes (playlists, init sections, segments, parts, a ladder's renditions, thumbnails), never
/// another output's of the same folder whose stem starts with this one's.
@Suite struct HLSOriginNamesTests {
    static func output(_ playlist: String, renditions: Int = 0, thumbnails: Bool = false, key: String = "k") -> HLSOriginOutput {
        HLSOriginOutput(url: playlist, playlistPath: "/out/live/" + playlist, viewerKey: key, renditions: renditions,
                        thumbnails: thumbnails)
    }

    static func classify(_ name: String, _ output: HLSOriginOutput, among outputs: [HLSOriginOutput]? = nil) -> HLSOriginFile? {
        HLSOriginFile.classify(name, of: output, among: outputs ?? [output])
    }

    /// The names as the writers make them (`LLHLSMediaPlaylist`, `ThumbnailPlan`), so that a
    /// writer naming its files otherwise fails here rather than in front of a viewer.
    @Test func whatTheWritersNameIsServed() throws {
        let room = Self.output("room.m3u8", thumbnails: true)
        let plan = ThumbnailPlan(settings: ThumbnailSettings(intervalSeconds: 2, width: 320, height: 180, columns: 5, rows: 5),
                                 stem: "/out/live/room", fps: 30)
        let names = [LLHLSMediaPlaylist.segmentName("room", sequence: 7), LLHLSMediaPlaylist.segmentName("room", sequence: 123_456),
                     LLHLSMediaPlaylist.partName("room", sequence: 7, part: 2)]
            + [plan.thumbnailPath(0), plan.thumbnailPath(99_999), plan.spritePath(0), plan.latestPath, plan.trackPath]
                .map { ($0 as NSString).lastPathComponent }
        for name in names { #expect(Self.classify(name, room) != nil, "\(name)") }
        let ladder = Self.output("room.m3u8", renditions: 2)
        #expect(Self.classify(LLHLSMediaPlaylist.partName("room_r1", sequence: 3, part: 0), ladder)?.mediaPlaylistName == "room_r1.m3u8")
    }

    @Test func theOutputsOwnFilesAreServedWithTheirTypeAndCaching() throws {
        let room = Self.output("room.m3u8", thumbnails: true)
        let cases: [(String, HLSOriginFile.Kind, String)] = [
            ("room.m3u8", .playlist, "application/vnd.apple.mpegurl"),
            ("room_delta.m3u8", .playlist, "application/vnd.apple.mpegurl"),
            ("room_00012.m4s", .immutable, "video/iso.segment"),
            ("room_00012.3.m4s", .immutable, "video/iso.segment"),
            ("room_123456.12.m4s", .immutable, "video/iso.segment"),
            ("room_init.mp4", .immutable, "video/mp4"),
            ("room_init_3.mp4", .immutable, "video/mp4"),
            ("room_00003.ts", .immutable, "video/mp2t"),
            ("room_thumb_00001.jpg", .immutable, "image/jpeg"),
            ("room_thumb_latest.jpg", .changing, "image/jpeg"),
            ("room_sprite_00001.jpg", .changing, "image/jpeg"),
            ("room_thumbnails.vtt", .changing, "text/vtt; charset=utf-8"),
        ]
        for (name, kind, type) in cases {
            let file = try #require(Self.classify(name, room), "\(name)")
            #expect(file.kind == kind, "\(name)")
            #expect(file.contentType == type, "\(name)")
        }
        #expect(HLSOriginFile.cacheControl(.immutable) == "public, max-age=31536000, immutable")
        #expect(HLSOriginFile.cacheControl(.playlist) == "max-age=1")
        #expect(HLSOriginFile.cacheControl(.playlist, blocking: true, targetDuration: 2) == "max-age=12")
        #expect(HLSOriginFile.cacheControl(.changing) == "max-age=1")
    }

    @Test(arguments: ["../room.m3u8", "room.m3u8/..", "..", ".room.m3u8", "room%2F..%2Fsecret.mp4", "other.m3u8",
                      "roomx.m3u8", "room", "room_00001.exe", "room_notes.txt", "task.timeline.json", "room.mp4",
                      "room_a\\b.ts", "", "room_\u{0}.ts", "room_0001.m4s", "room_00001.m4s.tmp", "room_00001..m4s",
                      "room_00001.1.2.m4s", "room_+0001.m4s", "room_00001.x.m4s", "room_1234567890.m4s", "room_init_.mp4",
                      "room_init_x.mp4", "room_r0.m3u8", "room_r0_00001.m4s", "room_x.m3u8", "room_x_00001.m4s",
                      "room_thumb_00001.jpg", "room_thumbnails.vtt", "room_delta.ts", "ROOM.m3u8", "room_00001.M4S"])
    func namesTheOutputNeverWritesAreNotServed(name: String) {
        #expect(Self.classify(name, Self.output("room.m3u8")) == nil)
    }

    @Test func aLaddersMasterRenditionsAndTheirFilesAreTheOutputs() throws {
        let room = Self.output("room.m3u8", renditions: 3)
        #expect(try #require(Self.classify("room.m3u8", room)).kind == .playlist)
        for rendition in 0..<3 {
            #expect(Self.classify("room_r\(rendition).m3u8", room)?.kind == .playlist)
            #expect(Self.classify("room_r\(rendition)_delta.m3u8", room)?.kind == .playlist)
            #expect(Self.classify("room_r\(rendition)_init.mp4", room)?.kind == .immutable)
        }
        let part = try #require(Self.classify("room_r1_00012.3.m4s", room))
        #expect(part.position?.msn == 12 && part.position?.part == 3)
        #expect(part.mediaPlaylistName == "room_r1.m3u8")
        let segment = try #require(Self.classify("room_r2_00007.ts", room))
        #expect(segment.position?.msn == 7 && segment.position?.part == nil && segment.mediaPlaylistName == "room_r2.m3u8")
        // A ladder's media lives under its renditions' names only; no rendition past the ladder.
        for name in ["room_00012.m4s", "room_delta.m3u8", "room_init.mp4", "room_r3.m3u8", "room_r3_00001.m4s", "room_r01.m3u8"] {
            #expect(Self.classify(name, room) == nil, "\(name)")
        }
        // Eleven renditions: `room_r1` is a prefix of `room_r10`, each keeps its own.
        let big = Self.output("room.m3u8", renditions: 11)
        #expect(Self.classify("room_r10_00001.2.m4s", big)?.mediaPlaylistName == "room_r10.m3u8")
    }

    @Test func theSegmentsOfAPlainOutputNameTheirPlaylist() throws {
        let file = try #require(Self.classify("room_00007.ts", Self.output("room.m3u8")))
        #expect(file.position?.msn == 7 && file.position?.part == nil && file.mediaPlaylistName == "room.m3u8")
        #expect(Self.classify("room_init.mp4", Self.output("room.m3u8"))?.position == nil)
        #expect(HLSOriginFile.deltaName(of: "room.1.m3u8") == "room.1_delta.m3u8")
        // A restarted run's playlist moved to the next free name: its own files, not the first's.
        let moved = Self.output("room.1.m3u8")
        #expect(Self.classify("room.1_00003.2.m4s", moved)?.mediaPlaylistName == "room.1.m3u8")
        #expect(Self.classify("room_00003.2.m4s", moved) == nil)
    }

    @Test func anOutputWhoseStemStartsWithAnothersKeepsItsFilesToItself() {
        let room = Self.output("room.m3u8", thumbnails: true, key: "a")
        let roomX = Self.output("room_x.m3u8", thumbnails: true, key: "b")
        let outputs = [room, roomX]
        for name in ["room_x.m3u8", "room_x_delta.m3u8", "room_x_init.mp4", "room_x_00001.m4s", "room_x_00001.2.m4s",
                     "room_x_thumb_00001.jpg", "room_x_thumb_latest.jpg", "room_x_sprite_00001.jpg", "room_x_thumbnails.vtt"] {
            #expect(Self.classify(name, room, among: outputs) == nil, "\(name) served under room's key")
            #expect(Self.classify(name, roomX, among: outputs) != nil, "\(name) not served under room_x's key")
        }
        for name in ["room.m3u8", "room_00001.m4s", "room_thumb_latest.jpg"] {
            #expect(Self.classify(name, room, among: outputs) != nil, "\(name)")
            #expect(Self.classify(name, roomX, among: outputs) == nil, "\(name)")
        }
    }

    @Test func whereTwoOutputsWriteTheSameNameTheLongerStemOwnsIt() {
        // `room` with renditions writes `room_r1.m3u8`; so does an output named `room_r1.m3u8`.
        let ladder = Self.output("room.m3u8", renditions: 2, key: "a")
        let r1 = Self.output("room_r1.m3u8", key: "b")
        let outputs = [ladder, r1]
        for name in ["room_r1.m3u8", "room_r1_00004.m4s", "room_r1_00004.1.m4s", "room_r1_init.mp4"] {
            #expect(Self.classify(name, ladder, among: outputs) == nil, "\(name)")
            #expect(Self.classify(name, r1, among: outputs) != nil, "\(name)")
        }
        #expect(Self.classify("room_r0_00004.m4s", ladder, among: outputs) != nil)
        // Without a ladder, `room` never claims `room_r1_…`.
        let plain = Self.output("room.m3u8")
        #expect(Self.classify("room_r1_00004.m4s", plain, among: [plain]) == nil)
        // Another folder's output shares no names: both serve their own `room_x_…`.
        let elsewhere = HLSOriginOutput(url: "b/room_x.m3u8", playlistPath: "/out/b/room_x.m3u8", viewerKey: "c")
        let here = Self.output("room_x.m3u8", key: "d")
        #expect(Self.classify("room_x_00001.m4s", here, among: [here, elsewhere]) != nil)
        #expect(Self.classify("room_x_00001.m4s", elsewhere, among: [here, elsewhere]) != nil)
    }

    @Test func thumbnailsAreServedOnlyForAnOutputThatTakesThem() {
        // A file output `room.mp4` with thumbnails beside `room.m3u8` writes `room_thumb_…`: not
        // the HLS output's to serve when it takes none.
        let room = Self.output("room.m3u8")
        for name in ["room_thumb_00001.jpg", "room_thumb_latest.jpg", "room_sprite_00001.jpg", "room_thumbnails.vtt"] {
            #expect(Self.classify(name, room) == nil, "\(name)")
        }
        let withThumbnails = Self.output("room.m3u8", thumbnails: true)
        for name in ["room_thumb_latest.jpg", "room_thumbnails.vtt", "room_sprite_00002.jpg", "room_thumb_123456.jpg"] {
            #expect(Self.classify(name, withThumbnails) != nil, "\(name)")
        }
        for name in ["room_thumb_1.jpg", "room_thumb_latest.png", "room_sprite_latest.jpg", "room_r0_thumb_00001.jpg"] {
            #expect(Self.classify(name, withThumbnails) == nil, "\(name)")
        }
    }

    @Test func theRunPlanSaysWhichOutputsHaveRenditionsAndThumbnails() throws {
        let hls = ResolvedOutput(url: "live/room.m3u8", kind: .hls(HLSSettings(playlist: "/out/live/room.m3u8", overHTTP: false)),
                                 thumbnails: ThumbnailSettings(intervalSeconds: 2, width: 160, height: 90, columns: 5, rows: 5))
        let other = ResolvedOutput(url: "live/room_x.m3u8", kind: .hls(HLSSettings(playlist: "/out/live/room_x.m3u8", overHTTP: false)))
        var plan = HLSOriginTests.plan([hls, other])
        plan.video = VideoSettings(width: 640, height: 360, fps: 30, bitrateKbps: 1000, gopFrames: 30, codec: "libx264",
                                   preset: "veryfast", renditions: [Rendition(width: 320, height: 180, bitrateKbps: 300, fps: 30)])
        let document = try JSONValue.parse(Data("""
            {"outputs": [{"url": "live/room.m3u8", "hls": {"viewerKey": "key-a-0123456789abcd"}},
                         {"url": "live/room_x.m3u8", "hls": {"viewerKey": "key-b-0123456789abcd"}}]}
            """.utf8))
        let served = HLSOriginOutput.list(runPlan: plan, document: document)
        #expect(served.map(\.renditions) == [2, 2])
        #expect(served.map(\.thumbnails) == [true, false])
        #expect(HLSOriginFile.classify("room_x_r0_00001.m4s", of: served[0], among: served) == nil)
        #expect(HLSOriginFile.classify("room_x_r0_00001.m4s", of: served[1], among: served) != nil)
        #expect(HLSOriginFile.classify("room_r1_00001.m4s", of: served[0], among: served) != nil)
    }

    @Test func oneByteRangeIsServedOthersAreIgnoredAndPastTheEndIs416() {
        #expect(HLSByteRange.decide(nil, length: 100) == .whole)
        #expect(HLSByteRange.decide("bytes=0-9", length: 100) == .part(first: 0, last: 9))
        #expect(HLSByteRange.decide("bytes=90-", length: 100) == .part(first: 90, last: 99))
        #expect(HLSByteRange.decide("bytes=-10", length: 100) == .part(first: 90, last: 99))
        #expect(HLSByteRange.decide("bytes=-500", length: 100) == .part(first: 0, last: 99))
        #expect(HLSByteRange.decide("bytes=50-5000", length: 100) == .part(first: 50, last: 99))
        #expect(HLSByteRange.decide("bytes=100-", length: 100) == .unsatisfiable)
        #expect(HLSByteRange.decide("bytes=-0", length: 100) == .unsatisfiable)
        for ignored in ["bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=x-1", "bytes=99999999999999999999-", "bytes=", "bytes=-"] {
            #expect(HLSByteRange.decide(ignored, length: 100) == .whole, "\(ignored)")
        }
        #expect(HLSByteRange.part(first: 0, last: 9).contentRange(length: 100) == "bytes 0-9/100")
        #expect(HLSByteRange.unsatisfiable.contentRange(length: 100) == "bytes */100")
        #expect(HLSByteRange.whole.contentRange(length: 100) == nil)
    }
}
