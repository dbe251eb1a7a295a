import Testing
import TesseraHLS

/// The LL-HLS media playlist over a task's life: parts, segments, window, delta, end (issue 33).
@Suite struct LLHLSMediaPlaylistTests {
    static func configuration(window: Int? = nil, initName: String = "room_init.mp4") -> LLHLSMediaPlaylist.Configuration {
        .init(fileName: "room", segmentSeconds: 1, partMicroseconds: 300_000, windowSegments: window, initName: initName)
    }

    /// Feeds `seconds` of 30 fps video, a keyframe each second; every update in order.
    static func feed(_ playlist: inout LLHLSMediaPlaylist, seconds: Int, firstSegment: Int = 0) -> [LLHLSMediaPlaylist.Update] {
        var segmenter = LLHLSSegmenter(partMicroseconds: 300_000, segmentMicroseconds: 1_000_000, frameMicroseconds: 33_333,
                                       firstSegment: firstSegment)
        var updates: [LLHLSMediaPlaylist.Update] = []
        for index in 0..<(seconds * 30) {
            if case .cut(let part) = segmenter.frame(at: Int64(index) * 1_000_000 / 30, keyframe: index % 30 == 0) {
                updates.append(playlist.partWritten(part, programDateTimeMilliseconds: 1_700_000_000_000 + part.segmentStartMicroseconds / 1000))
            }
        }
        return updates
    }

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func headerFollowsTheSpecification() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        let update = Self.feed(&playlist, seconds: 2).last!
        let lines = Self.lines(update.playlist)
        #expect(Array(lines.prefix(8)) == [
            "#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:1",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=6,PART-HOLD-BACK=0.9,HOLD-BACK=3",
            "#EXT-X-PART-INF:PART-TARGET=0.3", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:EVENT",
            "#EXT-X-INDEPENDENT-SEGMENTS",
        ])
        #expect(lines.contains("#EXT-X-MAP:URI=\"room_init.mp4\""))
        #expect(lines.contains("#EXT-X-PART:DURATION=0.3,URI=\"room_00000.0.m4s\",INDEPENDENT=YES"))
        #expect(lines.contains("#EXT-X-PART:DURATION=0.1,URI=\"room_00000.3.m4s\""))
        #expect(lines.contains("#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:21.000Z"))
        #expect(lines.filter { $0.hasPrefix("#EXTINF:1,") }.count == 1)
        // Segment 1 is being built: its parts so far, then the hint for the next one.
        #expect(lines.last == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"room_00001.3.m4s\"")
        #expect(update.mediaSequence == 1 && update.partIndex == 2)
    }

    @Test func aCompletedSegmentIsItsParts() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        let completed = Self.feed(&playlist, seconds: 2).compactMap(\.completedSegment)
        #expect(completed.count == 1)
        #expect(completed[0].uri == "room_00000.m4s")
        #expect(completed[0].parts == (0...3).map { "room_00000.\($0).m4s" })
    }

    @Test func partsAreListedForTheLastThreeTargetDurationsOnly() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        let text = Self.feed(&playlist, seconds: 8).last!.playlist
        // Segments 0..6 complete, 7 being built (3 parts): parts of 7, 6, 5, 4 (ends within 3 s).
        #expect(!text.contains("room_00003.0.m4s") && text.contains("room_00004.0.m4s") && text.contains("room_00007.2.m4s"))
        #expect(text.contains("room_00000.m4s"))
    }

    @Test func theWindowSlidesAndDeletes() {
        var playlist = LLHLSMediaPlaylist(Self.configuration(window: 3))
        let updates = Self.feed(&playlist, seconds: 6)
        let deleted = updates.flatMap(\.deleted)
        #expect(deleted.contains("room_00000.m4s") && deleted.contains("room_00001.m4s") && !deleted.contains("room_00002.m4s"))
        #expect(deleted.contains("room_00000.0.m4s"))
        let lines = Self.lines(updates.last!.playlist)
        #expect(lines.contains("#EXT-X-MEDIA-SEQUENCE:2") && !lines.contains("#EXT-X-PLAYLIST-TYPE:EVENT"))
        #expect(lines.filter { $0.hasPrefix("#EXTINF") }.count == 3)
        #expect(lines.contains("#EXT-X-MAP:URI=\"room_init.mp4\""))
    }

    @Test func deltaSkipsOlderSegments() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        let update = Self.feed(&playlist, seconds: 10).last!
        // 9 complete segments + 3 parts (0.9 s): 9.9 s; skip those ending by 3.9 s: 0, 1, 2.
        let lines = Self.lines(update.delta)
        #expect(lines.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=3"))
        #expect(!lines.contains("room_00002.m4s") && lines.contains("room_00003.m4s"))
        #expect(lines.contains("#EXT-X-MAP:URI=\"room_init.mp4\""))
        #expect(!Self.lines(update.playlist).contains { $0.hasPrefix("#EXT-X-SKIP") })
        // Too short to skip anything: the delta is the whole playlist.
        var short = LLHLSMediaPlaylist(Self.configuration())
        let first = Self.feed(&short, seconds: 2).last!
        #expect(first.delta == first.playlist)
    }

    @Test func partFilesExpireAfterTwiceTheirListing() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        let deleted = Self.feed(&playlist, seconds: 10).flatMap(\.deleted)
        #expect(deleted.contains("room_00000.0.m4s") && !deleted.contains("room_00000.m4s"))
        #expect(!deleted.contains("room_00004.0.m4s"))
    }

    @Test func endOfAnEventIsTheWholeVOD() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        _ = Self.feed(&playlist, seconds: 3)
        let end = playlist.end()
        let lines = Self.lines(end.playlist)
        #expect(lines.last == "#EXT-X-ENDLIST" && lines.contains("#EXT-X-PLAYLIST-TYPE:EVENT"))
        #expect(!lines.contains { $0.hasPrefix("#EXT-X-PART") || $0.hasPrefix("#EXT-X-PRELOAD-HINT") || $0.hasPrefix("#EXT-X-SERVER-CONTROL") })
        #expect(lines.filter { $0.hasPrefix("#EXTINF") }.count == 2)
        #expect(end.delta == end.playlist)
    }

    @Test func endOfAWindowIsItsLastWindow() {
        var playlist = LLHLSMediaPlaylist(Self.configuration(window: 2))
        _ = Self.feed(&playlist, seconds: 5)
        let lines = Self.lines(playlist.end().playlist)
        #expect(lines.contains("#EXT-X-MEDIA-SEQUENCE:2") && lines.last == "#EXT-X-ENDLIST")
        #expect(lines.filter { $0.hasPrefix("#EXTINF") }.count == 2)
    }

    @Test func renditionReportsFollowTheHint() {
        var playlist = LLHLSMediaPlaylist(Self.configuration())
        playlist.setRenditionReports([LLHLSRenditionReport(uri: "room_r1.m3u8", lastMediaSequence: 1, lastPart: 2)])
        let lines = Self.lines(Self.feed(&playlist, seconds: 2).last!.playlist)
        #expect(lines.last == "#EXT-X-RENDITION-REPORT:URI=\"room_r1.m3u8\",LAST-MSN=1,LAST-PART=2")
        #expect(playlist.report(uri: "room.m3u8") == LLHLSRenditionReport(uri: "room.m3u8", lastMediaSequence: 1, lastPart: 2))
    }

    @Test func aRestartContinuesAfterADiscontinuity() throws {
        var first = LLHLSMediaPlaylist(Self.configuration(window: 3))
        _ = Self.feed(&first, seconds: 5)
        let earlier = try #require(LLHLSEarlierPlaylist(first.end().playlist))
        #expect(earlier.mediaSequence == 1 && earlier.segments.map(\.sequence) == [1, 2, 3])
        #expect(earlier.segments[0].programDateTimeMilliseconds == 1_700_000_001_000)
        var second = LLHLSMediaPlaylist(Self.configuration(window: 3, initName: "room_init_1.mp4"), earlier: earlier)
        #expect(second.firstSequence == 4)
        let updates = Self.feed(&second, seconds: 4, firstSegment: second.firstSequence)
        let lines = Self.lines(updates[0].playlist)
        let discontinuity = try #require(lines.firstIndex(of: "#EXT-X-DISCONTINUITY"))
        #expect(lines[discontinuity + 1] == "#EXT-X-MAP:URI=\"room_init_1.mp4\"")
        #expect(!updates.flatMap(\.deleted).contains("room_00004.m4s"))
        // The window moved past the first run: its init goes, the discontinuity is counted.
        let last = Self.lines(updates.last!.playlist)
        #expect(last.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1") && !last.contains("#EXT-X-DISCONTINUITY"))
        #expect(updates.flatMap(\.deleted).contains("room_init.mp4"))
    }

    @Test func noEarlierSegmentsIsAFirstRun() {
        #expect(LLHLSEarlierPlaylist("#EXTM3U\n#EXT-X-VERSION:9\n") == nil)
    }
}

extension LLHLSMediaPlaylistTests {
    /// An `s3://` output's playlist: uploaded without its parts, so it names segments only.
    @Test func anUploadedPlaylistListsSegmentsOnly() {
        var configuration = Self.configuration()
        configuration.listsParts = false
        var playlist = LLHLSMediaPlaylist(configuration)
        let text = Self.feed(&playlist, seconds: 3).last!.playlist
        #expect(!text.contains("#EXT-X-PART") && !text.contains("PRELOAD-HINT") && !text.contains("SERVER-CONTROL"))
        #expect(text.contains("room_00001.m4s") && !text.contains("#EXT-X-ENDLIST"))
    }
}
